package middleware

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// TimeoutOptions configures [Timeout].
type TimeoutOptions struct {
	// Duration is how long the handlers inside get, from when Timeout
	// starts; it must be positive.
	Duration time.Duration

	// Code is the status answered when the time runs out before anything
	// was written: 503 Service Unavailable (RFC 9110 section 15.6.4) when
	// zero. It must be 4xx or 5xx (504 fits a gateway; 408 does not: the
	// client was not slow).
	Code int

	// Message is the answer's message; the status text when empty.
	Message string
}

// Timeout returns middleware that gives the handlers inside it a deadline:
// the request's context.Context is cancelled after o.Duration, so that
// database calls, outgoing requests and anything else that takes the
// context stop. If the handlers return after the deadline with nothing
// written, the answer is o.Code (503 by default), through the router's
// error handler, as an [*waltz.HTTPError] whose Err is
// context.DeadlineExceeded. That answer keeps the response fields set
// before Timeout ran (by the middleware outside it) and drops those the
// handlers inside added for the answer they never sent, such as a
// Cache-Control that would let a shared cache keep the 503 (RFC 9111
// section 3), a Set-Cookie or a Location. From the deadline on, writes that would start
// the response are refused (they return context.DeadlineExceeded), so a
// late answer cannot race the timeout's. A response that started before
// the deadline is left alone to finish, also when a writer inside Timeout
// holds it back (middleware.ETag holding a body to tag it, Compress one to
// size it: they tell Timeout through [waltz.Hold]); but should the
// handlers then return an error while the response is held, with nothing
// sent, it is taken back (see waltz.Hold), and after the deadline the
// answer is o.Code.
//
// Unlike http.TimeoutHandler it runs the handlers on the request's own
// goroutine and buffers nothing: a handler that ignores its context runs
// to its end (the answer then waits for it), but no Context is ever used
// by two requests, and streaming and Flush work. Put it on the groups that
// need it, not on streaming routes such as server-sent events:
//
//	g := r.Group("/api", middleware.Timeout(middleware.TimeoutOptions{Duration: 5 * time.Second}))
//
// Timeout panics if o.Duration is not positive or o.Code is not 4xx or 5xx.
// Cost per request, held by a test: at most 6 allocations, those of
// context.WithTimeout and of the request copy that carries its context;
// the writer is pooled.
func Timeout(o TimeoutOptions) waltz.Middleware {
	if o.Duration <= 0 {
		panic(fmt.Sprintf("waltz: TimeoutOptions.Duration is %v: give a positive duration", o.Duration))
	}
	if o.Code == 0 {
		o.Code = http.StatusServiceUnavailable
	}
	if o.Code < 400 || o.Code > 599 {
		panic(fmt.Sprintf("waltz: TimeoutOptions.Code is %d: give a 4xx or 5xx status, such as 503", o.Code))
	}
	return api.Responds(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			ctx, cancel := context.WithTimeout(c.Request.Context(), o.Duration)
			defer cancel()
			// The request with the deadline is the handlers' inside; the
			// middleware outside gets its own back, whose context the
			// deferred cancel does not end (a Logger outside would take a
			// cancelled one for a client that left).
			req := c.Request
			defer func() { c.Request = req }()
			c.Request = c.Request.WithContext(ctx)
			tw := timeoutWriters.Get().(*timeoutWriter)
			tw.w, tw.ctx, tw.started = c.Writer, ctx, false
			h := c.Writer.Header()
			for k := range h {
				tw.outer = append(tw.outer, k)
			}
			c.Writer = tw
			defer func() {
				c.Writer = tw.w
				clear(tw.outer)
				*tw = timeoutWriter{outer: tw.outer[:0]}
				timeoutWriters.Put(tw)
			}()
			err := next(c)
			if ctx.Err() == context.DeadlineExceeded && !tw.started && !c.Response().Started() {
				tw.dropInner(h)
				return &waltz.HTTPError{Code: o.Code, Message: o.Message, Err: context.DeadlineExceeded}
			}
			return err
		}
	}, o.Code)
}

var timeoutWriters = sync.Pool{New: func() any { return &timeoutWriter{outer: make([]string, 0, 16)} }}

// timeoutWriter passes writes on until its context's deadline; from then
// on it refuses those that would start the response.
type timeoutWriter struct {
	w       http.ResponseWriter
	ctx     context.Context
	started bool     // a status went through before the deadline
	outer   []string // the response's field names when Timeout began
}

// dropInner deletes from h the fields the handlers inside Timeout added,
// those not in tw.outer, when Timeout answers instead of them: they
// describe an answer that never went out (a Cache-Control that would let
// a shared cache keep the 503, RFC 9111 section 3; a Set-Cookie; a
// Location). The fields set outside Timeout stay.
func (tw *timeoutWriter) dropInner(h http.Header) {
	for k := range h {
		if !slices.Contains(tw.outer, k) {
			delete(h, k)
		}
	}
}

// allow reports whether a write that starts or continues the response may
// go through.
func (tw *timeoutWriter) allow() bool {
	if !tw.started {
		if tw.ctx.Err() != nil {
			return false
		}
		tw.started = true
	}
	return true
}

func (tw *timeoutWriter) Header() http.Header { return tw.w.Header() }

func (tw *timeoutWriter) WriteHeader(code int) {
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		tw.w.WriteHeader(code)
		return
	}
	if tw.allow() {
		tw.w.WriteHeader(code)
	}
}

func (tw *timeoutWriter) Write(b []byte) (int, error) {
	if !tw.allow() {
		return 0, context.DeadlineExceeded
	}
	return tw.w.Write(b)
}

// Flush starts the response, as Write does.
func (tw *timeoutWriter) Flush() { _ = tw.FlushError() }

// FlushError is Flush with the error of the writer beneath.
func (tw *timeoutWriter) FlushError() error {
	if !tw.allow() {
		return context.DeadlineExceeded
	}
	return http.NewResponseController(tw.w).Flush()
}

// Hijack hands the connection over, as the writer beneath does.
func (tw *timeoutWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if !tw.allow() {
		return nil, nil, context.DeadlineExceeded
	}
	return http.NewResponseController(tw.w).Hijack()
}

// Hold lets a writer above that holds a status back start the response
// (see [waltz.Hold]), as a status written through would; after the
// deadline it refuses with context.DeadlineExceeded.
func (tw *timeoutWriter) Hold() error {
	if !tw.allow() {
		return context.DeadlineExceeded
	}
	return waltz.Hold(tw.w)
}

// Unhold forgets that a status held above started the response: the
// router calls it when it answers an error instead of what was held (see
// [waltz.Hold]), so that the error's answer, or Timeout's own after the
// deadline, is judged as a response not yet started.
func (tw *timeoutWriter) Unhold() { tw.started = false }

// Unwrap returns the writer beneath, for http.ResponseController.
func (tw *timeoutWriter) Unwrap() http.ResponseWriter { return tw.w }
