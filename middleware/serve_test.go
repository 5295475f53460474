package middleware

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/waltz-go/waltz"
)

// serve runs req through a router with mw on GET and POST "/" and h as the
// handler, and returns the recorded response.
func serve(tb testing.TB, mw waltz.Middleware, h waltz.HandlerFunc, req *http.Request) *httptest.ResponseRecorder {
	tb.Helper()
	r := waltz.New()
	r.Use(mw)
	r.Get("/", h)
	r.Post("/", h)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

// nopWriter is a ResponseWriter that keeps one header map and discards
// everything, so that allocation counts show the middleware's own.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header               { return w.h }
func (w *nopWriter) Write(b []byte) (int, error)       { return len(b), nil }
func (w *nopWriter) WriteHeader(int)                   {}
func (w *nopWriter) WriteString(s string) (int, error) { return len(s), nil }

// allocs returns the average allocations of serving req through a router
// with mw and h on "/"; the header map is cleared, not remade, each run.
func allocs(tb testing.TB, mw waltz.Middleware, h waltz.HandlerFunc, req *http.Request) float64 {
	tb.Helper()
	r := waltz.New()
	r.Use(mw)
	r.Get("/", h)
	r.Post("/", h)
	return allocsOn(r, req)
}

// allocsOn returns the average allocations of serving req through h, after
// one warm-up; the header map is cleared, not remade, each run.
func allocsOn(h http.Handler, req *http.Request) float64 {
	w := &nopWriter{h: http.Header{}}
	h.ServeHTTP(w, req) // warm the pool and the header map
	return testing.AllocsPerRun(100, func() {
		clear(w.h)
		h.ServeHTTP(w, req)
	})
}

func ok(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }

// panicMessage returns what f panics with, formatted, or "" if it returns.
func panicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// withHeader returns a GET request for "/" with the header name set to value.
func withHeader(name, value string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set(name, value)
	return req
}
