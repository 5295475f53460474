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
// An error is answered where it is returned: when next returns a non-nil
// error, the router's ErrorHandler has already written the error response
// through c.Writer, before the middleware resumes. So after next returns,
// c.Response().Status() and Size() are what the client got, error pages
// included, and a middleware that wraps the writer (to compress, say) sees
// error pages pass through it like any other response. The error is still
// returned, so middleware further out can log it; it is answered once,
// however many middleware it passes. A middleware that wants a different
// answer for an error renders it in a custom [Router.ErrorHandler], the one
// place that shapes error responses.
//
//	func Timing(next waltz.HandlerFunc) waltz.HandlerFunc {
//		return func(c *waltz.Context) error {
//			start := time.Now()
//			err := next(c)
//			slog.Info("served", "pattern", c.Pattern(),
//				"status", c.Response().Status(), "took", time.Since(start))
//			return err
//		}
//	}
//
// A middleware must call next, if at all, on the goroutine it was called
// on and before it returns, and must not keep c after it returns: the
// router reuses the Context for another request then. Work that outlives
// the request takes a [Context.Copy].
type Middleware func(next HandlerFunc) HandlerFunc

// chain returns h inside mws, the first middleware outermost. Each
// middleware's next answers the errors it returns before returning them,
// so the middleware sees the final response. It returns an error if a
// middleware returns a nil handler, which would fail on every request.
func chain(mws []Middleware, h HandlerFunc) (HandlerFunc, error) {
	for i := len(mws) - 1; i >= 0; i-- {
		if h = mws[i](answering(h)); h == nil {
			return nil, fmt.Errorf("middleware %d of %d returned a nil HandlerFunc: "+
				"a Middleware must return the handler that wraps next", i+1, len(mws))
		}
	}
	return h, nil
}

// answering returns h made to answer the error it returns, through the
// router's ErrorHandler, before returning it, and to end the event
// streams made while it ran.
func answering(h HandlerFunc) HandlerFunc {
	return func(c *Context) error {
		err := h(c)
		if c.streams != nil {
			c.endStreams() // before the middleware outside takes its writer away
		}
		if err != nil {
			c.answer(err)
		}
		return err
	}
}
