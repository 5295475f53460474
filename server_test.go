package waltz

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
)

// startServer runs srv on a loopback listener until the returned cancel is
// called; Run's result arrives on the channel. The test fails if Run has
// not returned 10 s after the test ends. A zero DrainDelay is made none:
// these tests check the shutdown, TestServerDrain the drain.
func startServer(tb testing.TB, srv *Server) (addr string, cancel context.CancelFunc, done <-chan error) {
	tb.Helper()
	if srv.DrainDelay == 0 {
		srv.DrainDelay = -1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc, finished := make(chan error, 1), make(chan struct{})
	go func() {
		errc <- srv.Run(ctx, ln)
		close(finished)
	}()
	tb.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(10 * time.Second):
			tb.Error("Run did not return 10 s after cancel")
		}
	})
	return ln.Addr().String(), cancel, errc
}

// wait returns what arrives on ch within d, or fails.
func wait[T any](tb testing.TB, ch <-chan T, d time.Duration, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		tb.Fatalf("%s: nothing after %v", what, d)
	}
	panic("unreachable")
}

// TestServeShutdown checks that a request in flight when ctx ends still gets
// its answer, and that Run then returns nil.
func TestServeShutdown(t *testing.T) {
	started := make(chan struct{})
	r := New()
	r.Get("/slow", func(c *Context) error {
		close(started)
		time.Sleep(200 * time.Millisecond)
		return c.Text(http.StatusOK, "done")
	})
	addr, cancel, served := startServer(t, &Server{Server: http.Server{Handler: r}})
	body := make(chan string, 1)
	go func() { body <- get(t, "http://"+addr+"/slow") }()
	wait(t, started, 5*time.Second, "handler start")
	cancel()
	if got := wait(t, body, 5*time.Second, "response"); got != "done" {
		t.Errorf("in-flight request: got %q, want %q", got, "done")
	}
	if err := wait(t, served, 5*time.Second, "Run"); err != nil {
		t.Errorf("Run returned %v, want nil", err)
	}
}

// get returns the body of a GET of url, or "error: ..." when it fails.
func get(tb testing.TB, url string) string {
	res, err := http.Get(url)
	if err != nil {
		return "error: " + err.Error()
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return string(b) + "error: " + err.Error()
	}
	return string(b)
}

// TestShutdownEndsStream: an open event stream that
// watches ShutdownStarted ends with a clean end of body as soon as shutdown
// begins, and Run returns nil long before the 10 s grace period is over.
func TestShutdownEndsStream(t *testing.T) {
	open := make(chan struct{})
	r := New()
	r.Get("/events", func(c *Context) error {
		c.Writer.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(c.Writer, "data: hello\n\n")
		http.NewResponseController(c.Writer).Flush()
		close(open)
		select {
		case <-c.Request.Context().Done():
			return c.Request.Context().Err()
		case <-ShutdownStarted(c.Request.Context()):
			_, err := io.WriteString(c.Writer, "event: bye\ndata: shutting down\n\n")
			return err
		}
	})
	srv := &Server{Server: http.Server{Handler: r}, ShutdownTimeout: 10 * time.Second}
	addr, cancel, served := startServer(t, srv)
	body := make(chan string, 1)
	go func() { body <- get(t, "http://"+addr+"/events") }()
	wait(t, open, 5*time.Second, "stream start")
	began := time.Now()
	cancel()
	want := "data: hello\n\nevent: bye\ndata: shutting down\n\n"
	if got := wait(t, body, 5*time.Second, "stream end"); got != want {
		t.Errorf("got body %q, want %q", got, want)
	}
	if err := wait(t, served, 5*time.Second, "Run"); err != nil {
		t.Errorf("Run returned %v, want nil", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("shutdown took %v with a 10 s grace period, want it to end with the stream", d)
	}
}

// TestShutdownClosesHung: when the grace period
// runs out, Run closes the connection of a handler that never returns, so
// its client sees the response cut, and Run says the grace ran out.
func TestShutdownClosesHung(t *testing.T) {
	err := shutdownHung(t, 100*time.Millisecond)
	if want := "grace period of 100ms ran out"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Run returned %v, want it to say %q", err, want)
	}
}

// TestShutdownNoGrace: a negative ShutdownTimeout is no grace period, the
// connection of a request in flight closed as the shutdown begins, and
// Run's error says that, not that a grace of a negative time ran out.
func TestShutdownNoGrace(t *testing.T) {
	begin := time.Now()
	err := shutdownHung(t, -time.Second)
	if took := time.Since(begin); took > 2*time.Second {
		t.Errorf("the shutdown took %v, want the connection closed at once", took)
	}
	if want := "no shutdown grace period (ShutdownTimeout is negative)"; err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "-1s") {
		t.Errorf("Run returned %v, want it to say %q", err, want)
	}
}

// shutdownHung serves a request whose handler never returns on a Server
// with the grace period grace, shuts it down, checks that the client sees
// the response cut and that Run's error wraps context.DeadlineExceeded,
// and returns that error.
func shutdownHung(t *testing.T, grace time.Duration) error {
	t.Helper()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	open := make(chan struct{})
	r := New()
	r.Get("/hang", func(c *Context) error {
		io.WriteString(c.Writer, "partial")
		http.NewResponseController(c.Writer).Flush()
		close(open)
		<-release // ignores its context and ShutdownStarted alike
		return nil
	})
	srv := &Server{Server: http.Server{Handler: r}, ShutdownTimeout: grace}
	addr, cancel, served := startServer(t, srv)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
	wait(t, open, 5*time.Second, "handler start")
	cancel()
	// The connection must be closed well before this deadline: 100 ms of
	// grace, then Close.
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open 5 s after shutdown began (read %q)", rest)
	}
	if !strings.Contains(string(rest), "partial") {
		t.Errorf("got %q, want the partial response", rest)
	}
	err = wait(t, served, 5*time.Second, "Run")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run returned %v, want an error wrapping context.DeadlineExceeded", err)
	}
	return err
}

// TestServerDefaults checks that Run fills zero timeouts with the safe
// defaults and keeps the ones set, negative ("no limit") included.
func TestServerDefaults(t *testing.T) {
	srv := &Server{Server: http.Server{Handler: New(), WriteTimeout: -1, IdleTimeout: time.Second}}
	_, cancel, served := startServer(t, srv)
	cancel()
	if err := wait(t, served, 5*time.Second, "Run"); err != nil {
		t.Fatalf("Run returned %v, want nil", err)
	}
	for _, tt := range []struct {
		name      string
		got, want time.Duration
	}{
		{"ReadHeaderTimeout", srv.ReadHeaderTimeout, ReadHeaderTimeout},
		{"ReadTimeout", srv.ReadTimeout, ReadTimeout},
		{"WriteTimeout", srv.WriteTimeout, -1},
		{"IdleTimeout", srv.IdleTimeout, time.Second},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestServerH2C checks that a Server asked for unencrypted HTTP/2 (RFC 9113
// section 3.3, prior knowledge) serves it to net/http's client.
func TestServerH2C(t *testing.T) {
	r := New()
	r.Get("/proto", func(c *Context) error { return c.Text(http.StatusOK, c.Request.Proto) })
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv := &Server{Server: http.Server{Handler: r, Protocols: &p}}
	addr, _, _ := startServer(t, srv)

	var cp http.Protocols
	cp.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &cp}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("http://" + addr + "/proto")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.ProtoMajor != 2 || string(b) != "HTTP/2.0" {
		t.Errorf("got %s, handler saw %q, want HTTP/2.0 both ways", res.Proto, b)
	}
}

// TestServerTLSHTTP2 checks that a Server with TLSConfig serves HTTP/2 by
// default (RFC 9113 section 3.2, ALPN "h2").
func TestServerTLSHTTP2(t *testing.T) {
	// Borrow httptest's certificate for 127.0.0.1 and a client that trusts it.
	ts := httptest.NewUnstartedServer(nil)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	client := ts.Client()
	defer client.CloseIdleConnections()
	cfg := ts.TLS.Clone()
	ts.Close()
	cfg.NextProtos = nil

	r := New()
	r.Get("/proto", func(c *Context) error { return c.Text(http.StatusOK, c.Request.Proto) })
	srv := &Server{Server: http.Server{Handler: r, TLSConfig: cfg}}
	addr, _, _ := startServer(t, srv)
	client.Timeout = 5 * time.Second
	res, err := client.Get("https://" + addr + "/proto")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.ProtoMajor != 2 || string(b) != "HTTP/2.0" {
		t.Errorf("got %s, handler saw %q, want HTTP/2.0 both ways", res.Proto, b)
	}
}

func TestListenAndServeBadAddr(t *testing.T) {
	if err := ListenAndServe(context.Background(), "127.0.0.1:-1", New()); err == nil {
		t.Error("got nil error for a bad address")
	}
}

// TestServeOptionsStar checks that "OPTIONS *" reaches the router through
// the server Run runs (RFC 9110 section 9.3.7), which lists the methods of
// the Routers it mounts too, and that with HandleOPTIONS off it gets what
// net/http's server answers when it answers "OPTIONS *" itself: a 200
// with no Allow, not a 400 (RFC 9112 section 3.2.4: the asterisk form is
// the one target OPTIONS may have).
func TestServeOptionsStar(t *testing.T) {
	ask := func(t *testing.T, addr string) *http.Response {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(conn, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	// What net/http's own server answers (DisableGeneralOptionsHandler
	// left false), in front of any handler.
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	ownAnswer := ask(t, plain.Listener.Addr().String()).StatusCode

	for _, tc := range []struct {
		name  string
		mount bool // mount a Router with PATCH and PURGE, which mounts one with PUT and mounts the first back, and a FileServer
		auto  bool
		code  int
		allow string
	}{
		{"routes", false, true, 204, "DELETE, GET, HEAD, OPTIONS"},
		{"mounted routers", true, true, 204, "DELETE, GET, HEAD, OPTIONS, PATCH, PURGE, PUT"},
		{"HandleOPTIONS off", true, false, ownAnswer, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			r.HandleOPTIONS = tc.auto
			r.Get("/a", nopHandler)
			r.Delete("/b", nopHandler)
			if tc.mount {
				sub, subsub := New(), New()
				sub.Patch("/x", nopHandler)
				sub.Handle("PURGE", "/cache", nopHandler)
				subsub.Put("/y", nopHandler)
				sub.Mount("/deeper", subsub)
				subsub.Mount("/back", sub) // a cycle adds nothing, nor loops
				r.Mount("/api", sub)
				r.Mount("/static", http.FileServerFS(fstest.MapFS{}))
			}
			addr, _, _ := startServer(t, &Server{Server: http.Server{Handler: r}})
			res := ask(t, addr)
			if got := res.Header.Values("Allow"); res.StatusCode != tc.code || strings.Join(got, "|") != tc.allow {
				t.Errorf("got %d Allow %q, want %d Allow %q", res.StatusCode, got, tc.code, tc.allow)
			}
		})
	}
}

// TestOptionsStarSealsMounts checks that once "OPTIONS *" has listed
// the methods of a mounted Router, read without a lock, that Router
// refuses a route as a Router that serves does: a route added then would
// race the read, and the Allow value made from it would leave it out.
func TestOptionsStarSealsMounts(t *testing.T) {
	sub, subsub := New(), New()
	sub.Patch("/x", nopHandler)
	subsub.Put("/y", nopHandler)
	sub.Mount("/deeper", subsub)
	r := New()
	r.Get("/a", nopHandler)
	r.Mount("/api", sub)
	star := func() string {
		req := httptest.NewRequest(http.MethodOptions, "/", nil)
		req.URL.Path, req.RequestURI = "*", "*"
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w.Header().Get("Allow")
	}
	if got, want := star(), "GET, HEAD, OPTIONS, PATCH, PUT"; got != want {
		t.Fatalf("Allow: got %q, want %q", got, want)
	}
	for name, register := range map[string]func(){
		"mounted":         func() { sub.Delete("/late", nopHandler) },
		"mounted in turn": func() { subsub.Post("/late", nopHandler) },
	} {
		msg := panicMessage(register)
		if !strings.Contains(msg, "after the router began serving") {
			t.Errorf("%s: a route after OPTIONS * listed its methods: got panic %q, want the refusal; Allow now %q", name, msg, star())
		}
	}
}

// TestShutdownEndsEventStream: the same with the bundled helper: EventStream.Done closes when shutdown begins, and the stream ends
// cleanly well within the grace period.
func TestShutdownEndsEventStream(t *testing.T) {
	open := make(chan struct{})
	r := New()
	r.Get("/events", func(c *Context) error {
		es, err := c.EventStream()
		if err != nil {
			return err
		}
		close(open)
		<-es.Done()
		return nil
	})
	srv := &Server{Server: http.Server{Handler: r}, ShutdownTimeout: 10 * time.Second}
	addr, cancel, served := startServer(t, srv)
	body := make(chan string, 1)
	go func() { body <- get(t, "http://"+addr+"/events") }()
	wait(t, open, 5*time.Second, "stream start")
	cancel()
	if got := wait(t, body, 5*time.Second, "stream end"); strings.Contains(got, "error") {
		t.Errorf("got %q, want a clean end of body", got)
	}
	if err := wait(t, served, 5*time.Second, "Run"); err != nil {
		t.Errorf("Run returned %v, want nil", err)
	}
}

// TestServerDrain: once Run's context ends, Ready answers 503 at once while
// Live still answers 200; for DrainDelay the server goes on serving, new
// connections included, each answer closing its connection (HTTP/1.1:
// "Connection: close"; h2c: a GOAWAY, after which the client dials again);
// then Run returns nil, after the delay and not long after it.
func TestServerDrain(t *testing.T) {
	for _, h2c := range []bool{false, true} {
		t.Run(map[bool]string{false: "HTTP/1.1", true: "h2c"}[h2c], func(t *testing.T) {
			const drain = 400 * time.Millisecond
			srv := &Server{DrainDelay: drain}
			r := New()
			r.Get("/readyz", srv.Ready)
			r.Get("/livez", srv.Live)
			r.Get("/", func(c *Context) error { return c.Text(http.StatusOK, "hello") })
			srv.Handler = r
			var cp http.Protocols
			if h2c {
				var p http.Protocols
				p.SetHTTP1(true)
				p.SetUnencryptedHTTP2(true)
				srv.Protocols = &p
				cp.SetUnencryptedHTTP2(true)
			} else {
				cp.SetHTTP1(true)
			}
			var dials atomic.Int64
			tr := &http.Transport{Protocols: &cp, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			}}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
			addr, cancel, served := startServer(t, srv)
			ask := func(path string) (int, bool) {
				t.Helper()
				res, err := client.Get("http://" + addr + path)
				if err != nil {
					t.Fatalf("GET %s: %v", path, err)
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				return res.StatusCode, res.Close
			}
			if code, _ := ask("/readyz"); code != http.StatusOK {
				t.Fatalf("Ready before the drain: got %d, want 200", code)
			}
			ask("/")
			before := dials.Load()
			begin := time.Now()
			cancel()
			// Run sees the context end on its own goroutine: Ready fails
			// from then on, which must be within 100 ms.
			code := 0
			for code != http.StatusServiceUnavailable && time.Since(begin) < 100*time.Millisecond {
				code, _ = ask("/readyz")
			}
			if code != http.StatusServiceUnavailable {
				t.Errorf("Ready 100ms after the context ended: got %d, want 503", code)
			}
			if code, _ := ask("/livez"); code != http.StatusOK {
				t.Errorf("Live during the drain: got %d, want 200", code)
			}
			for i := range 5 {
				code, closed := ask("/")
				if code != http.StatusOK {
					t.Errorf("request %d during the drain: got %d, want 200", i, code)
				}
				if !h2c && !closed {
					t.Errorf("request %d during the drain: no Connection: close", i)
				}
			}
			if got := dials.Load() - before; got < 5 {
				t.Errorf("connections dialed during the drain for 7 requests: got %d, want at least 5 (each answer closes its connection)", got)
			}
			if time.Since(begin) >= drain {
				t.Fatalf("the requests took %v, longer than the drain; the check proves nothing", time.Since(begin))
			}
			if err := wait(t, served, 5*time.Second, "Run"); err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
			if took := time.Since(begin); took < drain || took > drain+time.Second {
				t.Errorf("Run returned %v after the cancel, want between %v and %v", took, drain, drain+time.Second)
			}
		})
	}
}

// TestServerReadyChecks: Ready answers 200 while every check passes, and
// 503 naming the checks that failed or timed out, never their errors.
func TestServerReadyChecks(t *testing.T) {
	var fail atomic.Bool
	srv := &Server{ReadyChecks: []ReadyCheck{
		{Name: "db", Check: func(ctx context.Context) error {
			if fail.Load() {
				return errors.New("secret dsn refused")
			}
			return nil
		}},
		{Name: "slow", Timeout: 20 * time.Millisecond, Check: func(ctx context.Context) error {
			if !fail.Load() {
				return nil
			}
			<-ctx.Done()
			return ctx.Err()
		}},
	}}
	r := New()
	r.Logger = slog.New(slog.DiscardHandler)
	r.Get("/readyz", srv.Ready)
	for _, tc := range []struct {
		fail bool
		code int
		body string
	}{
		{false, 200, "ready\n"},
		{true, 503, "not ready: db failed, slow timed out\n"},
	} {
		fail.Store(tc.fail)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
		if w.Code != tc.code || w.Body.String() != tc.body || w.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("fail=%v: got %d %q Cache-Control %q, want %d %q no-store", tc.fail, w.Code, w.Body, w.Header().Get("Cache-Control"), tc.code, tc.body)
		}
	}
}

// TestServerReadyCheckStuck: a Check that does not return once its
// context is done is counted timed out at its timeout, and the probe
// answered then, not when the Check returns; it is not called again
// while that call runs, and passes once it has returned.
func TestServerReadyCheckStuck(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	srv := &Server{ReadyChecks: []ReadyCheck{{Name: "stuck", Timeout: 10 * time.Millisecond, Check: func(context.Context) error {
		if calls.Add(1) == 1 {
			<-release // ignores its context
		}
		return nil
	}}}}
	r := New()
	r.Logger = slog.New(slog.DiscardHandler)
	r.Get("/readyz", srv.Ready)
	probe := func() (int, string) {
		t.Helper()
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() {
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
			done <- w
		}()
		select {
		case w := <-done:
			return w.Code, w.Body.String()
		case <-time.After(10 * time.Second):
			t.Fatal("Ready waits for a Check past its timeout")
			return 0, ""
		}
	}
	for i := range 2 {
		if code, body := probe(); code != 503 || body != "not ready: stuck timed out\n" {
			t.Errorf("probe %d while the check is stuck: got %d %q, want 503 %q", i+1, code, body, "not ready: stuck timed out\n")
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("the check was called %d times while its first call ran, want 1", n)
	}
	close(release)
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _ := probe()
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("not ready 10 s after the stuck call returned")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestServerReadyCheckShared: probes that come while a check's call runs
// within its timeout wait for that call and share its answer: neither is
// counted timed out, and Check is not called again.
func TestServerReadyCheckShared(t *testing.T) {
	release := make(chan struct{})
	var calls atomic.Int32
	srv := &Server{ReadyChecks: []ReadyCheck{{Name: "db", Timeout: time.Minute, Check: func(context.Context) error {
		calls.Add(1)
		<-release
		return nil
	}}}}
	r := New()
	r.Get("/readyz", srv.Ready)
	codes := make(chan int, 2)
	probe := func() {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
		codes <- w.Code
	}
	go probe()
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	go probe()
	time.Sleep(20 * time.Millisecond) // the second probe joins the call (if it comes later, it makes its own, as good)
	close(release)
	for range 2 {
		if code := <-codes; code != 200 {
			t.Errorf("a probe while the check runs within its timeout: got %d, want 200", code)
		}
	}
	t.Logf("Check called %d times for two probes", calls.Load())
}

// TestServerReadyCheckPanics: over a real connection, a ReadyCheck that
// panics, or has no Check, is a failed check (503 naming it), and the
// process goes on serving; each is logged once, when it begins to fail,
// and the panicking one once more when it passes again, not on every
// probe.
func TestServerReadyCheckPanics(t *testing.T) {
	var broken atomic.Bool
	broken.Store(true)
	srv := &Server{ReadyChecks: []ReadyCheck{
		{Name: "flaky", Check: func(ctx context.Context) error {
			if broken.Load() {
				panic("nil map")
			}
			return nil
		}},
		{Name: "none"},
	}}
	var logs bytes.Buffer
	var mu sync.Mutex
	r := New()
	r.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	r.Get("/readyz", srv.Ready)
	ts := httptest.NewServer(r)
	defer ts.Close()
	probe := func() (int, string) {
		t.Helper()
		res, err := http.Get(ts.URL + "/readyz")
		if err != nil {
			t.Fatalf("probe: %v", err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for range 3 {
		if code, body := probe(); code != 503 || body != "not ready: flaky panicked, none has no Check\n" {
			t.Errorf("got %d %q, want 503 %q", code, body, "not ready: flaky panicked, none has no Check\n")
		}
	}
	broken.Store(false)
	for range 2 {
		if code, body := probe(); code != 503 || body != "not ready: none has no Check\n" {
			t.Errorf("once flaky passes: got %d %q, want 503 %q", code, body, "not ready: none has no Check\n")
		}
	}
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	for _, tc := range []struct {
		line string
		n    int
	}{
		{`msg="waltz: readiness check panicked`, 1},
		{`msg="waltz: readiness check has no Check`, 1},
		{`msg="waltz: readiness check passes again`, 1},
	} {
		if got := strings.Count(out, tc.line); got != tc.n {
			t.Errorf("log lines %s: got %d, want %d; log:\n%s", tc.line, got, tc.n, out)
		}
	}
	if !strings.Contains(out, `panic="nil map"`) || !strings.Contains(out, "server_test.go") {
		t.Errorf("the panic's log line has no value or stack:\n%s", out)
	}
}

// TestServerRunRefusesNilCheck: Run refuses a ReadyCheck with no Check
// before it serves anything.
func TestServerRunRefusesNilCheck(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &Server{Server: http.Server{Handler: New()}, ReadyChecks: []ReadyCheck{{Name: "db", Check: func(context.Context) error { return nil }}, {Name: "cache"}}}
	err = srv.Run(context.Background(), ln)
	want := `waltz: Server.ReadyChecks[1] ("cache") has a nil Check`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Errorf("the listener is still open after Run refused")
	}
}

// lockedWriter is an io.Writer that holds mu while it writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestServerDrainWhenProbed: a zero DrainDelay drains only a server whose
// readiness or liveness probe was served; one nothing probed (a development server's
// Ctrl-C) shuts down at once; a DrainDelay set drains whether or not.
// Run logs at start which it will be, and why when the shutdown begins.
func TestServerDrainWhenProbed(t *testing.T) {
	defer func(d time.Duration) { drainDefault = d }(drainDefault)
	drainDefault = 300 * time.Millisecond
	for _, tc := range []struct {
		name   string
		delay  time.Duration
		probe  string        // the probe's path, "" for none
		drain  time.Duration // how long Run takes after the cancel, at least
		start  string        // in the log at start
		reason string        // in the log when the shutdown begins
	}{
		{"zero, not probed", 0, "", 0, "for the drain only if a platform has probed", "no probe was served"},
		{"zero, probed", 0, "/readyz", 300 * time.Millisecond, "for the drain only if a platform has probed", "a probe was served"},
		// A Kubernetes Service takes a terminating pod out of its
		// endpoints whatever the pod's probes: a liveness probe alone
		// tells of a platform too.
		{"zero, liveness probed", 0, "/livez", 300 * time.Millisecond, "for the drain only if a platform has probed", "a probe was served"},
		{"set, not probed", 200 * time.Millisecond, "", 200 * time.Millisecond, "drains for DrainDelay", "DrainDelay is set"},
		{"negative, probed", -1, "/readyz", 0, "no drain", "DrainDelay is negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			var mu sync.Mutex
			srv := &Server{DrainDelay: tc.delay}
			r := New()
			r.Logger = slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
			r.Get("/readyz", srv.Ready)
			r.Get("/livez", srv.Live)
			srv.Handler = r
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- srv.Run(ctx, ln) }()
			if tc.probe != "" {
				if got := get(t, "http://"+ln.Addr().String()+tc.probe); got != "ready\n" && got != "live\n" {
					t.Fatalf("probe: got %q", got)
				}
			}
			begin := time.Now()
			cancel()
			if err := wait(t, done, 5*time.Second, "Run"); err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
			took := time.Since(begin)
			if took < tc.drain || took > tc.drain+250*time.Millisecond {
				t.Errorf("Run returned %v after the cancel, want %v to %v", took, tc.drain, tc.drain+250*time.Millisecond)
			}
			mu.Lock()
			out := logs.String()
			mu.Unlock()
			if !strings.Contains(out, tc.start) || !strings.Contains(out, `because="`+tc.reason+`"`) {
				t.Errorf("log: want %q at start and %q at shutdown; got\n%s", tc.start, tc.reason, out)
			}
		})
	}
}
