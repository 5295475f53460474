package waltz

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func TestHeaderValuesNotShared(t *testing.T) {
	// A middleware may edit a header value in place once the handler has
	// set it: that edit must change its own response only, never a later
	// one, whether the router set the value (Allow on a 405 or an
	// automatic OPTIONS) or a response helper did (Content-Type of Text,
	// HTML, JSON and of the default error page).
	r := New()
	r.Use(func(next HandlerFunc) HandlerFunc {
		return func(c *Context) error {
			err := next(c)
			if c.Request.Header.Get("X-Tamper") != "" {
				for _, v := range c.Writer.Header() {
					v[0] = "tampered"
				}
			}
			return err
		}
	})
	r.Get("/text", func(c *Context) error { return c.Text(http.StatusOK, "t") })
	r.Get("/html", func(c *Context) error { return c.HTML(http.StatusOK, "<p>") })
	r.Get("/json", func(c *Context) error { return c.JSON(http.StatusOK, 1) })
	for _, tc := range []struct {
		method, target, key, want string
	}{
		{"GET", "/text", "Content-Type", "text/plain; charset=utf-8"},
		{"GET", "/html", "Content-Type", "text/html; charset=utf-8"},
		{"GET", "/json", "Content-Type", "application/json"},
		{"GET", "/missing", "Content-Type", "text/plain; charset=utf-8"},
		{"POST", "/text", "Allow", "GET, HEAD, OPTIONS"},
		{"OPTIONS", "/text", "Allow", "GET, HEAD, OPTIONS"},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			for i := range 3 {
				tampered := serveWith(t, r, tc.method, tc.target, "X-Tamper", "1")
				if got := tampered.Header().Get(tc.key); got != "tampered" {
					t.Fatalf("the middleware's own response: got %s %q, want it edited", tc.key, got)
				}
				w := serve(t, r, tc.method, tc.target)
				if got := w.Header().Get(tc.key); got != tc.want {
					t.Fatalf("request %d after an edit in place: got %s %q, want %q", i+1, tc.key, got, tc.want)
				}
			}
		})
	}
}

func TestHeaderReadAfterServe(t *testing.T) {
	// A response's header map can be read after ServeHTTP has returned and
	// put the Context back in the pool: net/http writes the header of a
	// handler that sent no status then, and an outer wrapper may copy the
	// map. Reading it while other requests reuse the pooled Contexts must
	// give this response's values and, under -race, race with nothing.
	r := New()
	r.Get("/t", func(c *Context) error { return c.Text(http.StatusOK, "x") })
	r.Get("/j", func(c *Context) error { return c.JSON(http.StatusOK, 1) })
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				path, want := "/t", "text/plain; charset=utf-8"
				if (g+i)%2 == 0 {
					path, want = "/j", "application/json"
				}
				w := httptest.NewRecorder()
				r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
				if got := w.HeaderMap["Content-Type"]; len(got) != 1 || got[0] != want {
					errs <- fmt.Sprintf("GET %s: got Content-Type %q after serving, want %q", path, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
