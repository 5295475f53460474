package waltz_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/waltz-go/waltz"
)

// mntEcho answers with what a mounted handler sees of the request.
var mntEcho = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	fmt.Fprintf(w, "%s path=%s raw=%s query=%s uid=%s ctx=%v",
		r.Method, r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.PathValue("uid"), r.Context().Value(mntKey{}))
})

type mntKey struct{}

func mntRouter() *waltz.Router {
	sub := waltz.New()
	sub.NotFound = func(c *waltz.Context) error { return c.Text(http.StatusNotFound, "sub 404") }
	sub.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "sub root") })
	sub.Get("/users/:id", func(c *waltz.Context) error { return c.Text(http.StatusOK, "sub user "+c.Param("id")) })

	r := waltz.New()
	r.Mount("/api", sub)
	r.Get("/raw/own", func(c *waltz.Context) error { return c.Text(http.StatusOK, "own") })
	r.Mount("/raw", mntEcho)
	withCtx := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), mntKey{}, "set"))
			c.Writer.Header().Set("X-Group", "yes")
			return next(c)
		}
	}
	r.Group("/u/:uid", withCtx).Mount("/files", mntEcho)
	return r
}

func TestMount(t *testing.T) {
	r := mntRouter()
	for _, tc := range []struct {
		method, target string
		code           int
		body, allow    string
	}{
		// The prefix itself redirects to the subtree, as ServeMux does.
		{"GET", "/api", 301, "", ""},
		{"GET", "/api/", 200, "sub root", ""},
		{"GET", "/api/users/5", 200, "sub user 5", ""},
		{"HEAD", "/api/users/5", 200, "sub user 5", ""},
		{"GET", "/api/missing", 404, "sub 404", ""},
		{"POST", "/api/users/5", 405, "Method Not Allowed", "GET, HEAD, OPTIONS"},
		{"OPTIONS", "/api/users/5", 204, "", "GET, HEAD, OPTIONS"},
		{"GET", "/apiary", 404, "Not Found", ""},
		{"GET", "/raw/", 200, "GET path=/ raw= query= uid= ctx=<nil>", ""},
		{"PUT", "/raw/a%2Fb/c?q=1", 200, "PUT path=/a/b/c raw=/a%2Fb/c query=q=1 uid= ctx=<nil>", ""},
		{"GET", "/%72aw/x%20y", 200, "GET path=/x y raw= query= uid= ctx=<nil>", ""},
		{"GET", "/raw/own", 200, "own", ""},
		{"POST", "/raw/own", 200, "POST path=/own raw= query= uid= ctx=<nil>", ""},
		{"BREW", "/raw/pot", 200, "BREW path=/pot raw= query= uid= ctx=<nil>", ""},
		{"GET", "/u/42/files/a.txt", 200, "GET path=/a.txt raw= query= uid=42 ctx=set", ""},
		{"GET", "/u/4%2F2/files/", 200, "GET path=/ raw= query= uid=4/2 ctx=set", ""},
		{"DELETE", "/u/42/files/", 200, "DELETE path=/ raw= query= uid=42 ctx=set", ""},
		{"DELETE", "/u/42/files", 308, "", ""},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			w := resDo(t, r, tc.method, tc.target, "")
			if w.Code != tc.code {
				t.Errorf("got status %d, want %d", w.Code, tc.code)
			}
			if got := w.Body.String(); got != tc.body && tc.method != "HEAD" {
				t.Errorf("got body %q, want %q", got, tc.body)
			}
			if got := w.Header().Get("Allow"); got != tc.allow {
				t.Errorf("got Allow %q, want %q", got, tc.allow)
			}
		})
	}
	if got := resDo(t, r, "GET", "/u/1/files/x", "").Header().Get("X-Group"); got != "yes" {
		t.Errorf("got X-Group %q, want %q: the group's middleware runs around a mount", got, "yes")
	}
}

func TestMountFileServer(t *testing.T) {
	fsys := fstest.MapFS{"css/site.css": {Data: []byte("body{}")}}
	r := waltz.New()
	r.Mount("/static", http.FileServerFS(fsys))
	for _, tc := range []struct {
		target string
		code   int
		body   string
	}{
		{"/static/css/site.css", 200, "body{}"},
		{"/static/css/missing.css", 404, "404 page not found\n"},
		// As with http.StripPrefix, h gets the path as sent; FileServer
		// cleans it, so it never leaves its root.
		{"/static/x/../css/site.css", 200, "body{}"},
		{"/static/../../css/site.css", 200, "body{}"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			w := resDo(t, r, "GET", tc.target, "")
			if w.Code != tc.code || w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.code, tc.body)
			}
		})
	}
}

func TestMountPanics(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix string
		h      http.Handler
		want   string
	}{
		{"no slash", "api", mntEcho, `waltz: pattern "api" (*, at mount_test.go:LINE): mount prefix "api" must start with '/' and not end with one`},
		{"trailing slash", "/api/", mntEcho, `waltz: pattern "/api/" (*, at mount_test.go:LINE): mount prefix "/api/" must start with '/' and not end with one`},
		{"catch-all", "/a/*x", mntEcho, `waltz: pattern "/a/*x" (*, at mount_test.go:LINE): a mount prefix cannot hold a catch-all: the mount adds its own`},
		{"nil handler", "/api", nil, `waltz: pattern "/api" (*, at mount_test.go:LINE): nil handler`},
		{"reserved name", "/:waltzmount", mntEcho, `waltz: pattern "/:waltzmount" (*, at mount_test.go:LINE): duplicate param name "waltzmount"`},
		{"twice", "/taken", mntEcho, `waltz: * "/taken" (at mount_test.go:LINE) conflicts with * "/taken" (at mount_test.go:LINE): same method and route shape`},
		{"twice, other name", "/u/:b", mntEcho, `waltz: * "/u/:b" (at mount_test.go:LINE) conflicts with * "/u/:a" (at mount_test.go:LINE): same method and route shape`},
		// The document it served (api.ServeOpenAPI) said where it was
		// mounted then, and kept it.
		{"a router that serves", "/v2", servedRouter(), `waltz: pattern "/v2" (*, at mount_test.go:LINE): the mounted router serves already: mount it before its first request`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			r.Mount("/taken", mntEcho)
			r.Mount("/u/:a", mntEcho)
			before := len(r.Routes())
			v := resPanic(func() { r.Mount(tc.prefix, tc.h) })
			var re *waltz.RouteError
			if err, _ := v.(error); !errors.As(err, &re) {
				t.Fatalf("got panic %#v, want a *RouteError", v)
			}
			got := mntLine(re.Error())
			if got != tc.want {
				t.Errorf("got panic %s\nwant      %s", got, tc.want)
			}
			if got := len(r.Routes()); got != before {
				t.Errorf("got %d routes after the panic, want %d", got, before)
			}
		})
	}
}

// servedRouter returns a router that has answered a request.
func servedRouter() *waltz.Router {
	r := waltz.New()
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	return r
}

// mntLine replaces the line numbers of mount_test.go in s with LINE.
func mntLine(s string) string {
	parts := strings.Split(s, "mount_test.go:")
	for i := 1; i < len(parts); i++ {
		parts[i] = "LINE" + strings.TrimLeft(parts[i], "0123456789")
	}
	return strings.Join(parts, "mount_test.go:")
}

func TestMountAtGroupPrefix(t *testing.T) {
	r := waltz.New()
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "home") })
	r.Mount("", mntEcho) // every path no route takes
	r.Group("/legacy").Mount("", mntEcho)
	for _, tc := range []struct{ target, want, location string }{
		{"/", "home", ""},
		{"/anything/else", "GET path=/anything/else raw= query= uid= ctx=<nil>", ""},
		{"/legacy/x", "GET path=/x raw= query= uid= ctx=<nil>", ""},
		// The group's mount starts at /legacy/. /legacy matches the root
		// mount's catch-all, but /legacy/ matches the group's mount, which
		// is more specific, so the redirect to it wins, as it would with
		// no root mount.
		{"/legacy", "", "/legacy/"},
	} {
		w := resDo(t, r, "GET", tc.target, "")
		if got, loc := w.Body.String(), w.Header().Get("Location"); got != tc.want || loc != tc.location {
			t.Errorf("GET %s: got %q Location %q, want %q Location %q", tc.target, got, loc, tc.want, tc.location)
		}
	}
}

func TestHandler(t *testing.T) {
	r := waltz.New()
	show := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "dir=%q rest=%q", r.PathValue("dir"), r.PathValue("rest"))
	})
	r.Handler(http.MethodGet, "/files/:dir/*rest", show)
	r.Group("/g").Handler("BREW", "/:dir", show)
	for _, tc := range []struct {
		method, target string
		code           int
		body           string
	}{
		{"GET", "/files/a/b/c", 200, `dir="a" rest="b/c"`},
		{"GET", "/files/a%2Fb/c%20d", 200, `dir="a/b" rest="c d"`},
		{"GET", "/files/a/", 200, `dir="a" rest=""`},
		{"BREW", "/g/pot", 200, `dir="pot" rest=""`},
		{"POST", "/files/a/b", 405, "Method Not Allowed"},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			w := resDo(t, r, tc.method, tc.target, "")
			if w.Code != tc.code || w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.code, tc.body)
			}
		})
	}
	v := resPanic(func() { r.Handler(http.MethodGet, "/nil", nil) })
	var re *waltz.RouteError
	if err, _ := v.(error); !errors.As(err, &re) || re.Reason != "nil handler" {
		t.Errorf("Handler with a nil handler: got panic %v, want a *RouteError for a nil handler", v)
	}
}

// TestHandlerAllocs checks that the allocation SetPathValue costs stays on
// Handler routes with params.
func TestHandlerAllocs(t *testing.T) {
	if resRace {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	r := waltz.New()
	nop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r.Handler(http.MethodGet, "/plain/:id", nop)
	r.Handler(http.MethodGet, "/static", nop)
	r.Get("/user/:id", (&userRes{}).Get)
	w := &resNopWriter{h: make(http.Header)}
	for _, target := range []string{"/user/1", "/static"} {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != 0 {
			t.Errorf("GET %s: got %v allocs per request, want 0", target, got)
		}
	}
	// A request with path values set keeps their map, so each run starts
	// from a copy of a request without them, as a server's is: 1 alloc.
	base := httptest.NewRequest(http.MethodGet, "/plain/1", nil)
	got := testing.AllocsPerRun(100, func() {
		req := *base
		r.ServeHTTP(w, &req)
	})
	if got != 1+2 {
		t.Errorf("GET /plain/1: got %v allocs per request, want 1 for the copy + 2 for the path values", got)
	}
}

// BenchmarkMount measures the cost per request of a mount (the request and
// URL copies) and of a Handler route with a param (its path values). The
// Handler case copies a template request each time, so that it starts
// without path values as a server's does: that copy is 1 alloc of its own.
func BenchmarkMount(b *testing.B) {
	nop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	r := waltz.New()
	r.Mount("/m", nop)
	r.Handler(http.MethodGet, "/h/:id", nop)
	b.Run("path=/m/a/b", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/m/a/b", nil)
		w := &resNopWriter{h: make(http.Header)}
		b.ReportAllocs()
		for b.Loop() {
			r.ServeHTTP(w, req)
		}
	})
	b.Run("path=/h/1", func(b *testing.B) {
		base := httptest.NewRequest(http.MethodGet, "/h/1", nil)
		w := &resNopWriter{h: make(http.Header)}
		b.ReportAllocs()
		for b.Loop() {
			req := *base
			r.ServeHTTP(w, &req)
		}
	})
}

// TestMountRedirectKeepsPrefix checks that a redirect a mounted Router gives
// (or one behind http.StripPrefix) points under the mount, not at the root.
func TestMountRedirectKeepsPrefix(t *testing.T) {
	sub := waltz.New()
	sub.Get("/items/:id", func(c *waltz.Context) error { return c.Text(http.StatusOK, c.Param("id")) })
	sub.Put("/items/:id", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
	r := waltz.New()
	r.Mount("/users/:uid/api", sub)
	mux := http.NewServeMux()
	mux.Handle("/v2/", http.StripPrefix("/v2", sub))
	for _, tc := range []struct {
		h              http.Handler
		target, method string
		code           int
		location       string
	}{
		{r, "/users/7/api/items/1/", "GET", 301, "/users/7/api/items/1"},
		{r, "/users/7/api/items/./1?x=1", "GET", 301, "/users/7/api/items/1?x=1"},
		{r, "/users/7/api/items/1/", "PUT", 308, "/users/7/api/items/1"},
		{r, "/users/7/api/items/a%2Fb/", "GET", 301, "/users/7/api/items/a%2Fb"},
		{mux, "/v2/items/9/", "GET", 301, "/v2/items/9"},
	} {
		w := resDo(t, tc.h, tc.method, tc.target, "")
		if w.Code != tc.code || w.Header().Get("Location") != tc.location {
			t.Errorf("%s %s: got %d Location %q, want %d %q", tc.method, tc.target, w.Code, w.Header().Get("Location"), tc.code, tc.location)
		}
	}
}

// TestMountPathAsSent holds what Mount's doc says h gets besides a
// waltz Router's redirects: the path not cleaned (dot segments, raw or
// escaped, as sent), and an http.ServeMux's own redirects as it makes
// them, from the stripped path, as behind http.StripPrefix.
func TestMountPathAsSent(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/dir/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	r := waltz.New()
	r.Mount("/static", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.URL.Path)
	}))
	r.Mount("/mux", mux)
	for _, tc := range []struct {
		target   string
		code     int
		body     string
		location string
	}{
		{"/static/a/../b", 200, "/a/../b", ""},
		{"/static/%2E%2E/etc/passwd", 200, "/../etc/passwd", ""},
		{"/static/./a", 200, "/./a", ""},
		{"/mux/dir", http.StatusTemporaryRedirect, "", "/dir/"},
	} {
		w := resDo(t, r, http.MethodGet, tc.target, "")
		body := w.Body.String()
		if tc.body == "" {
			body = ""
		}
		if w.Code != tc.code || body != tc.body || w.Header().Get("Location") != tc.location {
			t.Errorf("GET %s: got %d %q Location %q, want %d %q Location %q", tc.target, w.Code, body, w.Header().Get("Location"), tc.code, tc.body, tc.location)
		}
	}
}
