package waltz_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// TestRenderProblemRouterWide sets RenderProblem once and checks that the
// router's own answers and the bundled middleware's refusals are problem
// details, each with its status, and that the headers the refusals set
// survive.
func TestRenderProblemRouterWide(t *testing.T) {
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	r.MaxBodyBytes = 8
	r.Post("/bind", func(c *waltz.Context) error {
		var v any
		return c.Bind(&v)
	})
	r.With(middleware.BearerAuth(middleware.BearerAuthOptions{Tokens: []string{"s3cret"}})).
		Get("/private", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
	store := middleware.NewMemoryRateStore(10)
	r.With(middleware.RateLimit(middleware.RateLimitOptions{Limit: middleware.RatePolicy{Requests: 1, Window: time.Minute}, Store: store})).
		Get("/limited", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
	r.With(middleware.Timeout(middleware.TimeoutOptions{Duration: time.Millisecond})).
		Get("/slow", func(c *waltz.Context) error {
			<-c.Request.Context().Done()
			return c.Request.Context().Err()
		})
	r.Get("/boom", func(c *waltz.Context) error { return &waltz.HTTPError{Code: 500, Err: errSecret} })

	for _, tc := range []struct {
		name, method, target, body string
		code                       int
		header                     string // a header the answer must keep
		title                      string // RFC 9110 section 15's phrase
	}{
		{"404", "GET", "/nowhere", "", 404, "", "Not Found"},
		{"405", "DELETE", "/private", "", 405, "Allow", "Method Not Allowed"},
		{"413", "POST", "/bind", `{"a":"long enough"}`, 413, "", "Content Too Large"},
		{"415", "POST", "/bind", "", 415, "", "Unsupported Media Type"},
		{"401", "GET", "/private", "", 401, "Www-Authenticate", "Unauthorized"},
		{"429", "GET", "/limited", "", 429, "Retry-After", "Too Many Requests"},
		{"503", "GET", "/slow", "", 503, "", "Service Unavailable"},
		{"500 leaks nothing", "GET", "/boom", "", 500, "", "Internal Server Error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.code == 429 {
				serve(r, "GET", "/limited", "", "") // spends the one token
			}
			w := serve(r, tc.method, tc.target, tc.body, "application/json")
			if w.Code != tc.code || w.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("got %d %q %s, want %d application/problem+json", w.Code, w.Header().Get("Content-Type"), w.Body, tc.code)
			}
			var p waltz.Problem
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if p.Status != tc.code || p.Title != tc.title || p.Type != "about:blank" {
				t.Errorf("got %+v, want status %d, title %q, type about:blank", p, tc.code, tc.title)
			}
			if tc.header != "" && w.Header().Get(tc.header) == "" {
				t.Errorf("got no %s header", tc.header)
			}
			if strings.Contains(w.Body.String(), errSecret.Error()) {
				t.Errorf("got %s, which leaks the cause", w.Body)
			}
		})
	}
}

type secretError struct{}

func (secretError) Error() string { return "db password is hunter2" }

var errSecret = secretError{}

func serve(h http.Handler, method, target, body, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestRenderProblemAccept holds the negotiation: a client that accepts
// only text, or prefers HTML as browsers do, gets the text answer; one
// that accepts neither text nor JSON gets the problem document.
func TestRenderProblemAccept(t *testing.T) {
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	for _, tc := range []struct {
		accept string
		want   string
	}{
		{"", "application/problem+json"},
		{"*/*", "application/problem+json"},
		{"application/json", "application/problem+json"},
		{"application/problem+json", "application/problem+json"},
		{"application/*", "application/problem+json"},
		{"text/plain", "text/plain; charset=utf-8"},
		{"text/html", "text/plain; charset=utf-8"},
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/plain; charset=utf-8"},
		{"text/plain;q=0.5, application/json", "application/problem+json"},
		{"application/json;q=0, application/problem+json;q=0, */*", "text/plain; charset=utf-8"},
		{"application/json;q=0, */*", "application/problem+json"}, // problem+json is another type
		// Neither is acceptable: the problem document, which the
		// OpenAPI document declares (an image client's 412 or 416).
		{"image/png", "application/problem+json"},
		{"image/png, image/*;q=0.5", "application/problem+json"},
		{"application/json;q=0, text/plain;q=0, image/png", "application/problem+json"},
		{"TEXT/PLAIN;Q=0.1, Application/JSON;q=0.2", "application/problem+json"},
	} {
		t.Run(tc.accept, func(t *testing.T) {
			w := serve(r, "GET", "/nowhere", "", tc.accept)
			if got := w.Header().Get("Content-Type"); got != tc.want || w.Code != 404 {
				t.Errorf("got %d %q, want 404 %q", w.Code, got, tc.want)
			}
		})
	}
}

// TestRenderTextErrors holds the text form of an HTTPError with Errors:
// the message, then one line per failure.
func TestRenderTextErrors(t *testing.T) {
	r := waltz.New()
	r.Get("/", func(c *waltz.Context) error {
		return &waltz.HTTPError{Code: 422, Message: "bad input", Errors: []waltz.FieldError{
			{Location: "query.limit", Keyword: "maximum", Message: "must be at most 100"},
			{Location: "query.sort", Keyword: "enum", Message: `must be one of "asc", "desc"`},
		}}
	})
	w := serve(r, "GET", "/", "", "")
	want := "bad input\nquery.limit: must be at most 100\nquery.sort: must be one of \"asc\", \"desc\""
	if w.Code != 422 || w.Body.String() != want {
		t.Errorf("got %d %q, want 422 %q", w.Code, w.Body, want)
	}
}
