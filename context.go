package waltz

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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

	resp   Response
	params Params
	route  *endpoint // the matched route, nil when none matched
	query  url.Values
	router *Router // the Router that made the Context; nil on a Copy

	// Why no route ran, and what the router answers instead.
	miss     missKind
	allow    []string // the Allow header value, for missMethod and missOptions
	location string   // the Location header, for missRedirect
	code     int      // the redirect's status code
}

type missKind uint8

const (
	missNone missKind = iota
	missNotFound
	missMethod
	missOptions
	missRedirect
	missBadPath
)

// reset prepares c to serve req, answering through w.
func (c *Context) reset(w http.ResponseWriter, req *http.Request) {
	c.Request = req
	c.resp.reset(w)
	c.Writer = &c.resp
	c.params = c.params[:0]
	c.route = nil
	c.query = nil
	c.miss, c.allow, c.location, c.code = missNone, nil, "", 0
}

// Param returns the value of the route param or catch-all called name,
// percent-decoded, or "" if the matched pattern has none by that name.
func (c *Context) Param(name string) string { return c.params.Get(name) }

// Params returns all params of the matched route, in pattern order. The
// slice is reused after the handler returns.
func (c *Context) Params() Params { return c.params }

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

// NOTE: shared header values; never modified. Their cap equals their len,
// so a Header().Add on the same key copies instead of writing into them.
var (
	textPlain = []string{"text/plain; charset=utf-8"}[:1:1]
	textHTML  = []string{"text/html; charset=utf-8"}[:1:1]
	appJSON   = []string{"application/json"}[:1:1]
)

// Text writes s with the status code and Content-Type
// "text/plain; charset=utf-8". The error is the writer's.
//
// Text, HTML and JSON set Content-Type to a value slice shared by every
// response, which saves an allocation each: replace the header with
// Header().Set if you must change it, never edit the slice in place.
func (c *Context) Text(code int, s string) error {
	return c.writeString(code, textPlain, s)
}

// HTML writes html with the status code and Content-Type
// "text/html; charset=utf-8". The error is the writer's.
func (c *Context) HTML(code int, html string) error {
	return c.writeString(code, textHTML, html)
}

func (c *Context) writeString(code int, ctype []string, s string) error {
	if c.Writer == http.ResponseWriter(&c.resp) {
		// No middleware wrapped the writer: call the recorder directly
		// rather than through the interface.
		c.resp.w.Header()["Content-Type"] = ctype
		c.resp.WriteHeader(code)
		_, err := c.resp.WriteString(s)
		return err
	}
	w := c.Writer
	w.Header()["Content-Type"] = ctype
	w.WriteHeader(code)
	_, err := writeString(w, s)
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
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("waltz: encoding JSON response: %w", err)
	}
	c.Writer.Header()["Content-Type"] = appJSON
	c.Writer.WriteHeader(code)
	_, err = c.Writer.Write(append(b, '\n'))
	return err
}

// Blob writes b with the status code and the given Content-Type.
func (c *Context) Blob(code int, contentType string, b []byte) error {
	c.Writer.Header().Set("Content-Type", contentType)
	c.Writer.WriteHeader(code)
	_, err := c.Writer.Write(b)
	return err
}

// NoContent sends the status code with no body, such as 204 (RFC 9110
// section 15.3.5).
func (c *Context) NoContent(code int) error {
	c.Writer.WriteHeader(code)
	return nil
}

// Redirect sends a redirect to url, which is written to the Location header
// as given (RFC 9110 section 10.2.2). code must be 3xx (usually 301, 302,
// 303, 307 or 308); any other code is an error and nothing is sent.
func (c *Context) Redirect(code int, url string) error {
	if code < 300 || code > 399 {
		return fmt.Errorf("waltz: redirect status %d is not 3xx", code)
	}
	c.Writer.Header().Set("Location", url)
	c.Writer.WriteHeader(code)
	return nil
}

// Copy returns a copy of c that may be kept after the handler returns, for
// work such as a background job. It shares the Request and has its own
// Params. Writing to it fails with [ErrDetached] rather than being dropped
// silently, since the response belongs to the finished request.
func (c *Context) Copy() *Context {
	cp := &Context{
		Request: c.Request,
		Writer:  detachedWriter{},
		params:  append(Params(nil), c.params...),
		route:   c.route,
		query:   c.query,
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
