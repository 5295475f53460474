package waltz

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

func TestRegisterAfterServing(t *testing.T) {
	// Once a request was served, registering panics with a RouteError
	// that says why, and changes nothing: the routes registered before
	// are still found, and Routes lists them alone. Lookups read the
	// routes without a lock, so a registration racing them would be a
	// concurrent map write, a fatal error no recover catches.
	routes := loadRoutes(t, "testdata/github.tsv")
	r := New()
	served := func(c *Context) error { return c.Text(http.StatusOK, c.Pattern()) }
	check := func(rs []Route) {
		t.Helper()
		for _, rt := range rs {
			path := strings.NewReplacer(":", "v", "*", "v").Replace(rt.Pattern)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(rt.Method, path, nil))
			if w.Code != http.StatusOK || w.Body.String() != rt.Pattern {
				t.Errorf("%s %s: got %d %q, want 200 %q", rt.Method, path, w.Code, w.Body.String(), rt.Pattern)
			}
		}
	}
	first, late := routes[:len(routes)-1], routes[len(routes)-1]
	for _, rt := range first {
		r.Handle(rt.Method, rt.Pattern, served)
	}
	check(first)
	before := len(r.Routes())
	func() {
		defer func() {
			re, ok := recover().(*RouteError)
			if !ok || !strings.HasPrefix(re.Error(), "waltz: ") || !strings.Contains(re.Error(), "after the router began serving") || re.Pattern != late.Pattern {
				t.Errorf("registering after serving: got panic %v, want a *RouteError for %q saying it came after serving began", re, late.Pattern)
			}
		}()
		r.Handle(late.Method, late.Pattern, served)
	}()
	if got := len(r.Routes()); got != before {
		t.Errorf("routes after the refused registration: got %d, want %d", got, before)
	}
	check(first)
}

// TestRegisterWhileServing: a registration racing requests panics, on the
// registering goroutine, with the RouteError a recover can catch, and the
// requests go on being answered.
func TestRegisterWhileServing(t *testing.T) {
	r := New()
	r.Get("/a", func(c *Context) error { return c.Text(http.StatusOK, "a") })
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest("GET", "/a", nil))
			if w.Code != http.StatusOK {
				t.Errorf("GET /a while registering: got %d", w.Code)
				return
			}
		}
	}()
	for !r.serving.Load() {
		runtime.Gosched()
	}
	for i := range 100 {
		func() {
			defer func() {
				if _, ok := recover().(*RouteError); !ok {
					t.Errorf("registration %d while serving: no RouteError panic", i)
				}
			}()
			r.Get(fmt.Sprintf("/b%d/:id", i), func(c *Context) error { return nil })
		}()
	}
	close(stop)
	<-done
}
