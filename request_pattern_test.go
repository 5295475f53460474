package waltz

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// patternRouter has one route of each kind a request can match: static,
// param, catch-all, a group's, a mount, a resource and a plain net/http
// handler, behind a middleware that passes a copy of the request on, as
// middleware that adds to the context does.
func patternRouter() *Router {
	r := New()
	r.Use(func(next HandlerFunc) HandlerFunc {
		return func(c *Context) error {
			c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), patternKey{}, 1))
			return next(c)
		}
	})
	ok := func(c *Context) error { return c.NoContent(http.StatusNoContent) }
	r.Get("/", ok)
	r.Get("/users/:id", ok)
	r.Get("/files/*path", ok)
	r.Group("/api/:v").Post("/items/:id", ok)
	r.Mount("/static", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	r.Resource(&patternNote{})
	r.Handler(http.MethodGet, "/plain/:id", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	return r
}

type patternKey struct{}

type patternNote struct{}

func (*patternNote) Paths() []string         { return []string{"/notes/:id"} }
func (*patternNote) Get(c *Context) error    { return c.NoContent(http.StatusNoContent) }
func (*patternNote) Delete(c *Context) error { return c.NoContent(http.StatusNoContent) }

// TestRequestPattern: ServeHTTP sets r.Pattern on the request it was given,
// whatever request its middleware passed on, to the matched route's
// pattern; and to "" when none matched (404, 405, redirect, automatic
// OPTIONS, a malformed path), even where the caller had set one, so the raw
// path never stands in for a route.
func TestRequestPattern(t *testing.T) {
	r := patternRouter()
	for _, tc := range []struct{ method, target, raw, want string }{
		{"GET", "/", "", "/"},
		{"GET", "/users/42", "", "/users/:id"},
		{"HEAD", "/users/42", "", "/users/:id"},
		{"GET", "/files/a/b.css", "", "/files/*path"},
		{"POST", "/api/v1/items/7", "", "/api/:v/items/:id"},
		{"PUT", "/static/a.css", "", "/static/*"},
		{"DELETE", "/notes/9", "", "/notes/:id"},
		{"GET", "/plain/3", "", "/plain/:id"},
		{"GET", "/nope", "", ""},                              // 404
		{"DELETE", "/users/42", "", ""},                       // 405
		{"GET", "/users/42/", "", ""},                         // trailing-slash redirect
		{"GET", "//users/42", "", ""},                         // clean-path redirect
		{"OPTIONS", "/users/42", "", ""},                      // automatic OPTIONS
		{"GET", "/users/x", "/users/%zz", ""},                 // malformed escape: 400
		{"GET", "/files/a/b", "/files/a%2Fb", "/files/*path"}, // escaped path
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/", nil)
			req.URL.Path, req.URL.RawPath = tc.target, tc.raw
			req.Pattern = "/set/by/the/caller"
			r.ServeHTTP(httptest.NewRecorder(), req)
			if req.Pattern != tc.want {
				t.Errorf("got r.Pattern %q, want %q", req.Pattern, tc.want)
			}
		})
	}
}

// TestRequestPatternNoAllocs: setting r.Pattern adds no allocation to a
// request on a static, param or catch-all route.
func TestRequestPatternNoAllocs(t *testing.T) {
	r := New()
	r.Get("/", func(c *Context) error { return nil })
	r.Get("/user/:id", func(c *Context) error { return nil })
	r.Get("/static/*path", func(c *Context) error { return nil })
	for _, tc := range []struct{ target, want string }{
		{"/", "/"},
		{"/user/123", "/user/:id"},
		{"/static/css/site.css", "/static/*path"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			w, req := newNopWriter(), httptest.NewRequest("GET", tc.target, nil)
			// The race detector's sync.Pool drops Contexts at random, so
			// the count holds without it only.
			if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != 0 && !raceEnabled {
				t.Errorf("got %v allocs per request, want 0", got)
			}
			if req.Pattern != tc.want {
				t.Errorf("got r.Pattern %q, want %q", req.Pattern, tc.want)
			}
		})
	}
}
