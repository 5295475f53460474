package waltz

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/waltz-go/waltz/internal/site"
)

// Router is an http.Handler that sends each request to the handler of the
// route its method and path match. It has every method of [Group], acting on
// its root group: prefix "" and the middleware given to [Router.Use]. Make
// one with [New]; the zero Router is not usable. Configure its fields and
// register its routes before serving: a route registered once the first
// request was served panics with a [*RouteError] that says so, and
// changing fields while requests are served is a data race.
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
	// and "OPTIONS *" with every method the router serves, those of the
	// Routers it mounts ([Group.Mount]) included. On by default. Off,
	// such an OPTIONS gets a 405 as any other method would, and "OPTIONS
	// *", which no route can take, 200 with no Allow: what net/http's
	// server answers when it answers it itself (Server leaves it to the
	// Router: see [Server.Run]).
	HandleOPTIONS bool

	// NotFound, if set, answers requests that no route matches. Otherwise
	// the router returns a 404 [HTTPError] to ErrorHandler.
	NotFound HandlerFunc

	// MethodNotAllowed, if set, answers requests whose path matches routes
	// that lack the request's method; the Allow header is already set when it
	// runs. Otherwise the router returns a 405 [HTTPError] to ErrorHandler.
	// A method the router knows nowhere gets 501 instead, through
	// ErrorHandler (see the package documentation, "404, 405 and
	// redirects"), not this.
	MethodNotAllowed HandlerFunc

	// ErrorHandler answers every non-nil error a handler or middleware
	// returns, where it is returned: before the middleware outside it
	// resumes, so that middleware sees the error response (see
	// [Middleware]). It is called once per error, however many middleware
	// the error passes. Nil means [DefaultErrorHandler]. To change only
	// the format of error answers, keeping its rules, set RenderError.
	ErrorHandler func(c *Context, err error)

	// RenderError writes the body of DefaultErrorHandler's answers, after
	// its rules have decided what to answer and that the response has not
	// started: e is never nil and e.Code is 400 to 599. Nil means
	// [RenderText], except on typed operations (package api), whose errors are
	// [RenderProblem]'s. Set it to RenderProblem to answer every error with
	// RFC 9457 problem details, or to a function of your own for another
	// format.
	RenderError func(c *Context, e *HTTPError)

	// Logger is where DefaultErrorHandler logs (see [Context.Logger]). Nil
	// means slog.Default().
	Logger *slog.Logger

	// MaxBodyBytes is the largest request body [Context.Bind] reads, in
	// bytes; a larger one is answered 413 Content Too Large (RFC 9110
	// section 15.5.14). New sets it to 1 MiB (1<<20); zero or negative
	// means no limit.
	MaxBodyBytes int64

	// DisallowUnknownFields makes [Context.Bind] answer 422 Unprocessable
	// Content when a JSON object has a key that matches no field of the
	// destination, letter case included (a typed operation's body too,
	// whose schema then lists no other members). Off by default: unknown
	// keys are ignored.
	DisallowUnknownFields bool

	tree        tree
	statics     staticIndex // the leaves of the static patterns, by the whole path; consulted before the walk
	maxParams   int
	infos       []*routeInfo           // every routeInfo the routes share; see Router.info
	named       map[string]*namedRoute // the named routes, by name; see Registration.Name
	methods     []string               // every method some route answers
	allowValues map[string]*[2]string  // the leaves' Allow values, one per distinct method set
	allowMasks  map[uint16]*[2]string  // the same values by bit set of standard methods, for leaves with no others
	allowAll    string                 // the Allow header for "OPTIONS *" of r's own routes; see optionsStar
	mounts      []*Router              // the Routers mounted on r (Group.Mount), whose methods "OPTIONS *" lists
	star        atomic.Pointer[string] // optionsStar's value, made on the first "OPTIONS *" when r mounts a Router
	slashy      []slashRoute           // routes that can match a path ending in '/'; see noteSlash
	own         answers                // the router's own answers, inside its middleware
	preMW       []Middleware           // the middleware given to Pre
	pre         HandlerFunc            // preMW around routed; nil when there is none
	pool        sync.Pool
	queries     map[string]*queryRoute // the QUERY routes by pattern (query.go); nil when there are none
	bodies      map[*endpoint]*accepts // the typed PATCH and POST routes' media types (accept.go); nil when there are none
	contract    any                    // what the contract (package api) keeps of the router; see internal/seam
	mountedMu   sync.Mutex             // guards mounted: a parent registers while this router may serve
	mounted     []mountPoint           // where parents mounted this router (Group.Mount); see MountedAt
	serving     atomic.Bool            // NOTE: set by the first request (or an "OPTIONS *" of a router that mounts this one); registration refuses from then on
}

// New returns a Router with no routes, trailing-slash and fixed-path
// redirects on, automatic OPTIONS on, and a 1 MiB MaxBodyBytes.
func New() *Router {
	r := &Router{RedirectTrailingSlash: true, RedirectFixedPath: true, HandleOPTIONS: true,
		MaxBodyBytes: defaultMaxBodyBytes, allowValues: make(map[string]*[2]string),
		allowAll: http.MethodOptions} // "OPTIONS *" before any route
	r.root.r = r
	r.own, _ = r.answers() // no middleware yet, so no error
	r.pool.New = func() any { return newContext(r) }
	return r
}

// ServeHTTP routes req and runs the matched route's chain, or the router's
// own answer (404, 405, OPTIONS, redirect, 400 for a malformed path) inside
// the router's middleware. A non-nil error from either goes to ErrorHandler.
//
// Before any middleware runs, ServeHTTP sets req.Pattern, on the request it
// was given, to the matched route's pattern as registered, group prefix
// included ("/users/:id"; a mount's is its prefix and "/*"), or to "" when
// no route matched, as [http.ServeMux] does. So a handler that wraps the
// router, such as otelhttp's or a metrics recorder, reads the route from
// its own request once ServeHTTP returns, whatever request the middleware
// passed on.
// When an error is returned after the response has started (a status or
// part of the body written to the Writer; a panic recovered by the
// bundled Recoverer is such an error), ServeHTTP panics with
// http.ErrAbortHandler once the chain has returned, which makes net/http
// cut the response (the client sees a truncated read, not a short but
// complete answer: net/http would otherwise end it cleanly, with a
// Content-Length of its own or a chunked end). It does not after a
// helper's whole answer (Text, JSON, Blob, NoContent, Redirect), on an
// event stream, or once the client has gone: the error is only logged.
// A response held by a middleware writer, with nothing sent, is taken
// back instead, and the error answered (see [Hold]).
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
	if !r.serving.Load() {
		r.serving.Store(true) // a load on every later request: the line is only read
	}
	// A Context pooled before a route with more params was registered
	// grows its params once, in the lookup, and keeps them.
	c.reset(w, req)
	var err error
	if r.pre == nil {
		h := r.route(c)
		// As ServeMux does, the request carries the matched route's
		// pattern, so a wrapper around the router (otelhttp, a metrics
		// handler) reads it after ServeHTTP returns; "" when none matched,
		// never the raw path, which a client chooses. A string store: no
		// allocation.
		req.Pattern = c.Pattern()
		err = h(c)
	} else {
		// Routing happens inside the Pre middleware (Router.routed).
		err = r.pre(c)
		req.Pattern = c.Pattern()
	}
	if c.streams != nil {
		c.endStreams()
	}
	if err != nil {
		c.answer(err)
	}
	if c.answered != nil {
		if p := c.outside(); p != nil {
			c.handBack(p) // the mount's chain returns it, and cuts
		}
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

// route looks up c's request and returns the handler that answers it, as
// ServeMux's findHandler does: the matched route's chain, or one of the
// router's own answers (answers.go), with what that answer needs in c.out.
// The layers it goes through, in order: the path's form (path.go), the
// static table (static.go), the tree (tree.go, which picks the method at
// a leaf in methods.go), and, when no route matched, the router's answer
// (answers.go).
func (r *Router) route(c *Context) HandlerFunc {
	req := c.Request
	path, escaped := req.URL.Path, false
	if req.URL.RawPath != "" || path == "" || path[0] != '/' {
		var h HandlerFunc
		if path, escaped, h = r.target(c); h != nil {
			return h
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
	// then copied. The name is read only for a method outside the
	// standard set.
	var s search
	s.method, s.params, s.escaped = m, c.params[:0], escaped
	if m == mCustom {
		s.name = req.Method
	}
	e := r.tree.matchRoot(path, &s)
	if e == nil {
		return r.miss(c, path, escaped, &s)
	}
	if s.tail != 0 {
		// A catch-all took the end of the path: a variant of the path that
		// a more specific route matches wins.
		if h := r.pastCatchAll(c, path, escaped, &s, e); h != nil {
			return h
		}
	}
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

// methodIndex returns m's slot, or mCustom.
func methodIndex(m string) int {
	if m == http.MethodGet {
		return mGet // most requests: one compare before the switch's search
	}
	switch m {
	case http.MethodHead:
		return mHead
	case http.MethodPost:
		return mPost
	case http.MethodPut:
		return mPut
	case http.MethodPatch:
		return mPatch
	case http.MethodDelete:
		return mDelete
	case http.MethodConnect:
		return mConnect
	case http.MethodOptions:
		return mOptions
	case http.MethodTrace:
		return mTrace
	case MethodQuery:
		return mQuery
	}
	return mCustom
}

// target returns the path to route c's request on when it is not the plain
// case (a URL.Path starting with '/' and no RawPath), and whether it is
// escaped; or, when the router answers without routing, the handler of
// that answer.
func (r *Router) target(c *Context) (path string, escaped bool, h HandlerFunc) {
	req := c.Request
	path, escaped = req.URL.Path, req.URL.RawPath != ""
	if escaped {
		canon, err := canonicalPath(req.URL.RawPath)
		if err != nil {
			return "", false, r.own.badPath
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
		if path == "*" && req.Method == http.MethodOptions {
			// The server as a whole (RFC 9110 section 9.3.7), a valid
			// target (RFC 9112 section 3.2.4) that no route can take.
			// Without automatic OPTIONS, the answer net/http's server
			// gives when it answers it itself: 200, no Allow.
			c.out = outcome{code: http.StatusOK}
			if r.HandleOPTIONS {
				c.out = outcome{code: http.StatusNoContent, allow: r.optionsStar()}
			}
			return "", false, r.own.options
		}
		return "", false, r.own.badPath
	}
	return path, escaped, nil
}

// The stage before routing: middleware that runs before the lookup, so
// that what it rewrites (the path, the method) is what gets routed.

// Pre appends middleware that runs before routing, for every request,
// outermost first, in the order given: the request it passes on is the
// one the router looks up. Middleware that rewrites what is routed belongs
// here: a format suffix taken off the path (chi's URLFormat), a method
// override for HTML forms ([middleware.MethodOverride]), a prefix strip.
// Middleware given to [Router.Use] runs after routing, inside Pre's, and
// sees the route the rewritten request reached; that is where logging,
// recovery and authentication belong, as they read [Context.Pattern].
//
//	r.Pre(middleware.MethodOverride(middleware.MethodOverrideOptions{}))
//	r.Pre(waltz.WrapMiddleware(stripFormat)) // standard middleware too
//
// Before its next handler returns, a Pre middleware sees no route:
// Context.Pattern is "" and there are no params. To rewrite the request,
// it sets c.Request (a copy: net/http's handlers must not change the
// request they are given) and calls next; a standard middleware passes
// its rewritten request on, as it would to any handler. The router's own
// answers to the rewritten request (404, 405, redirects, automatic
// OPTIONS) are what they would be had the client sent it: they run inside
// the Use middleware and are rendered by [Router.ErrorHandler] and
// [Router.RenderError]. An error a Pre middleware returns (a refused
// override, say) is answered the same way, where it is returned. A
// redirect's Location is built from the rewritten path.
//
// Cost: a router with no Pre middleware pays one nil check per request.
// Native Pre middleware costs what it allocates; a wrapped one what
// WrapMiddleware costs on a route without params (2 allocations).
//
// The request given to ServeHTTP gets the matched pattern in r.Pattern,
// for a handler that wraps the router (otelhttp), when the Pre middleware
// are native ones; behind a standard one it stays "", as it would had
// that middleware wrapped the router, and the request that was routed
// carries it instead.
//
// Pre panics if a middleware is nil or returns a nil handler, and once
// the router has served a request, as every registering method does.
func (r *Router) Pre(mw ...Middleware) {
	if i := slices.IndexFunc(mw, isNil); i >= 0 {
		panic(fmt.Sprintf("waltz: Pre (at %s): middleware %d of %d is nil", site.Here(), i+1, len(mw)))
	}
	if r.serving.Load() {
		// ServeHTTP reads r.pre without a lock.
		panic(fmt.Sprintf("waltz: Pre (at %s) after the router began serving requests: call Pre before the first request", site.Here()))
	}
	all := append(slices.Clip(r.preMW), mw...)
	h, err := chain(all, r.routed)
	if err != nil {
		panic(fmt.Sprintf("waltz: Pre (at %s): %v", site.Here(), err))
	}
	r.preMW, r.pre = all, h
}

// routed is the handler inside the Pre middleware: it routes c's request
// as the middleware left it and runs the route's chain or the router's
// own answer. A Pre middleware may call it more than once (to try
// another path when the first route wrote nothing): each call starts
// from no route and no params, as ServeHTTP's reset does, since a miss
// or a static route sets neither, and the first route's would stay (its
// pattern on a 404, its params on a static route, a QUERY route's
// Accept-Query on the refusal).
func (r *Router) routed(c *Context) error {
	// A Context that WrapMiddleware made for the rest of the chain has its
	// (empty) params keyed; the lookup's values are keyed on first use.
	c.keyed, c.route, c.params = false, nil, c.params[:0]
	h := r.route(c)
	c.Request.Pattern = c.Pattern()
	return h(c)
}

// defaultMaxBodyBytes is Bind's limit on a Context that has no Router (a
// [Context.Copy]): 1 MiB, as New sets Router.MaxBodyBytes.
const defaultMaxBodyBytes = 1 << 20

// slashRoute is a route whose pattern can match a path that ends in '/':
// it ends in '/' (but is not "/", which no toggled path can be) or in a
// catch-all.
type slashRoute struct {
	method  string
	pattern string
	prefix  string // the pattern's static text before its first param or catch-all
}

// namedRoute is what Router.URL builds a path from.
type namedRoute struct {
	method, pattern string
	at              uintptr
	segs            []string      // the pattern's segments, without their slashes: "/a/:id/" is "a", ":id", ""; a param's without its constraint
	params          []string      // the names of its params and catch-all, in order
	cons            []*constraint // by segment: a constrained param's constraint, else nil
}
