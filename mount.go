package waltz

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/waltz-go/waltz/internal/site"
)

// mountName is the name of the catch-all Mount registers after its prefix.
// It never shows: the route's pattern is the prefix followed by "/*"
// (mountSuffix). A prefix param by the same name is rejected.
const (
	mountName   = "waltzmount"
	mountSuffix = "/*"
)

// Mount hands every request whose path is prefix, or starts with prefix
// followed by '/', to h, whatever its method, with the prefix stripped as
// [http.StripPrefix] strips it: a mount at "/static" gives h "/css/a.css"
// for GET /static/css/a.css, and "/" for /static/. The prefix itself,
// /static, is redirected to /static/ (with RedirectTrailingSlash, the
// default), as ServeMux does for a subtree, so that relative links in what h
// serves resolve under the prefix. When h is another waltz Router and
// redirects (fixing a trailing slash, say), its Location gets the prefix
// back, found in RequestURI. h may be another Router, http.FileServerFS or
// any other http.Handler; its answers, 404s, 405s and redirects included,
// are its own: an http.ServeMux builds its redirects from the stripped path,
// so that under a mount at "/mux" its "/dir" to "/dir/" sends GET /mux/dir
// to /dir/, as behind http.StripPrefix. A handler that wants the full path,
// such as net/http/pprof's Index, belongs on [Group.Handler] instead:
//
//	r.Handler(http.MethodGet, "/debug/pprof/*name", http.HandlerFunc(pprof.Index))
//
// prefix is appended to the group's; it starts with '/' and does not end
// with one ("/static", "/debug/pprof"), or is "" to mount at the group's
// own prefix. It may hold params ("/users/:id/files"), which h reads with
// r.PathValue(name); it may not hold a catch-all.
//
// In [Context.Pattern], [Router.Routes] and r.Pattern (which h sees), a
// mount's pattern is its prefix followed by "/*": "/static/*".
//
// h gets a shallow copy of the request whose URL.Path and URL.RawPath are
// both stripped, segment by segment, so an escaped path ("%2F" in it) stays
// correctly escaped; RequestURI is left as sent. The path is not cleaned,
// as a catch-all's value is not: GET /static/a/../b and
// /static/%2E%2E/etc/passwd give h "/a/../b" and "/../etc/passwd" (the
// redirect to a cleaned path is only to a route more specific than the
// mount), where a handler behind ServeMux gets a clean path; so h must
// confine a path it maps to files, as http.FileServer and FileServer do.
//
// Routes registered for paths under prefix win over the mount for the
// methods they have (static beats catch-all); every other request under
// prefix, including OPTIONS, goes to h. The group's middleware runs around
// h.
//
// When h is a *Router (or one behind handlers that pass on the writer
// they got, or a writer that unwraps to it), an error its chain returns
// is answered by its error handler, then returned by the mount to the
// group's middleware, answered already: this router's error handler does
// not answer it again, and a middleware.Logger around the mount logs it
// on the request's one line, at the level of an error. A Logger inside
// h, and h's error handler, do not log what a Logger outside will log
// ([Context.Logged]). A response h's Router would cut (an error after it
// started) is cut by this router instead, once the middleware around the
// mount has returned, as for an error of its own route; not when nothing
// of it got past the writers around the mount (middleware.Timeout's
// drops what is written after its deadline), so that they may answer.
// The group's middleware see that error as they see their own routes':
// one that answers errors itself finds the response started. A handler
// that serves two Routers in turn under one mount (one, then another on
// a miss) is handed the first one's error as well, should the second
// succeed: give each its own mount.
//
// Cost: 2 allocations per request (the request and URL copies), plus 2
// for the path values when prefix has params.
//
// When h is a *Router, it keeps where it is mounted (this prefix after
// the group's, and after the places this router is mounted at in turn):
// a description of its routes made from it, package api's OpenAPI
// document, gives its own patterns as paths and the prefix as their
// server, the URL they are served at here; and "OPTIONS *" to this
// router lists h's methods with its own (RFC 9110 section 9.3.7), after
// which h refuses new routes, as a Router that has served a request does. A
// chain of mounts that comes back to a router on it (a mounts b, b
// mounts a) adds no place of its own. A Router behind another handler
// (http.StripPrefix, a middleware around it) is not seen so.
//
// Mount panics with a [*RouteError] on a malformed prefix, when prefix is
// already mounted, or when h is a *Router that has served a request
// already (what it served, its document, said the places it was mounted
// at then); its Method is "*", for any method.
func (g *Group) Mount(prefix string, h http.Handler) {
	if err := g.mount(prefix, h, site.PC()); err != nil {
		panic(err)
	}
}

// mount is Mount returning its error.
func (g *Group) mount(prefix string, h http.Handler, at uintptr) error {
	full := g.prefix + prefix
	fail := func(reason string) error {
		return &RouteError{Method: "*", Pattern: full, Where: site.Of(at), Reason: reason}
	}
	switch {
	case h == nil:
		return fail("nil handler")
	case prefix != "" && (prefix[0] != '/' || strings.HasSuffix(prefix, "/")):
		return fail(fmt.Sprintf("mount prefix %q must start with '/' and not end with one", prefix))
	case strings.Contains(full, "/*"):
		return fail("a mount prefix cannot hold a catch-all: the mount adds its own")
	}
	if sub, ok := h.(*Router); ok && sub.serving.Load() {
		// What it served (its OpenAPI document, made on its first
		// request) said the places it was mounted at then.
		return fail("the mounted router serves already: mount it before its first request")
	}
	rest := full + "/*" + mountName
	p, err := parsePattern(rest)
	if err != nil {
		return fail(err.Error())
	}
	// Group.handle accepts only method tokens, so a mount adds its routes
	// for any method to the router itself, inside the group's middleware.
	mh, err := chain(g.mw, mountHandler(h, strings.Count(full, "/"), p.names[:len(p.names)-1]))
	if err != nil {
		return fail(err.Error())
	}
	e, err := g.r.add(methodAny, rest, mh, at, g, nil, nil)
	if err != nil {
		return anyMethod(err)
	}
	// Show the mount as its prefix and "/*" in Pattern, Routes and logs,
	// not as the internal catch-all.
	e.pattern = full + mountSuffix
	g.seal(at)
	if sub, ok := h.(*Router); ok {
		g.r.mounts = append(g.r.mounts, sub)
		sub.mountedMu.Lock()
		sub.mounted = append(sub.mounted, mountPoint{g.r, full})
		sub.mountedMu.Unlock()
	}
	return nil
}

// mountPoint is a place a Router is mounted at: the parent router and
// the mount's prefix on it, group prefix included ("/v1", "/t/:tenant").
type mountPoint struct {
	parent *Router
	prefix string
}

// mountPoints returns a copy of the places r is mounted at.
func (r *Router) mountPoints() []mountPoint {
	r.mountedMu.Lock()
	defer r.mountedMu.Unlock()
	return slices.Clone(r.mounted)
}

// mountedAt returns the prefixes, from the outermost router's root, at
// which r is mounted as the handler of a parent's [Group.Mount]: each
// mount's prefix after each of its parent's own (a parent mounted
// nowhere adds nothing), in the order of the mounts, each once. "" is a
// mount at a root's own prefix. None when no Router mounts r; a mount
// behind another handler (http.StripPrefix, a middleware around r) is
// not seen. A chain of mounts that comes back to a router already on it
// (a router mounted, through others, in itself) gives no place: what it
// serves there is served at the chain's shorter places already, and
// following it would list the same routes under ever longer prefixes.
func (r *Router) mountedAt() []string {
	var out []string
	seen := map[string]bool{}
	r.walkMounts("", []*Router{r}, func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	})
	return out
}

// walkMounts calls yield with each place r is mounted at, followed by
// suffix, through chains of mounts that visit no router of chain (r
// and the routers mounted below it on the way here) twice.
func (r *Router) walkMounts(suffix string, chain []*Router, yield func(string)) {
	for _, mp := range r.mountPoints() {
		if slices.Contains(chain, mp.parent) {
			continue
		}
		if len(mp.parent.mountPoints()) == 0 {
			yield(mp.prefix + suffix) // a parent mounted nowhere: its root
			continue
		}
		mp.parent.walkMounts(mp.prefix+suffix, append(chain, mp.parent), yield)
	}
}

// anyMethod shows a RouteError from registering a mount with Method "*" and
// with the mount's prefix rather than the catch-all pattern it registers.
func anyMethod(err error) error {
	if re, ok := err.(*RouteError); ok && re.Method == methodAny {
		re.Method = "*"
		re.Pattern = strings.TrimSuffix(re.Pattern, "/*"+mountName)
		re.Existing = strings.TrimSuffix(re.Existing, mountSuffix)
	}
	return err
}

// mountHandler returns the HandlerFunc of a mount whose prefix has nseg
// segments and the given param names.
func mountHandler(h http.Handler, nseg int, names []string) HandlerFunc {
	return func(c *Context) error {
		req := c.Request
		u := new(url.URL)
		*u = *req.URL
		u.Path = stripSegments(u.Path, nseg)
		if u.RawPath != "" {
			stripRaw(u, nseg)
		}
		r2 := new(http.Request)
		*r2 = *req
		r2.URL = u
		r2.Pattern = c.Pattern()
		for _, name := range names {
			r2.SetPathValue(name, c.Param(name))
		}
		c.within = true
		defer func() { c.within, c.handed = false, nil }() // a panic through h too
		h.ServeHTTP(c.Writer, r2)
		return c.handed
	}
}

// outside returns the Context of the mount whose handler serves the
// Router that serves c: the Context whose Response is at the bottom of
// the writer the Router was given (found through Unwrap methods), while a
// mount's handler runs on it (within), so that it is the same request's
// and still running. Nil for a Router served at the top, behind a writer
// without Unwrap or by a route other than a mount, and for the chain
// inside a wrapped middleware, which may outlive the chain outside it and
// is linked to it by its adapterContext (ac) instead.
func (c *Context) outside() *Context {
	if c.ac != nil {
		return nil
	}
	r := bottom(c.resp.w)
	if r == nil || r.c == nil || r.c == c || !r.c.within {
		return nil
	}
	return r.c
}

// handBack hands the last error c answered (answered) to p, the Context
// of the mount outside (see outside): the mount returns it to the chain
// outside as answered already, so that a Logger there logs it on the
// request's one line (its level from the error, not the status alone)
// and the error handler outside does not answer it again. What the
// answer left p must know goes with it: a response c would cut is p's to
// cut once its chain returns (c no longer panics), unless nothing of it
// reached p's Response (unsent); and a whole answer is one for p too, so
// that an error after it outside is only logged, as [WrapMiddleware]'s
// chain does.
func (c *Context) handBack(p *Context) {
	p.handed, p.answered = c.answered, c.answered
	switch {
	case c.abort:
		c.abort = false
		// Nothing c's Router wrote reached p's Response (a writer on
		// the way dropped it: Timeout's, after its deadline): there is
		// nothing to cut, and the chain outside may still answer, as
		// in WrapMiddleware's chain (unsent).
		if !unsent(c.resp.w) {
			p.abort, p.resp.aborted = true, true
		}
	case c.resp.isWhole():
		p.resp.answered(true)
		if c.resp.wholeAt < 0 {
			p.resp.wholeAt = -1
		}
	}
}

// stripRaw sets u's RawPath and Path to RawPath less its first n segments,
// decoded for Path. RawPath is cleared when the default encoding of Path
// gives it back, as url.Parse leaves it.
func stripRaw(u *url.URL, n int) {
	raw := stripSegments(u.RawPath, n)
	p, err := url.PathUnescape(raw)
	if err != nil {
		// The router matched only a well-formed escaped path; keep the
		// stripped Path if that ever changes.
		u.RawPath = ""
		return
	}
	u.Path, u.RawPath = p, raw
	if plain := (&url.URL{Path: p}); plain.EscapedPath() == raw {
		u.RawPath = ""
	}
}

// stripSegments returns the path p, which starts with '/', without its
// first n segments: "/a/b/c" less 1 is "/b/c", "/a" and "/a/" less 1 are
// "/". Segments are counted on the path as given, so in an escaped path a
// "%2F" stays inside its segment.
func stripSegments(p string, n int) string {
	i := 0
	for ; n > 0; n-- {
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			return "/"
		}
		i += 1 + j
	}
	return p[i:]
}

// The Router's registering methods: each is the [Group] method of the same
// name on the router's root group, documented there.

// Use appends router middleware: it runs around every route registered after
// it, and around the router's own answers (404, 405, automatic OPTIONS,
// redirects). It panics once routes or groups exist; see [Group.Use].
func (r *Router) Use(mw ...Middleware) { r.root.Use(mw...) }

// Group returns a group of routes under prefix with extra middleware; see
// [Group.Group].
func (r *Router) Group(prefix string, mw ...Middleware) *Group { return r.root.Group(prefix, mw...) }

// With returns a group with no prefix and extra middleware, for routes that
// need it; see [Group.With].
func (r *Router) With(mw ...Middleware) *Group { return r.root.With(mw...) }

// Handle registers h for method and path; see [Group.Handle]. It panics with
// a [*RouteError] on a malformed or conflicting pattern.
func (r *Router) Handle(method, path string, h HandlerFunc) *Registration {
	return r.root.Handle(method, path, h)
}

// Get registers h for GET (and so HEAD) requests to path; see [Group.Handle].
func (r *Router) Get(path string, h HandlerFunc) *Registration {
	return r.root.Get(path, h)
}

// Head registers h for HEAD requests to path; see [Group.Handle].
func (r *Router) Head(path string, h HandlerFunc) *Registration {
	return r.root.Head(path, h)
}

// Post registers h for POST requests to path; see [Group.Handle].
func (r *Router) Post(path string, h HandlerFunc) *Registration {
	return r.root.Post(path, h)
}

// Put registers h for PUT requests to path; see [Group.Handle].
func (r *Router) Put(path string, h HandlerFunc) *Registration {
	return r.root.Put(path, h)
}

// Patch registers h for PATCH requests to path; see [Group.Handle].
func (r *Router) Patch(path string, h HandlerFunc) *Registration {
	return r.root.Patch(path, h)
}

// Delete registers h for DELETE requests to path; see [Group.Handle].
func (r *Router) Delete(path string, h HandlerFunc) *Registration {
	return r.root.Delete(path, h)
}

// Query registers h for QUERY requests to path (RFC 10008); see
// [Group.Query].
func (r *Router) Query(path string, h HandlerFunc) *Registration {
	return r.root.Query(path, h)
}

// Options registers h for OPTIONS requests to path, in place of the
// automatic answer; see [Group.Handle].
func (r *Router) Options(path string, h HandlerFunc) *Registration {
	return r.root.Options(path, h)
}

// Handler registers the net/http handler h for method and path; it reads
// params with r.PathValue. See [Group.Handler].
func (r *Router) Handler(method, path string, h http.Handler) *Registration {
	return r.root.Handler(method, path, h)
}

// Mount hands every request under prefix, any method, to h with the prefix
// stripped; see [Group.Mount].
func (r *Router) Mount(prefix string, h http.Handler) { r.root.Mount(prefix, h) }

// Resource registers each verb method of res for each of its paths; see
// [Group.Resource].
func (r *Router) Resource(res Resource) { r.root.Resource(res) }
