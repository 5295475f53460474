package waltz_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

type adpKey struct{}

// adpRecorder is the writer adpStd passes on: it records the status.
type adpRecorder struct {
	http.ResponseWriter
	status int
}

func (w *adpRecorder) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// adpStd is standard middleware that wraps the writer, puts a value in the
// request's context, answers an OPTIONS preflight itself, and, when the
// next handler returns, logs the status it saw.
func adpStd(log *resLog) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				*log = append(*log, "preflight")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			*log = append(*log, "std>")
			rec := &adpRecorder{ResponseWriter: w, status: http.StatusOK}
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), adpKey{}, "from std")))
			*log = append(*log, "<std saw "+strconv.Itoa(rec.status))
		})
	}
}

// adpCheck is waltz middleware that logs whether it sees the request and
// writer of the standard middleware around it.
func adpCheck(log *resLog, name string) waltz.Middleware {
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			wrapped := writesTo[*adpRecorder](c.Writer)
			*log = append(*log, name+" ctx="+strconv.Quote(ctxValue(c))+" wrapped="+strconv.FormatBool(wrapped))
			err := next(c)
			wrapped = writesTo[*adpRecorder](c.Writer)
			*log = append(*log, name+" after: ctx="+strconv.Quote(ctxValue(c))+" wrapped="+strconv.FormatBool(wrapped)+
				" err="+strconv.FormatBool(err != nil))
			return err
		}
	}
}

// writesTo reports whether w is, or unwraps to, a T.
func writesTo[T http.ResponseWriter](w http.ResponseWriter) bool {
	for w != nil {
		if _, ok := w.(T); ok {
			return true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
	return false
}

func ctxValue(c *waltz.Context) string {
	s, _ := c.Request.Context().Value(adpKey{}).(string)
	return s
}

func TestWrapMiddleware(t *testing.T) {
	var log resLog
	r := waltz.New()
	r.ErrorHandler = func(c *waltz.Context, err error) {
		log = append(log, "error handler: "+err.Error())
		waltz.DefaultErrorHandler(c, err)
	}
	r.Use(adpCheck(&log, "outer"), waltz.WrapMiddleware(adpStd(&log)), adpCheck(&log, "inner"))
	r.Get("/ok", func(c *waltz.Context) error { return c.Text(http.StatusOK, ctxValue(c)) })
	r.Get("/teapot", func(c *waltz.Context) error {
		return &waltz.HTTPError{Code: http.StatusTeapot, Message: "short and stout"}
	})
	for _, tc := range []struct {
		method, target, preflight string
		code                      int
		body                      string
		log                       []string
	}{
		{"GET", "/ok", "", 200, "from std", []string{
			`outer ctx="" wrapped=false`, "std>", `inner ctx="from std" wrapped=true`,
			`inner after: ctx="from std" wrapped=true err=false`, "<std saw 200",
			`outer after: ctx="" wrapped=false err=false`,
		}},
		// The error is answered where it is returned, inside the standard
		// middleware, which sees its status; the middleware outside it
		// gets the error, answered once, to log it.
		{"GET", "/teapot", "", 418, "short and stout", []string{
			`outer ctx="" wrapped=false`, "std>", `inner ctx="from std" wrapped=true`,
			"error handler: 418 short and stout", `inner after: ctx="from std" wrapped=true err=true`,
			"<std saw 418", `outer after: ctx="" wrapped=false err=true`,
		}},
		// The router's own answers run inside the router's middleware too.
		{"GET", "/missing", "", 404, "Not Found", []string{
			`outer ctx="" wrapped=false`, "std>", `inner ctx="from std" wrapped=true`,
			"error handler: 404 Not Found", `inner after: ctx="from std" wrapped=true err=true`,
			"<std saw 404", `outer after: ctx="" wrapped=false err=true`,
		}},
		// The standard middleware may answer without calling the chain.
		{"OPTIONS", "/ok", "GET", 204, "", []string{
			`outer ctx="" wrapped=false`, "preflight", `outer after: ctx="" wrapped=false err=false`,
		}},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			log = log[:0]
			w := resDo(t, r, tc.method, tc.target, "", "Access-Control-Request-Method", tc.preflight)
			if w.Code != tc.code || w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.code, tc.body)
			}
			if got, want := strings.Join(log, "\n"), strings.Join(tc.log, "\n"); got != want {
				t.Errorf("got log\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestWrapMiddlewareNested(t *testing.T) {
	var log resLog
	tag := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				log = append(log, name+">")
				next.ServeHTTP(w, r)
				log = append(log, "<"+name)
			})
		}
	}
	r := waltz.New()
	r.Use(log.mw("a"), waltz.WrapMiddleware(tag("std1")))
	r.Group("/g", waltz.WrapMiddleware(tag("std2")), log.mw("b")).Get("/x", func(c *waltz.Context) error {
		log = append(log, "handler")
		return nil
	})
	resDo(t, r, "GET", "/g/x", "")
	want := "a> std1> std2> b> handler <b <std2 <std1 <a"
	if got := strings.Join(log, " "); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestWrapMiddlewarePanics(t *testing.T) {
	lost := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(context.Background()))
		})
	}
	nilHandler := func(http.Handler) http.Handler { return nil }
	ok := func(c *waltz.Context) error { return nil }
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"nil", func() { waltz.WrapMiddleware(nil) }, "waltz: WrapMiddleware(nil): pass a func(http.Handler) http.Handler"},
		{"nil handler", func() { waltz.New().With(waltz.WrapMiddleware(nilHandler)).Get("/", ok) },
			"waltz: the middleware given to WrapMiddleware returned a nil http.Handler"},
		{"lost context", func() {
			r := waltz.New()
			r.With(waltz.WrapMiddleware(lost)).Get("/", ok)
			resDo(t, r, "GET", "/", "")
		}, "waltz: middleware given to WrapMiddleware passed on a request whose context does not derive " +
			"from the one it received; derive it with r.WithContext(ctx) from r.Context()"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resPanic(tc.f); got != tc.want {
				t.Errorf("got panic %v, want %s", got, tc.want)
			}
		})
	}
}

// adpRouters returns routers with one route behind no standard
// middleware, behind one, and behind two.
func adpRouters() []struct {
	name   string
	r      *waltz.Router
	allocs float64
} {
	pass := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
	}
	h := func(c *waltz.Context) error { return c.Text(http.StatusOK, c.Param("id")) }
	none, one, two, static := waltz.New(), waltz.New(), waltz.New(), waltz.New()
	none.Get("/user/:id", h)
	one.Use(waltz.WrapMiddleware(pass))
	one.Get("/user/:id", h)
	two.Use(waltz.WrapMiddleware(pass), waltz.WrapMiddleware(pass))
	two.Get("/user/:id", h)
	// A route without params: the wrapped middleware's request has no
	// path values to carry.
	static.Use(waltz.WrapMiddleware(pass))
	static.Get("/user/1", h)
	// Each wrapped middleware costs its request copy and the context that
	// carries the route (2); the chain's first also the request's map of
	// path values (2), which the later ones share.
	return []struct {
		name   string
		r      *waltz.Router
		allocs float64
	}{{"none", none, 0}, {"one", one, 4}, {"two", two, 6}, {"one-static", static, 2}}
}

func TestWrapMiddlewareAllocs(t *testing.T) {
	if resRace {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	for _, tc := range adpRouters() {
		req := httptest.NewRequest(http.MethodGet, "/user/1", nil)
		w := &resNopWriter{h: make(http.Header)}
		if got := testing.AllocsPerRun(100, func() { tc.r.ServeHTTP(w, req) }); got != tc.allocs {
			t.Errorf("%s wrapped: got %v allocs per request, want %v", tc.name, got, tc.allocs)
		}
	}
}

// BenchmarkWrapMiddleware measures what WrapMiddleware costs per request,
// with pass-through standard middleware that allocates nothing itself.
func BenchmarkWrapMiddleware(b *testing.B) {
	for _, tc := range adpRouters() {
		b.Run("wrapped="+tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/user/1", nil)
			w := &resNopWriter{h: make(http.Header)}
			b.ReportAllocs()
			for b.Loop() {
				tc.r.ServeHTTP(w, req)
			}
		})
	}
}

// TestWrapMiddlewareRouterAnswers: behind router-level standard
// middleware, the router's own answers are what they are without it.
func TestWrapMiddlewareRouterAnswers(t *testing.T) {
	plain, wrapped := waltz.New(), waltz.New()
	wrapped.Use(waltz.WrapMiddleware(func(next http.Handler) http.Handler { return next }))
	for _, r := range []*waltz.Router{plain, wrapped} {
		r.Get("/u/:id", func(c *waltz.Context) error { return c.Text(http.StatusOK, c.Param("id")) })
		r.Get("/a/", func(c *waltz.Context) error { return nil })
		r.Mount("/static", http.NotFoundHandler())
	}
	for _, tc := range []struct{ method, target string }{
		{"POST", "/u/1"},    // 405 with Allow
		{"OPTIONS", "/u/1"}, // automatic OPTIONS
		{"GET", "/a"},       // trailing-slash redirect
		{"OPTIONS", "*"},
		{"GET", "/static"}, // the mount's own redirect
		{"GET", "/nope"},
		{"GET", "/u/%zz"}, // handled by net/http's parser in real servers; here RawPath is stale
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			var got [2]string
			for i, r := range []*waltz.Router{plain, wrapped} {
				w := httptest.NewRecorder()
				req := httptest.NewRequest(tc.method, "/", nil)
				req.URL.Path, req.RequestURI = tc.target, tc.target
				r.ServeHTTP(w, req)
				got[i] = fmt.Sprintf("%d Allow=%q Location=%q %q", w.Code, w.Header().Get("Allow"), w.Header().Get("Location"), w.Body.String())
			}
			if got[0] != got[1] {
				t.Errorf("wrapped: got %s, want %s", got[1], got[0])
			}
		})
	}
}

// TestWrapMiddlewareSeesRoute: standard middleware in a chain reads the
// route's params with r.PathValue and its pattern with r.Pattern, as a
// Handler route does, and a loader by param (load what :id names, put it
// in the context) works as it does on chi.
func TestWrapMiddlewareSeesRoute(t *testing.T) {
	type loaded struct{}
	var seen []string
	see := func(name string) func(http.Handler) http.Handler {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen = append(seen, fmt.Sprintf("%s id=%q rest=%q pattern=%q", name, r.PathValue("id"), r.PathValue("rest"), r.Pattern))
				next.ServeHTTP(w, r)
			})
		}
	}
	articles := map[string]string{"7": "seven"}
	load := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			a, ok := articles[r.PathValue("id")]
			if !ok {
				http.Error(w, "no such article", http.StatusNotFound)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), loaded{}, a)))
		})
	}
	r := waltz.New()
	g := r.Group("/users/:id", waltz.WrapMiddleware(see("outer")))
	g.With(waltz.WrapMiddleware(see("inner")), waltz.WrapMiddleware(load)).Get("/files/*rest", func(c *waltz.Context) error {
		a, _ := c.Request.Context().Value(loaded{}).(string)
		return c.Text(http.StatusOK, a+" "+c.Param("rest"))
	})
	for _, tc := range []struct {
		path, want string
		seen       []string
	}{
		{"/users/7/files/a/b", "200 seven a/b", []string{
			`outer id="7" rest="a/b" pattern="/users/:id/files/*rest"`,
			`inner id="7" rest="a/b" pattern="/users/:id/files/*rest"`}},
		{"/users/8/files/x", "404 no such article\n", []string{
			`outer id="8" rest="x" pattern="/users/:id/files/*rest"`,
			`inner id="8" rest="x" pattern="/users/:id/files/*rest"`}},
		{"/users/a%2Fb/files/x%20y", "404 no such article\n", []string{
			`outer id="a/b" rest="x y" pattern="/users/:id/files/*rest"`,
			`inner id="a/b" rest="x y" pattern="/users/:id/files/*rest"`}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			seen = nil
			w := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			r.ServeHTTP(w, req)
			if got := strconv.Itoa(w.Code) + " " + w.Body.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if got := strings.Join(seen, "; "); got != strings.Join(tc.seen, "; ") {
				t.Errorf("middleware saw %s, want %s", got, strings.Join(tc.seen, "; "))
			}
			// The request the router was given keeps its own (empty) path
			// values: the wrapped middleware's copies carry them.
			if v := req.PathValue("id"); v != "" {
				t.Errorf("the router's own request: PathValue(id) = %q, want \"\"", v)
			}
		})
	}
}
