package reliability

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
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
	const perClient = 1_000_000 // a bound on each client's loop besides the duration

	r := newApp()
	r.Get("/hello", func(c *waltz.Context) error { return c.Text(http.StatusOK, "Hello") })
	r.Get("/users/:id", func(c *waltz.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"id": c.Param("id")})
	})
	l := serverLimits()
	s := startServer(t, r, l)
	base := measure()

	var (
		requests, failed, non2xx atomic.Int64
		firstErr                 atomic.Value
		mu                       sync.Mutex
		all                      latencies
		wg                       sync.WaitGroup
	)
	stop := time.Now().Add(duration)
	for i := range clients {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 10 * time.Second}
			own := make(latencies, 0, 1024)
			for n := 0; n < perClient && time.Now().Before(stop); n++ {
				url := s.url + "/hello"
				if n%2 == 1 {
					url = fmt.Sprintf("%s/users/%d", s.url, i)
				}
				start := time.Now()
				resp, err := client.Get(url)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				own = append(own, time.Since(start))
				requests.Add(1)
				switch {
				case err != nil:
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				case resp.StatusCode/100 != 2:
					non2xx.Add(1)
				}
			}
			mu.Lock()
			all = append(all, own...)
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Logf("%d keep-alive clients for %v: %d requests on %d connections, %d errors, %d non-2xx, latency %v",
		clients, duration, requests.Load(), s.accepted.Load(), failed.Load(), non2xx.Load(), all)
	if failed.Load() != 0 {
		t.Errorf("failed requests: got %d (first: %v), want 0", failed.Load(), firstErr.Load())
	}
	if non2xx.Load() != 0 {
		t.Errorf("non-2xx answers: got %d, want 0", non2xx.Load())
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
