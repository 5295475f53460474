package waltz_test

import (
	"context"
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
		// sees nil.
		{"GET", "/teapot", "", 418, "short and stout", []string{
			`outer ctx="" wrapped=false`, "std>", `inner ctx="from std" wrapped=true`,
			"error handler: 418 short and stout", `inner after: ctx="from std" wrapped=true err=true`,
			"<std saw 418", `outer after: ctx="" wrapped=false err=false`,
		}},
		// The router's own answers run inside the router's middleware too.
		{"GET", "/missing", "", 404, "Not Found", []string{
			`outer ctx="" wrapped=false`, "std>", `inner ctx="from std" wrapped=true`,
			"error handler: 404 Not Found", `inner after: ctx="from std" wrapped=true err=true`,
			"<std saw 404", `outer after: ctx="" wrapped=false err=false`,
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
	none, one, two := waltz.New(), waltz.New(), waltz.New()
	none.Get("/user/:id", h)
	one.Use(waltz.WrapMiddleware(pass))
	one.Get("/user/:id", h)
	two.Use(waltz.WrapMiddleware(pass), waltz.WrapMiddleware(pass))
	two.Get("/user/:id", h)
	return []struct {
		name   string
		r      *waltz.Router
		allocs float64
	}{{"none", none, 0}, {"one", one, 2}, {"two", two, 4}}
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
