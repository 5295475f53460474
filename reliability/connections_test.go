package reliability

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// TestReliabilityConnections runs many keep-alive clients, each on its own
// connection, against a router with the bundled Logger and Recoverer, then
// leaves them idle: every request must succeed with a 2xx on the
// connection it started on, the server must close every connection at its
// idle timeout, and goroutines and heap must come back to the baseline.
func TestReliabilityConnections(t *testing.T) {
	clients := size(50, 1024)
	duration := size(2*time.Second, 10*time.Second)
	r := newApp()
	r.Get("/hello", func(c *waltz.Context) error { return c.Text(http.StatusOK, "Hello") })
	r.Get("/users/:id", func(c *waltz.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"id": c.Param("id")})
	})
	l := serverLimits()
	s := startServer(t, r, l)
	base := measure()

	got := keepAliveLoad(s.url, clients, duration)
	t.Logf("%d keep-alive clients for %v: %d requests on %d connections, %d errors, %d non-2xx, latency %v",
		clients, duration, got.requests, s.accepted.Load(), got.failed, got.non2xx, got.lat)
	if got.failed != 0 {
		t.Errorf("failed requests: got %d (first: %v), want 0", got.failed, got.firstErr)
	}
	if got.non2xx != 0 {
		t.Errorf("non-2xx answers: got %d, want 0", got.non2xx)
	}
	// One connection per client, give or take the odd one: http.Transport
	// may dial before the body it just read has put the last connection
	// back in its pool.
	if got, want := s.accepted.Load(), int64(clients+clients/20+1); got > want {
		t.Errorf("connections accepted: got %d, want at most %d (one per keep-alive client, %d, and 5%%)", got, want, clients)
	}

	// Nobody closes the clients' idle connections: the server's idle
	// timeout must.
	deadline := time.Now().Add(l.idle + 5*time.Second)
	for s.open.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := s.open.Load(); got != 0 {
		t.Errorf("connections open %v after the idle timeout (%v): got %d, want 0", 5*time.Second, l.idle, got)
	}
	after := settle(t, base, 5*time.Second)
	t.Logf("baseline %v; after the idle timeout %v", base, after)
}

// loadResult is what keepAliveLoad's clients saw.
type loadResult struct {
	requests, failed, non2xx int
	firstErr                 error
	lat                      latencies
}

// keepAliveLoad has clients goroutines, each with its own http.Transport
// (so its own keep-alive connection), alternate GET /hello and GET
// /users/<n> on url for duration, and at most a million requests each. It
// leaves the connections open.
func keepAliveLoad(url string, clients int, duration time.Duration) loadResult {
	const perClient = 1_000_000
	var (
		mu  sync.Mutex
		all loadResult
		wg  sync.WaitGroup
	)
	stop := time.Now().Add(duration)
	for i := range clients {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 10 * time.Second}
			own := loadResult{lat: make(latencies, 0, 1024)}
			for n := 0; n < perClient && time.Now().Before(stop); n++ {
				u := url + "/hello"
				if n%2 == 1 {
					u = fmt.Sprintf("%s/users/%d", url, i)
				}
				start := time.Now()
				resp, err := client.Get(u)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				own.lat = append(own.lat, time.Since(start))
				own.requests++
				switch {
				case err != nil:
					own.failed++
					own.firstErr = err
				case resp.StatusCode/100 != 2:
					own.non2xx++
				}
			}
			mu.Lock()
			defer mu.Unlock()
			all.requests, all.failed, all.non2xx = all.requests+own.requests, all.failed+own.failed, all.non2xx+own.non2xx
			all.lat = append(all.lat, own.lat...)
			if all.firstErr == nil {
				all.firstErr = own.firstErr
			}
		})
	}
	wg.Wait()
	return all
}
