package waltz

import "net/http"

// The router's own answers: what it sends when no route runs for a
// request (404, 405, 501 for a method it knows nowhere, automatic
// OPTIONS, a redirect, 400 for a malformed path). Each has a handler of its own, built inside the router's
// middleware, so Router.route returns the handler of an answer as it
// returns a route's chain, and middleware sees these answers like any
// other response.

// outcome is what an answer needs from the lookup that chose it: the
// status of an automatic OPTIONS or a redirect, the Allow value of a 405 or
// an OPTIONS, a redirect's Location. The lookup sets it in one assignment
// (c.out), and a Context made for standard middleware copies it in one.
// NOTE: code is non-zero whenever anything in it is set (Context.reset
// relies on it).
type outcome struct {
	code     int
	allow    string
	accept   [len(advertised)]*accepts // for a 405 or an OPTIONS: the Accept-Query, Accept-Patch and Accept-Post of the path's routes (accept.go)
	location string
}

// answers holds the handler of each of the router's own answers, each
// inside the router's middleware.
type answers struct {
	notFound, badPath, method, unknown, options, redirect HandlerFunc
}

// answers returns the router's answers inside the router's middleware as
// it is now; Use on the router builds them again. The error is chain's,
// for a middleware that returns a nil handler.
func (r *Router) answers() (answers, error) {
	var a answers
	for _, h := range []struct {
		to  *HandlerFunc
		run HandlerFunc
	}{
		{&a.notFound, r.serveNotFound},
		{&a.badPath, serveBadPath},
		{&a.method, r.serveMethodNotAllowed},
		{&a.unknown, serveNotImplemented},
		{&a.options, serveOptions},
		{&a.redirect, serveRedirect},
	} {
		var err error
		if *h.to, err = chain(r.root.mw, h.run); err != nil {
			return answers{}, err
		}
	}
	return a, nil
}

// miss returns the handler of the router's answer for a request whose
// path, as routed, matched no route with the request's method (the walk's
// state is s). An automatic OPTIONS answers where any route matches the
// path; otherwise a redirect to a route of the request's own method
// beats a 405 from another method's route at this path, and a 404 is the
// last answer. Where the 405 would be for a method outside RFC 9110's
// (and PATCH and QUERY) that no route and no mount serves anywhere
// ("FOO", "get"), the answer is 501 Not Implemented instead (RFC 9110
// sections 9.1 and 15.6.2: the server does not recognize the method).
func (r *Router) miss(c *Context, path string, escaped bool, s *search) HandlerFunc {
	req := c.Request
	if s.misses > 0 && s.method == mOptions && r.HandleOPTIONS {
		c.out = outcome{code: http.StatusNoContent, allow: r.allowed(path, s), accept: r.accepting(path, s)}
		return r.own.options
	}
	if req.Method != http.MethodConnect {
		if loc, code := r.redirect(req, path, escaped, c.params, nil); code != 0 {
			c.out = outcome{code: code, location: loc}
			return r.own.redirect
		}
	}
	if s.misses > 0 {
		if s.method == mCustom && !r.knows(req.Method) {
			c.out = outcome{code: http.StatusNotImplemented}
			return r.own.unknown
		}
		c.out = outcome{code: http.StatusMethodNotAllowed, allow: r.allowed(path, s), accept: r.accepting(path, s)}
		return r.own.method
	}
	return r.own.notFound
}

// knows reports whether some route of r serves the method m, outside the
// standard set, or a mount serves every method.
func (r *Router) knows(m string) bool {
	for _, k := range r.methods {
		if k == m || k == methodAny {
			return true
		}
	}
	return false
}

// pastCatchAll returns the handler of a redirect for a request whose
// route e, found by the walk s, took the end of path with a catch-all, or
// nil: a trailing-slash or cleaned variant of path that matches a more
// specific route with the request's method wins over the catch-all, for
// every method alike, so a catch-all at "/*path" does not turn the
// redirects off under it (see redirect). The matched params stay as they
// are: the variants' lookups write after them.
func (r *Router) pastCatchAll(c *Context, path string, escaped bool, s *search, e *endpoint) HandlerFunc {
	req := c.Request
	if req.Method == http.MethodConnect || !r.RedirectTrailingSlash && !r.RedirectFixedPath {
		return nil
	}
	// The candidates' lookups bind params of their own while the
	// catch-all's stay in s.params: they get the Context's scratch
	// room, made once per pooled Context, so a catch-all that serves a
	// path that is not clean allocates nothing for them.
	if cap(c.scratch) < r.maxParams {
		c.scratch = make(Params, 0, r.maxParams)
	}
	loc, code := r.redirect(req, path, escaped, c.scratch[:0], e)
	if code == 0 {
		return nil
	}
	c.out = outcome{code: code, location: loc}
	return r.own.redirect
}

func (r *Router) serveNotFound(c *Context) error {
	if r.NotFound != nil {
		return r.NotFound(c)
	}
	return errNotFound
}

func serveBadPath(*Context) error { return errBadPath }

func serveNotImplemented(*Context) error { return errNotImplemented }

func (r *Router) serveMethodNotAllowed(c *Context) error {
	c.Writer.Header()["Allow"] = allowField(c.out.allow)
	advertise(c.Writer.Header(), &c.out.accept, fieldsOf405)
	if r.MethodNotAllowed != nil {
		return r.MethodNotAllowed(c)
	}
	return errMethodNotAllowed
}

func serveOptions(c *Context) error {
	if c.out.allow != "" { // none for "OPTIONS *" without automatic OPTIONS
		c.Writer.Header()["Allow"] = allowField(c.out.allow)
	}
	// What a QUERY, a PATCH or a POST here takes (RFC 10008 appendix
	// A.2, RFC 5789 section 3.1, LDP section 7.1).
	advertise(c.Writer.Header(), &c.out.accept, fieldsOfOptions)
	return c.NoContent(c.out.code)
}

func serveRedirect(c *Context) error {
	c.Writer.Header()["Location"] = []string{c.out.location}
	return c.NoContent(c.out.code)
}

// allowed returns the Allow header for path, whose lookup s matched routes
// but none with the request's method: the union of those routes' methods.
func (r *Router) allowed(path string, s *search) string {
	opt := 0
	if r.HandleOPTIONS {
		opt = 1
	}
	if s.misses == 1 {
		return s.first.allow[opt]
	}
	// Several routes match the path: walk again, collecting each of them.
	var leaves []*leaf
	all := search{method: mNone, params: make(Params, 0, r.maxParams), leaves: &leaves, escaped: s.escaped}
	r.tree.matchRoot(path, &all)
	var ms []string
	for _, l := range leaves {
		ms = l.methods(ms)
	}
	return allowHeader(ms, opt == 1)
}

// optionsStar returns the Allow value of "OPTIONS *": OPTIONS and every
// method some route of r serves, or of a Router mounted on r, or on one
// of those in turn (a chain of mounts that comes back to a router adds
// nothing). A mount of another handler serves any method and names none.
// Made on the first such request when r mounts a Router, and kept: it
// reads the mounted Routers' routes without a lock, so each of them is
// marked serving first and, as a Router that serves, refuses a route
// from then on (a route added after would race the read, and be missing
// from the value kept).
func (r *Router) optionsStar() string {
	if len(r.mounts) == 0 {
		return r.allowAll
	}
	if v := r.star.Load(); v != nil {
		return *v
	}
	var ms []string
	seen := map[*Router]bool{}
	var walk func(x *Router)
	walk = func(x *Router) {
		if seen[x] {
			return
		}
		seen[x] = true
		x.serving.Store(true) // before the read: registration refuses from now on
		ms = append(ms, x.methods...)
		for _, m := range x.mounts {
			walk(m)
		}
	}
	walk(r)
	v := allowHeader(ms, true)
	r.star.Store(&v)
	return v
}
