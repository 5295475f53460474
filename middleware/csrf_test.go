package middleware

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

func csrfRouter(o CSRFOptions) *waltz.Router {
	r := waltz.New()
	r.Use(CSRF(o))
	ok := func(c *waltz.Context) error { return c.Text(http.StatusOK, "done") }
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, waltz.MethodQuery} {
		r.Handle(m, "/notes", ok)
	}
	r.Post("/hooks/:provider", ok)
	return r
}

func TestCSRF(t *testing.T) {
	r := csrfRouter(CSRFOptions{
		TrustedOrigins: []string{"https://app.example"},
		BypassPatterns: []string{"/hooks/:provider"},
	})
	const refused = "cross-origin request"
	for _, tc := range []struct {
		name, method, path string
		site, origin       string // Sec-Fetch-Site and Origin; "" sends none
		code               int
	}{
		// RFC 9110 section 9.2.1: safe methods always pass.
		{"GET cross-site", "GET", "/notes", "cross-site", "https://evil.example", 200},
		{"HEAD cross-site", "HEAD", "/notes", "cross-site", "https://evil.example", 200},
		// RFC 10008 section 2: QUERY is safe too. A browser sends it
		// cross-origin only after a CORS preflight, as any method not
		// CORS-safelisted, so CORS, not CSRF, decides who may.
		{"QUERY cross-site", "QUERY", "/notes", "cross-site", "https://evil.example", 200},
		{"QUERY same-site", "QUERY", "/notes", "same-site", "https://sub.api.example", 200},
		{"QUERY old browser other host", "QUERY", "/notes", "", "https://evil.example", 200},
		// W3C Fetch Metadata, Sec-Fetch-Site.
		{"POST same-origin", "POST", "/notes", "same-origin", "https://api.example", 200},
		{"POST none", "POST", "/notes", "none", "", 200},
		{"POST cross-site", "POST", "/notes", "cross-site", "https://evil.example", 403},
		{"POST same-site", "POST", "/notes", "same-site", "https://sub.api.example", 403},
		{"PUT cross-site", "PUT", "/notes", "cross-site", "https://evil.example", 403},
		{"DELETE cross-site", "DELETE", "/notes", "cross-site", "https://evil.example", 403},
		{"PATCH cross-site", "PATCH", "/notes", "cross-site", "", 403},
		// Without Sec-Fetch-Site, Origin's host is compared with Host
		// (RFC 6454 section 7).
		{"POST old browser same host", "POST", "/notes", "", "https://api.example", 200},
		{"POST old browser other host", "POST", "/notes", "", "https://evil.example", 403},
		{"POST not a browser", "POST", "/notes", "", "", 200},
		// Hostile: Origin null (sandboxed frame) and look-alike origins.
		{"POST null origin", "POST", "/notes", "", "null", 403},
		{"POST trusted origin", "POST", "/notes", "cross-site", "https://app.example", 200},
		{"POST trusted origin upper case", "POST", "/notes", "cross-site", "https://APP.example", 403},
		{"POST trusted origin suffix trick", "POST", "/notes", "cross-site", "https://app.example.evil.io", 403},
		{"POST trusted origin with port", "POST", "/notes", "cross-site", "https://app.example:8443", 403},
		// Bypass by matched route pattern only.
		{"POST bypassed route", "POST", "/hooks/github", "cross-site", "https://github.example", 200},
		{"POST bypass path redirected", "POST", "/hooks/github/", "cross-site", "https://evil.example", 403},
		{"POST bypass path cleaned", "POST", "//hooks/github", "cross-site", "https://evil.example", 403},
		{"POST not found", "POST", "/nope", "cross-site", "https://evil.example", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "https://api.example"+tc.path, nil)
			if tc.method == waltz.MethodQuery {
				req = httptest.NewRequest(tc.method, "https://api.example"+tc.path, strings.NewReader("q=1"))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded") // RFC 10008 section 2.1
			}
			if tc.site != "" {
				req.Header.Set("Sec-Fetch-Site", tc.site)
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Errorf("got status %d, want %d", w.Code, tc.code)
			}
			if tc.code == 403 && !strings.HasPrefix(w.Body.String(), refused) {
				t.Errorf("got body %q, want %q", w.Body.String(), refused)
			}
		})
	}
}

// The refusal goes through the router's error handler, with its cause.
func TestCSRFErrorHandler(t *testing.T) {
	r := csrfRouter(CSRFOptions{})
	var got error
	r.ErrorHandler = func(c *waltz.Context, err error) {
		got = err
		c.Text(http.StatusTeapot, "custom")
	}
	req := httptest.NewRequest(http.MethodPost, "/notes", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	var he *waltz.HTTPError
	if !errors.As(got, &he) || he.Code != http.StatusForbidden || he.Err == nil {
		t.Errorf("got error %v, want an HTTPError 403 with a cause", got)
	}
	if w.Code != http.StatusTeapot {
		t.Errorf("got status %d, want the error handler's %d", w.Code, http.StatusTeapot)
	}
}

func TestCSRFPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    CSRFOptions
		want string
	}{
		{"trailing slash", CSRFOptions{TrustedOrigins: []string{"https://app.example/"}}, `waltz: CSRFOptions.TrustedOrigins[0] "https://app.example/"`},
		{"no scheme", CSRFOptions{TrustedOrigins: []string{"https://ok.example", "app.example"}}, `waltz: CSRFOptions.TrustedOrigins[1] "app.example"`},
		{"upper case", CSRFOptions{TrustedOrigins: []string{"HTTPS://app.example"}}, `waltz: CSRFOptions.TrustedOrigins[0]`},
		{"null", CSRFOptions{TrustedOrigins: []string{"null"}}, `waltz: CSRFOptions.TrustedOrigins[0]`},
		{"default port", CSRFOptions{TrustedOrigins: []string{"https://app.example:443"}}, `waltz: CSRFOptions.TrustedOrigins[0] "https://app.example:443": drop the default port`},
		{"bypass not a pattern", CSRFOptions{BypassPatterns: []string{"hooks/:p"}}, `waltz: CSRFOptions.BypassPatterns[0] "hooks/:p"`},
		{"bypass ServeMux form", CSRFOptions{BypassPatterns: []string{"POST /hooks/{p}"}}, `waltz: CSRFOptions.BypassPatterns[0]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.HasPrefix(got, tc.want) {
					t.Errorf("got panic %q, want prefix %q", got, tc.want)
				}
			}()
			CSRF(tc.o)
		})
	}
}

func TestCSRFAllocs(t *testing.T) {
	r := csrfRouter(CSRFOptions{TrustedOrigins: []string{"https://app.example"}, BypassPatterns: []string{"/hooks/:provider"}})
	for _, tc := range []struct {
		name, path, site string
		want             float64
	}{
		{"same-origin", "/notes", "same-origin", 0},
		{"bypassed", "/hooks/x", "cross-site", 0},
		{"refused", "/notes", "cross-site", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tc.path, nil)
			req.Header.Set("Sec-Fetch-Site", tc.site)
			req.Header.Set("Origin", "https://evil.example")
			if got := allocsOn(r, req); got != tc.want {
				t.Errorf("got %v allocs, want %v", got, tc.want)
			}
		})
	}
}

func ExampleCSRF() {
	r := waltz.New()
	r.Use(CSRF(CSRFOptions{TrustedOrigins: []string{"https://app.example"}}))
	r.Post("/notes", func(c *waltz.Context) error { return c.Text(http.StatusCreated, "created") })

	for _, origin := range []string{"https://app.example", "https://evil.example"} {
		req := httptest.NewRequest(http.MethodPost, "/notes", nil)
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", origin)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(origin, w.Code, w.Body.String())
	}
	// Output:
	// https://app.example 201 created
	// https://evil.example 403 cross-origin request
}
