package waltz_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// resDo serves one request to h and returns the recorded response. header
// holds name, value pairs.
func resDo(t testing.TB, h http.Handler, method, target, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// resLine matches the file:line of a registration in this file.
var resLine = regexp.MustCompile(`resource_test\.go:\d+`)

// resPanic returns what f panics with, or nil.
func resPanic(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// resLog is a middleware factory that records "name>" on the way in and
// "<name" on the way out.
type resLog []string

func (l *resLog) mw(name string) waltz.Middleware {
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			*l = append(*l, name+">")
			err := next(c)
			*l = append(*l, "<"+name)
			return err
		}
	}
}

type resNotesRes struct{}

func (resNotesRes) Paths() []string { return []string{"/notes"} }
func (resNotesRes) Get(c *waltz.Context) error {
	return c.Text(http.StatusOK, "list")
}
func (resNotesRes) Post(c *waltz.Context) error {
	return c.Text(http.StatusCreated, "created")
}

type resNoteRes struct{}

func (*resNoteRes) Paths() []string { return []string{"/notes/:id", "/n/:id"} }
func (*resNoteRes) Get(c *waltz.Context) error {
	return c.Text(http.StatusOK, "note "+c.Param("id"))
}
func (*resNoteRes) Put(c *waltz.Context) error {
	return c.Text(http.StatusOK, "put "+c.Param("id"))
}
func (*resNoteRes) Delete(c *waltz.Context) error {
	return c.NoContent(http.StatusNoContent)
}

// resEveryVerb has all seven verb methods.
type resEveryVerb struct{}

func (resEveryVerb) Paths() []string { return []string{"/all"} }
func (resEveryVerb) Get(c *waltz.Context) error {
	return c.Text(http.StatusOK, "GET")
}
func (resEveryVerb) Head(c *waltz.Context) error {
	c.Writer.Header().Set("X-Head", "own")
	return c.NoContent(http.StatusOK)
}
func (resEveryVerb) Post(c *waltz.Context) error {
	return c.Text(http.StatusOK, "POST")
}
func (resEveryVerb) Put(c *waltz.Context) error {
	return c.Text(http.StatusOK, "PUT")
}
func (resEveryVerb) Patch(c *waltz.Context) error {
	return c.Text(http.StatusOK, "PATCH")
}
func (resEveryVerb) Delete(c *waltz.Context) error {
	return c.Text(http.StatusOK, "DELETE")
}
func (resEveryVerb) Options(c *waltz.Context) error {
	return c.Text(http.StatusOK, "OPTIONS")
}

func TestResourceRoutes(t *testing.T) {
	r := waltz.New()
	api := r.Group("/api")
	api.Resource(resNotesRes{})
	api.Resource(&resNoteRes{})
	r.Resource(resEveryVerb{})
	for _, tc := range []struct {
		method, target string
		code           int
		body, allow    string
	}{
		{http.MethodGet, "/api/notes", 200, "list", ""},
		{http.MethodPost, "/api/notes", 201, "created", ""},
		{http.MethodHead, "/api/notes", 200, "", ""},
		{http.MethodDelete, "/api/notes", 405, "Method Not Allowed", "GET, HEAD, OPTIONS, POST"},
		{http.MethodOptions, "/api/notes", 204, "", "GET, HEAD, OPTIONS, POST"},
		{http.MethodGet, "/api/notes/7", 200, "note 7", ""},
		{http.MethodGet, "/api/n/8", 200, "note 8", ""},
		{http.MethodPut, "/api/notes/7", 200, "put 7", ""},
		{http.MethodDelete, "/api/notes/7", 204, "", ""},
		{http.MethodPatch, "/api/notes/7", 405, "Method Not Allowed", "DELETE, GET, HEAD, OPTIONS, PUT"},
		{http.MethodOptions, "/api/n/7", 204, "", "DELETE, GET, HEAD, OPTIONS, PUT"},
		{http.MethodGet, "/notes", 404, "Not Found", ""},
		{http.MethodGet, "/all", 200, "GET", ""},
		{http.MethodHead, "/all", 200, "", ""},
		{http.MethodPost, "/all", 200, "POST", ""},
		{http.MethodPut, "/all", 200, "PUT", ""},
		{http.MethodPatch, "/all", 200, "PATCH", ""},
		{http.MethodDelete, "/all", 200, "DELETE", ""},
		{http.MethodOptions, "/all", 200, "OPTIONS", ""},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			w := resDo(t, r, tc.method, tc.target, "")
			if w.Code != tc.code {
				t.Errorf("got status %d, want %d", w.Code, tc.code)
			}
			if tc.method != http.MethodHead {
				if got := w.Body.String(); got != tc.body {
					t.Errorf("got body %q, want %q", got, tc.body)
				}
			}
			if got := w.Header().Get("Allow"); got != tc.allow {
				t.Errorf("got Allow %q, want %q", got, tc.allow)
			}
		})
	}
	if got := resDo(t, r, http.MethodHead, "/all", "").Header().Get("X-Head"); got != "own" {
		t.Errorf("HEAD /all: got X-Head %q, want %q: an explicit Head beats the GET fallback", got, "own")
	}
}

// resOrdered logs its handler, and has resource middleware.
type resOrdered struct {
	log *resLog
}

func (o resOrdered) Paths() []string { return []string{"/r"} }
func (o resOrdered) Get(c *waltz.Context) error {
	*o.log = append(*o.log, "handler")
	return nil
}
func (o resOrdered) Middleware() []waltz.Middleware {
	return []waltz.Middleware{o.log.mw("res1"), o.log.mw("res2")}
}

func TestMiddlewareOrder(t *testing.T) {
	var log resLog
	r := waltz.New()
	r.Use(log.mw("router"))
	api := r.Group("/api", log.mw("api"))
	v1 := api.Group("/v1", log.mw("v1"))
	v1.With(log.mw("with")).Resource(resOrdered{&log})
	r.Get("/apiary", func(c *waltz.Context) error { return nil })
	api.Get("/x", func(c *waltz.Context) error { return nil })
	for _, tc := range []struct {
		target string
		want   string
	}{
		{"/api/v1/r", "router> api> v1> with> res1> res2> handler <res2 <res1 <with <v1 <api <router"},
		// Group middleware runs only for the group's routes: not for a
		// route that merely shares the prefix, nor for a 404 under it.
		{"/apiary", "router> <router"},
		{"/api/missing", "router> <router"},
		{"/api/x", "router> api> <api <router"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			log = log[:0]
			resDo(t, r, http.MethodGet, tc.target, "")
			if got := strings.Join(log, " "); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

type resNoPaths struct{}

func (resNoPaths) Paths() []string            { return nil }
func (resNoPaths) Get(c *waltz.Context) error { return nil }

type resNoVerbs struct{}

func (resNoVerbs) Paths() []string { return []string{"/x"} }

type resBadPath struct{}

func (resBadPath) Paths() []string            { return []string{"/ok", "x/:id"} }
func (resBadPath) Get(c *waltz.Context) error { return nil }

type resWrongSig struct{}

func (resWrongSig) Paths() []string                              { return []string{"/x"} }
func (resWrongSig) Post(c *waltz.Context) error                  { return nil }
func (resWrongSig) Get(w http.ResponseWriter, req *http.Request) {}

type resWrongMW struct{}

func (resWrongMW) Paths() []string                             { return []string{"/x"} }
func (resWrongMW) Get(c *waltz.Context) error                  { return nil }
func (resWrongMW) Middleware() func(http.Handler) http.Handler { return nil }

type resNilMW struct{}

func (resNilMW) Paths() []string                { return []string{"/x"} }
func (resNilMW) Get(c *waltz.Context) error     { return nil }
func (resNilMW) Middleware() []waltz.Middleware { return []waltz.Middleware{nil} }

type resPtrVerbs struct{}

func (resPtrVerbs) Paths() []string             { return []string{"/x"} }
func (resPtrVerbs) Get(c *waltz.Context) error  { return nil }
func (*resPtrVerbs) Put(c *waltz.Context) error { return nil }

type resDupPaths struct{}

func (resDupPaths) Paths() []string            { return []string{"/y", "/u/:id", "/u/:uid"} }
func (resDupPaths) Get(c *waltz.Context) error { return nil }

type resClash struct{}

func (resClash) Paths() []string               { return []string{"/y", "/taken/:name"} }
func (resClash) Get(c *waltz.Context) error    { return nil }
func (resClash) Delete(c *waltz.Context) error { return nil }

func TestResourcePanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		res   waltz.Resource
		want  string // the panic message
		route bool   // whether the panic wraps a *RouteError
	}{
		{"nil", nil, `waltz: Resource(nil): pass a value with a Paths method and verb methods`, false},
		{"no paths", resNoPaths{}, `waltz: resource waltz_test.resNoPaths: its Paths method returned no paths`, false},
		{"no verbs", resNoVerbs{}, `waltz: resource waltz_test.resNoVerbs: no verb methods: ` +
			`give it at least one of Get, Post, Put, Patch, Delete, Head, Options`, false},
		{"bad path", resBadPath{}, `waltz: resource waltz_test.resBadPath: pattern "x/:id" (GET, at resource_test.go:LINE): ` +
			`pattern must start with '/'`, true},
		{"wrong signature", resWrongSig{}, `waltz: resource waltz_test.resWrongSig: method Get has type ` +
			`func(http.ResponseWriter, *http.Request), want func(*waltz.Context) error`, false},
		{"wrong middleware", resWrongMW{}, `waltz: resource waltz_test.resWrongMW: method Middleware has type ` +
			`func() func(http.Handler) http.Handler, want func() []waltz.Middleware`, false},
		{"nil middleware", resNilMW{}, `waltz: resource waltz_test.resNilMW: its Middleware method returned a nil middleware at index 0`, false},
		{"pointer verbs", resPtrVerbs{}, `waltz: resource waltz_test.resPtrVerbs: method Put has a pointer receiver: ` +
			`register a *waltz_test.resPtrVerbs, not a waltz_test.resPtrVerbs value`, false},
		{"duplicate paths", resDupPaths{}, `waltz: resource waltz_test.resDupPaths: GET "/u/:uid" (at resource_test.go:LINE) ` +
			`conflicts with GET "/u/:id" (at resource_test.go:LINE): same method and route shape`, true},
		{"conflict", resClash{}, `waltz: resource waltz_test.resClash: DELETE "/taken/:name" (at resource_test.go:LINE) ` +
			`conflicts with DELETE "/taken/:id" (at resource_test.go:LINE): same method and route shape`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			r.Delete("/taken/:id", func(c *waltz.Context) error { return nil })
			before := len(r.Routes())
			v := resPanic(func() { r.Resource(tc.res) })
			err, ok := v.(error)
			if !ok {
				t.Fatalf("got panic value %#v, want an error", v)
			}
			got := resLine.ReplaceAllString(err.Error(), "resource_test.go:LINE")
			if got != tc.want {
				t.Errorf("got panic %s\nwant      %s", got, tc.want)
			}
			var re *waltz.RouteError
			if got := errors.As(err, &re); got != tc.route {
				t.Errorf("got errors.As(*RouteError) %v, want %v", got, tc.route)
			}
			if got := len(r.Routes()); got != before {
				t.Errorf("got %d routes after the panic, want %d: nothing registered", got, before)
			}
		})
	}
}

// resNopWriter is a ResponseWriter that discards everything, implements
// io.StringWriter and reuses one header map, so it allocates nothing itself.
type resNopWriter struct{ h http.Header }

func (w *resNopWriter) Header() http.Header               { return w.h }
func (w *resNopWriter) Write(b []byte) (int, error)       { return len(b), nil }
func (w *resNopWriter) WriteString(s string) (int, error) { return len(s), nil }
func (w *resNopWriter) WriteHeader(int)                   {}

// userRes is the resource of the allocation test and benchmark.
type userRes struct{}

func (*userRes) Paths() []string { return []string{"/user/:id"} }
func (*userRes) Get(c *waltz.Context) error {
	return c.Text(http.StatusOK, c.Param("id"))
}

// resAllocRouters returns two routers with the same param route, as a
// resource and as a plain route, both inside a group middleware.
func resAllocRouters() []struct {
	name string
	r    *waltz.Router
} {
	pass := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error { return next(c) }
	}
	res := waltz.New()
	res.Group("", pass).Resource(&userRes{})
	plain := waltz.New()
	plain.Group("", pass).Get("/user/:id", (&userRes{}).Get)
	return []struct {
		name string
		r    *waltz.Router
	}{{"resource", res}, {"plain", plain}}
}

func TestResourceAllocs(t *testing.T) {
	if resRace {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	for _, tc := range resAllocRouters() {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			req := httptest.NewRequest(method, "/user/123", nil)
			w := &resNopWriter{h: make(http.Header)}
			if got := testing.AllocsPerRun(100, func() { tc.r.ServeHTTP(w, req) }); got != 0 {
				t.Errorf("%s %s /user/123: got %v allocs per request, want 0", tc.name, method, got)
			}
		}
	}
}

// BenchmarkResource compares a resource's Get on a param path with the
// same handler registered as a plain route.
func BenchmarkResource(b *testing.B) {
	for _, tc := range resAllocRouters() {
		b.Run("route="+tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/user/123", nil)
			w := &resNopWriter{h: make(http.Header)}
			b.ReportAllocs()
			for b.Loop() {
				tc.r.ServeHTTP(w, req)
			}
		})
	}
}
