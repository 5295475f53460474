package waltz

import "fmt"

// HandlerFunc handles a request. A non-nil error goes to the router's
// ErrorHandler, which answers the client (see [DefaultErrorHandler]).
type HandlerFunc func(c *Context) error

// Middleware wraps a handler: it receives the next handler and returns one
// that may act before and after calling it, see the error it returns, or not
// call it at all. Chains are composed once, when a route is registered, so a
// middleware costs no allocation per request unless it makes one itself.
//
// A returned error is rendered by the router's ErrorHandler after the whole
// chain has returned, so while a middleware runs, c.Response().Status() does
// not yet show it: a middleware that reports status should take it from the
// error (an [*HTTPError]'s Code, else 500), as the bundled Logger does. The
// router's own 404 and 405 answers are such errors too.
//
//	func Timing(next waltz.HandlerFunc) waltz.HandlerFunc {
//		return func(c *waltz.Context) error {
//			start := time.Now()
//			err := next(c)
//			slog.Info("served", "pattern", c.Pattern(), "took", time.Since(start))
//			return err
//		}
//	}
type Middleware func(next HandlerFunc) HandlerFunc

// chain returns h inside mws, the first middleware outermost. It panics if
// a middleware returns a nil handler, which would fail on every request.
func chain(mws []Middleware, h HandlerFunc) HandlerFunc {
	for i := len(mws) - 1; i >= 0; i-- {
		if h = mws[i](h); h == nil {
			panic(fmt.Sprintf("waltz: middleware %d of %d returned a nil HandlerFunc", i+1, len(mws)))
		}
	}
	return h
}
