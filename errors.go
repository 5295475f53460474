package waltz

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"

	"github.com/waltz-go/waltz/internal/header"
)

// HTTPError is an error that carries the HTTP status to answer with. Return
// one from a handler to choose the response's status and message:
//
//	return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no such note"}
//
// The error handler renders it ([Router.RenderError]): by default Code with
// Message as a text/plain body (the status text when Message is empty);
// with [RenderProblem], an RFC 9457 problem document whose detail is
// Message, whose type is Type and whose errors array is Errors. Err, if
// set, is the underlying cause: never sent to the client, and logged by the
// default handler with a 5xx Code (a 4xx is the client's mistake, not worth
// a log line each).
type HTTPError struct {
	Code    int    // HTTP status code, 400 to 599; any other code is sent as 500
	Message string // safe to show to the client
	Err     error  // the cause, for logs and errors.Is / errors.As

	// Type is a URI reference naming the kind of problem (RFC 9457
	// section 3.1.1), such as "https://example.com/probs/out-of-credit";
	// "" means "about:blank", a problem that the status code alone
	// describes. The text rendering does not show it.
	Type string

	// Errors lists each thing wrong with the request, such as every field
	// that failed validation, each with where it is and what is wrong. The
	// problem rendering sends it as the "errors" member; the text
	// rendering as one line each after Message.
	Errors []FieldError
}

// FieldError is one thing wrong with one value of a request: a param, a
// header, a cookie or a member of the body that is missing, malformed, or
// against a rule of the operation's input type.
type FieldError struct {
	// Location is where the value is: "path.id", "query.limit",
	// "header.X-Request-Id", "cookie.session", "body" for the whole body,
	// or "body.tags[1]" and "body.author.name" inside it (the JSON names).
	Location string `json:"location"`

	// Keyword is the JSON Schema keyword of the rule the value breaks
	// ("required", "type", "minimum", "maxLength", "pattern", "format",
	// "enum", ...), or another short word for what is wrong ("unknown" for
	// a key the input type does not have).
	Keyword string `json:"keyword"`

	// Message says what is wrong in words, quoting at most 64 bytes of the
	// value from the request.
	Message string `json:"message"`
}

// Error returns the status code and message (the status's reason phrase
// when Message is empty), the failures in Errors (one by its location and
// message, more by their count and the first), and the cause if there is
// one: "422 bad (path.id: must be at least 1): cause".
func (e *HTTPError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = header.Phrase(e.Code)
	}
	switch len(e.Errors) {
	case 0:
	case 1:
		msg = fmt.Sprintf("%s (%s: %s)", msg, e.Errors[0].Location, e.Errors[0].Message)
	default:
		msg = fmt.Sprintf("%s (%d errors, first %s: %s)", msg, len(e.Errors), e.Errors[0].Location, e.Errors[0].Message)
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
	errInternal         = &HTTPError{Code: http.StatusInternalServerError}
)

// DefaultErrorHandler is the error handler a Router uses when its
// ErrorHandler is nil. It holds the rules of every error answer, and leaves
// the body's format to a rendering function ([Router.RenderError]):
//
//   - What is sent: for an [*HTTPError] anywhere in err's chain, that
//     error; a Code outside 400 to 599, which is no error status, and any
//     other error become a bare 500 Internal Server Error, so no internals
//     reach the client.
//   - When the response has already started (or the connection was
//     hijacked), nothing more can be sent, so it only logs.
//   - It logs, to [Context.Logger] with the request's context, when the
//     status is 500 or more or the response had started, unless a
//     middleware logs the request itself ([Context.MarkLogged], as the
//     bundled Logger does): one request, one log line. A 4xx is the
//     client's mistake and is not logged, so clients cannot fill the log;
//     nor is an error that wraps context.Canceled once the request's
//     context is done (the client went away, or the server is shutting
//     down), nor an error other than an HTTPError that wraps
//     context.DeadlineExceeded once the request's context is past its
//     deadline (the middleware that set the deadline, such as
//     middleware.Timeout, answers and is logged instead).
//
// A custom ErrorHandler that only wants another format should set
// [Router.RenderError] instead, and keep these rules.
func DefaultErrorHandler(c *Context, err error) {
	he := asHTTPError(err)
	send := he
	if he == nil || he.Code < 400 || he.Code > 599 {
		send = errInternal
	}
	started := c.started()
	if logWorthy(c, err, he, send.Code, started) {
		c.Logger().LogAttrs(c.Request.Context(), slog.LevelError, "waltz: handler error",
			slog.String("method", c.Request.Method), slog.String("path", c.Request.URL.Path),
			slog.String("pattern", c.Pattern()), slog.Int("status", send.Code), slog.Any("err", err),
			slog.Bool("response_started", started))
	}
	if started {
		return
	}
	delete(c.Writer.Header(), "Content-Length") // the key is canonical: no Del, which canonicalizes it again
	c.renderer()(c, send)
}

// logWorthy reports whether the error handler logs err, which is answered
// with code: see DefaultErrorHandler. he is err's HTTPError, or nil.
func logWorthy(c *Context, err error, he *HTTPError, code int, started bool) bool {
	if c.logged || code < 500 && !started {
		return false
	}
	ctxErr := c.Request.Context().Err()
	// A client that went away (or a server shutting down) cancelled the
	// request's context: a handler that stops with that error did no wrong.
	if ctxErr != nil && errors.Is(err, context.Canceled) {
		return false
	}
	// A handler that stopped because the deadline on its request's context
	// passed: the middleware that set the deadline answers (Timeout: 503)
	// and that answer is logged, not this one, which the client never sees.
	return !(he == nil && ctxErr == context.DeadlineExceeded && errors.Is(err, context.DeadlineExceeded))
}

// RenderText writes e as a text/plain answer: the status e.Code with
// e.Message as the body (the status text when Message is empty), and one
// line per entry of e.Errors after it ("query.limit: must be at most
// 100"). It is the rendering a Router uses when [Router.RenderError] is
// nil, except for typed operations (package api), which answer with
// [RenderProblem]. e is never nil and e.Code is always 400 to 599.
func RenderText(c *Context, e *HTTPError) {
	msg := e.Message
	if msg == "" {
		msg = header.Phrase(e.Code)
	}
	c.Writer.Header()["Content-Type"] = contentType(&c.ctText, textPlain)
	c.Writer.WriteHeader(e.Code)
	if len(e.Errors) == 0 {
		_, _ = writeString(c.Writer, msg)
		return
	}
	b := []byte(msg)
	for _, fe := range e.Errors {
		b = append(b, '\n')
		b = append(b, fe.Location...)
		b = append(b, ": "...)
		b = append(b, fe.Message...)
	}
	_, _ = c.Writer.Write(b)
}

// renderer returns the function that renders c's error answers: the
// router's RenderError if set, else problem details for typed operations
// and text for the rest.
func (c *Context) renderer() func(*Context, *HTTPError) {
	if c.router != nil {
		if c.router.RenderError != nil {
			return c.router.RenderError
		}
		if c.route != nil && c.route.info.op != nil {
			return RenderProblem
		}
	}
	return RenderText
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
// refused it) does not stop a new error from being answered. Before the
// error handler runs, beforeAnswer marks a started response to be aborted
// for an error that wraps [http.ErrAbortHandler], and strips an unstarted
// one of the entity fields of the body the error replaces.
func (c *Context) answer(err error) {
	if c.answered != nil && (sameError(err, c.answered) || c.started() && errors.Is(err, c.answered)) {
		return
	}
	c.answered = err
	c.beforeAnswer(err)
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
