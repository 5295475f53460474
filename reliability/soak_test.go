package reliability

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// Tolerances of the soak: how much the heap after GC and the RSS may grow
// from the end of the warm-up to the end of the run.
const (
	soakHeapSlack = 2 << 20  // bytes
	soakRSSSlack  = 16 << 20 // bytes
)

// soakApp serves every kind of answer a router gives: static, param and
// catch-all routes, Bind, its own 404, 405 and redirects, a mounted
// sub-router, and a temporary directory served by a mounted
// http.FileServerFS and by waltz.FileServer.
func soakApp(tb testing.TB) *waltz.Router {
	tb.Helper()
	dir := tb.TempDir()
	must(tb, os.WriteFile(filepath.Join(dir, "app.css"), []byte(strings.Repeat("body{}\n", 200)), 0o644))

	api := waltz.New()
	api.Get("/v1/status", func(c *waltz.Context) error { return c.JSON(http.StatusOK, map[string]bool{"ok": true}) })

	r := newApp()
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "home") })
	r.Get("/users/:id", func(c *waltz.Context) error { return c.Text(http.StatusOK, "user "+c.Param("id")) })
	r.Get("/users/:id/posts/:post", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, c.Param("id")+"/"+c.Param("post"))
	})
	r.Get("/files/*path", func(c *waltz.Context) error { return c.Text(http.StatusOK, c.Param("path")) })
	r.Get("/docs/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "docs") })
	r.Post("/bind", func(c *waltz.Context) error {
		var v struct {
			Name string
			Tags []string
		}
		if err := c.Bind(&v); err != nil {
			return err
		}
		return c.JSON(http.StatusCreated, v)
	})
	r.Mount("/api", api)
	r.Mount("/static", http.FileServerFS(os.DirFS(dir)))
	r.Get("/assets/*name", waltz.FileServer(os.DirFS(dir), waltz.FileServerOptions{}))
	return r
}

// soakRequest is one kind of request in the mix and the status it gets.
type soakRequest struct {
	method, path, body string
	want               int
}

var soakMix = []soakRequest{
	{http.MethodGet, "/", "", http.StatusOK},
	{http.MethodGet, "/users/42", "", http.StatusOK},
	{http.MethodGet, "/users/42/posts/7", "", http.StatusOK},
	{http.MethodGet, "/files/a/b/c.txt", "", http.StatusOK},
	{http.MethodPost, "/bind", `{"Name":"ada","Tags":["a","b"]}`, http.StatusCreated},
	{http.MethodPost, "/bind", `{"Name":`, http.StatusBadRequest},
	{http.MethodGet, "/nowhere", "", http.StatusNotFound},
	{http.MethodDelete, "/users/42", "", http.StatusMethodNotAllowed},
	{http.MethodGet, "/docs", "", http.StatusMovedPermanently},
	{http.MethodGet, "//users/42", "", http.StatusMovedPermanently},
	{http.MethodGet, "/api/v1/status", "", http.StatusOK},
	{http.MethodGet, "/api/v1/nothing", "", http.StatusNotFound},
	{http.MethodGet, "/static/app.css", "", http.StatusOK},
	{http.MethodGet, "/static/missing.css", "", http.StatusNotFound},
	{http.MethodGet, "/assets/app.css", "", http.StatusOK},
	{http.MethodGet, "/assets/../app.css", "", http.StatusBadRequest},
}

// sink is a ResponseWriter that keeps the status and discards the body,
// for serving in-process without a connection.
type sink struct {
	h    http.Header
	code int
}

func (s *sink) Header() http.Header { return s.h }
func (s *sink) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
}
func (s *sink) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return len(b), nil
}

// TestReliabilitySoak serves a mix of requests, most in-process (the
// router and middleware alone) and some over loopback connections (with
// net/http), and checks that every answer has the status its kind wants
// and that heap after GC, RSS and goroutines stay flat from the end of a
// warm-up to the end of the run.
func TestReliabilitySoak(t *testing.T) {
	inProcess := size(300_000, 3_000_000)
	overTCP := size(20_000, 1_000_000)
	const workers = 4
	r := soakApp(t)
	s := startServer(t, r, serverLimits())

	var wrong atomic.Int64
	var firstWrong atomic.Value
	check := func(k soakRequest, got int) {
		if got != k.want {
			wrong.Add(1)
			firstWrong.CompareAndSwap(nil, fmt.Sprintf("%s %s: got %d, want %d", k.method, k.path, got, k.want))
		}
	}
	// Warm up on a tenth, then measure the rest in tenths.
	run := func(n int) {
		soakInProcess(r, n*inProcess/10/workers, workers, check)
		soakOverTCP(s.url, n*overTCP/10/workers, workers, check)
	}
	run(1)
	warm := measure()
	peak := warm
	for range 9 {
		run(1)
		now := measure()
		peak.heap, peak.rss, peak.goroutines = max(peak.heap, now.heap), max(peak.rss, now.rss), max(peak.goroutines, now.goroutines)
	}
	end := measure()
	t.Logf("%d requests in-process and %d over TCP: after the warm-up %v; at the end %v; peak heap %s, RSS %s",
		inProcess, overTCP, warm, end, mib(peak.heap), mib(peak.rss))
	if wrong.Load() != 0 {
		t.Errorf("answers with the wrong status: got %d (first: %v), want 0", wrong.Load(), firstWrong.Load())
	}
	if end.heap > warm.heap+soakHeapSlack {
		t.Errorf("heap after GC: got %s, want at most %s (after the warm-up %s + %s)", mib(end.heap), mib(warm.heap+soakHeapSlack), mib(warm.heap), mib(soakHeapSlack))
	}
	if end.rss > warm.rss+soakRSSSlack {
		t.Errorf("RSS: got %s, want at most %s (after the warm-up %s + %s)", mib(end.rss), mib(warm.rss+soakRSSSlack), mib(warm.rss), mib(soakRSSSlack))
	}
	settle(t, warm, 5*time.Second)
}

// soakInProcess has workers goroutines each serve n requests of soakMix
// with r.ServeHTTP.
func soakInProcess(r http.Handler, n, workers int, check func(soakRequest, int)) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			w8 := &sink{h: http.Header{}}
			reqs := make([]*http.Request, len(soakMix))
			for i, k := range soakMix {
				reqs[i], _ = http.NewRequest(k.method, "http://127.0.0.1"+k.path, nil)
				reqs[i].RequestURI = k.path
				reqs[i].Header.Set("Content-Type", "application/json")
			}
			for i := range n {
				j := (w + i) % len(soakMix)
				k, req := soakMix[j], reqs[j]
				if k.body != "" {
					req.Body, req.ContentLength = io.NopCloser(strings.NewReader(k.body)), int64(len(k.body))
				}
				clear(w8.h)
				w8.code = 0
				r.ServeHTTP(w8, req)
				check(k, w8.code)
			}
		})
	}
	wg.Wait()
}

// soakOverTCP has workers keep-alive clients each send n requests of
// soakMix to url.
func soakOverTCP(url string, n, workers int, check func(soakRequest, int)) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 10 * time.Second,
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			for i := range n {
				k := soakMix[(w+i)%len(soakMix)]
				req, _ := http.NewRequest(k.method, url+k.path, strings.NewReader(k.body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					check(k, 0)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				check(k, resp.StatusCode)
			}
		})
	}
	wg.Wait()
}
