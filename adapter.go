package waltz

import (
	"context"
	"net/http"
)

// WrapMiddleware adapts standard net/http middleware, a
// func(http.Handler) http.Handler such as rs/cors, gorilla/handlers or
// otelhttp, into a [Middleware] that runs in a waltz chain:
//
//	r.Use(waltz.WrapMiddleware(cors.Default().Handler))
//
// mw is called once per route, when the route is registered, never per
// request. Inside it, the rest of the chain sees the request and the
// writer mw passed on: c.Request and c.Writer are set to them before the
// next handler runs and put back when mw returns.
//
// An error the rest of the chain returns is rendered inside mw, by the
// Router's ErrorHandler, so mw sees the status and body it would see from
// any http.Handler (a logger logs the 404, a compressor compresses the error
// page); the wrapped middleware then returns nil. If mw answers by itself
// without calling the next handler (a CORS preflight, say), the chain
// stops there.
//
// mw must call the next handler, if at all, before it returns and on the
// goroutine it was called on; http.TimeoutHandler, which runs it on another
// goroutine, cannot be wrapped. It must pass on a request whose context is
// derived from the one it received (r.WithContext(ctx) with ctx made from
// r.Context() is fine): the next handler finds the Context through it, and
// panics if it cannot.
//
// Cost: 2 allocations per request, 344 bytes on amd64 (the context that
// carries the Context and the request copy that holds it), plus whatever mw
// allocates; a second wrapped middleware in the same chain reuses them and
// adds none. Native middleware costs none. BenchmarkWrapMiddleware measures
// it.
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
		return func(c *Context) error {
			req, w := c.Request, c.Writer
			// Deferred, so that middleware outside, such as a recoverer,
			// writes through its own writer even when mw panics.
			defer func() { c.Request, c.Writer = req, w }()
			inner := req
			if ac, _ := req.Context().Value(adapterKey{}).(*adapterContext); ac == nil || ac.c != c {
				inner = req.WithContext(&adapterContext{Context: req.Context(), c: c})
			}
			h.ServeHTTP(w, inner)
			return nil
		}
	}
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
	c *Context
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

// ServeHTTP finds the request's Context, points it at r and w, and runs the
// rest of the chain, rendering its error with the Router's ErrorHandler.
func (a adaptedNext) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ac, _ := r.Context().Value(adapterKey{}).(*adapterContext)
	if ac == nil {
		panic("waltz: middleware given to WrapMiddleware passed on a request whose context " +
			"does not derive from the one it received; derive it with r.WithContext(ctx) from r.Context()")
	}
	c := ac.c
	c.Request, c.Writer = r, w
	if err := a.next(c); err != nil {
		c.handleError(err)
	}
}
