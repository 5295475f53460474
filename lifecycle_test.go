package waltz_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// lcLoad sends n requests per worker to srv from workers goroutines, for
// paths made by path(i); it fails t on any transport error.
func lcLoad(t *testing.T, srv *httptest.Server, workers, n int, path func(i int) string) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				res, err := srv.Client().Get(srv.URL + path(w*n+i))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		}()
	}
	wg.Wait()
}

// lcSeen collects what abandoned handlers saw before and after the request
// they served was over.
type lcSeen struct {
	mu   sync.Mutex
	bad  []string
	done sync.WaitGroup
}

func (s *lcSeen) check(what, before, after string) {
	if before != after {
		s.mu.Lock()
		s.bad = append(s.bad, fmt.Sprintf("%s: %q before, %q after", what, before, after))
		s.mu.Unlock()
	}
}

func (s *lcSeen) report(t *testing.T) {
	t.Helper()
	waitGroup(t, &s.done)
	for _, b := range s.bad {
		t.Error(b)
	}
}

func waitGroup(t *testing.T, wg *sync.WaitGroup) {
	t.Helper()
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("abandoned handlers did not finish")
	}
}

// TestLifecycleTimeoutHandler: http.TimeoutHandler through WrapMiddleware
// returns before the handler it runs on another goroutine; meanwhile the
// router serves other requests. The abandoned handler must keep its own
// params and pattern, and -race must find nothing.
func TestLifecycleTimeoutHandler(t *testing.T) {
	var seen lcSeen
	r := waltz.New()
	slow := r.Group("/slow", waltz.WrapMiddleware(func(h http.Handler) http.Handler {
		return http.TimeoutHandler(h, 5*time.Millisecond, "timed out")
	}))
	slow.Get("/:x", func(c *waltz.Context) error {
		seen.done.Add(1)
		defer seen.done.Done()
		x, pat, q := c.Param("x"), c.Pattern(), c.Query("q")
		time.Sleep(30 * time.Millisecond) // past the timeout: the router has moved on
		seen.check("param", x, c.Param("x"))
		seen.check("pattern", pat, c.Pattern())
		seen.check("query", q, c.Query("q"))
		seen.check("param vs query", x, q)
		// Goes to the writer TimeoutHandler gave, never to the connection.
		return c.Text(http.StatusOK, "late")
	})
	r.Get("/fast/:y/:z", func(c *waltz.Context) error { return c.Text(http.StatusOK, c.Param("y")+c.Param("z")) })
	srv := httptest.NewServer(r)
	defer srv.Close()

	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		lcLoad(t, srv, 4, 10, func(i int) string { s := strconv.Itoa(i); return "/slow/" + s + "?q=" + s })
	}()
	go func() {
		defer wg.Done()
		lcLoad(t, srv, 4, 200, func(i int) string { return "/fast/a" + strconv.Itoa(i) + "/b" })
	}()
	wg.Wait()
	seen.report(t)
}

// TestLifecycleCopy: a handler hands c.Copy() to a goroutine that outlives
// the request; the copy keeps its values while the Context is reused.
func TestLifecycleCopy(t *testing.T) {
	var seen lcSeen
	r := waltz.New()
	r.Get("/job/:id", func(c *waltz.Context) error {
		cp := c.Copy()
		id, pat := c.Param("id"), c.Pattern()
		seen.done.Add(1)
		go func() {
			defer seen.done.Done()
			time.Sleep(time.Millisecond)
			seen.check("param", id, cp.Param("id"))
			seen.check("pattern", pat, cp.Pattern())
			seen.check("request", "/job/"+id, cp.Request.URL.Path)
			if err := cp.Text(http.StatusOK, "late"); err == nil {
				seen.check("write to a copy", "refused", "accepted")
			}
		}()
		return c.Text(http.StatusAccepted, id)
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	lcLoad(t, srv, 4, 100, func(i int) string { return "/job/" + strconv.Itoa(i) })
	seen.report(t)
}

// TestLifecycleWrappedNextLater: standard middleware that calls its next
// handler after it has returned, and twice, still gives the chain the
// request's own route and params each time.
func TestLifecycleWrappedNextLater(t *testing.T) {
	var seen lcSeen
	r := waltz.New()
	r.Use(waltz.WrapMiddleware(func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			h.ServeHTTP(w, req)
			seen.done.Add(1)
			go func() {
				defer seen.done.Done()
				time.Sleep(time.Millisecond)
				h.ServeHTTP(httptest.NewRecorder(), req) // after the request is over
			}()
		})
	}))
	r.Get("/item/:id", func(c *waltz.Context) error {
		seen.check("param", c.Request.URL.Path, "/item/"+c.Param("id"))
		return c.Text(http.StatusOK, c.Param("id"))
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	lcLoad(t, srv, 4, 100, func(i int) string { return "/item/" + strconv.Itoa(i) })
	seen.report(t)
}
