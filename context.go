package waltz

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"

	"github.com/waltz-go/waltz/internal/seam"
)

// Context is the state of one request: the request, the response writer,
// the matched route and its params. The router takes Contexts from a pool and
// reuses them, so a Context and everything it returns (Params included) must
// not be used after the handler returns; for work that outlives the request,
// take a [Context.Copy].
type Context struct {
	// Request is the request being served. Middleware may replace it, for
	// example with one from Request.WithContext, and inner handlers see the
	// replacement.
	Request *http.Request

	// Writer is where the response goes. At the start of a request it is the
	// Context's own [Response]; middleware may wrap it (to compress, say),
	// and the helpers such as Text and JSON write through it.
	Writer http.ResponseWriter

	resp    Response
	params  Params
	scratch Params    // room for the params of a redirect's candidate lookups, beside params
	route   *endpoint // the matched route, nil when none matched
	query   url.Values
	router  *Router // the Router that serves the Context; nil from NewContext

	out                               outcome   // what the router's own answer needs, when no route ran
	ctText, ctHTML, ctJSON, ctProblem [1]string // the helpers' Content-Type values; see contentType

	streams  *EventStream // the streams made on c, ended when a handler returns; see endStreams
	answered error        // the last error given to the error handler
	// The links to a chain outside c's, for one log line per request
	// (Logged) and the error that chain returns (mount.go, adapter.go):
	// ac, what the wrapped middleware whose chain inside c runs passed
	// on (nil for any other Context; NOTE: cleared by free, the only way
	// such a Context goes back to the pool), to which c hands its errors
	// (claim), and which keeps c from looking for a Context outside
	// through its writer; outerLogs, the chain outside ac logs the
	// request; within, a mount's handler runs on c, so that a Router it
	// serves hands the error it answered to handed.
	ac        *adapterContext
	handed    error
	outerLogs bool
	within    bool
	logged    bool // a middleware logs this request; see MarkLogged
	abort     bool // abort the response once the chain returns
	keyed     bool // params' keys are filled in; see Params
	// jsonChecked: the check of a plain QUERY route (queryRoute.wrap)
	// found the request's Content-Type one of the route's types, every
	// one of which is JSON's, so Bind does not look again. True only
	// while the route's handler runs: set after the route's middleware,
	// cleared when the handler returns (Bind documents it).
	jsonChecked bool

	// call is the Writer a response helper sent a status to (SentTo),
	// and what a typed operation (package api) keeps of the request: its
	// binding failures (Bind's too), its uploads' temporary files, the
	// media type of its answer. See internal/seam.
	call seam.Call
}

// NewContext returns a Context for req that answers through w, with the
// given route params, for calling a [HandlerFunc] or [Middleware] directly
// in a unit test:
//
//	w := httptest.NewRecorder()
//	c := waltz.NewContext(w, httptest.NewRequest("GET", "/users/7", nil),
//		waltz.Param{Key: "id", Value: "7"})
//	err := showUser(c)
//
// c.Param, c.Params, c.Response and the response helpers work as they do
// under a Router; c.Pattern is "". Nothing answers an error the handler
// returns: the test sees it as returned, and may pass it to
// [DefaultErrorHandler] to see the response a Router would send. The
// Context is not pooled; it belongs to the caller.
func NewContext(w http.ResponseWriter, req *http.Request, params ...Param) *Context {
	c := newContext(nil)
	c.reset(w, req)
	c.params, c.keyed = append(Params(nil), params...), true
	return c
}

// reset prepares c to serve req, answering through w. c is new or was
// released, so the fields release clears are clear already.
func (c *Context) reset(w http.ResponseWriter, req *http.Request) {
	c.Request = req
	c.resp.reset(w, req.Method == http.MethodHead)
	c.Writer = &c.resp
	c.params = c.params[:0]
	c.route = nil
	if c.out.code != 0 {
		c.out = outcome{}
	}
	c.logged, c.abort, c.keyed, c.jsonChecked, c.outerLogs = false, false, false, false, false
}

// release drops every reference c holds to the request it served, so a
// pooled Context keeps no memory of it; the rest is reset when the Context
// is next taken (reset relies on release having cleared these). The
// caller has ended c's event streams (endStreams): release stays small
// enough for ServeHTTP to inline.
func (c *Context) release() {
	c.Request, c.Writer, c.query, c.resp.w, c.resp.sw, c.answered, c.call.SentTo = nil, nil, nil, nil, nil, nil, nil
}

// free releases c and, if its router pools Contexts, puts it back.
func (c *Context) free() {
	if c.streams != nil {
		c.endStreams()
	}
	c.release()
	c.ac = nil
	if c.router != nil {
		c.router.pool.Put(c)
	}
}

// Param returns the value of the route param or catch-all called name,
// percent-decoded, or "" if the matched pattern has none by that name.
func (c *Context) Param(name string) string { return c.Params().Get(name) }

// Params returns all params of the matched route, in pattern order. The
// slice is reused after the handler returns.
func (c *Context) Params() Params {
	if !c.keyed {
		c.fillKeys()
	}
	return c.params
}

// fillKeys pairs the values the lookup bound with the matched route's
// param names. It runs at the first Param or Params of a request, not in
// the lookup: a request whose handler reads no params pays nothing for
// their names.
func (c *Context) fillKeys() {
	c.keyed = true
	if c.route != nil {
		for i, name := range c.route.info.names {
			c.params[i].Key = name
		}
	}
}

// Pattern returns the pattern of the matched route as registered, group
// prefix included, such as "/users/:id"; "" when no route matched (404, 405,
// automatic OPTIONS, redirects). Routing happens before any middleware runs,
// so every middleware can read it.
func (c *Context) Pattern() string {
	if c.route == nil {
		return ""
	}
	return c.route.pattern
}

// Response returns the Context's response recorder, which knows the status
// sent and the body size written, whatever middleware wrapped Writer.
func (c *Context) Response() *Response { return &c.resp }

// Query returns the first value of the URL query parameter name, or "". The
// query is parsed once per request, on the first call.
func (c *Context) Query(name string) string {
	if c.query == nil {
		c.query = c.Request.URL.Query()
	}
	return c.query.Get(name)
}

// The Content-Types the response helpers set (see contentType), the
// variables the seam's ContentType compares by address.
var (
	textPlain  = seam.TextPlain
	textHTML   = seam.TextHTML
	appJSON    = seam.JSON
	appProblem = seam.Problem
)

// contentType returns slot, one of the Context's Content-Type value
// slices, holding want, without an allocation: see seam.ContentType,
// the one rule both the router's helpers and the contract's answers use.
func contentType(slot *[1]string, want string) []string { return seam.ContentType(slot, want) }

// Text writes s with the status code and Content-Type
// "text/plain; charset=utf-8". The error is the writer's, or
// [ErrResponseStarted] when a response has already been started, in which
// case nothing is written: net/http would glue the second body to the first
// under the first status.
//
// Text, HTML and JSON set Content-Type to a value slice the Context
// keeps for it, which saves an allocation each; a middleware that edits
// it in place changes this response only.
func (c *Context) Text(code int, s string) error {
	return c.writeString(code, &c.ctText, textPlain, s)
}

// HTML writes html with the status code and Content-Type
// "text/html; charset=utf-8". The error is the writer's, or
// [ErrResponseStarted] as for Text.
func (c *Context) HTML(code int, html string) error {
	return c.writeString(code, &c.ctHTML, textHTML, html)
}

func (c *Context) writeString(code int, slot *[1]string, ctype string, s string) error {
	if c.Writer == http.ResponseWriter(&c.resp) && c.call.SentTo == nil && !c.resp.wrote {
		// No middleware wrapped the writer and nothing was sent (started's
		// common case): call the recorder directly rather than through the
		// interface.
		c.call.SentTo = c.Writer
		c.resp.w.Header()["Content-Type"] = contentType(slot, ctype)
		c.resp.WriteHeader(code)
		_, err := c.resp.WriteString(s)
		c.sentWhole(err == nil)
		return err
	}
	if c.started() {
		helper := "Text"
		if slot == &c.ctHTML {
			helper = "HTML"
		}
		return c.errStarted(helper, code)
	}
	c.call.SentTo = c.Writer
	w := c.Writer
	w.Header()["Content-Type"] = contentType(slot, ctype)
	w.WriteHeader(code)
	_, err := writeString(w, s)
	c.sentWhole(err == nil)
	return err
}

// writeString writes s to w without copying it when w can take a string.
func writeString(w http.ResponseWriter, s string) (int, error) {
	if sw, ok := w.(interface{ WriteString(string) (int, error) }); ok {
		return sw.WriteString(s)
	}
	return w.Write([]byte(s))
}

// JSON writes v encoded as JSON (encoding/json) with the status code and
// Content-Type "application/json". v is encoded before anything is sent, so
// an encoding error leaves the response untouched for the error handler.
func (c *Context) JSON(code int, v any) error {
	if c.started() {
		return c.errStarted("JSON", code)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("waltz: encoding JSON response: %w", err)
	}
	c.call.SentTo = c.Writer
	c.Writer.Header()["Content-Type"] = contentType(&c.ctJSON, appJSON)
	c.Writer.WriteHeader(code)
	_, err = c.Writer.Write(append(b, '\n'))
	c.sentWhole(err == nil)
	return err
}

// Blob writes b with the status code and the given Content-Type.
func (c *Context) Blob(code int, contentType string, b []byte) error {
	if c.started() {
		return c.errStarted("Blob", code)
	}
	c.call.SentTo = c.Writer
	c.Writer.Header().Set("Content-Type", contentType)
	c.Writer.WriteHeader(code)
	_, err := c.Writer.Write(b)
	c.sentWhole(err == nil)
	return err
}

// NoContent sends the status code with no body, such as 204 (RFC 9110
// section 15.3.5).
func (c *Context) NoContent(code int) error {
	if c.started() {
		return c.errStarted("NoContent", code)
	}
	c.call.SentTo = c.Writer
	c.Writer.WriteHeader(code)
	c.sentWhole(true)
	return nil
}

// Redirect sends a redirect to url, which is written to the Location header
// as given (RFC 9110 section 10.2.2). code must be 3xx (usually 301, 302,
// 303, 307 or 308); any other code is an error and nothing is sent.
func (c *Context) Redirect(code int, url string) error {
	if code < 300 || code > 399 {
		return fmt.Errorf("waltz: redirect status %d is not 3xx", code)
	}
	if c.started() {
		return c.errStarted("Redirect", code)
	}
	c.call.SentTo = c.Writer
	c.Writer.Header().Set("Location", url)
	c.Writer.WriteHeader(code)
	c.sentWhole(true)
	return nil
}

// ErrResponseStarted is the error that Text, HTML, JSON, Blob, NoContent
// and Redirect return, wrapped with the helper's name and status, when
// called after the response has started: only one status can be sent. The
// error handler logs it (DefaultErrorHandler logs errors that arrive after
// the response has started). After a helper's whole answer, that answer
// stands; after a part written to the Writer, the router aborts the
// response, as for any error returned then.
var ErrResponseStarted = errors.New("waltz: response already started")

// started reports whether the response has started. The answer is the
// recorder's ([Response.Started]: a status sent, or held by a writer that
// said so with [Hold]); for writers that do not say so, a helper having
// sent a status to the current Writer, or the current Writer or one it
// wraps saying it was written to, through a Written() bool method, counts
// too. A status sent to a Writer that middleware has since taken away (one
// that refused it, as Timeout's does after its deadline) does not count.
func (c *Context) started() bool {
	// The common case, no middleware writer and no status sent yet, is
	// answered here, small enough to be inlined into the helpers.
	if !c.resp.wrote && !c.resp.held && c.call.SentTo == nil && c.Writer == http.ResponseWriter(&c.resp) {
		return false
	}
	return c.startedWrapped()
}

// startedWrapped is started past its common case.
func (c *Context) startedWrapped() bool {
	if c.resp.Started() || c.call.SentTo != nil && sameWriter(c.call.SentTo, c.Writer) {
		return true
	}
	for w := c.Writer; w != nil && w != http.ResponseWriter(&c.resp); {
		if s, ok := w.(interface{ Written() bool }); ok && s.Written() {
			return true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	return false
}

// sameWriter reports whether a and b are the same writer, without the
// panic that == gives on two writers of one uncomparable type.
func sameWriter(a, b http.ResponseWriter) bool {
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

func (c *Context) errStarted(helper string, code int) error {
	return fmt.Errorf("%w: %s(%d) called after status %d was sent; return the first helper's result",
		ErrResponseStarted, helper, code, c.resp.Status())
}

// Logger returns the logger of the Router that serves c ([Router.Logger]),
// or slog.Default() when it has none.
func (c *Context) Logger() *slog.Logger {
	if c.router != nil && c.router.Logger != nil {
		return c.router.Logger
	}
	return slog.Default()
}

// MarkLogged records that a middleware logs this request, its error
// included, so that [DefaultErrorHandler] does not log the error a second
// time: one request, one log line. The bundled middleware.Logger calls it
// before running the handlers inside it. Logged reports it, for custom
// error handlers, and for the Router mounted inside c's route and the
// chain inside a wrapped middleware, whose errors come back out to the
// middleware that marked it (see [Group.Mount] and [WrapMiddleware]).
func (c *Context) MarkLogged() { c.logged = true }

// Logged reports whether a middleware called [Context.MarkLogged] for this
// request: on c, or outside c's chain, on the Context of the route whose
// [Group.Mount] hands the request to c's Router (through mounts of
// mounts), or on the Context of the chain around the [WrapMiddleware]
// whose next handler c runs, as it was when that middleware was called.
// An error c's chain returns is handed out to that middleware, which
// logs it. A Router behind another handler is seen too when the writer it
// is given unwraps (an Unwrap() http.ResponseWriter method) down to the
// mount's; one served by a [Group.Handler] route is not.
func (c *Context) Logged() bool {
	if c.logged || c.outerLogs {
		return true
	}
	p := c.outside()
	return p != nil && p.Logged()
}

// Copy returns a copy of c that may be kept after the handler returns, for
// work such as a background job. It shares the Request and has its own
// Params. Writing to it fails with [ErrDetached] rather than being dropped
// silently, since the response belongs to the finished request.
func (c *Context) Copy() *Context {
	cp := &Context{
		Request: c.Request,
		Writer:  detachedWriter{},
		params:  append(Params(nil), c.Params()...),
		keyed:   true,
		route:   c.route,
		query:   c.query,
		router:  c.router,
	}
	cp.resp.w = cp.Writer
	return cp
}

// ErrDetached is the error a copied Context's Writer returns for every write.
var ErrDetached = errors.New("waltz: write to a copied Context: the request has finished")

type detachedWriter struct{}

func (detachedWriter) Header() http.Header             { return http.Header{} }
func (detachedWriter) Write([]byte) (int, error)       { return 0, ErrDetached }
func (detachedWriter) WriteHeader(int)                 {}
func (detachedWriter) WriteString(string) (int, error) { return 0, ErrDetached }

// Param is one path parameter: the name from the route's pattern (without
// the leading ':' or '*') and the value taken from the request path,
// percent-decoded.
type Param struct {
	Key   string
	Value string
}

// Params holds a request's path parameters in the order they appear in the
// matched pattern. The slice belongs to the Context that produced it and is
// reused after the handler returns: copy it (or use [Context.Copy]) to keep it.
type Params []Param

// Get returns the value of the first parameter named name, or "" when the
// matched pattern has no such parameter. A catch-all's value may also be ""
// (GET /files/ on /files/*path); use [Params.Lookup] to tell the two apart.
func (ps Params) Get(name string) string {
	v, _ := ps.Lookup(name)
	return v
}

// Lookup returns the value of the parameter named name and reports whether
// the matched pattern has it.
func (ps Params) Lookup(name string) (string, bool) {
	for i := range ps {
		if ps[i].Key == name {
			return ps[i].Value, true
		}
	}
	return "", false
}

// newContext returns a Context for the router r (nil for NewContext's),
// with room for its largest route's params, and its Call pointed at it
// once: where the engine finds the path's values.
func newContext(r *Router) *Context {
	c := &Context{router: r}
	c.resp.c = c
	if r != nil {
		c.params = make(Params, 0, r.maxParams)
	}
	c.call.Path = (*pathValues)(c)
	return c
}

// pathValues is a Context as the typed engine reads the matched pattern's
// param values.
type pathValues Context

// PathValue returns the value of the i-th param of the matched pattern.
func (pv *pathValues) PathValue(i int) (string, bool) {
	if i < len(pv.params) {
		return pv.params[i].Value, true
	}
	return "", false
}
