package reliability

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// release is when a handler that served a slow client gave up: d after it
// started, with the error that stopped it.
type release struct {
	kind string
	d    time.Duration
	err  error
}

// TestReliabilitySlowClients opens, all at once, connections that send
// their headers a byte at a time (slowloris), send a body with a
// Content-Length or chunked a byte at a time, or never read a large
// response, while a probe asks for a small page at a steady pace. Each slow
// client must be cut at its timeout (ReadHeaderTimeout, ReadTimeout,
// WriteTimeout) and its connection closed, every probe must be answered
// within probeBound, and goroutines and heap must come back to the
// baseline.
func TestReliabilitySlowClients(t *testing.T) {
	l := serverLimits()
	n := slowCounts{loris: size(50, 500), bodies: size(10, 100), readers: size(10, 100)}
	tick := size(50*time.Millisecond, time.Second)
	const probeBound = time.Second
	slack := size(time.Second, 3*time.Second) // how late a cut may come

	released := make(chan release, 2*n.bodies+n.readers) // one per handler that reports
	s := startServer(t, slowApp(released), l)
	base := measure()

	probeDone := make(chan struct{})
	probes := make(chan latencies, 1)
	go func() { probes <- probe(t, s.url+"/ping", tick, probeDone) }()
	cuts := slowLoad(t, s.addr, n, l, tick, slack)
	close(probeDone)
	lat := <-probes

	for _, row := range []struct {
		kind string
		want time.Duration
	}{
		{"slow headers", l.header},
		{"slow Content-Length body", l.read},
		{"slow chunked body", l.read},
	} {
		got := cuts[row.kind]
		t.Logf("%d %s clients cut after %v (timeout %v)", len(got), row.kind, got, row.want)
		if lo, hi := got.quantile(0), got.quantile(1); lo < row.want*9/10 || hi > row.want+slack {
			t.Errorf("%s: cut between %v and %v, want between %v and %v", row.kind, lo, hi, row.want*9/10, row.want+slack)
		}
	}
	byKind := collectReleases(t, released, slack+5*time.Second)
	for _, row := range []struct {
		kind string
		n    int
		want time.Duration
	}{
		{"upload", 2 * n.bodies, l.read},
		{"big", n.readers, l.write},
	} {
		got := byKind[row.kind]
		t.Logf("%d %s handlers released after %v (timeout %v)", len(got), row.kind, got, row.want)
		if len(got) != row.n {
			t.Errorf("%s handlers released: got %d, want %d", row.kind, len(got), row.n)
		}
		if hi := got.quantile(1); hi > row.want+slack {
			t.Errorf("%s handlers: last released after %v, want at most %v", row.kind, hi, row.want+slack)
		}
	}

	t.Logf("%d probes meanwhile: %v", len(lat), lat)
	if len(lat) == 0 {
		t.Errorf("probes answered: got 0, want some")
	}
	if got := lat.quantile(1); got > probeBound {
		t.Errorf("slowest probe: got %v, want at most %v", got, probeBound)
	}
	after := settle(t, base, 5*time.Second)
	t.Logf("baseline %v; after %v", base, after)
}

// slowCounts says how many slow clients of each kind to open.
type slowCounts struct {
	loris   int // slow headers
	bodies  int // slow bodies, of each kind (Content-Length, chunked)
	readers int // clients that never read
}

// slowLoad opens the slow clients n against addr, all at once, sending a
// piece every tick, and returns, by kind, how long the server took to
// close each connection. A client the server never cut is a test error.
func slowLoad(tb testing.TB, addr string, n slowCounts, l limits, tick, slack time.Duration) map[string]latencies {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		cuts = map[string]latencies{}
	)
	record := func(kind string, d time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			tb.Errorf("%s client: %v", kind, err)
			return
		}
		cuts[kind] = append(cuts[kind], d)
	}
	maxTicks := int(max(l.header, l.read)/tick)*2 + 10
	for range n.loris {
		wg.Go(func() {
			d, err := drip(addr, "GET /ping HTTP/1.1\r\nHost: a\r\n", "X-Slow: 1\r\n", tick, maxTicks)
			record("slow headers", d, err)
		})
	}
	for range n.bodies {
		wg.Go(func() {
			d, err := drip(addr, "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 10000000\r\n\r\n", "x", tick, maxTicks)
			record("slow Content-Length body", d, err)
		})
		wg.Go(func() {
			d, err := drip(addr, "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", "1\r\nx\r\n", tick, maxTicks)
			record("slow chunked body", d, err)
		})
	}
	for range n.readers {
		wg.Go(func() { record("never reads", 0, neverRead(addr, l.write+slack)) })
	}
	wg.Wait()
	return cuts
}

// collectReleases takes the handlers' reports, at most cap(released) of
// them and for at most wait, by kind; a handler that finished without an
// error is a test error. Network I/O is no synchronization the race
// detector knows of, so the reports come over the channel, which is
// never closed.
func collectReleases(tb testing.TB, released <-chan release, wait time.Duration) map[string]latencies {
	byKind := map[string]latencies{}
	timeout := time.After(wait)
	for range cap(released) {
		select {
		case r := <-released:
			if r.err == nil {
				tb.Errorf("%s handler: returned with no error after %v, want a timeout", r.kind, r.d)
			}
			byKind[r.kind] = append(byKind[r.kind], r.d)
		case <-timeout:
			return byKind
		}
	}
	return byKind
}

// slowApp serves /ping, /upload, which reads its whole body, and /big,
// which writes up to 256 MiB; the last two report to released when they
// give up.
func slowApp(released chan<- release) *waltz.Router {
	r := newApp()
	r.Get("/ping", func(c *waltz.Context) error { return c.Text(http.StatusOK, "pong") })
	r.Post("/upload", func(c *waltz.Context) error {
		start := time.Now()
		_, err := io.Copy(io.Discard, c.Request.Body)
		released <- release{"upload", time.Since(start), err}
		if err != nil {
			return &waltz.HTTPError{Code: http.StatusRequestTimeout, Err: err}
		}
		return c.NoContent(http.StatusNoContent)
	})
	r.Get("/big", func(c *waltz.Context) error {
		start := time.Now()
		chunk := make([]byte, 64<<10)
		var err error
		for i := 0; i < 4096 && err == nil; i++ { // 256 MiB at most
			_, err = c.Writer.Write(chunk)
		}
		released <- release{"big", time.Since(start), err}
		return nil
	})
	return r
}

// drip connects to addr, sends head, then sends piece every tick, at most
// maxTicks times, until the server closes the connection. It returns how
// long the server took to close it, or an error if it never did.
func drip(addr, head, piece string, tick time.Duration, maxTicks int) (time.Duration, error) {
	limit := tick*time.Duration(maxTicks) + 10*time.Second
	// The clock starts before the dial, so that a late-scheduled goroutine
	// cannot make a cut look early.
	start := time.Now()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(limit))
	closed := make(chan error, 1)
	go func() {
		// Whatever the server answers (a 408, say), the connection must end.
		_, err := io.Copy(io.Discard, io.LimitReader(conn, 1<<20))
		closed <- err
	}()
	if _, err := io.WriteString(conn, head); err != nil {
		return 0, err
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for range maxTicks {
		select {
		case err := <-closed:
			if err != nil && !closedByPeer(err) {
				return 0, err
			}
			return time.Since(start), nil
		case <-t.C:
			io.WriteString(conn, piece) // fails once the server has closed; the reader sees that
		}
	}
	return 0, io.ErrNoProgress
}

// neverRead asks addr for /big and reads nothing for wait, by when the
// server must have given up writing; then it checks that the server closed
// the connection: reading what the socket buffered must end in EOF.
func neverRead(addr string, wait time.Duration) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(wait + 10*time.Second))
	if _, err := io.WriteString(conn, "GET /big HTTP/1.1\r\nHost: a\r\n\r\n"); err != nil {
		return err
	}
	time.Sleep(wait)
	_, err = io.Copy(io.Discard, io.LimitReader(conn, 512<<20))
	if err != nil && !closedByPeer(err) {
		return err
	}
	return nil
}

// probe asks url for a page every tick until done, and returns how long
// each answer took; a failed probe is a test error.
func probe(tb testing.TB, url string, tick time.Duration, done <-chan struct{}) latencies {
	client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var lat latencies
	tk := time.NewTicker(tick)
	defer tk.Stop()
	for i := 0; i < 100_000; i++ {
		select {
		case <-done:
			return lat
		case <-tk.C:
		}
		start := time.Now()
		resp, err := client.Get(url)
		if err != nil {
			tb.Errorf("probe %d: %v", i, err)
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(b), "pong") {
			tb.Errorf("probe %d: got %d %q (%v), want 200 \"pong\"", i, resp.StatusCode, b, err)
		}
		lat = append(lat, time.Since(start))
	}
	return lat
}
