package reliability

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

var long = flag.Bool("long", false, "run the reliability checks at full size (minutes, not seconds)")

func TestMain(m *testing.M) {
	flag.Parse()

	// Recoverer and DefaultErrorHandler log with the default slog logger;
	// the panics and errors provoked here are expected, not news.
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}

// size returns ci, or full when the suite runs with -long.
func size[T any](ci, full T) T {
	if *long {
		return full
	}
	return ci
}

// limits are the timeouts of a server under test.
type limits struct {
	header, read, write, idle time.Duration
}

// serverLimits returns short timeouts at CI size, so that a check waits
// for each in a second or two, and waltz's own defaults with -long. The
// idle timeout is the longest of them at CI size: a client that the race
// detector and a busy machine stall between two requests for longer than
// it would get a new connection, and the connections check counts them.
func serverLimits() limits {
	return size(
		limits{header: 300 * time.Millisecond, read: time.Second, write: time.Second, idle: 2 * time.Second},
		limits{header: waltz.ReadHeaderTimeout, read: waltz.ReadTimeout, write: waltz.WriteTimeout, idle: waltz.IdleTimeout},
	)
}

// loadLimits returns serverLimits with header, read and write timeouts
// of at least 5 s, for a check of something else than those timeouts
// under a load of fresh connections. On a loaded machine under -race a
// client can stall between its connect and its first write for hundreds
// of milliseconds (200 ms seen); the server's header timeout, which
// starts at the accept, then closes the connection unanswered, and the
// client reads an EOF that no retry hides, as it does on a reused
// connection. slow_test.go checks those timeouts themselves.
func loadLimits() limits {
	l := serverLimits()
	l.header, l.read, l.write = max(l.header, 5*time.Second), max(l.read, 5*time.Second), max(l.write, 5*time.Second)
	return l
}

// server is a waltz.Server on a loopback listener, with counts of the
// connections it accepted and holds open.
type server struct {
	addr     string       // host:port
	url      string       // http://host:port
	accepted atomic.Int64 // connections accepted
	open     atomic.Int64 // connections not yet closed or hijacked
}

// startServer serves h with a waltz.Server on 127.0.0.1, with the timeouts
// l, until the test ends; then the server shuts down with a 1 s grace
// period, which no check leaves a request to need, and must return nil.
func startServer(tb testing.TB, h http.Handler, l limits) *server {
	tb.Helper()
	s, errc, cancel := runServer(tb, h, l, time.Second)
	tb.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			tb.Errorf("the server returned %v at the end of the test, want nil", err)
		}
	})
	return s
}

// runServer starts h on a waltz.Server on 127.0.0.1, with the timeouts l
// and the shutdown grace period grace, and returns what Server.Run returns
// on the channel once cancel is called.
func runServer(tb testing.TB, h http.Handler, l limits, grace time.Duration) (*server, <-chan error, context.CancelFunc) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	s := &server{addr: ln.Addr().String()}
	s.url = "http://" + s.addr
	srv := &waltz.Server{
		Server: http.Server{
			Handler:           h,
			ReadHeaderTimeout: l.header,
			ReadTimeout:       l.read,
			WriteTimeout:      l.write,
			IdleTimeout:       l.idle,
			ErrorLog:          log.New(io.Discard, "", 0),
			ConnState:         s.connState,
		},
		ShutdownTimeout: grace,
		DrainDelay:      -1, // the shutdown is what these checks measure; drain_test.go measures the drain
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- srv.Run(ctx, ln) }()
	return s, errc, cancel
}

func (s *server) connState(_ net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		s.accepted.Add(1)
		s.open.Add(1)
	case http.StateClosed, http.StateHijacked:
		s.open.Add(-1)
	}
}

// discardLogger is a Logger for the bundled middleware that writes nothing.
var discardLogger = slog.New(slog.DiscardHandler)

// newApp returns a router with the bundled Logger and Recoverer.
func newApp() *waltz.Router {
	r := waltz.New()
	r.Use(middleware.Logger(discardLogger), middleware.Recoverer)
	return r
}

// snapshot is the process's use of memory and goroutines after a GC.
type snapshot struct {
	goroutines int
	heap       uint64 // bytes of heap in use (runtime.MemStats.HeapAlloc)
	rss        uint64 // bytes resident (VmRSS in /proc/self/status); 0 where there is none
}

func (s snapshot) String() string {
	return fmt.Sprintf("%d goroutines, heap %s, RSS %s", s.goroutines, mib(s.heap), mib(s.rss))
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// measure collects garbage twice (the second pass frees what sync.Pools let
// go in the first) and takes a snapshot.
func measure() snapshot {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return snapshot{goroutines: runtime.NumGoroutine(), heap: ms.HeapAlloc, rss: rss()}
}

// rss returns the resident set size in bytes from /proc/self/status, or 0.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// Tolerances for "back to baseline".
const (
	goroutineSlack = 4       // goroutines: the runtime and testing start a few of their own
	heapSlack      = 4 << 20 // bytes of heap after GC
)

// settle waits up to within for the goroutine count to come back to at most
// base.goroutines+goroutineSlack and then checks the heap, failing tb with
// a goroutine dump if either stays above its tolerance. It returns the last
// snapshot.
func settle(tb testing.TB, base snapshot, within time.Duration) snapshot {
	tb.Helper()
	// Wait for the baseline itself, but no more than a second once within
	// the tolerance: connections close a little after their clients.
	start, deadline := time.Now(), time.Now().Add(within)
	now := measure()
	for now.goroutines > base.goroutines && time.Now().Before(deadline) &&
		(now.goroutines > base.goroutines+goroutineSlack || time.Since(start) < time.Second) {
		time.Sleep(50 * time.Millisecond)
		now = measure()
	}
	if now.goroutines > base.goroutines+goroutineSlack {
		var dump bytes.Buffer
		pprof.Lookup("goroutine").WriteTo(&dump, 1)
		tb.Errorf("goroutines %v after the load: got %d, want at most %d (baseline %d + %d)\n%s",
			within, now.goroutines, base.goroutines+goroutineSlack, base.goroutines, goroutineSlack, truncate(dump.String(), 8000))
	}
	if now.heap > base.heap+heapSlack {
		tb.Errorf("heap after GC: got %s, want at most %s (baseline %s + %s)",
			mib(now.heap), mib(base.heap+heapSlack), mib(base.heap), mib(heapSlack))
	}
	return now
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n…"
}

// dial opens a TCP connection to addr that fails every read and write
// after the deadline d from now, so no raw-TCP check can hang.
func dial(tb testing.TB, addr string, d time.Duration) net.Conn {
	tb.Helper()
	conn, err := dialRaw(addr, d)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { conn.Close() })
	return conn
}

// dialRaw is dial for a goroutine that cannot fail a test: the caller
// closes the connection.
func dialRaw(addr string, d time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	conn.SetDeadline(time.Now().Add(d))
	return conn, nil
}

// readResponse reads one response from conn and its whole body (at most
// limit bytes are kept), and reports whether the body was read to its
// announced end; err is the error that cut it short.
func readResponse(conn net.Conn, method string, limit int64) (resp *http.Response, body []byte, err error) {
	resp, err = http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(resp.Body, limit))
	if err == nil {
		// Drain what passed the limit, to see whether the body ended well.
		_, err = io.Copy(io.Discard, resp.Body)
	}
	return resp, buf.Bytes(), err
}

// latencies collects request durations and summarizes them.
type latencies []time.Duration

func (l latencies) quantile(q float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func (l latencies) String() string {
	return fmt.Sprintf("p50 %v, p99 %v, max %v", l.quantile(0.5).Round(time.Microsecond),
		l.quantile(0.99).Round(time.Microsecond), l.quantile(1).Round(time.Microsecond))
}

// closedByPeer reports whether err says the other end closed or reset the
// connection, rather than that our own deadline passed.
func closedByPeer(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return err != nil
}
