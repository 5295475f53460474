package reliability

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"testing/fstest"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// The composition matrix: every ordered pair of the middleware that touch
// the response writer, and README's whole stack, around every kind of
// handler, asked every kind of request, over HTTP/1.1 and h2c. The checks
// (stacks_check_test.go) are invariants, not outputs, so that they hold
// whatever a piece answers: a complete-looking response is complete, a
// HEAD has its GET's fields, a 304 or 206 its 200's tag and Vary, an error
// answer no fields of a body it did not send, and nothing is left running.

// composeDeadline is the Timeout of the matrix's stacks; lateWait is how
// long the late handler takes when no deadline stops it first.
const (
	composeDeadline = 100 * time.Millisecond
	lateWait        = 150 * time.Millisecond
)

// piece is one of the writer-touching middleware the matrix pairs.
type piece struct {
	name string
	mw   func() waltz.Middleware
}

var composeOrigin = "https://app.example"

func pieces() []piece {
	text := slog.New(slog.NewTextHandler(io.Discard, nil)) // formats every record
	return []piece{
		{"Compress", func() waltz.Middleware { return middleware.Compress(middleware.CompressOptions{}) }},
		{"ETag", func() waltz.Middleware { return middleware.ETag(middleware.ETagOptions{}) }},
		{"Timeout", func() waltz.Middleware {
			return middleware.Timeout(middleware.TimeoutOptions{Duration: composeDeadline})
		}},
		{"Logger", func() waltz.Middleware { return middleware.Logger(text) }},
		{"Recoverer", func() waltz.Middleware { return middleware.Recoverer }},
		{"CORS", func() waltz.Middleware { return middleware.CORS(composeCORS) }},
		{"SecureHeaders", func() waltz.Middleware { return middleware.SecureHeaders(middleware.SecureHeadersOptions{}) }},
		{"BodyLimit", func() waltz.Middleware { return middleware.BodyLimit(1 << 20) }},
		{"RateLimit", func() waltz.Middleware {
			return middleware.RateLimit(middleware.RateLimitOptions{Limit: middleware.RatePolicy{Requests: 1 << 30, Window: time.Second}})
		}},
		{"Wrapped", func() waltz.Middleware { return waltz.WrapMiddleware(statusRecorder) }},
		// send gives every request both credentials (BearerAuth reads
		// its token from X-Api-Key, so Authorization is Basic's), but the
		// "no credentials" kind, which these refuse with 401.
		{"BasicAuth", func() waltz.Middleware {
			return middleware.BasicAuth(middleware.BasicAuthOptions{Users: map[string]string{composeUser: composePassword}})
		}},
		{"BearerAuth", func() waltz.Middleware {
			return middleware.BearerAuth(middleware.BearerAuthOptions{Tokens: []string{composeToken}, Header: "X-Api-Key"})
		}},
	}
}

// The credentials send gives every request but the "no credentials" kind.
const (
	composeUser, composePassword = "matrix", "s3cret"
	composeToken                 = "mF_9.B5f-4.1JqM"
	noCredentials                = "X-No-Credentials: 1" // a field send drops, with the credentials
)

var composeCORS = middleware.CORSOptions{
	AllowedOrigins:   []string{composeOrigin},
	AllowedMethods:   []string{http.MethodGet, http.MethodPut},
	AllowedHeaders:   []string{"If-Match", "Content-Type"},
	AllowCredentials: true,
}

// readmeStack is README's whole stack, in its order: the router's
// middleware, then the API group's.
func readmeStack() []waltz.Middleware {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	return []waltz.Middleware{
		middleware.RealIP(middleware.RealIPOptions{TrustedProxies: proxies}),
		middleware.RequestID(middleware.RequestIDOptions{}),
		middleware.Logger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		middleware.Recoverer,
		middleware.SecureHeaders(middleware.SecureHeadersOptions{}),
		middleware.CORS(composeCORS),
		middleware.CSRF(middleware.CSRFOptions{TrustedOrigins: []string{composeOrigin}}),
		middleware.Compress(middleware.CompressOptions{}),
		middleware.RateLimit(middleware.RateLimitOptions{Limit: middleware.RatePolicy{Requests: 1 << 30, Window: time.Second}}),
		middleware.BodyLimit(64 << 10),
		middleware.Timeout(middleware.TimeoutOptions{Duration: composeDeadline}),
		middleware.ETag(middleware.ETagOptions{}),
	}
}

// stack is one composition: a name and the middleware, outermost first.
type stack struct {
	name     string
	mws      func() []waltz.Middleware
	recovers bool // Recoverer is in it
	timeout  bool // Timeout is in it
}

// stacks returns every ordered pair of pieces, then README's stack.
func stacks() []stack {
	ps := pieces()
	var out []stack
	for _, a := range ps {
		for _, b := range ps {
			if a.name == b.name {
				continue
			}
			out = append(out, stack{a.name + "+" + b.name, func() []waltz.Middleware {
				return []waltz.Middleware{a.mw(), b.mw()}
			}, a.name == "Recoverer" || b.name == "Recoverer", a.name == "Timeout" || b.name == "Timeout"})
		}
	}
	return append(out, stack{"README", readmeStack, true, true})
}

// statusRecorder is standard middleware of the usual kind: it wraps the
// writer to see the status, and has Unwrap so that Flush and Hijack reach
// the writer beneath through http.ResponseController.
func statusRecorder(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&recordingWriter{ResponseWriter: w}, r)
	})
}

type recordingWriter struct {
	http.ResponseWriter
	status int
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// The bodies the handlers send: large enough for Compress to compress the
// compressible ones.
var (
	composeText   = strings.Repeat("waltz answers every request once.\n", 90)
	composeBinary = strings.Repeat("\x00\x01\x02\x03binary", 300)
	composeJSON   = func() string {
		b, _ := json.Marshal(map[string][]string{"lines": strings.Split(composeText, "\n")})
		return string(b) + "\n"
	}()
	composeEvents = "data: one\n\ndata: two\n\n"
	composeFiles  = fstest.MapFS{"page.txt": {Data: []byte(composeText), ModTime: modTimeCompose}}
)

var modTimeCompose = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// handlerKind is one kind of handler, with what a client may check of it.
type handlerKind struct {
	name string
	path string // the request path; the route is registered for GET and PUT
	h    waltz.HandlerFunc
	body string // the identity body of its complete 200, "" when not known
	// cut: the response must not look complete to the client (a panic
	// or an error after part of the body was written): cut, or, when a
	// writer still held it all, answered with the error's status.
	cut bool
	// prefix: the client reads this much of the body, then leaves (a
	// stream that runs until it does).
	prefix bool
	// racy: GET and HEAD, or a request and its conditional twin, need not
	// get the same answer (the handler's own choice, or the hijacked
	// connection's).
	racy bool
	// panics: with no Recoverer, net/http cuts the connection.
	panics bool
}

var errLate = errors.New("failed after writing")

func handlerKinds() []handlerKind {
	setEntity := func(h http.Header) {
		h.Set("Etag", `"set-before-failing"`)
		h.Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		h.Set("Content-Length", "9")
		h.Set("Content-Range", "bytes 0-8/100")
		h.Set("Content-Encoding", "gzip")
	}
	return []handlerKind{
		{name: "Text", h: func(c *waltz.Context) error { return c.Text(http.StatusOK, composeText) }, body: composeText},
		{name: "JSON", h: func(c *waltz.Context) error {
			return c.JSON(http.StatusOK, map[string][]string{"lines": strings.Split(composeText, "\n")})
		}, body: composeJSON},
		{name: "Blob", h: func(c *waltz.Context) error {
			return c.Blob(http.StatusOK, "application/octet-stream", []byte(composeBinary))
		}, body: composeBinary},
		{name: "Flushed", h: flushedStream, body: composeText},
		{name: "EventStream", h: eventStream, body: composeEvents, prefix: true},
		{name: "FileServer", path: "/k/FileServer/page.txt", h: waltz.FileServer(composeFiles, waltz.FileServerOptions{}), body: composeText},
		{name: "ErrorBefore", h: func(c *waltz.Context) error {
			setEntity(c.Writer.Header())
			return &waltz.HTTPError{Code: http.StatusConflict, Message: "conflict"}
		}},
		{name: "ErrorAfter", h: func(c *waltz.Context) error {
			_ = c.Text(http.StatusOK, "whole answer")
			return errLate // a helper's answer is whole: it stands
		}, body: "whole answer"},
		{name: "ErrorPart", h: func(c *waltz.Context) error {
			_, _ = io.WriteString(c.Writer, composeText[:512])
			return errLate
		}, cut: true},
		{name: "PanicBefore", h: func(c *waltz.Context) error {
			setEntity(c.Writer.Header())
			panic("before writing")
		}, panics: true},
		{name: "PanicAfter", h: func(c *waltz.Context) error {
			_, _ = io.WriteString(c.Writer, composeText[:512])
			panic("after writing")
		}, cut: true, panics: true},
		{name: "Late", h: lateWrite, body: composeText},
		{name: "Hijack", h: hijack, racy: true},
	}
}

// flushedStream writes composeText in five parts, flushing each.
func flushedStream(c *waltz.Context) error {
	c.Writer.Header().Set("Content-Type", "text/plain; charset=utf-8")
	rc := http.NewResponseController(c.Writer)
	part := len(composeText) / 5
	for i := 0; i < len(composeText); i += part {
		if _, err := io.WriteString(c.Writer, composeText[i:min(i+part, len(composeText))]); err != nil {
			return nil // the client left
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
	}
	return nil
}

// eventStream sends two events, then waits for the client to leave.
func eventStream(c *waltz.Context) error {
	es, err := c.EventStream()
	if err != nil {
		return err
	}
	for _, d := range []string{"one", "two"} {
		if err := es.Send(waltz.Event{Data: d}); err != nil {
			return nil
		}
	}
	<-es.Done()
	return nil
}

// lateWrite answers after the deadline, when there is one.
func lateWrite(c *waltz.Context) error {
	select {
	case <-c.Request.Context().Done():
	case <-time.After(lateWait):
	}
	c.Writer.Header().Set("Etag", `"late"`)
	return c.Text(http.StatusOK, composeText)
}

// hijack answers on the raw connection where it can (HTTP/1.1), else with
// a plain answer.
func hijack(c *waltz.Context) error {
	conn, brw, err := http.NewResponseController(c.Writer).Hijack()
	if err != nil {
		return c.Text(http.StatusOK, "no hijack here")
	}
	defer conn.Close()
	body := "hijacked"
	if c.Request.Method == http.MethodHead {
		body = ""
	}
	_, _ = brw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 8\r\nConnection: close\r\n\r\n" + body)
	return brw.Flush()
}

// composeRouter registers every handler kind under mws, each at
// /k/<name> (FileServer at /k/FileServer/*path) for GET and PUT, and /ping.
func composeRouter(mws []waltz.Middleware) *waltz.Router {
	r := waltz.New()
	r.Logger = discardLogger
	r.Use(mws...)
	for _, k := range handlerKinds() {
		p := "/k/" + k.name
		if k.name == "FileServer" {
			p += "/*path"
		}
		r.Get(p, k.h)
		r.Put(p, k.h)
	}
	r.Get("/ping", func(c *waltz.Context) error { return c.Text(http.StatusOK, "pong") })
	return r
}

// requestKind is one kind of request. base: it is sent after a GET with
// the same Accept-Encoding, whose answer it is checked against and whose
// validators it may use.
type requestKind struct {
	name   string
	method string
	ae     string // Accept-Encoding, "" for none
	base   bool
	fields func(base *http.Response) []string // "Key: value" fields, given the base GET
}

func requestKinds() []requestKind {
	none := func(*http.Response) []string { return nil }
	field := func(b *http.Response, k string) string {
		if b == nil {
			return "" // the base GET failed: that is its check's to report
		}
		return b.Header.Get(k)
	}
	tag := func(b *http.Response) string { return field(b, "Etag") }
	return []requestKind{
		{"GET gzip", http.MethodGet, "gzip", false, none},
		{"GET", http.MethodGet, "", false, none},
		{"GET deflate", http.MethodGet, "deflate, gzip;q=0.5", false, none},
		{"GET identity only", http.MethodGet, "gzip;q=0, deflate;q=0, identity", false, none},
		{"GET any", http.MethodGet, "*", false, none},
		{"HEAD", http.MethodHead, "gzip", true, none},
		{"If-None-Match", http.MethodGet, "gzip", true, func(b *http.Response) []string {
			return []string{"If-None-Match: " + tag(b)}
		}},
		{"If-Modified-Since", http.MethodGet, "gzip", true, func(b *http.Response) []string {
			return []string{"If-Modified-Since: " + field(b, "Last-Modified")}
		}},
		{"PUT If-Match", http.MethodPut, "gzip", true, func(b *http.Response) []string {
			return []string{"If-Match: " + tag(b)}
		}},
		{"Range", http.MethodGet, "gzip", true, func(*http.Response) []string {
			return []string{"Range: bytes=0-9,5-19"}
		}},
		{"Range multipart", http.MethodGet, "gzip", true, func(*http.Response) []string {
			return []string{"Range: bytes=0-9,100-109"}
		}},
		{"Range past the end", http.MethodGet, "gzip", true, func(*http.Response) []string {
			return []string{"Range: bytes=900000-"}
		}},
		{"If-Range", http.MethodGet, "gzip", true, func(b *http.Response) []string {
			return []string{"Range: bytes=10-29", "If-Range: " + tag(b)}
		}},
		{"no credentials", http.MethodGet, "gzip", false, func(*http.Response) []string {
			return []string{noCredentials}
		}},
		{"preflight", http.MethodOptions, "", false, func(*http.Response) []string {
			return []string{"Origin: " + composeOrigin, "Access-Control-Request-Method: PUT",
				"Access-Control-Request-Headers: if-match"}
		}},
	}
}
