package waltz

import (
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Router is an http.Handler that sends each request to the handler of the
// route its method and path match. It has every method of [Group], acting on
// its root group: prefix "" and the middleware given to [Router.Use]. Make
// one with [New]; the zero Router is not usable. Configure its fields before
// serving; registering routes or changing fields while requests are served
// is a data race.
type Router struct {
	root Group // prefix "", the middleware given to Use

	// RedirectTrailingSlash, when no route matches the path with the
	// request's method but one does with its trailing slash added or
	// removed, redirects there, even where another method's route would
	// give 405. On by default.
	RedirectTrailingSlash bool

	// RedirectFixedPath, when no route matches the path with the request's
	// method but one does at its cleaned form ("//" made "/", "." and ".."
	// segments resolved), redirects there. On by default.
	RedirectFixedPath bool

	// HandleOPTIONS answers an OPTIONS request for a path that has no OPTIONS
	// route with 204 No Content and an Allow header (RFC 9110 section 9.3.7),
	// and "OPTIONS *" with every method the router serves. On by default.
	HandleOPTIONS bool

	// NotFound, if set, answers requests that no route matches. Otherwise
	// the router returns a 404 [HTTPError] to ErrorHandler.
	NotFound HandlerFunc

	// MethodNotAllowed, if set, answers requests whose path matches routes
	// that lack the request's method; the Allow header is already set when it
	// runs. Otherwise the router returns a 405 [HTTPError] to ErrorHandler.
	MethodNotAllowed HandlerFunc

	// ErrorHandler answers every non-nil error a handler or middleware
	// returns, where it is returned: before the middleware outside it
	// resumes, so that middleware sees the error response (see
	// [Middleware]). It is called once per error, however many middleware
	// the error passes. Nil means [DefaultErrorHandler].
	ErrorHandler func(c *Context, err error)

	// Logger is where DefaultErrorHandler logs (see [Context.Logger]). Nil
	// means slog.Default().
	Logger *slog.Logger

	// MaxBodyBytes is the largest request body [Context.Bind] reads, in
	// bytes; a larger one is answered 413 Content Too Large (RFC 9110
	// section 15.5.14). New sets it to 1 MiB (1<<20); zero or negative
	// means no limit.
	MaxBodyBytes int64

	// DisallowUnknownFields makes [Context.Bind] answer 400 Bad Request when
	// a JSON object has a key that matches no field of the destination. Off
	// by default: unknown keys are ignored.
	DisallowUnknownFields bool

	tree        tree
	statics     staticIndex // the leaves of the static patterns, by the whole path; consulted before the walk
	maxParams   int
	names       map[string]*[]string    // each distinct list of param names, by the names joined with "/"; see sharedNames
	methods     []string                // every method some route answers
	allowValues map[string]*[2][]string // the leaves' Allow values, one per distinct method set
	allowMasks  map[uint16]*[2][]string // the same values by bit set of standard methods, for leaves with no others
	allowAll    [2][]string             // the Allow header for "OPTIONS *", without and with OPTIONS
	slashy      []string                // methods of routes that can match a path ending in '/'; see noteSlash
	fallback    HandlerFunc             // serveFallback inside the router's middleware
	pool        sync.Pool
}

// New returns a Router with no routes, trailing-slash and fixed-path
// redirects on, automatic OPTIONS on, and a 1 MiB MaxBodyBytes.
func New() *Router {
	r := &Router{RedirectTrailingSlash: true, RedirectFixedPath: true, HandleOPTIONS: true,
		MaxBodyBytes: defaultMaxBodyBytes, allowValues: make(map[string]*[2][]string)}
	r.root.r = r
	r.fallback = r.serveFallback
	r.pool.New = func() any { return &Context{params: make(Params, 0, r.maxParams), router: r} }
	return r
}

// Route describes one registered route.
type Route struct {
	Method  string // the HTTP method, such as "GET"; "*" for a Mount, which takes every method
	Pattern string // the pattern as registered, group prefix included
}

// Routes returns every registered route, sorted by pattern, then method.
func (r *Router) Routes() []Route {
	rs := []Route{}
	r.tree.each(0, func(e *endpoint) {
		rt := Route{Method: e.method, Pattern: e.pattern}
		if e.method == methodAny {
			rt.Method = "*"
		}
		rs = append(rs, rt)
	})
	slices.SortFunc(rs, func(a, b Route) int {
		if c := strings.Compare(a.Pattern, b.Pattern); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return rs
}

// RouteError is the value Handle and the other registering methods panic
// with when a pattern is malformed or conflicts with a registered route.
// Recover it and use errors.As to inspect it.
type RouteError struct {
	Method  string // the method being registered; "" for a group prefix
	Pattern string // the pattern being registered, group prefix included
	Where   string // file:line of the registering call
	Reason  string // what is wrong with the pattern, when it is malformed

	// For a conflict: the route already registered, and where it was.
	Existing      string
	ExistingWhere string
}

// Error names the pattern, the method and where they were registered, and
// the other route for a conflict.
func (e *RouteError) Error() string {
	if e.Existing != "" {
		return fmt.Sprintf("waltz: %s %q (at %s) conflicts with %s %q (at %s): same method and route shape",
			e.Method, e.Pattern, e.Where, e.Method, e.Existing, e.ExistingWhere)
	}
	if e.Method == "" {
		return fmt.Sprintf("waltz: pattern %q (at %s): %s", e.Pattern, e.Where, e.Reason)
	}
	return fmt.Sprintf("waltz: pattern %q (%s, at %s): %s", e.Pattern, e.Method, e.Where, e.Reason)
}

// add validates a route's pattern and, only when it is valid and conflicts
// with no registered route, inserts it and returns its record. method is a
// valid token (callers check) or methodAny.
func (r *Router) add(method, pat string, h HandlerFunc, at uintptr) (*endpoint, error) {
	p, err := parsePattern(pat)
	if err != nil {
		return nil, &RouteError{Method: method, Pattern: pat, Where: site(at), Reason: err.Error()}
	}
	if l := r.tree.find(p); l != nil {
		if e := l.get(method); e != nil {
			return nil, &RouteError{Method: method, Pattern: pat, Where: site(at), Existing: e.pattern, ExistingWhere: site(e.at)}
		}
	}
	e := &endpoint{method: method, pattern: pat, names: r.sharedNames(p.names), chain: h, at: at}
	l := r.tree.insert(p)
	l.share(e)
	l.add(e)
	r.setAllow(l)
	// The pattern that is the root's child's whole text ("/", most often)
	// is found at the walk's first node, for less than a hash and a
	// compare: the table leaves it to the walk.
	r.statics.leaveOut(r.tree.top())
	r.addStatic(p, l)
	r.maxParams = max(r.maxParams, len(p.names))
	r.addMethod(method)
	r.noteSlash(method, pat)
	return e, nil
}

// sharedNames returns the router's one copy of the list names, making it
// on first use: a route set repeats a few lists (GitHub's 203 routes have
// 24 besides the empty one), and each route holds a pointer to its list
// rather than a slice.
func (r *Router) sharedNames(names []string) *[]string {
	if len(names) == 0 {
		return noNames
	}
	key := strings.Join(names, "/")
	if l := r.names[key]; l != nil {
		return l
	}
	if r.names == nil {
		r.names = make(map[string]*[]string)
	}
	l := new([]string)
	*l = slices.Clone(names)
	r.names[key] = l
	return l
}

// addStatic records l, the leaf of p, in r.statics if p is static and l
// holds its first route.
func (r *Router) addStatic(p *pattern, l *leaf) {
	if len(p.names) == 0 && l.eps.next == nil {
		r.statics.add(p.str, l)
	}
}

// setAllow recomputes l's Allow header values. Each distinct value is made
// once and shared by every leaf that answers the same methods, which most
// leaves do ("GET, HEAD, OPTIONS"). A leaf with standard methods only finds
// its value by the bit set of its methods, without building the text.
func (r *Router) setAllow(l *leaf) {
	mask := l.mask &^ (1 << slotAny)
	if mask&(1<<slotCustom) == 0 {
		if l.allow = r.allowMasks[mask]; l.allow != nil {
			return
		}
	}
	ms := l.methods(nil)
	without := allowHeader(ms, false)
	if l.allow = r.allowValues[without[0]]; l.allow == nil {
		l.allow = &[2][]string{without, allowHeader(ms, true)}
		r.allowValues[without[0]] = l.allow
	}
	if mask&(1<<slotCustom) == 0 {
		if r.allowMasks == nil {
			r.allowMasks = make(map[uint16]*[2][]string)
		}
		r.allowMasks[mask] = l.allow
	}
}

// addMethod records that some route answers method, and recomputes the
// Allow header for "OPTIONS *" when the method is new.
func (r *Router) addMethod(method string) {
	if slices.Contains(r.methods, method) {
		return
	}
	r.methods = append(r.methods, method)
	if method == http.MethodGet {
		r.addMethod(http.MethodHead)
	}
	r.allowAll[0] = allowHeader(r.methods, false)
	r.allowAll[1] = allowHeader(r.methods, true)
}

// pkgDir is the directory of this package's source, with a trailing '/',
// to tell its frames from the caller's. Frame file names use '/' on every
// system.
var pkgDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return path.Dir(file) + "/"
}()

// callerPC returns the program counter of the first caller outside this
// package's non-test files: the user's line that registered a route, or 0
// if there is none. A route keeps that counter, not its text, and [site]
// makes it file:line only when a message needs it. It runs once per
// registered route, so it unwinds only a few frames first (the user's is
// two or three up from Handle), and remembers which counters it has found
// inside the package: the frames above a user's call are the same few for
// every route.
func callerPC() uintptr {
	var pcs [32]uintptr
	for _, depth := range [...]int{6, len(pcs)} {
		// runtime.Callers gives one counter per frame, inlined frames
		// included, so each one names a frame of its own.
		n := runtime.Callers(2, pcs[:depth])
		for _, pc := range pcs[:n] {
			if !internal(pc) {
				return pc
			}
		}
		if n < depth {
			break
		}
	}
	return 0
}

// internalPCs holds, for each counter internal has classified, whether it
// is in this package's non-test files (or in no file at all).
var internalPCs sync.Map // uintptr to bool

// internal reports whether pc, a counter from runtime.Callers, is in this
// package's non-test files, or in no known file.
func internal(pc uintptr) bool {
	if v, ok := internalPCs.Load(pc); ok {
		return v.(bool)
	}
	f := frameOf(pc)
	rest, inPkg := strings.CutPrefix(f.File, pkgDir)
	in := f.File == "" || inPkg && strings.IndexByte(rest, '/') < 0 && !strings.HasSuffix(rest, "_test.go")
	internalPCs.Store(pc, in)
	return in
}

// frameOf returns the frame of pc, a counter from runtime.Callers.
func frameOf(pc uintptr) runtime.Frame {
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	return f
}

// site returns file:line of pc, a counter from callerPC, or "unknown" for 0.
func site(pc uintptr) string {
	if pc == 0 {
		return "unknown"
	}
	f := frameOf(pc)
	return path.Base(f.File) + ":" + strconv.Itoa(f.Line)
}

// appendGrown is append for the arrays a router holds for good (the
// tree's nodes, the static table's routes): when full, it grows by an
// eighth rather than doubling, since their spare room is memory the router
// keeps, and copying their elements is cheap next to registering a route.
func appendGrown[S ~[]E, E any](s S, e E) S {
	if len(s) == cap(s) {
		grown := make(S, len(s), len(s)+len(s)/8+16)
		copy(grown, s)
		s = grown
	}
	return append(s, e)
}

// callerWhere returns file:line of the first caller outside this package's
// non-test files, for a message about the call being made.
func callerWhere() string {
	return site(callerPC())
}

// ServeHTTP routes req and runs the matched route's chain, or the router's
// own answer (404, 405, OPTIONS, redirect, 400 for a malformed path) inside
// the router's middleware. A non-nil error from either goes to ErrorHandler.
// When an error that wraps [http.ErrAbortHandler] is returned after the
// response has started, ServeHTTP panics with http.ErrAbortHandler once the
// chain has returned, which makes net/http cut the response (the client
// sees a truncated read, not a short but complete answer); the bundled
// Recoverer returns such an error for a panic after the response started.
//
// The Context goes back to the router's pool only when the chain has
// returned; standard middleware that runs the rest of the chain on another
// goroutine (http.TimeoutHandler through [WrapMiddleware]) gets a Context
// of its own for that run, which goes back only when that run ends.
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	c, _ := r.pool.Get().(*Context)
	if c == nil {
		panic("waltz: a Router must be made with waltz.New")
	}
	if cap(c.params) < r.maxParams {
		c.params = make(Params, 0, r.maxParams)
	}
	c.reset(w, req)
	if err := r.route(c)(c); err != nil {
		c.answer(err)
	}
	abort := c.abort
	c.release()
	r.pool.Put(c) // as c.free does, written out: this is every request's path
	if abort {
		// The response started and then failed (a recovered panic, say):
		// cut it, as net/http does for this panic, so the client cannot
		// take the part it got for a whole response.
		panic(http.ErrAbortHandler)
	}
}

// route looks up c's request and returns the handler to run: the matched
// route's chain, or the fallback with c.miss saying why.
func (r *Router) route(c *Context) HandlerFunc {
	req := c.Request
	path, escaped := req.URL.Path, false
	if req.URL.RawPath != "" || path == "" || path[0] != '/' {
		var ok bool
		if path, escaped, ok = r.target(c); !ok {
			return r.fallback
		}
	}
	m := methodIndex(req.Method)
	if r.statics.may(path) {
		// A static pattern is the whole path: its route for the method is
		// the walk's answer (see staticIndex). The rest (no route for the
		// method at this leaf, HEAD served by GET, a method outside the
		// standard set) is the walk's to decide.
		if l := r.statics.probe(path); l != nil && m >= 0 && l.mask&(1<<m) != 0 {
			e := l.bySlot(m)
			c.route = e
			return e.chain
		}
	}
	// Set field by field: a composite literal is built in a temporary and
	// then copied.
	var s search
	s.method, s.name, s.params = m, req.Method, c.params[:0]
	e := r.tree.matchRoot(path, &s)
	if e != nil {
		// The keys are paired with the values when a handler asks
		// (Context.Params).
		c.params, c.route = s.params, e
		if escaped {
			for i := range c.params {
				c.params[i].Value = unescapeValue(c.params[i].Value)
			}
		}
		return e.chain
	}
	// A redirect to a route of the request's own method beats a 405 from
	// another method's route at this path (issue 9).
	switch {
	case s.misses > 0 && s.method == mOptions && r.HandleOPTIONS:
		c.miss, c.allow = missOptions, r.allowed(path, &s)
	case req.Method != http.MethodConnect && r.redirect(c, path, escaped):
		c.miss = missRedirect
	case s.misses > 0:
		c.miss, c.allow = missMethod, r.allowed(path, &s)
	default:
		c.miss = missNotFound
	}
	return r.fallback
}

// target returns the path to route c's request on when it is not the plain
// case (a URL.Path starting with '/' and no RawPath), and whether it is
// escaped; ok is false when the router answers without routing, with c.miss
// saying why.
func (r *Router) target(c *Context) (path string, escaped, ok bool) {
	req := c.Request
	path, escaped = req.URL.Path, req.URL.RawPath != ""
	if escaped {
		canon, err := canonicalPath(req.URL.RawPath)
		if err != nil {
			c.miss = missBadPath
			return "", false, false
		}
		// A RawPath that no longer encodes Path (a handler in front rewrote
		// Path alone) is stale: route on Path, as URL.EscapedPath would.
		if escaped = encodes(canon, path); escaped {
			path = canon
		}
	}
	if path == "" {
		// An absolute-form request target with no path ("GET http://host")
		// asks for "/" (RFC 9110 section 4.2.3); so, here, does CONNECT's
		// authority form ("CONNECT host:443"), which has no path at all.
		path = "/"
	}
	if path[0] != '/' {
		c.miss = missBadPath
		if path == "*" && req.Method == http.MethodOptions && r.HandleOPTIONS {
			c.miss, c.allow = missOptions, r.allowAll[1]
		}
		return "", false, false
	}
	return path, escaped, true
}

// allowed returns the Allow header for path, whose lookup s matched routes
// but none with the request's method: the union of those routes' methods.
func (r *Router) allowed(path string, s *search) []string {
	opt := 0
	if r.HandleOPTIONS {
		opt = 1
	}
	if s.misses == 1 {
		return s.first.allow[opt]
	}
	// Several routes match the path: walk again, collecting each of them.
	var leaves []*leaf
	all := search{method: mNone, params: make(Params, 0, r.maxParams), leaves: &leaves}
	r.tree.matchRoot(path, &all)
	var ms []string
	for _, l := range leaves {
		ms = l.methods(ms)
	}
	return allowHeader(ms, opt == 1)
}
