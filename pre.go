package waltz

import (
	"fmt"
	"slices"

	"github.com/waltz-go/waltz/internal/site"
)

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
// own answer.
func (r *Router) routed(c *Context) error {
	// A Context that WrapMiddleware made for the rest of the chain has its
	// (empty) params keyed; the lookup's values are keyed on first use.
	c.keyed = false
	h := r.route(c)
	c.Request.Pattern = c.Pattern()
	return h(c)
}
