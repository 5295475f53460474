package reliability

import (
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// missing names behaviour this suite checks that the framework does not
// have yet, by the panic kind that needs it; those rows are skipped with
// the reason until it lands. Empty when nothing is missing.
var missing = map[string]string{}

// panicKinds are the routes of panicApp: what each does, and whether its
// client must see the response fail (a partial body must never read as
// complete). A panic before anything was written may be answered with a
// complete 500 by the Recoverer; net/http alone closes the connection.
var panicKinds = []struct {
	path    string
	desc    string
	mustCut bool // the client's read must fail, with or without Recoverer
}{
	{"/ok", "no panic: a complete 200", false},
	{"/panic/before", "panic before writing", false},
	{"/panic/partial-length", "panic after half of a declared Content-Length", true},
	{"/panic/partial-buffered", "panic after a body still in the server's buffer", true},
	{"/panic/flushed", "panic after a flushed (chunked) part of the body", true},
	{"/panic/abort", "http.ErrAbortHandler after a flushed part of the body", true},
}

// panicApp serves panicKinds, with or without the bundled Recoverer.
func panicApp(recoverer bool) *waltz.Router {
	r := waltz.New()
	r.Use(middleware.Logger(discardLogger))
	if recoverer {
		r.Use(middleware.Recoverer)
	}
	part := strings.Repeat("p", 512)
	r.Get("/ok", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
	r.Get("/panic/before", func(c *waltz.Context) error { panic("before writing") })
	r.Get("/panic/partial-length", func(c *waltz.Context) error {
		c.Writer.Header().Set("Content-Length", "1024")
		io.WriteString(c.Writer, part)
		panic("after half the body")
	})
	r.Get("/panic/partial-buffered", func(c *waltz.Context) error {
		io.WriteString(c.Writer, part)
		panic("after a buffered part of the body")
	})
	r.Get("/panic/flushed", func(c *waltz.Context) error {
		io.WriteString(c.Writer, part)
		http.NewResponseController(c.Writer).Flush()
		panic("after a flushed part of the body")
	})
	r.Get("/panic/abort", func(c *waltz.Context) error {
		io.WriteString(c.Writer, part)
		http.NewResponseController(c.Writer).Flush()
		panic(http.ErrAbortHandler)
	})
	return r
}

// outcome counts what the clients saw for one panic kind.
type outcome struct {
	sent, complete, failed int
	statuses               map[int]int // of the complete responses
}

// TestReliabilityPanics sends a mix of requests, most of which panic in
// one way or another, from several keep-alive clients at once, with and
// without the Recoverer. The server must keep serving (every /ok answered
// 200), a client must never read a partial body as a complete response,
// and goroutines and heap must come back to the baseline.
func TestReliabilityPanics(t *testing.T) {
	clients := size(8, 64)
	perClient := size(300, 3000)
	for _, mode := range []struct {
		name      string
		recoverer bool
	}{{"with Recoverer", true}, {"without Recoverer", false}} {
		t.Run(mode.name, func(t *testing.T) {
			// Every /ok follows an aborted request, so it opens a
			// connection: loadLimits, so that a stalled client is
			// not cut by the header timeout.
			s := startServer(t, panicApp(mode.recoverer), loadLimits())
			base := measure()
			got := panicLoad(s.url, clients, perClient)
			after := settle(t, base, 5*time.Second)
			t.Logf("baseline %v; after %v", base, after)
			for _, k := range panicKinds {
				t.Run(path.Base(k.path), func(t *testing.T) {
					o := got[k.path]
					t.Logf("%s: %d sent, %d complete %v, %d failed", k.desc, o.sent, o.complete, o.statuses, o.failed)
					if reason := missing[k.path]; reason != "" && mode.recoverer {
						t.Skip(reason)
					}
					checkOutcome(t, k.path, k.mustCut, mode.recoverer, o)
				})
			}
		})
	}
}

// checkOutcome checks what clients saw for path.
func checkOutcome(t testing.TB, path string, mustCut, recoverer bool, o outcome) {
	t.Helper()
	if o.sent == 0 {
		t.Fatalf("%s: sent 0 requests, want some", path)
	}
	switch {
	case path == "/ok":
		if o.failed != 0 || o.statuses[http.StatusOK] != o.sent {
			t.Errorf("%s: got %d complete %v and %d failed, want all %d a complete 200", path, o.complete, o.statuses, o.failed, o.sent)
		}
	case mustCut:
		if o.complete != 0 {
			t.Errorf("%s: got %d responses read as complete %v, want every read to fail", path, o.complete, o.statuses)
		}
	case recoverer: // a panic before writing
		if o.statuses[http.StatusInternalServerError] != o.sent {
			t.Errorf("%s: got %d complete %v and %d failed, want all %d a complete 500", path, o.complete, o.statuses, o.failed, o.sent)
		}
	default:
		if o.complete != 0 {
			t.Errorf("%s: got %d complete responses %v, want net/http to close every connection", path, o.complete, o.statuses)
		}
	}
}

// panicLoad has each of clients send perClient requests to the paths of
// panicKinds in turn, and counts the outcomes by path.
func panicLoad(url string, clients, perClient int) map[string]outcome {
	var mu sync.Mutex
	out := map[string]outcome{}
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
			for n := range perClient {
				k := panicKinds[(i+n)%len(panicKinds)]
				status, err := fetch(client, url+k.path)
				mu.Lock()
				o := out[k.path]
				o.sent++
				if err != nil {
					o.failed++
				} else {
					o.complete++
					if o.statuses == nil {
						o.statuses = map[int]int{}
					}
					o.statuses[status]++
				}
				out[k.path] = o
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

// fetch GETs url and reads the whole body; err is non-nil when the
// response or its body did not arrive complete.
func fetch(client *http.Client, url string) (status int, err error) {
	resp, err := client.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)); err != nil {
		return 0, fmt.Errorf("reading the body: %w", err)
	}
	return resp.StatusCode, nil
}
