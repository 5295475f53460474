package waltz

import (
	"context"
	"net/http"
	"sync"

	"github.com/waltz-go/waltz/internal/site"
)

// net/http's own handlers and middleware on a waltz router: a route served
// by an http.Handler, and standard middleware in a chain.

// Handler registers the plain net/http handler h for requests with the
// given method whose path matches path, as [Group.Handle] does for a
// [HandlerFunc]. h reads the route's params with the standard
// r.PathValue(name) (a catch-all's value has no leading slash, as with
// ServeMux's {name...}), and the route's pattern, as registered, in
// r.Pattern. Both are set on the request itself, as ServeMux sets them.
// h gets c.Writer and c.Request, so middleware that replaced either is
// seen.
//
// Cost: a Handler route without params costs what a [HandlerFunc] route
// does, no allocation; one with params costs 2 allocations per request (the
// request's map of path values, which net/http makes), on these routes
// only.
//
// Handler panics with a [*RouteError] as Handle does, and on a nil h. It
// returns the route's [Registration], as Handle does.
func (g *Group) Handler(method, path string, h http.Handler) *Registration {
	var hf HandlerFunc
	if h != nil {
		hf = func(c *Context) error {
			for _, p := range c.Params() {
				c.Request.SetPathValue(p.Key, p.Value)
			}
			c.Request.Pattern = c.Pattern()
			h.ServeHTTP(c.Writer, c.Request)
			return nil
		}
	}
	at := site.PC()
	if err := g.handle(method, path, hf, at); err != nil {
		panic(err)
	}
	return &Registration{r: g.r, method: method, pattern: g.prefix + path, at: at}
}

// WrapMiddleware adapts standard net/http middleware, a
// func(http.Handler) http.Handler such as rs/cors, gorilla/handlers or
// otelhttp, into a [Middleware] that runs in a waltz chain:
//
//	r.Use(waltz.WrapMiddleware(cors.Default().Handler))
//
// mw is called once per route, when the route is registered, never per
// request. The request mw receives carries the route as a [Group.Handler]
// route's does: r.PathValue(name) gives each param's and the catch-all's
// value, percent-decoded, and r.Pattern the matched pattern ("" before
// routing, in [Router.Pre]). So middleware that loads what a param names
// (chi's article-by-id pattern) works unchanged. The rest of the chain runs on a Context of its own, with the
// request and the writer mw passed on, the same route and the same params
// (copied when mw is called); that Context goes back to the router's pool
// when the rest of the chain returns, not before. So middleware that runs its next handler on another
// goroutine and may return before it ends, as [http.TimeoutHandler] does,
// is safe: the abandoned handler keeps a Context that no other request
// gets until it returns. (Its writes then go to the writer mw gave it, which
// for TimeoutHandler refuses them.)
//
// An error the rest of the chain returns is answered inside mw, by the
// Router's ErrorHandler, so mw sees the status and body it would see from
// any http.Handler (a logger logs the 404, a compressor compresses the error
// page); the wrapped middleware then returns that error, answered already,
// so that the middleware outside sees it and a middleware.Logger there logs
// it on the request's one line (the last error answered inside, if mw ran
// the chain more than once). A Logger inside, and the error handler, do
// not log what a Logger outside will ([Context.Logged]); an error the
// chain returns after mw has returned (an abandoned run) is logged by the
// error handler, since the Logger outside has logged the request without
// it. A response the chain inside cuts is cut through mw, then by the
// chain outside once it returns, that Logger's line saying the error. If
// mw answers by itself without calling the next handler (a CORS
// preflight, say), the chain stops there.
//
// mw must pass on a request whose context is derived from the one it
// received (r.WithContext(ctx) with ctx made from r.Context() is fine): the
// next handler finds the Context through it, and panics if it cannot.
//
// Cost: 2 allocations per request (the context that carries the route and
// its params to the rest of the chain, and the request copy that holds it),
// plus 1 when the route has more than 4 params, plus whatever mw allocates;
// each wrapped middleware in a chain costs the same again. On a route with
// params, the chain's first wrapped middleware also costs the request's
// map of path values (2 allocations), which the later ones share.
// Native middleware costs none. BenchmarkWrapMiddleware measures it and
// TestWrapMiddlewareAllocs holds the counts.
//
// WrapMiddleware panics if mw is nil, and when a route is registered if mw
// returns a nil handler.
func WrapMiddleware(mw func(http.Handler) http.Handler) Middleware {
	if mw == nil {
		panic("waltz: WrapMiddleware(nil): pass a func(http.Handler) http.Handler")
	}
	return func(next HandlerFunc) HandlerFunc {
		h := mw(adaptedNext{next})
		if h == nil {
			panic("waltz: the middleware given to WrapMiddleware returned a nil http.Handler")
		}
		return func(c *Context) (err error) {
			ac := &adapterContext{Context: c.Request.Context(), router: c.router, route: c.route, out: c.out, logged: c.Logged()}
			ac.params = append(ac.inline[:0], c.Params()...)
			req := c.Request.WithContext(ac)
			setRoute(req, ac.params, c.Pattern())
			defer func() {
				ac.mu.Lock()
				ac.returned = true // from now on the Context may serve another request
				handed, cut := ac.err, ac.cut
				ac.mu.Unlock()
				if cut {
					// The chain inside cut through mw: the chain
					// outside cuts once it returns, as it would for
					// an error of its own, and logs the error first.
					switch v := recover(); v {
					case http.ErrAbortHandler:
						c.abort, c.resp.aborted = true, true
					case nil: // mw recovered it
					default:
						panic(v)
					}
				}
				if handed != nil {
					c.answered, err = handed, handed
				}
			}()
			h.ServeHTTP(c.Writer, req)
			return nil
		}
	}
}

// setRoute sets the route's params and pattern on req, as ServeMux and a
// [Group.Handler] route set them, for standard middleware that reads
// r.PathValue and r.Pattern. A param req already carries with the same
// value is left alone: the requests of one chain share their map of path
// values (Request.WithContext copies the request, not the map), so only
// the first wrapped middleware of a chain pays for it.
func setRoute(req *http.Request, ps Params, pattern string) {
	for _, p := range ps {
		if req.PathValue(p.Key) != p.Value {
			req.SetPathValue(p.Key, p.Value)
		}
	}
	req.Pattern = pattern
}

// adapterKey is the context key under which an adapterContext answers with
// itself.
type adapterKey struct{}

// adapterContext carries the Context of a request through standard
// middleware, in the request's context.Context. One type that is both the
// context and the value costs one allocation where context.WithValue would
// cost two.
type adapterContext struct {
	context.Context

	// What the rest of the chain needs of the request's Context, copied
	// when mw is called: the Context itself may serve another request by
	// the time the rest of the chain runs. NOTE: never written after that.
	router *Router
	route  *endpoint
	params Params
	inline [4]Param // params' storage for up to 4 params

	out outcome // what the router's own answer needs, when no route matched

	logged bool // the chain outside logs the request (Context.Logged)

	// returned: the middleware's ServeHTTP has returned, so the chain
	// outside went on and its Response may serve another request: a
	// chain inside that ends later (a middleware that calls next on
	// another goroutine, late) must not read or mark it. Under mu, which
	// the chain inside holds while it does.
	//
	// err: the last error the chain inside answered while the chain
	// outside waited (claim), which that chain returns as answered; cut:
	// the chain inside panicked to cut the response through mw while it
	// waited, which the chain outside turns back into its own abort.
	// Under mu too.
	mu       sync.Mutex
	returned bool
	err      error
	cut      bool
}

// Value returns the adapterContext itself for adapterKey and defers every
// other key to the parent context.
func (ac *adapterContext) Value(key any) any {
	if _, ok := key.(adapterKey); ok {
		return ac
	}
	return ac.Context.Value(key)
}

// adaptedNext is the http.Handler that standard middleware receives as its
// next handler: it runs the rest of the waltz chain.
type adaptedNext struct{ next HandlerFunc }

// ServeHTTP finds what the request's Context passed on and runs the rest of
// the chain on a Context of its own that answers through w and r,
// answering its error with the Router's ErrorHandler. That Context is this
// call's until the chain returns: it may run on a goroutine of mw's own,
// after mw itself has returned, or more than once.
func (a adaptedNext) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ac, _ := r.Context().Value(adapterKey{}).(*adapterContext)
	if ac == nil {
		panic("waltz: middleware given to WrapMiddleware passed on a request whose context " +
			"does not derive from the one it received; derive it with r.WithContext(ctx) from r.Context()")
	}
	c := ac.child(w, r)
	if err := a.next(c); err != nil {
		c.answer(err) // handed out to the chain outside by claim
	}
	abort, whole, stream := c.abort, c.resp.isWhole(), c.resp.wholeAt < 0
	c.free()
	ac.mu.Lock()
	outside := !ac.returned
	if outside && whole {
		// A whole answer from the chain inside is one for the chain
		// outside too: an error there is only logged.
		if r := bottom(w); r != nil {
			r.answered(true)
			if stream {
				r.wholeAt = -1
			}
		}
	}
	// Late, nothing can tell what went out: cut.
	cut := abort && (!outside || !unsent(w))
	if cut && outside {
		ac.cut = true
	}
	ac.mu.Unlock()
	if cut {
		panic(http.ErrAbortHandler)
	}
}

// bottom returns the Response at the bottom of w's writers, found through
// their Unwrap methods, or nil when a writer on the way has none.
func bottom(w http.ResponseWriter) *Response {
	for w != nil {
		if r, ok := w.(*Response); ok {
			return r
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// unsent reports whether nothing written to w went out, so that a child
// chain's abort need not cut the response: a writer between the child
// and the Response beneath dropped it all (Timeout's, after its deadline),
// and the middleware outside still answers. It is true when the Response
// at the bottom of w's writers, found through their Unwrap methods, has
// sent no status, holds none and was not hijacked; false when a writer on
// the way has no Unwrap, which hides what went out.
func unsent(w http.ResponseWriter) bool {
	r := bottom(w)
	return r != nil && !r.wrote && !r.held && !r.hijacked
}

// child returns a Context for running the rest of a chain with w and req:
// the route and params ac carries, its own response recorder. The caller
// frees it when that run ends.
func (ac *adapterContext) child(w http.ResponseWriter, req *http.Request) *Context {
	var c *Context
	if r := ac.router; r != nil {
		c, _ = r.pool.Get().(*Context)
	} else {
		c = newContext(nil)
	}
	c.reset(w, req)
	c.ac, c.outerLogs = ac, ac.logged
	c.params, c.keyed = append(c.params, ac.params...), true
	c.route = ac.route
	c.out = ac.out
	return c
}

// handOut hands err, which c is about to answer, to the nearest wrapped
// middleware outside c's chain, through the mounts on the way (outside),
// before c's error handler decides whether to log it (Logged): see claim.
// A mount's own chain returns the error after c's Router returns
// (handBack), never later, so it takes nothing now.
func (c *Context) handOut(err error) {
	for x := c; x != nil; x = x.outside() {
		if x.ac != nil {
			x.ac.claim(x, err)
			return
		}
	}
}

// claim hands err, which c, a Context of the chain inside, is about to
// answer, to the chain outside, which returns it as answered so that a
// Logger there logs it: one request, one line. When the chain outside
// has returned already, and logged the request without it, c's error
// handler is to log it (outerLogs cleared), else nobody would. Both under
// mu, so that an error is either handed out or logged here, whenever the
// middleware's ServeHTTP returns.
func (ac *adapterContext) claim(c *Context, err error) {
	ac.mu.Lock()
	if ac.returned {
		c.outerLogs = false
	} else {
		ac.err = err
	}
	ac.mu.Unlock()
}
