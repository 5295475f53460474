package reliability

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// workBody is the body /work/:ms sends, in two halves around its sleep.
var workBody = strings.Repeat("w", 2048)

// TestReliabilityShutdown keeps clients busy with requests that take 0 to
// maxWork each, then cancels the server's context: every request a handler
// started must reach its client complete (none lost, none truncated), and
// the server must return about as soon as the longest request in flight
// finishes.
func TestReliabilityShutdown(t *testing.T) {
	clients := size(20, 50)
	load := size(time.Second, 5*time.Second)
	const maxWork = 200 * time.Millisecond
	slack := size(time.Second, 500*time.Millisecond)

	var started sync.Map // request id → true, when its handler began
	grace := waltz.ShutdownTimeout
	s, errc, cancel := runServer(t, workApp(&started, maxWork), serverLimits(), grace)
	defer cancel()
	down, markDown := context.WithCancel(context.Background())
	defer markDown()

	var took time.Duration
	var err error
	got := shutdownLoad(down, s.url, clients, maxWork, func() {
		time.Sleep(load)
		begin := time.Now()
		markDown()
		cancel()
		select {
		case err = <-errc:
		case <-time.After(grace + 5*time.Second):
			t.Fatalf("the server had not returned %v after its context was cancelled", grace+5*time.Second)
		}
		took = time.Since(begin)
	})

	var nStarted, lost int
	started.Range(func(id, _ any) bool {
		nStarted++
		if _, ok := got.complete.Load(id); !ok {
			lost++
		}
		return true
	})
	t.Logf("%d clients, %d requests sent, %d started by a handler; shutdown took %v (longest request %v)",
		clients, got.sent, nStarted, took.Round(time.Millisecond), maxWork)
	if err != nil {
		t.Errorf("the server returned %v, want nil after a clean shutdown", err)
	}
	if got.failed != 0 {
		t.Errorf("requests failed before shutdown began: got %d, want 0", got.failed)
	}
	if lost != 0 || got.truncated != 0 {
		t.Errorf("requests started by a handler: got %d not read complete (%d truncated), want 0", lost, got.truncated)
	}
	if took > maxWork+slack {
		t.Errorf("shutdown took %v, want at most %v (the longest request, %v, plus %v)", took, maxWork+slack, maxWork, slack)
	}
}

// workApp serves /work/:ms?id=, which records id in started, sends half
// of workBody with its Content-Length, flushes, sleeps ms (at most
// maxWork), and sends the rest.
func workApp(started *sync.Map, maxWork time.Duration) *waltz.Router {
	r := newApp()
	r.Get("/work/:ms", func(c *waltz.Context) error {
		started.Store(c.Query("id"), true)
		ms, err := strconv.Atoi(c.Param("ms"))
		if err != nil || ms < 0 || ms > int(maxWork/time.Millisecond) {
			return &waltz.HTTPError{Code: http.StatusBadRequest}
		}
		c.Writer.Header().Set("Content-Length", strconv.Itoa(len(workBody)))
		io.WriteString(c.Writer, workBody[:len(workBody)/2])
		http.NewResponseController(c.Writer).Flush()
		time.Sleep(time.Duration(ms) * time.Millisecond)
		_, err = io.WriteString(c.Writer, workBody[len(workBody)/2:])
		return err
	})
	return r
}

// shutdownResult is what shutdownLoad's clients saw.
type shutdownResult struct {
	sent, failed, truncated int64
	complete                sync.Map // request id → true, when its client read it whole
}

// shutdownLoad has clients keep-alive clients ask url for /work pages of 0
// to maxWork, each with an id, while during runs; once ctx is done, a
// client stops at its first error (a refused connection: the server is
// gone). Errors before that count as failed.
func shutdownLoad(ctx context.Context, url string, clients int, maxWork time.Duration, during func()) *shutdownResult {
	var (
		res                     shutdownResult
		sent, failed, truncated atomic.Int64
		stop                    atomic.Bool
		wg                      sync.WaitGroup
	)
	spread := int(maxWork/time.Millisecond) + 1
	for i := range clients {
		wg.Go(func() {
			client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
			defer client.CloseIdleConnections()
			for n := 0; n < 100_000 && !stop.Load(); n++ {
				id := fmt.Sprintf("%d-%d", i, n)
				sent.Add(1)
				resp, err := client.Get(fmt.Sprintf("%s/work/%d?id=%s", url, (i*7+n*13)%spread, id))
				if err != nil {
					if ctx.Err() != nil {
						return // refused once the listener is closed: no handler started
					}
					failed.Add(1)
					continue
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || string(b) != workBody {
					truncated.Add(1)
					continue
				}
				res.complete.Store(id, true)
			}
		})
	}
	during()
	stop.Store(true)
	wg.Wait()
	res.sent, res.failed, res.truncated = sent.Load(), failed.Load(), truncated.Load()
	return &res
}

// stuckApp serves /forever, which sends a line and then waits for release
// (or for bound to pass), and /slow, which takes 100 ms.
func stuckApp(release <-chan struct{}, bound time.Duration) *waltz.Router {
	r := newApp()
	r.Get("/forever", func(c *waltz.Context) error {
		io.WriteString(c.Writer, "started\n")
		http.NewResponseController(c.Writer).Flush()
		select {
		case <-release:
		case <-time.After(bound):
		}
		return nil
	})
	r.Get("/slow", func(c *waltz.Context) error {
		time.Sleep(100 * time.Millisecond)
		return c.Text(http.StatusOK, "done")
	})
	return r
}

// TestReliabilityShutdownStuckHandler cancels the server's context while a
// handler that never returns holds a connection and a normal request is in
// flight: the normal request must complete, and at the grace period the
// server must return and close the stuck handler's connection.
func TestReliabilityShutdownStuckHandler(t *testing.T) {
	grace := size(500*time.Millisecond, waltz.ShutdownTimeout)
	slack := 2 * time.Second
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock()
	s, errc, cancel := runServer(t, stuckApp(release, grace+time.Minute), serverLimits(), grace)
	defer cancel()
	addr := s.addr
	base := measure()

	conn := dial(t, addr, grace+slack+10*time.Second)
	io.WriteString(conn, "GET /forever HTTP/1.1\r\nHost: a\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET /forever: %v", err)
	}
	slow := make(chan error, 1)
	go func() {
		_, err := fetch(&http.Client{Timeout: 10 * time.Second}, "http://"+addr+"/slow")
		slow <- err
	}()
	time.Sleep(20 * time.Millisecond) // let /slow start
	begin := time.Now()
	cancel()

	cut := make(chan time.Duration, 1)
	go func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		cut <- time.Since(begin)
	}()
	if err := <-slow; err != nil {
		t.Errorf("a request in flight at shutdown: %v, want it complete", err)
	}
	err = <-errc
	took := time.Since(begin)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the server returned %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if took < grace || took > grace+slack {
		t.Errorf("the server returned after %v, want between %v and %v", took, grace, grace+slack)
	}
	select {
	case d := <-cut:
		t.Logf("grace %v: the server returned after %v, the stuck connection was closed after %v", grace, took, d)
	case <-time.After(slack):
		t.Errorf("the stuck handler's connection: still open %v after the server returned, want closed", slack)
	}
	unblock() // the handler itself is the application's to end
	settle(t, base, 5*time.Second)
}
