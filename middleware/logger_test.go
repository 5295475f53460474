package middleware

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

func TestLogger(t *testing.T) {
	var logs, errLogs bytes.Buffer
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(&errLogs, nil))
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), Recoverer)
	r.Get("/user/:id", func(c *waltz.Context) error { return c.Text(http.StatusOK, "hi "+c.Param("id")) })
	r.Get("/gone", func(c *waltz.Context) error { return &waltz.HTTPError{Code: http.StatusGone} })
	r.Get("/fail", func(c *waltz.Context) error { return errors.New("db down") })
	r.Get("/panic", func(c *waltz.Context) error { panic("boom") })
	// A Code that is no error status is answered 500, and logged so.
	r.Get("/code200", func(c *waltz.Context) error { return &waltz.HTTPError{Code: http.StatusOK} })
	r.Get("/twice", func(c *waltz.Context) error {
		_ = c.Text(http.StatusOK, "first")
		return c.Text(http.StatusInternalServerError, "second")
	})
	for _, tc := range []struct{ path, want string }{
		{"/user/7", `level=INFO msg=request method=GET path=/user/7 pattern=/user/:id status=200 bytes=4`},
		{"/gone", `level=WARN msg=request method=GET path=/gone pattern=/gone status=410 bytes=4`},
		{"/nope", `level=WARN msg=request method=GET path=/nope pattern="" status=404 bytes=9`},
		{"/fail", `level=ERROR msg=request method=GET path=/fail pattern=/fail status=500 bytes=21`},
		{"/panic", `level=ERROR msg=request method=GET path=/panic pattern=/panic status=500 bytes=21`},
		{"/code200", `status=500`},
		{"BREW /user/7", `level=WARN msg=request method=BREW path=/user/7 pattern="" status=501`},
		// The second helper call is refused and its error logged, as an
		// error: the first helper's whole 200 was sent, and stands.
		{"/twice", `level=ERROR msg=request method=GET path=/twice pattern=/twice status=200 bytes=5`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			logs.Reset()
			errLogs.Reset()
			method, path, ok := strings.Cut(tc.path, " ")
			if !ok {
				method, path = "GET", tc.path
			}
			aborted := panicMessage(func() { r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, path, nil)) })
			if aborted != "" {
				t.Errorf("got panic %q, want none", aborted)
			}
			if !strings.Contains(logs.String(), tc.want) {
				t.Errorf("got log %q, want it to contain %q", logs.String(), tc.want)
			}
			// One request, one line: the error handler leaves it to Logger.
			if n := strings.Count(logs.String(), "\n"); n != 1 {
				t.Errorf("got %d request lines, want 1: %q", n, logs.String())
			}
			if errLogs.Len() != 0 {
				t.Errorf("error handler logged too: %q", errLogs.String())
			}
		})
	}
	logs.Reset()
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/panic", nil))
	if !strings.Contains(logs.String(), "err.stack=") {
		t.Errorf("panic stack not in the request line: %q", logs.String())
	}
	logs.Reset()
	_ = panicMessage(func() { r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/twice", nil)) })
	if !strings.Contains(logs.String(), "response already started") {
		t.Errorf("second response not reported: %q", logs.String())
	}
}

// TestLoggerContext: the record is logged with the request's context, so a
// context-aware handler sees what middleware put there.
func TestLoggerContext(t *testing.T) {
	type key struct{}
	var seen any
	h := ctxHandler{Handler: slog.NewTextHandler(&bytes.Buffer{}, nil), seen: &seen, key: key{}}
	r := waltz.New()
	r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			c.Request = c.Request.WithContext(contextWith(c.Request.Context(), key{}, "trace-1"))
			return next(c)
		}
	}, Logger(slog.New(h)))
	r.Get("/", func(c *waltz.Context) error { return nil })
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if seen != "trace-1" {
		t.Errorf("handler saw context value %v, want trace-1", seen)
	}
}

func TestLoggerPanicPassingThrough(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	// Recoverer outside Logger: the panic passes through Logger, which
	// logs it; the error handler then does not log it again.
	r.Use(Recoverer, Logger(slog.New(slog.NewTextHandler(&logs, nil))))
	r.Get("/", func(c *waltz.Context) error { panic("boom") })
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 500 {
		t.Errorf("got %d, want 500", w.Code)
	}
	if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), "panic=boom") {
		t.Errorf("got %q, want one line with the panic", logs.String())
	}
}

// TestLoggerLatePanic: a panic after the response started aborts the
// response; the status sent was 200, but the line is an error.
func TestLoggerLatePanic(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), Recoverer)
	r.Get("/", func(c *waltz.Context) error {
		_, _ = c.Writer.Write([]byte("partial-"))
		panic("boom")
	})
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("got panic %v, want http.ErrAbortHandler", v)
			}
		}()
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}()
	if want := "level=ERROR msg=request method=GET path=/ pattern=/ status=200 bytes=8"; !strings.Contains(logs.String(), want) {
		t.Errorf("got log %q, want it to contain %q", logs.String(), want)
	}
}

// TestLoggerAborted: a response cut rather than ended is logged with the
// status sent (0 when none was), not a 500 nobody got, and aborted=true.
func TestLoggerAborted(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), Recoverer)
	r.Get("/abort", func(c *waltz.Context) error { panic(http.ErrAbortHandler) })
	r.Get("/late", func(c *waltz.Context) error {
		_, _ = c.Writer.Write([]byte("partial"))
		return errors.New("db failed midway")
	})
	r.With(ETag(ETagOptions{})).Get("/held", func(c *waltz.Context) error {
		_, _ = c.Writer.Write([]byte("partial"))
		panic("boom")
	})
	for _, tc := range []struct{ path, want string }{
		{"/abort", "level=ERROR msg=request method=GET path=/abort pattern=/abort status=0 bytes=0"},
		{"/late", "level=ERROR msg=request method=GET path=/late pattern=/late status=200 bytes=7"},
		{"/held", "level=ERROR msg=request method=GET path=/held pattern=/held status=0 bytes=0"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			logs.Reset()
			if got := panicMessage(func() { r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tc.path, nil)) }); got != http.ErrAbortHandler.Error() {
				t.Errorf("got panic %q, want http.ErrAbortHandler", got)
			}
			if !strings.Contains(logs.String(), tc.want) || !strings.Contains(logs.String(), "aborted=true") {
				t.Errorf("got log %q, want it to contain %q and aborted=true", logs.String(), tc.want)
			}
		})
	}
}

// TestLoggerGoexit: a handler that ends its goroutine with runtime.Goexit
// (t.Fatal) is logged, and the Goexit goes on: Logger must not turn it
// into a panic of its own.
func TestLoggerGoexit(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), Recoverer)
	r.Get("/", func(c *waltz.Context) error {
		runtime.Goexit()
		return nil
	})
	var panicked any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}()
	<-done
	if panicked != nil {
		t.Fatalf("got panic %v, want the Goexit to go on", panicked)
	}
	if want := "level=ERROR msg=request method=GET path=/ pattern=/ status=0 bytes=0"; !strings.Contains(logs.String(), want) {
		t.Errorf("got log %q, want it to contain %q", logs.String(), want)
	}
	if !strings.Contains(logs.String(), "aborted=true goexit=true") {
		t.Errorf("got log %q, want aborted=true goexit=true", logs.String())
	}
}

func TestLoggerNil(t *testing.T) {
	defer func() {
		if v := recover(); v == nil || !strings.HasPrefix(v.(string), "waltz: ") {
			t.Errorf("got panic %v, want a waltz: message", v)
		}
	}()
	Logger(nil)
}

func TestLoggerAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	for _, tc := range []struct {
		name string
		h    slog.Handler
		want float64
	}{
		{"discarded", slog.DiscardHandler, 0},
		{"JSON", slog.NewJSONHandler(io.Discard, nil), 1}, // the record's attributes past its inline five
		{"text", slog.NewTextHandler(io.Discard, nil), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if got := allocs(t, Logger(slog.New(tc.h)), ok, req); got != tc.want {
				t.Errorf("got %v allocations per request, want %v", got, tc.want)
			}
		})
	}
}

// TestLoggerClientGone: a client that leaves before anything was sent is
// logged as what happened (no status, no bytes, client_gone), not as an
// error and not as a 200 nobody got, whether the handler sleeps through
// its Timeout or stops when its context does.
func TestLoggerClientGone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		watch bool // the handler stops when its context is done
	}{
		{"handler ignores its context", false},
		{"handler stops with its context", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			r := waltz.New()
			r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), Timeout(TimeoutOptions{Duration: 100 * time.Millisecond}))
			done := make(chan struct{})
			r.Get("/", func(c *waltz.Context) error {
				defer close(done)
				if tc.watch {
					<-c.Request.Context().Done()
					return c.Request.Context().Err()
				}
				time.Sleep(200 * time.Millisecond)
				return c.Text(http.StatusOK, "done")
			})
			srv := httptest.NewServer(r)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			if res, err := srv.Client().Do(req); err == nil {
				res.Body.Close()
				t.Fatalf("got %d, want the client to give up", res.StatusCode)
			}
			<-done
			srv.Close() // the record is written once the handler chain returns
			got := logs.String()
			for _, want := range []string{"level=INFO", " status=0 ", " bytes=0 ", "client_gone=true"} {
				if !strings.Contains(got, want) {
					t.Errorf("got log %q, want it to contain %q", got, want)
				}
			}
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestLoggerProbe serves waltz.Server's readiness probe behind Logger on
// a running Server: its 503 (a check failing, then the drain) is the
// expected answer, logged at Warn, where a 5xx the handler returned as
// an error, or any other 5xx it wrote, stays an Error.
func TestLoggerProbe(t *testing.T) {
	var logs syncBuffer
	var failing atomic.Bool
	srv := &waltz.Server{DrainDelay: time.Second, ReadyChecks: []waltz.ReadyCheck{{Name: "db",
		Check: func(context.Context) error {
			if failing.Load() {
				return errors.New("db down")
			}
			return nil
		}}}}
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))))
	r.Get("/readyz", srv.Ready)
	r.Get("/shed", func(c *waltz.Context) error {
		return &waltz.HTTPError{Code: http.StatusServiceUnavailable, Err: errors.New("pool exhausted")}
	})
	r.Get("/bad-gateway", func(c *waltz.Context) error { return c.Text(http.StatusBadGateway, "upstream\n") })
	srv.Handler = r
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Run(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	client := &http.Client{Timeout: 5 * time.Second}
	ask := func(path string, want int, level string) {
		t.Helper()
		logs.Reset()
		res, err := client.Get("http://" + ln.Addr().String() + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("GET %s: got %d, want %d", path, res.StatusCode, want)
		}
		line := fmt.Sprintf("level=%s msg=request method=GET path=%s pattern=%s status=%d", level, path, path, want)
		if !strings.Contains(logs.String(), line) {
			t.Errorf("GET %s: got log %q, want it to contain %q", path, logs.String(), line)
		}
	}
	ask("/readyz", http.StatusOK, "INFO")
	ask("/shed", http.StatusServiceUnavailable, "ERROR")
	ask("/bad-gateway", http.StatusBadGateway, "ERROR")
	failing.Store(true)
	ask("/readyz", http.StatusServiceUnavailable, "WARN")
	failing.Store(false)
	cancel()
	// Ready fails once Run sees its context end, within the drain.
	deadline := time.Now().Add(500 * time.Millisecond)
	for {
		res, err := client.Get("http://" + ln.Addr().String() + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusServiceUnavailable || time.Now().After(deadline) {
			break
		}
	}
	ask("/readyz", http.StatusServiceUnavailable, "WARN")
}

func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Reset()
}

// TestLoggerHijacked: a connection taken over (a WebSocket upgrade) is
// logged with hijacked=true, and the status the Response saw: 101 when
// the handler sent it before the hijack, 0 when it answered on the raw
// connection, which Logger cannot read. The line is Info, unless the
// handler returned an error after the hijack.
func TestLoggerHijacked(t *testing.T) {
	var logs syncBuffer
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))))
	upgrade := func(c *waltz.Context, first bool) error {
		if first { // as coder/websocket does: the status, then the hijack
			c.Writer.Header().Set("Upgrade", "echo")
			c.Writer.Header().Set("Connection", "Upgrade")
			c.Writer.WriteHeader(http.StatusSwitchingProtocols)
		}
		conn, rw, err := http.NewResponseController(c.Writer).Hijack()
		if err != nil {
			return err
		}
		defer conn.Close()
		if !first { // as gorilla/websocket does: the status on the raw connection
			rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		}
		rw.WriteString("hello")
		return rw.Flush()
	}
	r.Get("/raw", func(c *waltz.Context) error { return upgrade(c, false) })
	r.Get("/sent", func(c *waltz.Context) error { return upgrade(c, true) })
	r.Get("/failed", func(c *waltz.Context) error {
		if err := upgrade(c, false); err != nil {
			return err
		}
		return errors.New("session ended badly")
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	for _, tc := range []struct{ path, want string }{
		{"/raw", `level=INFO msg=request method=GET path=/raw pattern=/raw status=0 bytes=0`},
		{"/sent", `level=INFO msg=request method=GET path=/sent pattern=/sent status=101 bytes=0`},
		{"/failed", `level=ERROR msg=request method=GET path=/failed pattern=/failed status=0 bytes=0`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			logs.Reset()
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, "GET "+tc.path+" HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n")
			conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			got, _ := io.ReadAll(conn)
			if !strings.HasPrefix(string(got), "HTTP/1.1 101 Switching Protocols\r\n") || !strings.HasSuffix(string(got), "\r\n\r\nhello") {
				t.Fatalf("got %q, want a 101 and hello", got)
			}
			var line string
			for deadline := time.Now().Add(5 * time.Second); line == "" && time.Now().Before(deadline); {
				line = logs.String() // written as the handler returns, after the client read
				time.Sleep(time.Millisecond)
			}
			if !strings.Contains(line, tc.want) || !strings.Contains(line, " hijacked=true") {
				t.Errorf("got log %q, want it to contain %q and hijacked=true", line, tc.want)
			}
		})
	}
}
