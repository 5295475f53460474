// Package client calls typed operations from Go with no code generation:
// the operation's In and Out types (those [api.Op] registers) and its
// method and pattern are all it needs, so a package of types that the
// server and its clients share is enough, whichever process serves it.
//
//	c := &client.Client{URL: "https://bookmarks.example.com"}
//	get := client.Op[bookmarks.IDInput, bookmarks.BookmarkOutput](c, "GET /api/bookmarks/:id")
//	out, err := get(ctx, bookmarks.IDInput{ID: 7})
//
// A call writes In as the request that the server binds back to it, by
// the same plan the server binds with: path params escaped into the
// pattern, query params (a slice as one pair per item), header and cookie
// fields ([Client].Header and [WithHeader] add more), and the Body field
// in the kind its operation consumes: JSON (a merge patch's media type
// for a merge patch), a form (for an operation that takes forms alone,
// or with [Form]), or, for a body with file members ([api.File], made
// by [api.NewFile]), multipart/form-data, each member a part. A field
// that holds its type's zero value (a nil pointer, an empty slice) is
// left out, so that the server applies its default, unless it is
// required; use a pointer field to send a zero value that has a default.
//
// Before anything is sent, In is checked against the rules the server
// checks (the tags' JSON Schema keywords, required values, the pattern's
// constraints): a request the server would refuse never leaves, and the
// error is the one the server would answer, a 422 [*waltz.HTTPError]
// listing every failure with its location (a 413 or 415 for a file past
// its maxBytes or of a media type its member does not accept), whose Err
// is [ErrNotSent]. A write whose server sets Operation.Current, declared
// so with [Conditional], is refused alike without If-Match: the server's
// 428.
//
// A success answer (a status below 400) is read into a new Out as the
// server wrote it: its status into the Status field, its header fields,
// and its body into Body, as JSON (the request says "Accept:
// application/json", which an operation that negotiates honours), or,
// for an [api.Download], as a reader over the answer's body as it
// arrives: Content is an io.ReadCloser, Type the Content-Type, ModTime
// the Last-Modified. The caller reads Content and must close it
//
//	defer out.Body.Content.(io.Closer).Close()
//
// (until then the connection is the call's), and the call's context and
// the http.Client's Timeout bound the reading too: end the context only
// once Content is read. A download is never held in memory by the call.
//
// An answer with no content (a 304 Not Modified to an If-None-Match sent
// by [WithHeader], a 204, a 205, the answer to a HEAD) leaves Body zero,
// whatever its type: a JSON Body's zero value, a Download with no
// Content, Type or ModTime, nothing to close. Its Status and header
// fields are read all the same: give Out a Status field to tell a 304
// from a 200, and an ETag field for the validator it names. Content a
// server sends with one anyway (a 205 with a body) is not read.
//
// An error answer is a [*waltz.HTTPError] with the answer's status; an
// RFC 9457 problem document gives its detail as Message, its type as
// Type, and its errors member as Errors. Of an error answer's body, at
// most its first MiB is read; a JSON success answer is read whole into
// memory, however long it is: bound a call with its context's deadline
// or the http.Client's Timeout when the server is not trusted.
//
// A QUERY (RFC 10008) is sent as a GET would be where the two differ
// from a POST: net/http's Transport may send it again on a new
// connection when a kept-alive one turns out closed (it is idempotent,
// section 2), and a 301, 302, 307 or 308 is followed with the same QUERY
// and content (section 2.5), a 303 with a GET, and a redirect after that
// GET as a GET's (a 307 or 308 keeps the method of the request it
// answers, RFC 9110 sections 15.4.8 and 15.4.9).
package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/internal/typed"
)

// Client is where operations are served and how requests reach them.
// Its fields are read at each call; set them before the first, and
// leave them unchanged while calls may run.
type Client struct {
	// URL is what the operations' patterns are under: a scheme and a
	// host, and the path prefix they are served at, if any, such as
	// "https://api.example.com" or "http://127.0.0.1:8080/v2". It has no
	// query; a trailing '/' is ignored.
	URL string

	// HTTP sends the requests; nil means http.DefaultClient. Its
	// Transport may add what every request needs (tracing, retries).
	HTTP *http.Client

	// Header holds the fields sent with every request, such as
	// Authorization ([WithHeader] adds those of one call). An In's header
	// field replaces the one of the same name here, and an In's cookies
	// follow this Cookie, on its line. A name is case-insensitive (RFC
	// 9110 section 5.1): "x-token" is X-Token, and is sent so.
	Header http.Header
}

// ErrNotSent is the Err of the [*waltz.HTTPError] a call returns when
// In breaks the operation's rules and the request was not sent:
// errors.Is(err, client.ErrNotSent) tells it from a server's answer.
var ErrNotSent = errors.New("waltz: client: the request was not sent")

// WithHeader returns a copy of ctx that carries h: a call made with it
// sends h's fields too, after the Client's (replacing a field of the same
// name, in whatever case it is written) and before the In's own. It is
// for what one call needs and no In field holds: an Idempotency-Key, the If-Match of a conditional write
// (RFC 9110 section 13.1.1). h is read, not copied: leave it unchanged
// while calls use it.
func WithHeader(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, headerKey{}, h)
}

type headerKey struct{}

// Option changes how [Op] sends an operation's requests.
type Option func(*settings)

type settings struct {
	media       typed.Media
	conditional bool          // Conditional: a call needs a precondition
	reconnect   time.Duration // Events' reconnection time
	idle        time.Duration // Events' IdleTimeout; 0 for none
}

// Form sends the Body field as an HTML form,
// application/x-www-form-urlencoded, rather than JSON, for an operation
// whose Body field takes forms (consumes:"form" or "json,form", a flat
// struct of scalars, pointers to them and slices of them); Op panics for
// another. An operation that takes forms alone is sent forms without
// this option.
func Form() Option { return func(s *settings) { s.media = typed.MediaForm } }

// Op returns the call of the typed operation route, "METHOD /pattern" as
// it was registered ("GET /api/bookmarks/:id", the group's prefix
// included; a param's constraint, ":id<int>", as written), with input In
// and output Out, made through c.
//
// The call sends in, as the package documentation says, and returns the
// answer read into a new *Out; or the error of a refused In (a 422
// [*waltz.HTTPError] whose Err is [ErrNotSent]), of an error answer (a
// [*waltz.HTTPError] with the answer's status, detail, type and errors),
// of an answer that cannot be read into Out (which names the member, such
// as "body.items.created" or "header Retry-After"), or of the transport,
// as http.Client.Do returns it. It is safe for concurrent use.
//
// Op panics, with a message that starts "waltz: " and names the route,
// the type and the field, on what api.Op would refuse (a malformed
// route, a field that cannot be bound, a tag it does not understand),
// on a field a client cannot write or read (a text type without
// MarshalText in In, without UnmarshalText in Out's headers, an event
// stream's Body, which encoding/json cannot decode), on a nil
// c, on [Form] for an operation that takes no form, and on
// [Conditional] for a GET or HEAD.
func Op[In, Out any](c *Client, route string, opts ...Option) func(ctx context.Context, in In) (*Out, error) {
	o := plan(c, route, reflect.TypeFor[In](), reflect.TypeFor[Out](), opts)
	return func(ctx context.Context, in In) (*Out, error) {
		out := new(Out)
		// NOTE: o's plans were made from In and Out, the types of in and
		// out, and both stay reachable here while call reads and writes
		// them.
		if err := o.call(ctx, unsafe.Pointer(&in), unsafe.Pointer(out)); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// op is one operation as a client calls it.
type op struct {
	c        *Client
	rt       *route
	in       *typed.InPlan
	out      *typed.OutPlan
	outType  reflect.Type
	media    typed.Media
	cond     bool                // a conditional write (Conditional): a call needs a precondition
	accept   []string            // the Accept field of a JSON answer's request; nil for others
	download reflect.StructField // Out's Body, when it is a api.Download; else its Index is nil
}

var downloadType = reflect.TypeFor[api.Download]()

// plan makes the op of route, for the In type in and the Out type out.
func plan(c *Client, s string, in, out reflect.Type, opts []Option) *op {
	if c == nil {
		panic(fmt.Sprintf("waltz: client: route %q: the Client is nil", s))
	}
	o := &op{c: c, rt: parseRoute(s), outType: out}
	var st settings
	for _, opt := range opts {
		opt(&st)
	}
	o.media, o.cond = st.media, st.conditional
	fail := func(err error) {
		panic(fmt.Sprintf("waltz: client: route %q: %v", s, err))
	}
	if o.cond && (o.rt.method == http.MethodGet || o.rt.method == http.MethodHead) {
		fail(fmt.Errorf("client.Conditional is for writes: a %s is made conditional by If-None-Match", o.rt.method))
	}
	var err error
	if o.in, err = typed.PlanIn(in, o.rt.names); err != nil {
		fail(err)
	}
	if err = o.in.Encodable(); err != nil {
		fail(err)
	}
	if o.out, err = typed.PlanAnswer(out); err != nil {
		fail(err)
	}
	if err = o.out.Decodable(); err != nil {
		fail(err)
	}
	if bt := o.out.BodyType(); bt == downloadType {
		o.download, _ = out.FieldByName("Body")
	} else if bt != nil {
		o.accept = []string{"application/json"}
	}
	if mts := o.in.MediaTypes(); len(mts) > 0 && mts[0] == "application/x-www-form-urlencoded" && !slices.Contains(mts, "application/json") {
		o.media = typed.MediaForm
	}
	if o.media == typed.MediaForm && !o.in.TakesForm() {
		fail(typed.PlanError(in, nil, `client.Form: the Body field does not take forms (consumes:"form")`))
	}
	return o
}

// failures keeps the failures of a refused In, as the answer would list
// them.
type failures struct{ list []waltz.FieldError }

// Fail keeps one failure.
func (f *failures) Fail(location, keyword, message string) {
	f.list = append(f.list, waltz.FieldError{Location: location, Keyword: keyword, Message: message})
}

// scratch is a call's buffers, kept between calls.
type scratch struct {
	query, url []byte
	path       [8]string
	answer     bytes.Buffer
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// maxErrorAnswer is the most of an error answer's body a call reads, in
// bytes: a problem document of a waltz server holds at most
// typed.MaxFailures failures, far less.
const maxErrorAnswer = 1 << 20

// maxKept is the largest answer buffer kept for another call, in bytes.
const maxKept = 64 << 10

// call sends the In value at in and reads the answer into the Out value
// at out.
func (o *op) call(ctx context.Context, in, out unsafe.Pointer) error {
	sc := scratches.Get().(*scratch)
	defer func() {
		if sc.answer.Cap() > maxKept {
			sc.answer = bytes.Buffer{} // a large answer's memory is not held
		}
		scratches.Put(sc)
	}()
	req, err := o.request(ctx, sc, in)
	if err != nil {
		return err
	}
	hc := o.c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	if o.rt.method == waltz.MethodQuery {
		hc = queryClient(hc)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	if o.download.Index != nil && resp.StatusCode < 400 {
		return o.stream(resp, out)
	}
	var body []byte
	if resp.StatusCode < 400 && noContent(o.rt.method, resp.StatusCode) {
		// Body stays zero, and what a server sent all the same (for a 205,
		// with content it has not; RFC 9110 section 15.3.6) is not read.
		resp.Body.Close()
	} else if body, err = o.read(sc, resp); err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		return problem(resp, body)
	}
	if err := o.out.Decode(out, resp.StatusCode, resp.Header, resp.Header.Get("Content-Type"), body); err != nil {
		return fmt.Errorf("waltz: %s %s: answer %d: %w", o.rt.method, o.rt.pattern, resp.StatusCode, err)
	}
	return nil
}

// read reads the body of resp, a JSON success answer or an error answer
// (of which at most maxErrorAnswer bytes), into sc.answer, and closes it.
func (o *op) read(sc *scratch, resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	sc.answer.Reset()
	var from io.Reader = resp.Body
	if resp.StatusCode >= 400 {
		// An error answer gives a problem document or a line of text:
		// past maxErrorAnswer it is not read, whatever the server sends.
		from = io.LimitReader(resp.Body, maxErrorAnswer)
	}
	if _, err := sc.answer.ReadFrom(from); err != nil {
		return nil, fmt.Errorf("waltz: %s %s: reading the answer: %w", o.rt.method, o.rt.pattern, err)
	}
	return sc.answer.Bytes(), nil
}

// request makes the request of the In value at in, or returns the error
// of a refused one.
func (o *op) request(ctx context.Context, sc *scratch, in unsafe.Pointer) (*http.Request, error) {
	extra, _ := ctx.Value(headerKey{}).(http.Header)
	h := make(http.Header, len(o.c.Header)+len(extra)+2)
	merge(h, o.c.Header)
	merge(h, extra)
	e := typed.Encoded{Query: sc.query[:0], Header: h}
	if n := len(o.rt.names); n <= len(sc.path) {
		e.Path = sc.path[:n]
	} else {
		e.Path = make([]string, n)
	}
	var fs failures
	encErr := o.in.Encode(in, &e, o.media, &fs)
	sc.query = e.Query
	var be *typed.BodyError
	if errors.As(encErr, &be) {
		// A file the server would refuse whole: its 413 or 415.
		return nil, &waltz.HTTPError{Code: be.Status, Message: be.Message, Err: ErrNotSent}
	} else if encErr != nil && encErr != typed.ErrInvalid {
		return nil, fmt.Errorf("waltz: %s %s: %w", o.rt.method, o.rt.pattern, encErr)
	}

	u := append(sc.url[:0], strings.TrimSuffix(o.c.URL, "/")...)
	var pf failures
	u = o.rt.appendPath(u, e.Path, &pf)
	clear(sc.path[:])
	if len(e.Query) > 0 {
		u = append(u, '?')
		u = append(u, e.Query...)
	}
	sc.url = u
	if encErr != nil || len(pf.list) > 0 {
		return nil, &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: typed.ErrInvalid.Error(),
			Errors: append(pf.list, fs.list...), Err: ErrNotSent}
	}
	if o.cond && !hasPrecondition(h) {
		// After In's own rules, as the server binds In before it judges
		// the preconditions.
		return nil, errNoPrecondition()
	}
	if o.accept != nil && h["Accept"] == nil {
		// RFC 9110 section 12.5.1: the one representation Decode reads;
		// a problem document comes as JSON too.
		h["Accept"] = o.accept
	}
	var body io.Reader
	if e.Body != nil {
		body = bytes.NewReader(e.Body)
		h["Content-Type"] = []string{e.ContentType}
	}
	if o.rt.method == waltz.MethodQuery && h["Idempotency-Key"] == nil && h["X-Idempotency-Key"] == nil {
		// A QUERY is idempotent (RFC 10008 section 2), so net/http's
		// Transport may send it again on a new connection when a kept-alive
		// one turns out closed, as it does a GET: it does so for a request
		// whose header holds this key, and sends a key of no value not at
		// all (net/http's Transport documents both).
		h["Idempotency-Key"] = nil
	}
	req, err := http.NewRequestWithContext(ctx, o.rt.method, string(u), body)
	if err != nil {
		return nil, fmt.Errorf("waltz: %s %s: %w", o.rt.method, o.rt.pattern, err)
	}
	req.Header = h
	return req, nil
}

// merge sets the fields of from in h, each under its canonical name
// (RFC 9110 section 5.1: a field name is case-insensitive), replacing
// h's field of that name; two keys of from that name one field, such as
// "x-token" and "X-Token", are one field with the values of both. The
// values are shared with from: an append to them makes a copy.
func merge(h, from http.Header) {
	for k := range from {
		delete(h, http.CanonicalHeaderKey(k))
	}
	for k, vs := range from {
		ck := http.CanonicalHeaderKey(k)
		if old := h[ck]; old != nil {
			h[ck] = append(old, vs...)
		} else {
			h[ck] = vs[:len(vs):len(vs)]
		}
	}
}

// queryClient returns hc for a QUERY: a copy whose CheckRedirect follows
// a 301 or 302 of a QUERY with the same QUERY and its content, as RFC
// 10008 section 2.5 says, where net/http's client would send a GET
// without content (it does for any method but GET and HEAD). A 307 or
// 308 keeps the method and content of the request it answers (RFC 9110
// sections 15.4.8 and 15.4.9): a QUERY's, or, after a 303, which is a
// GET without content as for any method, a GET's. hc's own
// CheckRedirect, if any, then judges the request as it goes.
func queryClient(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		prev := via[len(via)-1] // the request this redirect answers
		if req.Response != nil && req.Response.StatusCode != http.StatusSeeOther && prev.Method == waltz.MethodQuery {
			req.Method = prev.Method
			if prev.GetBody != nil && (req.Body == nil || req.Body == http.NoBody) {
				b, err := prev.GetBody()
				if err != nil {
					return err
				}
				req.Body, req.GetBody, req.ContentLength = b, prev.GetBody, prev.ContentLength
			}
			for _, k := range []string{"Content-Type", "Idempotency-Key"} {
				if v, ok := prev.Header[k]; ok {
					req.Header[k] = v
				}
			}
		}
		return checkRedirect(hc, req, via)
	}
	return &c
}

// checkRedirect judges the redirect req, after via, by hc's redirect
// policy: its CheckRedirect, or net/http's default, 10 redirects at most.
func checkRedirect(hc *http.Client, req *http.Request, via []*http.Request) error {
	if hc.CheckRedirect != nil {
		return hc.CheckRedirect(req, via)
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects") // net/http's default policy
	}
	return nil
}
