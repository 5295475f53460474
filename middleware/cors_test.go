package middleware

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

func corsRouter(o CORSOptions) *waltz.Router {
	r := waltz.New()
	r.Use(CORS(o))
	r.Get("/api", func(c *waltz.Context) error { return c.Text(http.StatusOK, "data") })
	return r
}

// corsHeaders returns the response's CORS and Vary headers, one per line.
func corsHeaders(h http.Header) string {
	var b strings.Builder
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials",
		"Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age",
		"Access-Control-Expose-Headers", "Vary"} {
		if v := h.Values(k); v != nil {
			fmt.Fprintf(&b, "%s: %s\n", strings.TrimPrefix(k, "Access-Control-"), strings.Join(v, ", "))
		}
	}
	return b.String()
}

func TestCORSRequests(t *testing.T) {
	list := CORSOptions{
		AllowedOrigins: []string{"https://app.example", "https://*.example.com", "http://localhost:8080"},
		ExposedHeaders: []string{"X-Total", "ETag"},
	}
	star := CORSOptions{AllowedOrigins: []string{"*"}}
	null := CORSOptions{AllowedOrigins: []string{"null"}}
	fn := CORSOptions{AllowOriginFunc: func(o string) bool { return strings.HasSuffix(o, ".test") }}
	const vary = "Vary: Origin\n"
	const expose = "Expose-Headers: X-Total, ETag\n"
	for _, tc := range []struct {
		name   string
		o      CORSOptions
		origin string // "" sends none
		want   string
	}{
		// Fetch "CORS protocol": no Origin, no CORS headers; Vary anyway,
		// as the answer depends on Origin ("CORS protocol and HTTP caches").
		{"no origin", list, "", vary},
		{"exact", list, "https://app.example", "Allow-Origin: https://app.example\n" + expose + vary},
		{"exact with port", list, "http://localhost:8080", "Allow-Origin: http://localhost:8080\n" + expose + vary},
		{"other port", list, "http://localhost:8081", vary},
		{"other scheme", list, "http://app.example", vary},
		{"upper case", list, "https://APP.example", vary},
		{"trailing slash", list, "https://app.example/", vary},
		{"subdomain", list, "https://api.example.com", "Allow-Origin: https://api.example.com\n" + expose + vary},
		{"deep subdomain", list, "https://a.b.example.com", "Allow-Origin: https://a.b.example.com\n" + expose + vary},
		// Hostile: suffix and prefix tricks against *.example.com.
		{"apex not a subdomain", list, "https://example.com", vary},
		{"suffix trick", list, "https://example.com.evil.io", vary},
		{"no dot", list, "https://evilexample.com", vary},
		{"empty label", list, "https://.example.com", vary},
		{"double dot", list, "https://a..example.com", vary},
		{"userinfo", list, "https://evil.io@a.example.com", vary},
		{"port on pattern", list, "https://api.example.com:8443", vary},
		{"http on https pattern", list, "http://api.example.com", vary},
		// Hostile: Origin null (sandboxed frames, file:, redirects) is
		// allowed only when listed.
		{"null not allowed by list", list, "null", vary},
		{"null not allowed by star", star, "null", vary},
		{"null listed", null, "null", "Allow-Origin: null\n" + vary},
		{"star", star, "https://any.example", "Allow-Origin: *\n" + vary},
		{"func allows", fn, "https://x.test", "Allow-Origin: https://x.test\n" + vary},
		{"func refuses", fn, "https://x.example", vary},
		{"func never sees null", fn, "null", vary},
		{"zero options", CORSOptions{}, "https://app.example", vary},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/api", nil)
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			w := httptest.NewRecorder()
			corsRouter(tc.o).ServeHTTP(w, req)
			// A disallowed origin gets the normal response, not an error.
			if w.Code != http.StatusOK || w.Body.String() != "data" {
				t.Errorf("got %d %q, want 200 \"data\"", w.Code, w.Body.String())
			}
			if got := corsHeaders(w.Header()); got != tc.want {
				t.Errorf("got headers\n%swant\n%s", got, tc.want)
			}
		})
	}
}

func TestCORSPreflight(t *testing.T) {
	o := CORSOptions{
		AllowedOrigins:   []string{"https://app.example"},
		AllowedMethods:   []string{"GET", "POST", "PUT"},
		AllowedHeaders:   []string{"Content-Type", "X-Token"},
		AllowCredentials: true,
		MaxAge:           10 * time.Minute,
	}
	const vary = "Vary: Origin, Access-Control-Request-Method, Access-Control-Request-Headers\n"
	ok := func(headers string) string {
		s := "Allow-Origin: https://app.example\nAllow-Credentials: true\nAllow-Methods: GET, POST, PUT\n"
		if headers != "" {
			s += "Allow-Headers: " + headers + "\n"
		}
		return s + "Max-Age: 600\n" + vary
	}
	for _, tc := range []struct {
		name, path, origin, method, headers string
		code                                int
		want                                string
	}{
		// Fetch "CORS-preflight fetch": answered 204 whatever the route.
		{"allowed", "/api", "https://app.example", "PUT", "content-type,x-token", 204, ok("content-type,x-token")},
		{"no headers asked", "/api", "https://app.example", "PUT", "", 204, ok("")},
		// Header names are case-insensitive (RFC 9110 section 5.1).
		{"header case", "/api", "https://app.example", "POST", "X-TOKEN", 204, ok("X-TOKEN")},
		// Methods are case-sensitive (Fetch "CORS-preflight fetch").
		{"method case", "/api", "https://app.example", "put", "", 204, vary},
		{"method not allowed", "/api", "https://app.example", "DELETE", "", 204, vary},
		{"header not allowed", "/api", "https://app.example", "PUT", "content-type,x-other", 204, vary},
		// Hostile: a malformed header list fails the preflight.
		{"malformed header list", "/api", "https://app.example", "PUT", "x-token, <bad>", 204, vary},
		{"origin not allowed", "/api", "https://evil.example", "PUT", "", 204, vary},
		{"origin null", "/api", "null", "PUT", "", 204, vary},
		// What the router would answer does not matter: a browser follows
		// no redirect on a preflight and needs a 2xx.
		{"not found", "/nope", "https://app.example", "PUT", "", 204, ok("")},
		{"trailing slash redirect", "/api/", "https://app.example", "PUT", "", 204, ok("")},
		// Not a preflight: the router's automatic OPTIONS (RFC 9110 section 9.3.7).
		{"plain OPTIONS", "/api", "https://app.example", "", "", 204, "Allow-Origin: https://app.example\nAllow-Credentials: true\nVary: Origin\n"},
		{"no origin", "/api", "", "PUT", "", 204, "Vary: Origin\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodOptions, tc.path, nil)
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.method != "" {
				req.Header.Set("Access-Control-Request-Method", tc.method)
			}
			if tc.headers != "" {
				req.Header.Set("Access-Control-Request-Headers", tc.headers)
			}
			w := httptest.NewRecorder()
			corsRouter(o).ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Errorf("got status %d, want %d", w.Code, tc.code)
			}
			if got := corsHeaders(w.Header()); got != tc.want {
				t.Errorf("got headers\n%swant\n%s", got, tc.want)
			}
			preflight := tc.origin != "" && tc.method != ""
			if allow := w.Header().Get("Allow"); (allow != "") == preflight {
				t.Errorf("got Allow %q: a preflight must not reach the router, and a plain OPTIONS must", allow)
			}
		})
	}
}

// RFC 9110 section 5.3: several Access-Control-Request-Headers lines are
// one list.
func TestCORSPreflightHeaderLines(t *testing.T) {
	r := corsRouter(CORSOptions{AllowedOrigins: []string{"https://app.example"}, AllowedHeaders: []string{"*"}})
	req := httptest.NewRequest(http.MethodOptions, "/api", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.Header["Access-Control-Request-Headers"] = []string{"x-a", "x-b"}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if got := w.Header().Get("Access-Control-Allow-Headers"); got != "x-a,x-b" {
		t.Errorf("got Allow-Headers %q, want %q", got, "x-a,x-b")
	}
}

func TestCORSPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    CORSOptions
		want string
	}{
		{"trailing slash", CORSOptions{AllowedOrigins: []string{"https://app.example/"}}, `waltz: CORSOptions.AllowedOrigins[0] "https://app.example/"`},
		{"upper case", CORSOptions{AllowedOrigins: []string{"https://App.example"}}, `waltz: CORSOptions.AllowedOrigins[0]`},
		{"no scheme", CORSOptions{AllowedOrigins: []string{"app.example"}}, `waltz: CORSOptions.AllowedOrigins[0]`},
		{"star in label", CORSOptions{AllowedOrigins: []string{"*", "https://a*.example.com"}}, `waltz: CORSOptions.AllowedOrigins[1]`},
		{"star twice", CORSOptions{AllowedOrigins: []string{"https://*.*.example.com"}}, `waltz: CORSOptions.AllowedOrigins[0]`},
		{"star on a TLD", CORSOptions{AllowedOrigins: []string{"https://*.com"}}, `waltz: CORSOptions.AllowedOrigins[0]`},
		{"bad method", CORSOptions{AllowedMethods: []string{"GE T"}}, `waltz: CORSOptions.AllowedMethods[0]`},
		{"bad header", CORSOptions{AllowedHeaders: []string{"X-A:"}}, `waltz: CORSOptions.AllowedHeaders[0]`},
		{"bad exposed header", CORSOptions{ExposedHeaders: []string{""}}, `waltz: CORSOptions.ExposedHeaders[0]`},
		{"negative max age", CORSOptions{MaxAge: -time.Second}, `waltz: CORSOptions.MaxAge`},
		// Fetch "CORS protocol": "*" with credentials is no answer a
		// browser honours, and naming every origin instead would let any
		// site read credentialed responses.
		{"star with credentials", CORSOptions{AllowedOrigins: []string{"*"}, AllowCredentials: true},
			`waltz: CORSOptions.AllowedOrigins holds "*" and AllowCredentials is true: every site could read credentialed responses; list the origins in AllowedOrigins, or decide with AllowOriginFunc`},
		// Any page can send Origin: null (a sandboxed iframe, a data:
		// URL): with credentials, every site could read the answers.
		{"null with credentials", CORSOptions{AllowedOrigins: []string{"https://a.example", "null"}, AllowCredentials: true},
			`waltz: CORSOptions.AllowedOrigins holds "null" and AllowCredentials is true`},
		// Browsers omit the default port (RFC 6454 section 6.2): the
		// entry would never match.
		{"port with a leading zero", CORSOptions{AllowedOrigins: []string{"https://app.example.com:0443"}},
			`waltz: CORSOptions.AllowedOrigins[0] "https://app.example.com:0443": bad port`},
		{"port past 65535", CORSOptions{AllowedOrigins: []string{"https://app.example.com:99999"}},
			`waltz: CORSOptions.AllowedOrigins[0] "https://app.example.com:99999": bad port`},
		{"empty port", CORSOptions{AllowedOrigins: []string{"https://app.example.com:"}},
			`waltz: CORSOptions.AllowedOrigins[0] "https://app.example.com:": bad port`},
		{"https default port", CORSOptions{AllowedOrigins: []string{"https://app.example.com:443"}},
			`waltz: CORSOptions.AllowedOrigins[0] "https://app.example.com:443": drop the default port :443`},
		{"http default port", CORSOptions{AllowedOrigins: []string{"http://app.example.com:8080", "http://app.example.com:80"}},
			`waltz: CORSOptions.AllowedOrigins[1] "http://app.example.com:80": drop the default port :80`},
		{"pattern default port", CORSOptions{AllowedOrigins: []string{"https://*.example.com:443"}}, `waltz: CORSOptions.AllowedOrigins[0]`},
		{"star among others with credentials", CORSOptions{AllowedOrigins: []string{"https://a.example", "*"}, AllowCredentials: true},
			`waltz: CORSOptions.AllowedOrigins holds "*" and AllowCredentials is true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.HasPrefix(got, tc.want) {
					t.Errorf("got panic %q, want prefix %q", got, tc.want)
				}
			}()
			CORS(tc.o)
		})
	}
}

func TestCORSAllocs(t *testing.T) {
	o := CORSOptions{
		AllowedOrigins: []string{"https://app.example", "https://*.example.com"},
		AllowedHeaders: []string{"X-Token"}, ExposedHeaders: []string{"X-Total"}, MaxAge: time.Hour,
	}
	r := waltz.New()
	r.Use(CORS(o))
	r.Get("/api", func(c *waltz.Context) error { return nil })
	for _, tc := range []struct {
		name, method, origin, acrh string
		want                       float64
	}{
		// One allocation each: the response's own header values.
		{"no origin", http.MethodGet, "", "", 1},
		{"exact origin", http.MethodGet, "https://app.example", "", 1},
		{"disallowed origin", http.MethodGet, "https://evil.example", "", 1},
		{"pattern origin", http.MethodGet, "https://a.example.com", "", 1},
		{"preflight", http.MethodOptions, "https://app.example", "", 1},
		{"preflight with headers", http.MethodOptions, "https://app.example", "x-token", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/api", nil)
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.method == http.MethodOptions {
				req.Header.Set("Access-Control-Request-Method", "GET")
			}
			if tc.acrh != "" {
				req.Header.Set("Access-Control-Request-Headers", tc.acrh)
			}
			if got := allocsOn(r, req); got != tc.want {
				t.Errorf("got %v allocs, want %v", got, tc.want)
			}
		})
	}
}

func ExampleCORS() {
	r := waltz.New()
	// Router level, so that preflights for any path are answered.
	r.Use(CORS(CORSOptions{
		AllowedOrigins:   []string{"https://app.example"},
		AllowedMethods:   []string{http.MethodGet, http.MethodPut},
		AllowedHeaders:   []string{"Content-Type"},
		AllowCredentials: true,
		MaxAge:           time.Hour,
	}))
	r.Put("/notes/:id", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })

	req := httptest.NewRequest(http.MethodOptions, "/notes/7", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "PUT")
	req.Header.Set("Access-Control-Request-Headers", "content-type")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Code)
	for _, k := range []string{"Access-Control-Allow-Origin", "Access-Control-Allow-Credentials",
		"Access-Control-Allow-Methods", "Access-Control-Allow-Headers", "Access-Control-Max-Age"} {
		fmt.Printf("%s: %s\n", k, w.Header().Get(k))
	}
	// Output:
	// 204
	// Access-Control-Allow-Origin: https://app.example
	// Access-Control-Allow-Credentials: true
	// Access-Control-Allow-Methods: GET, PUT
	// Access-Control-Allow-Headers: content-type
	// Access-Control-Max-Age: 3600
}
