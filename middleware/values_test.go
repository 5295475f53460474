package middleware

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/waltz-go/waltz"
)

// TestHeaderValuesOwned: every header value a bundled piece of middleware
// or waltz.FileServer puts on a response is that response's own. A
// middleware outside them all edits every value of every field in place
// once the chain has answered; the same request asked again must get the
// same fields as before the edit.
func TestHeaderValuesOwned(t *testing.T) {
	r := waltz.New()
	r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			err := next(c)
			if c.Request.Header.Get("X-Tamper") != "" {
				for _, vs := range c.Writer.Header() {
					for i := range vs {
						vs[i] = "tampered"
					}
				}
			}
			return err
		}
	})
	r.Use(
		SecureHeaders(SecureHeadersOptions{TrustForwardedProto: true}),
		CORS(CORSOptions{
			AllowedOrigins: []string{"https://app.example", "https://*.example.com"},
			AllowedMethods: []string{http.MethodGet, http.MethodPost}, AllowedHeaders: []string{"X-Token"},
			ExposedHeaders: []string{"X-Total"}, MaxAge: time.Minute, AllowCredentials: true,
		}),
		RateLimit(RateLimitOptions{Limit: RatePolicy{Requests: 1 << 30, Window: time.Minute}}),
		Compress(CompressOptions{}),
		ETag(ETagOptions{}),
	)
	big := strings.Repeat("waltz owns its header values. ", 100)
	r.Get("/text", func(c *waltz.Context) error { return c.Text(http.StatusOK, big) })
	files := fstest.MapFS{
		"a.txt":      {Data: []byte(big), ModTime: time.Unix(1e9, 0)},
		"index.html": {Data: []byte("<p>" + big), ModTime: time.Unix(1e9, 0)},
	}
	fsrv := waltz.FileServer(files, waltz.FileServerOptions{Fallback: "index.html"})
	r.Get("/files/*path", fsrv)
	r.Post("/files/*path", fsrv)
	in := func(c *waltz.Context) error { return c.Text(http.StatusOK, "in") }
	r.Group("/basic", BasicAuth(BasicAuthOptions{Users: map[string]string{"u": "p"}})).Get("/", in)
	r.Group("/bearer", BearerAuth(BearerAuthOptions{Tokens: []string{"tok"}})).Get("/", in)
	r.Group("/id", RequestID(RequestIDOptions{})).Get("/", in)
	for _, tc := range []struct {
		method, target string
		fields         []string // "Key: value"
	}{
		{"GET", "/text", []string{"Origin: https://app.example", "Accept-Encoding: gzip", "X-Forwarded-Proto: https"}},
		{"GET", "/text", []string{"Origin: https://a.example.com"}},
		{"GET", "/text", []string{"Origin: https://b.example.com", "If-Match: \"nope\""}},
		{"OPTIONS", "/text", []string{"Origin: https://app.example", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: X-Token"}},
		{"GET", "/files/a.txt", []string{"Accept-Encoding: deflate"}},
		{"GET", "/files/missing/deep", nil},
		{"POST", "/files/a.txt", nil},
		{"GET", "/basic/", nil},
		{"GET", "/bearer/", nil},
		{"GET", "/bearer/", []string{"Authorization: Bearer bad"}},
		{"GET", "/bearer/", []string{"Authorization: Bearer a b"}},
		{"GET", "/id/", []string{"X-Request-Id: given-id"}},
	} {
		t.Run(tc.method+" "+tc.target+" "+strings.Join(tc.fields, " "), func(t *testing.T) {
			ask := func(tamper bool) http.Header {
				req := httptest.NewRequest(tc.method, tc.target, nil)
				for _, f := range tc.fields {
					k, v, _ := strings.Cut(f, ": ")
					req.Header.Set(k, v)
				}
				if tamper {
					req.Header.Set("X-Tamper", "1")
				}
				w := httptest.NewRecorder()
				r.ServeHTTP(w, req)
				h := w.Result().Header
				delete(h, "Ratelimit") // counts down from one request to the next
				return h
			}
			want := ask(false)
			if len(want) < 2 {
				t.Fatalf("got fields %v, want the pieces' fields", want)
			}
			ask(true)
			for i := range 2 {
				if got := ask(false); !maps.EqualFunc(got, want, func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }) {
					t.Fatalf("request %d after an edit in place:\ngot  %v\nwant %v", i+1, got, want)
				}
			}
		})
	}
}
