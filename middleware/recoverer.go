package middleware

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/waltz-go/waltz"
)

// Recoverer is middleware that recovers a panic in the handlers inside it
// and returns it as a [*PanicError], so that the panic never takes the
// server down and never reaches the client:
//
//   - before the response has started, the router's error handler answers
//     a plain 500 "Internal Server Error" and logs the panic value and
//     stack (once: through the Logger middleware if one runs, else through
//     [waltz.Context.Logger]);
//   - after the response has started (a status or part of the body was
//     sent, or taken by a writer that holds it, such as ETag's or
//     Compress's: [waltz.Response.Started]), nothing can be said cleanly
//     any more, so the error wraps [http.ErrAbortHandler], the writers
//     that hold a partial body drop it, and the router aborts the response
//     once the chain returns: the client sees a truncated read, never a
//     short body that looks complete, whatever the order of the middleware
//     (as for an error returned after the response started; a panic, being
//     no answer the handler chose, aborts a held body too).
//
// It re-panics http.ErrAbortHandler itself, which net/http uses to abort a
// response on purpose, and does nothing to a connection the handler
// hijacked but logging the panic. Put it early in the chain, after Logger,
// so that it covers the middleware after it:
//
//	r.Use(middleware.Logger(slog.Default()), middleware.Recoverer)
//
// Cost: none per request until a panic (a deferred call).
func Recoverer(next waltz.HandlerFunc) waltz.HandlerFunc {
	return func(c *waltz.Context) (err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			err = &PanicError{Value: v, Stack: debug.Stack(), Aborted: c.Response().Started()}
		}()
		return next(c)
	}
}

// PanicError is the error [Recoverer] returns for a recovered panic. Its
// message shows only the panic value; the stack is in the log record, where
// slog shows the error as a group of value and stack (it implements
// [slog.LogValuer]).
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the panicking goroutine's stack, from runtime/debug.Stack

	// Aborted is true when the response had started before the panic, so
	// the router aborts it: Unwrap then returns http.ErrAbortHandler.
	Aborted bool
}

// Error returns "panic: " and the panic value.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns [http.ErrAbortHandler] when the response is to be aborted,
// else nil (an error passed to panic is the Value, not the cause, so that
// no handler can turn a panic into a 4xx by panicking with an HTTPError).
func (e *PanicError) Unwrap() error {
	if e.Aborted {
		return http.ErrAbortHandler
	}
	return nil
}

// LogValue shows the error in a log record as its value and stack.
func (e *PanicError) LogValue() slog.Value {
	return slog.GroupValue(slog.Any("panic", e.Value), slog.String("stack", string(e.Stack)),
		slog.Bool("aborted", e.Aborted))
}
