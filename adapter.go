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
// request. The rest of the chain runs on a Context of its own, with the
// request and the writer mw passed on, the same route and the same params;
// that Context goes back to the router's pool when the rest of the chain
// returns, not before. So middleware that runs its next handler on another
// goroutine and may return before it ends, as [http.TimeoutHandler] does,
// is safe: the abandoned handler keeps a Context that no other request
// gets until it returns. (Its writes then go to the writer mw gave it, which
// for TimeoutHandler refuses them.)
//
// An error the rest of the chain returns is answered inside mw, by the
// Router's ErrorHandler, so mw sees the status and body it would see from
// any http.Handler (a logger logs the 404, a compressor compresses the error
// page); the wrapped middleware then returns nil. If mw answers by itself
// without calling the next handler (a CORS preflight, say), the chain
// stops there.
//
// mw must pass on a request whose context is derived from the one it
// received (r.WithContext(ctx) with ctx made from r.Context() is fine): the
// next handler finds the Context through it, and panics if it cannot.
//
// Cost: 2 allocations per request, 344 bytes on amd64 (the context that
// carries the Context and the request copy that holds it), plus whatever mw
// allocates and 2 more for each further wrapped middleware in the chain.
// Native middleware costs none. BenchmarkWrapMiddleware measures it.
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
			h.ServeHTTP(c.Writer, c.Request.WithContext(&adapterContext{Context: c.Request.Context(), c: c}))
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
	c *Context // NOTE: read only; the rest of the chain runs on a child
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

// ServeHTTP finds the request's Context and runs the rest of the chain on
// a child of it that answers through w and r, answering its error with the
// Router's ErrorHandler. The child is the caller's until the chain returns:
// this may run on a goroutine of mw's own, after mw itself has returned.
func (a adaptedNext) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ac, _ := r.Context().Value(adapterKey{}).(*adapterContext)
	if ac == nil {
		panic("waltz: middleware given to WrapMiddleware passed on a request whose context " +
			"does not derive from the one it received; derive it with r.WithContext(ctx) from r.Context()")
	}
	c := ac.c.child(w, r)
	if err := a.next(c); err != nil {
		c.answer(err)
	}
	abort := c.abort
	c.free()
	if abort {
		panic(http.ErrAbortHandler)
	}
}
