package waltz

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
)

// HTTPError is an error that carries the HTTP status to answer with. Return
// one from a handler to choose the response's status and message:
//
//	return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no such note"}
//
// The default error handler writes Code with Message as a text/plain body
// (the status text when Message is empty). Err, if set, is the underlying
// cause: never sent to the client, and logged by the default handler with
// a 5xx Code (a 4xx is the client's mistake, not worth a log line each).
type HTTPError struct {
	Code    int    // HTTP status code, 400 to 599; any other code is sent as 500
	Message string // safe to show to the client
	Err     error  // the cause, for logs and errors.Is / errors.As
}

// Error returns the status code and message, and the cause if there is one.
func (e *HTTPError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Code)
	}
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Code, msg, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Code, msg)
}

// Unwrap returns the cause.
func (e *HTTPError) Unwrap() error { return e.Err }

// The answers the router gives itself go through the error handler like any
// handler's error, so one ErrorHandler shapes every error page.
var (
	errNotFound         = &HTTPError{Code: http.StatusNotFound}
	errMethodNotAllowed = &HTTPError{Code: http.StatusMethodNotAllowed}
	errBadPath          = &HTTPError{Code: http.StatusBadRequest, Message: "malformed path"}
)

// DefaultErrorHandler is the error handler a Router uses when its
// ErrorHandler is nil. For an [*HTTPError] anywhere in err's chain it writes
// the error's Code and Message (the status text when Message is empty) as
// text/plain; a Code outside 400 to 599, which is no error status, is
// answered as a 500 with a generic body. Any other error becomes a 500 whose
// body says only "Internal Server Error", so no internals reach the client.
//
// When the response has already started (or the connection was hijacked),
// nothing more can be sent, so it only logs. It logs, to [Context.Logger]
// with the request's context, when the status is 500 or more or the
// response had started, unless a middleware logs the request itself
// ([Context.MarkLogged], as the bundled Logger does): one request, one log
// line. A 4xx is the client's mistake and is not logged, so clients cannot
// fill the log; nor is an error that wraps context.Canceled once the
// request's context is done (the client went away, or the server is
// shutting down), nor an error other than an HTTPError that wraps
// context.DeadlineExceeded once the request's context is past its deadline
// (the middleware that set the deadline, such as middleware.Timeout,
// answers and is logged instead).
func DefaultErrorHandler(c *Context, err error) {
	code, msg := http.StatusInternalServerError, ""
	he := asHTTPError(err)
	if he != nil && he.Code >= 400 && he.Code <= 599 {
		code, msg = he.Code, he.Message
	}
	if msg == "" {
		msg = http.StatusText(code)
	}
	started := c.started()
	// A client that went away (or a server shutting down) cancelled the
	// request's context: a handler that stops with that error did no wrong.
	gone := c.Request.Context().Err() != nil && errors.Is(err, context.Canceled)
	// A handler that stopped because the deadline on its request's context
	// passed: the middleware that set the deadline answers (Timeout: 503)
	// and that answer is logged, not this one, which the client never sees.
	late := he == nil && c.Request.Context().Err() == context.DeadlineExceeded &&
		errors.Is(err, context.DeadlineExceeded)
	if (code >= 500 || started) && !c.logged && !gone && !late {
		c.Logger().LogAttrs(c.Request.Context(), slog.LevelError, "waltz: handler error",
			slog.String("method", c.Request.Method), slog.String("path", c.Request.URL.Path),
			slog.String("pattern", c.Pattern()), slog.Int("status", code), slog.Any("err", err),
			slog.Bool("response_started", started))
	}
	if started {
		return
	}
	c.Writer.Header()["Content-Type"] = c.contentType(ctText)
	c.Writer.Header().Del("Content-Length")
	c.Writer.WriteHeader(code)
	_, _ = writeString(c.Writer, msg)
}

// asHTTPError returns the first *HTTPError in err's chain, or nil. The
// common case, err itself, costs no allocation.
func asHTTPError(err error) *HTTPError {
	if he, ok := err.(*HTTPError); ok {
		return he
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he
	}
	return nil
}

// answer gives err to the ErrorHandler of the Router that serves c, or to
// DefaultErrorHandler, unless err was answered already on its way out
// through the chain, as it is or, once the response has started, wrapped
// by a middleware (with %w): an answer that did not get out (a writer that
// refused it) does not stop a new error from being answered. An error that
// wraps [http.ErrAbortHandler], once the response has started, marks the
// response to be aborted when the chain returns.
func (c *Context) answer(err error) {
	if c.answered != nil && (sameError(err, c.answered) || c.started() && errors.Is(err, c.answered)) {
		return
	}
	c.answered = err
	if c.resp.wrote && !c.resp.hijacked && errors.Is(err, http.ErrAbortHandler) {
		c.abort = true
	}
	if c.router != nil && c.router.ErrorHandler != nil {
		c.router.ErrorHandler(c, err)
		return
	}
	DefaultErrorHandler(c, err)
}

// sameError reports whether a and b are the same error value, without the
// panic that == gives on two errors of one uncomparable type.
func sameError(a, b error) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}
