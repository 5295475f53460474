package waltz

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/typed"
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
	errNotImplemented   = &HTTPError{Code: http.StatusNotImplemented}
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
//     hijacked), nothing more can be sent, so it only logs. Unless the
//     response is a helper's whole answer (Text, JSON, Blob, ...) or an
//     event stream, or the client has gone, the router has marked it to
//     be aborted ([Response.Aborted]), so that the client sees a truncated
//     read, never a short body that looks whole. A response that a writer
//     holds, of which nothing was sent, is taken back first and counts as
//     not started (see [Hold]).
//   - It logs, to [Context.Logger] with the request's context, when the
//     status is 500 or more or the response had started (then with the
//     status sent, 0 for none, and whether the response is aborted), unless a
//     middleware logs the request itself ([Context.MarkLogged], as the
//     bundled Logger does), in this chain or outside the [Group.Mount] or
//     [WrapMiddleware] it runs inside ([Context.Logged]), which then gets
//     the error: one request, one log line. A 4xx is the
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
		status := send.Code
		if started {
			status = c.resp.Status() // what was sent, not what would have been
		}
		c.Logger().LogAttrs(c.Request.Context(), slog.LevelError, "waltz: handler error",
			slog.String("method", c.Request.Method), slog.String("path", c.Request.URL.Path),
			slog.String("pattern", c.Pattern()), slog.Int("status", status), slog.Any("err", err),
			slog.Bool("response_started", started), slog.Bool("aborted", c.resp.aborted))
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
	// The router's own 501 is the client's doing, as a 4xx is: a method
	// the router knows nowhere (answers.go).
	if c.Logged() || (code < 500 || err == errNotImplemented) && !started {
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
// error handler runs, beforeAnswer takes back a response that is held
// with nothing sent, marks any other started response to be aborted, and
// strips an unstarted one of the entity fields of the body the error
// replaces.
func (c *Context) answer(err error) {
	if c.answered != nil && (sameError(err, c.answered) || c.started() && errors.Is(err, c.answered)) {
		return
	}
	c.answered = err
	c.handOut(err)
	c.beforeAnswer(err)
	if c.router != nil && c.router.ErrorHandler != nil {
		c.router.ErrorHandler(c, err)
		return
	}
	DefaultErrorHandler(c, err)
}

// takeBack makes a response that started, but of which nothing was sent,
// unstarted again, and reports whether it did: no status went out through
// the Response, the connection was not hijacked, err does not wrap
// [http.ErrAbortHandler] (a request to abort), and every writer from
// c.Writer down to the Response has a method Unhold(), which makes it
// forget what it holds (see [Hold]). A writer without one may have kept
// or counted what it saw; the response is then aborted instead.
func (c *Context) takeBack(err error) bool {
	if c.resp.wrote || c.resp.hijacked || errors.Is(err, http.ErrAbortHandler) {
		return false
	}
	for w := c.Writer; w != http.ResponseWriter(&c.resp); {
		if _, ok := w.(unholder); !ok {
			return false
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
	for w := c.Writer; w != http.ResponseWriter(&c.resp); w = w.(interface{ Unwrap() http.ResponseWriter }).Unwrap() {
		w.(unholder).Unhold()
	}
	c.resp.Unhold()
	c.call.SentTo = nil
	return true
}

// beforeAnswer is what the error path does before any error handler
// renders err. An error after the response started leaves a response
// that stands (see stands) as it is, and marks any other to be aborted,
// unless nothing of it was sent (a writer holds it: see takeBack), in
// which case what is held is dropped and the error is answered as it
// would be before the response started: rendered without the entity
// fields that were set for the body it replaces, whichever handler
// renders it.
func (c *Context) beforeAnswer(err error) {
	if c.started() {
		if c.resp.hijacked || c.stands(err) {
			return
		}
		if !c.takeBack(err) {
			c.abort, c.resp.aborted = true, true
			return
		}
	}
	he := asHTTPError(err)
	dropEntityFields(c.Writer.Header(), he != nil && he.Code == http.StatusRequestedRangeNotSatisfiable)
}

// stands reports whether a started response stays as it is, the error
// err after it only logged: the response is whole (a helper's complete
// answer, or an event stream, a run of whole events that a client
// reconnects after however it ends), or the client has gone (the
// request's context cancelled), so that no cut can tell it anything.
// An error wrapping http.ErrAbortHandler always cuts.
func (c *Context) stands(err error) bool {
	if errors.Is(err, http.ErrAbortHandler) {
		return false
	}
	return c.resp.isWhole() || c.Request.Context().Err() == context.Canceled
}

// sentWhole records whether a helper's answer went out whole.
func (c *Context) sentWhole(whole bool) { c.resp.answered(whole) }

// dropEntityFields deletes from h the fields that describe a body (RFC
// 9110 sections 8.3 to 8.8 and 14.4): an error answer sends a body of its
// own, and a tag, length, coding, language, range or date left from the
// one it replaces would describe a body that never went out. For a 416
// (unsat), a Content-Range "bytes */size" stays: it describes no body but
// the representation's length, which a 416 carries (section 15.5.17).
func dropEntityFields(h http.Header, unsat bool) {
	for _, k := range [...]string{"Etag", "Content-Length", "Content-Encoding", "Content-Language", "Last-Modified"} {
		delete(h, k)
	}
	if cr, ok := h["Content-Range"]; ok && !(unsat && len(cr) == 1 && strings.HasPrefix(cr[0], "bytes */")) {
		delete(h, "Content-Range")
	}
}

// unholder is a writer that can forget a response it holds: see [Hold].
type unholder interface{ Unhold() }

// sameError reports whether a and b are the same error value, without the
// panic that == gives on two errors of one uncomparable type.
func sameError(a, b error) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

// Problem is the RFC 9457 problem details document that [RenderProblem]
// sends as application/problem+json, and that the OpenAPI document
// describes for typed operations' errors.
type Problem struct {
	// Type is a URI reference naming the kind of problem; "about:blank"
	// when the status says it all (RFC 9457 section 4.2.1).
	Type string `json:"type" doc:"A URI reference that names the kind of problem; about:blank when the status says it all."`
	// Title is the status text for about:blank, else a short summary of
	// the type.
	Title string `json:"title" doc:"A short summary of the kind of problem."`
	// Status is the answer's status code, repeated for whoever reads the
	// document apart from the response.
	Status int `json:"status" doc:"The HTTP status code of this answer."`
	// Detail is the HTTPError's Message: this occurrence, in words.
	Detail string `json:"detail,omitempty" doc:"What went wrong this time, in words."`
	// Instance is the request's path, escaped: where this occurrence
	// happened (RFC 9457 section 3.1.5). It is left out for a path longer
	// than 256 bytes, so that a long path does not make a long answer.
	Instance string `json:"instance,omitempty" doc:"The path of the request that met the problem."`
	// Errors is the HTTPError's Errors: each value of the request that is
	// wrong (an extension member, RFC 9457 section 3.2).
	Errors []FieldError `json:"errors,omitempty" doc:"Each value of the request that is missing, malformed or against a rule."`
}

// maxInstance is the longest request path a problem document repeats as
// its instance.
const maxInstance = 256

// RenderProblem writes e as an RFC 9457 problem details document,
// application/problem+json, unless the request's Accept field prefers
// text: when text/plain or text/html (or a range that covers them)
// weighs more than application/problem+json and application/json (RFC
// 9110 section 12.5.1). A client that accepts only text, a browser asking
// for HTML first among them, gets [RenderText]'s answer. A client that
// accepts neither, as one asking for an image does (Accept: image/png),
// gets the problem document: section 12.5.1 lets a server disregard the
// field rather than answer 406, and the OpenAPI document declares a
// typed operation's errors as problem details (with text beside them, for
// the clients that prefer it).
//
// The document's type is e.Type or "about:blank", its title the status
// text, its status e.Code, its detail e.Message, its instance the
// request's path (left out past 256 bytes), and its errors e.Errors.
//
// Set it as [Router.RenderError] to answer every error of the router this
// way, its own 404, 405 and 400 and the bundled middleware's refusals
// included:
//
//	r.RenderError = waltz.RenderProblem
//
// It is how a typed operation's errors are rendered when RenderError is
// nil.
func RenderProblem(c *Context, e *HTTPError) {
	if !acceptsProblem(c.Request.Header["Accept"]) {
		RenderText(c, e)
		return
	}
	p := Problem{Type: e.Type, Title: header.Phrase(e.Code), Status: e.Code, Detail: e.Message, Errors: e.Errors}
	if p.Type == "" {
		p.Type = "about:blank"
	}
	if path := c.Request.URL.EscapedPath(); len(path) <= maxInstance {
		p.Instance = path
	}
	bp := typed.AnswerBuf()
	b := appendProblem(slices.Grow((*bp)[:0], problemSize(&p)), &p)
	h := c.Writer.Header()
	h["Content-Type"] = contentType(&c.ctProblem, appProblem)
	c.Writer.WriteHeader(e.Code)
	_, _ = c.Writer.Write(append(b, '\n'))
	typed.PutAnswerBuf(bp, b)
}

// acceptsProblem reports whether the Accept field values vs let a problem
// document through in preference to text: whether they do not prefer
// text; see RenderProblem.
func acceptsProblem(vs []string) bool {
	if len(vs) == 0 {
		return true
	}
	j := max(header.MediaWeight(vs, "application", "problem+json"), header.MediaWeight(vs, "application", "json"))
	t := max(header.MediaWeight(vs, "text", "plain"), header.MediaWeight(vs, "text", "html"))
	return j >= t
}

// problemSize estimates the length of p's JSON, so that it is written in
// one buffer: the text's lengths, the member names and a margin for
// escapes.
func problemSize(p *Problem) int {
	n := 96 + len(p.Type) + len(p.Title) + len(p.Detail) + len(p.Instance)
	for _, e := range p.Errors {
		n += 48 + len(e.Location) + len(e.Keyword) + len(e.Message)*9/8
	}
	return n
}

// appendProblem appends p as JSON to b, as encoding/json would write it
// with HTML escaping off, without reflection: an error answer costs
// little more than the success it replaces.
func appendProblem(b []byte, p *Problem) []byte {
	b = append(b, `{"type":`...)
	b = typed.AppendString(b, p.Type, false)
	b = append(b, `,"title":`...)
	b = typed.AppendString(b, p.Title, false)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(p.Status), 10)
	if p.Detail != "" {
		b = append(b, `,"detail":`...)
		b = typed.AppendString(b, p.Detail, false)
	}
	if p.Instance != "" {
		b = append(b, `,"instance":`...)
		b = typed.AppendString(b, p.Instance, false)
	}
	if len(p.Errors) > 0 {
		b = append(b, `,"errors":[`...)
		for i, e := range p.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"location":`...)
			b = typed.AppendString(b, e.Location, false)
			b = append(b, `,"keyword":`...)
			b = typed.AppendString(b, e.Keyword, false)
			b = append(b, `,"message":`...)
			b = typed.AppendString(b, e.Message, false)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
