package middleware_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// Example shows the bundled set in the order docs/middleware.md gives,
// for an API that a browser front end on another origin calls.
func Example() {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	adminToken := "s3cret"
	events := func(c *waltz.Context) error {
		es, err := c.EventStream()
		if err != nil {
			return err
		}
		return es.Send(waltz.Event{Data: "hello"})
	}

	r := waltz.New()
	r.Use(
		middleware.RealIP(middleware.RealIPOptions{TrustedProxies: proxies}), // first: all after see the client's address
		middleware.RequestID(middleware.RequestIDOptions{}),
		middleware.Logger(logger), // before Recoverer, so a panic is in its line
		middleware.Recoverer,
		middleware.SecureHeaders(middleware.SecureHeadersOptions{}),
		middleware.CORS(middleware.CORSOptions{ // preflights are answered here, before limits and auth
			AllowedOrigins:   []string{"https://app.example.com"},
			AllowedMethods:   []string{http.MethodGet, http.MethodPost},
			AllowedHeaders:   []string{"Content-Type", "X-Client"},
			AllowCredentials: true,
		}),
		middleware.CSRF(middleware.CSRFOptions{TrustedOrigins: []string{"https://app.example.com"}}),
		middleware.Compress(middleware.CompressOptions{}), // error pages and event streams too
	)
	r.Get("/events", events) // a stream: outside the group, so no deadline

	g := r.Group("/api",
		middleware.RateLimit(middleware.RateLimitOptions{}),
		middleware.BodyLimit(64<<10),
		middleware.Timeout(middleware.TimeoutOptions{Duration: 5 * time.Second}),
		middleware.ETag(middleware.ETagOptions{}), // inside Compress: it tags the identity body
	)
	admin := g.Group("/admin",
		middleware.BearerAuth(middleware.BearerAuthOptions{Tokens: []string{adminToken}}))

	g.Get("/notes", func(c *waltz.Context) error { return c.JSON(http.StatusOK, []string{"first"}) })
	admin.Get("/stats", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })

	for _, tc := range []struct{ method, target, origin, token string }{
		{"GET", "/api/notes", "https://app.example.com", ""},
		{"OPTIONS", "/api/notes", "https://app.example.com", ""}, // a preflight
		{"GET", "/api/admin/stats", "", ""},
		{"GET", "/api/admin/stats", "", adminToken},
		{"GET", "/events", "", ""},
	} {
		req := httptest.NewRequest(tc.method, tc.target, nil)
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.method == "OPTIONS" {
			req.Header.Set("Access-Control-Request-Method", "GET")
		}
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Printf("%s %s: %d allow-origin=%q etag=%t body=%q\n", tc.method, tc.target, w.Code,
			w.Header().Get("Access-Control-Allow-Origin"), w.Header().Get("ETag") != "", w.Body.String())
	}
	// Output:
	// GET /api/notes: 200 allow-origin="https://app.example.com" etag=true body="[\"first\"]\n"
	// OPTIONS /api/notes: 204 allow-origin="https://app.example.com" etag=false body=""
	// GET /api/admin/stats: 401 allow-origin="" etag=false body="Unauthorized"
	// GET /api/admin/stats: 200 allow-origin="" etag=true body="ok"
	// GET /events: 200 allow-origin="" etag=false body="data: hello\n\n"
}

// ExampleWrapMiddleware brings a standard func(http.Handler) http.Handler
// middleware into a chain.
func Example_wrapMiddleware() {
	r := waltz.New()
	r.Use(waltz.WrapMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Served-By", "waltz")
			next.ServeHTTP(w, r)
		})
	}))
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "hi") })

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	fmt.Println(w.Code, w.Header().Get("X-Served-By"), w.Body.String())
	// Output:
	// 200 waltz hi
}
