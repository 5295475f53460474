package redisstore_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/middleware/idemtest"
	"github.com/waltz-go/waltz/redisstore"
)

// TestIdempotencyConformance runs the IdempotencyStore conformance checks
// on a real Redis.
func TestIdempotencyConformance(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	idemtest.Run(t, func(t *testing.T) middleware.IdempotencyStore {
		// A late answer on a busy machine is not the store's fault here;
		// the outage test holds the default deadline.
		return redisstore.NewIdempotency(rdb, redisstore.IdempotencyOptions{Prefix: uniquePrefix(t), Timeout: 5 * time.Second})
	})
}

// commandCounter is a go-redis hook that counts the commands a client
// sends, by name: each is one round trip (none is pipelined here).
type commandCounter struct {
	mu    sync.Mutex
	names []string
}

func (h *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		h.names = append(h.names, cmd.Name())
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (h *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.mu.Lock()
		h.names = append(h.names, "pipeline")
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

// take returns the commands counted since the last take.
func (h *commandCounter) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.names
	h.names = nil
	return n
}

// monitor reads Redis's MONITOR stream: each command a client sends, as
// the server received it, with a script's own calls marked "lua".
type monitor struct {
	t     *testing.T
	lines chan string
	echo  *redis.Client
	marks int
}

func startMonitor(t *testing.T, srv *redisServer) *monitor {
	t.Helper()
	host, port, _ := net.SplitHostPort(srv.addr)
	cmd := exec.Command("redis-cli", "-h", host, "-p", port, "monitor") // Debian's redis-tools, beside redis-server
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("redis-cli monitor: %v", err)
	}
	m := &monitor{t: t, lines: make(chan string, 1024), echo: redis.NewClient(&redis.Options{Addr: srv.addr})}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			m.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); m.echo.Close() })
	// Wait until the stream runs: marks sent before redis-cli's MONITOR
	// took effect never show.
	for end := time.Now().Add(10 * time.Second); ; {
		m.marks++
		mark := "mark-" + strconv.Itoa(m.marks)
		if err := m.echo.Echo(context.Background(), mark).Err(); err != nil {
			t.Fatal(err)
		}
		// Any mark shown means the stream runs: a line read per mark sent
		// can fall one behind for good (redis-cli's "OK" comes first).
		select {
		case line := <-m.lines:
			if strings.Contains(line, `"mark-`) {
				return m
			}
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(end) {
			t.Fatal("redis-cli monitor showed nothing within 10s")
		}
	}
}

var monitorLine = regexp.MustCompile(`^[0-9.]+ \[\d+ ([^\]]+)\] "([^"]*)"`)

// since returns the names of the commands clients sent since the last
// call, scripts' own calls left out: it sends an ECHO of a mark and reads
// the stream up to it.
func (m *monitor) since() []string {
	m.t.Helper()
	m.marks++
	mark := "mark-" + strconv.Itoa(m.marks)
	if err := m.echo.Echo(context.Background(), mark).Err(); err != nil {
		m.t.Fatal(err)
	}
	var names []string
	timeout := time.After(5 * time.Second)
	for {
		select {
		case line := <-m.lines:
			if strings.Contains(line, `"`+mark+`"`) {
				return names
			}
			if sm := monitorLine.FindStringSubmatch(line); sm != nil && sm[1] != "lua" && !strings.EqualFold(sm[2], "echo") {
				names = append(names, strings.ToLower(sm[2]))
			}
		case <-timeout:
			m.t.Fatalf("MONITOR did not show %s within 5s", mark)
		}
	}
}

// idemRouter returns a router with Idempotency over store on POST
// /orders, scoped by the X-Client header, and a handler that counts its
// runs, waits for hold (if not nil), and answers 201 with the run's
// number; it logs to logs.
func idemRouter(store middleware.IdempotencyStore, failOpen bool, runs *atomic.Int64, hold chan struct{}, logs io.Writer) *waltz.Router {
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(logs, nil))
	r.Use(middleware.Idempotency(middleware.IdempotencyOptions{
		Store:    store,
		Scope:    func(c *waltz.Context) string { return c.Request.Header.Get("X-Client") },
		FailOpen: failOpen,
		Lease:    10 * time.Second,
	}))
	r.Post("/orders", func(c *waltz.Context) error {
		n := runs.Add(1)
		if hold != nil {
			<-hold
		}
		c.Writer.Header().Set("Location", "/orders/"+strconv.FormatInt(n, 10))
		return c.Text(http.StatusCreated, "order "+strconv.FormatInt(n, 10))
	})
	return r
}

// post sends POST /orders with key and body as client to h.
func post(h http.Handler, client, key, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(body))
	req.Header.Set("X-Client", client)
	req.Header.Set("Idempotency-Key", `"`+key+`"`)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestIdempotencyRoundTrips counts the commands each kind of request
// costs, on the client (a go-redis hook) and on the server (MONITOR): a first request one before its handler (the claim) and
// one after (the answer saved), a replay, a 409 and a 422 one each.
func TestIdempotencyRoundTrips(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	hook := &commandCounter{}
	rdb.AddHook(hook)
	store := redisstore.NewIdempotency(rdb, redisstore.IdempotencyOptions{Prefix: uniquePrefix(t), Timeout: 5 * time.Second})
	var runs atomic.Int64
	hold := make(chan struct{})
	r := idemRouter(store, false, &runs, hold, io.Discard)

	// Load the scripts first: a Redis that lacks one costs one more
	// round trip, once (NOSCRIPT, then EVAL).
	close(hold)
	post(r, "warm", "warm", "{}")
	hook.take()
	hold = make(chan struct{})
	r = idemRouter(store, false, &runs, hold, io.Discard)

	mon := startMonitor(t, srv)
	// step checks the commands since the last step, on both sides.
	step := func(name string, want []string) {
		t.Helper()
		cmds, server := hook.take(), mon.since()
		if strings.Join(cmds, " ") != strings.Join(want, " ") || strings.Join(server, " ") != strings.Join(want, " ") {
			t.Errorf("%s: got commands %q (the server saw %q), want %q", name, cmds, server, want)
		}
	}
	code := func(name string, w *httptest.ResponseRecorder, want int) {
		t.Helper()
		if w.Code != want {
			t.Errorf("%s: got %d %q, want %d", name, w.Code, w.Body, want)
		}
	}

	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- post(r, "alice", "k", "{}") }()
	for runs.Load() < 2 { // the warm-up ran once
		time.Sleep(time.Millisecond)
	}
	step("a first request, before its handler", []string{"set"})
	code("a concurrent duplicate", post(r, "alice", "k", "{}"), http.StatusConflict)
	step("a concurrent duplicate", []string{"set"})
	code("another body, in flight", post(r, "alice", "k", "{ }"), http.StatusUnprocessableEntity)
	step("another body, in flight", []string{"set"})
	close(hold)
	code("a first request", <-done, http.StatusCreated)
	step("a first request, after its handler", []string{"evalsha"})
	got := post(r, "alice", "k", "{}")
	code("a replay", got, http.StatusCreated)
	step("a replay", []string{"set"})
	if got.Header().Get("Idempotent-Replayed") != "true" || got.Body.String() != "order 2" || got.Header().Get("Location") != "/orders/2" {
		t.Errorf("a replay: got %q %q %q, want the first answer replayed", got.Header().Get("Idempotent-Replayed"), got.Body, got.Header().Get("Location"))
	}
}

// TestIdempotencyRedisOutage: while Redis is hung (its process stopped) or
// gone (killed), a request with a new key gets the documented answer
// within the store's deadline: 503 and no run by default (fail closed),
// or a run without a claim with FailOpen; a request that claimed its key
// before Redis hung, and one before it was killed, each keep their
// handler's answer, the save failing within the deadline. Once Redis is
// back, keys work again.
func TestIdempotencyRedisOutage(t *testing.T) {
	// Not parallel, so that its deadlines measure the store, not the
	// other tests' load.
	srv := startRedis(t)
	const deadline = 100 * time.Millisecond
	const slack = 150 * time.Millisecond // a loaded machine's scheduling, and the answer after the deadline
	store := redisstore.NewIdempotency(srv.client(), redisstore.IdempotencyOptions{Prefix: uniquePrefix(t), Timeout: deadline})
	var runs atomic.Int64
	var logs syncBuffer
	closed := idemRouter(store, false, &runs, nil, &logs)
	open := idemRouter(store, true, &runs, nil, &logs)

	// Two requests claim their keys, and their handlers wait while Redis
	// goes: one finishes while it is hung, the other once it is killed.
	type inFlight struct {
		hold   chan struct{}
		answer chan *httptest.ResponseRecorder
	}
	claimed := func(key string) inFlight {
		f := inFlight{make(chan struct{}), make(chan *httptest.ResponseRecorder)}
		h := idemRouter(store, false, &runs, f.hold, &logs)
		n := runs.Load()
		go func() { f.answer <- post(h, "alice", key, "{}") }()
		for runs.Load() == n {
			time.Sleep(time.Millisecond)
		}
		return f
	}
	// finish lets f's handler answer and checks the answer is its own,
	// its failed save costing at most the deadline.
	finish := func(phase string, f inFlight) {
		t.Helper()
		start := time.Now()
		close(f.hold)
		if w := <-f.answer; w.Code != http.StatusCreated || !strings.HasPrefix(w.Body.String(), "order ") {
			t.Errorf("%s, a request claimed before the outage: got %d %q, want its handler's 201", phase, w.Code, w.Body)
		}
		if took := time.Since(start); took > deadline+slack {
			t.Errorf("%s, a request claimed before the outage took %v after its handler, want at most %v", phase, took, deadline+slack)
		}
	}
	duringHang, duringKill := claimed("hung-mid-request"), claimed("killed-mid-request")

	outage := func(phase string) {
		t.Helper()
		var (
			mu    sync.Mutex
			worst time.Duration
			wg    sync.WaitGroup
		)
		for i := range 16 {
			wg.Go(func() {
				h, want := closed, http.StatusServiceUnavailable
				if i%2 == 1 {
					h, want = open, http.StatusCreated
				}
				start := time.Now()
				w := post(h, "alice", phase+strconv.Itoa(i), "{}")
				took := time.Since(start)
				if w.Code != want {
					t.Errorf("%s, FailOpen %v: got %d %q, want %d", phase, i%2 == 1, w.Code, w.Body, want)
				}
				if took > deadline+slack {
					t.Errorf("%s: an answer took %v, want at most the %v deadline and %v", phase, took, deadline, slack)
				}
				mu.Lock()
				worst = max(worst, took)
				mu.Unlock()
			})
		}
		wg.Wait()
		t.Logf("%s: slowest of 16 concurrent answers %v (deadline %v)", phase, worst, deadline)
	}

	srv.pause()
	runsBefore := runs.Load()
	outage("hung")
	if n := runs.Load() - runsBefore; n != 8 {
		t.Errorf("Redis hung: the handler ran %d times, want 8 (the FailOpen requests only)", n)
	}
	finish("Redis hung", duringHang)
	srv.kill()
	finish("Redis killed", duringKill)
	runsBefore = runs.Load()
	outage("gone")
	if n := runs.Load() - runsBefore; n != 8 {
		t.Errorf("Redis gone: the handler ran %d times, want 8 (the FailOpen requests only)", n)
	}
	for _, want := range []string{"idempotency store failed to save an answer", "idempotency store failed; request run without a claim", "status=503"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the logs lack %q:\n%s", want, logs.String())
		}
	}

	// Back: a new key runs once and replays (go-redis may take about a
	// second to dial again).
	srv.start()
	var w *httptest.ResponseRecorder
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if w = post(closed, "alice", "after", "{}"); w.Code == http.StatusCreated {
			break
		}
	}
	if again := post(closed, "alice", "after", "{}"); w.Code != 201 || again.Header().Get("Idempotent-Replayed") != "true" || again.Body.String() != w.Body.String() {
		t.Errorf("after the restart: got %d then %d (replayed %q), want 201 and its replay", w.Code, again.Code, again.Header().Get("Idempotent-Replayed"))
	}
}

// TestIdempotencyHostile sends the requests made to break a shared
// store's keys, through the Redis store: a key of 10 KiB and one with CR
// and LF are refused before Redis is asked; another caller's key, a body
// one byte off, and a handler that panics after the claim get what the
// memory store gives.
func TestIdempotencyHostile(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	hook := &commandCounter{}
	rdb.AddHook(hook)
	store := redisstore.NewIdempotency(rdb, redisstore.IdempotencyOptions{Prefix: uniquePrefix(t), Timeout: 5 * time.Second})
	var runs atomic.Int64
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	r.Use(middleware.Recoverer, middleware.Idempotency(middleware.IdempotencyOptions{
		Store: store,
		Scope: func(c *waltz.Context) string { return c.Request.Header.Get("X-Client") },
	}))
	r.Post("/orders", func(c *waltz.Context) error {
		n := runs.Add(1)
		if c.Request.Header.Get("X-Panic") != "" && n == 1 {
			panic("after the claim")
		}
		body, _ := io.ReadAll(c.Request.Body)
		c.Writer.Header().Set("Set-Cookie", "session="+c.Request.Header.Get("X-Client"))
		return c.Text(http.StatusCreated, c.Request.Header.Get("X-Client")+" "+string(body))
	})
	send := func(client, key, body string, kv ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(body))
		req.Header.Set("X-Client", client)
		req.Header["Idempotency-Key"] = []string{key}
		for i := 0; i+1 < len(kv); i += 2 {
			req.Header.Set(kv[i], kv[i+1])
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}

	for name, key := range map[string]string{
		"10 KiB":        `"` + strings.Repeat("k", 10<<10) + `"`,
		"CR LF":         "\"a\r\nSet-Cookie: x=1\"",
		"LF, bare":      "a\nb",
		"NUL":           "\"a\x00b\"",
		"10 KiB, bare":  strings.Repeat("k", 10<<10),
		"quote unended": `"abc`,
	} {
		hook.take()
		if w := send("alice", key, "{}"); w.Code != http.StatusBadRequest {
			t.Errorf("%s: got %d, want 400", name, w.Code)
		}
		if cmds := hook.take(); len(cmds) != 0 {
			t.Errorf("%s: got commands %q, want none: a bad key never reaches Redis", name, cmds)
		}
	}
	if runs.Load() != 0 {
		t.Errorf("the handler ran %d times for bad keys, want 0", runs.Load())
	}

	// A handler that panics after the claim: 500, the key released, and
	// the retry runs and is kept.
	if w := send("alice", `"p"`, "{}", "X-Panic", "1"); w.Code != http.StatusInternalServerError {
		t.Errorf("panic: got %d, want 500", w.Code)
	}
	if w := send("alice", `"p"`, "{}", "X-Panic", "1"); w.Code != http.StatusCreated || w.Header().Get("Idempotent-Replayed") != "" {
		t.Errorf("the retry after a panic: got %d (replayed %q), want a new 201", w.Code, w.Header().Get("Idempotent-Replayed"))
	}
	if w := send("alice", `"p"`, "{}"); w.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("after the retry: got %d, want its replay", w.Code)
	}

	// Another caller with alice's key runs on its own: no replay of
	// alice's answer, nor her cookie.
	first := send("alice", `"order"`, `{"qty":2}`)
	bob := send("bob", `"order"`, `{"qty":2}`)
	if bob.Code != 201 || bob.Header().Get("Idempotent-Replayed") != "" || bob.Body.String() != `bob {"qty":2}` {
		t.Errorf("another caller: got %d (replayed %q) %q, want its own 201", bob.Code, bob.Header().Get("Idempotent-Replayed"), bob.Body)
	}
	again := send("alice", `"order"`, `{"qty":2}`)
	if again.Body.String() != first.Body.String() || again.Header().Get("Set-Cookie") != "" {
		t.Errorf("alice's retry: got %q with Set-Cookie %q, want %q and no cookie", again.Body, again.Header().Get("Set-Cookie"), first.Body)
	}
	if w := send("alice", `"order"`, `{"qty":3}`); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("a body one byte off: got %d, want 422", w.Code)
	}

	// Over a real connection, a 10 KiB key is within net/http's header
	// limit and reaches the middleware, which refuses it.
	ts := httptest.NewServer(r)
	defer ts.Close()
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/orders", strings.NewReader("{}"))
	req.Header.Set("X-Client", "alice")
	req.Header.Set("Idempotency-Key", `"`+strings.Repeat("k", 10<<10)+`"`)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "at most 255 bytes") || len(body) > 200 {
		t.Errorf("a 10 KiB key over the wire: got %d %q, want a short 400 naming the limit", res.StatusCode, body)
	}
}

// TestIdempotencyBreaker: with Redis hung, BreakAfter claims wait out the
// deadline and fail; the next fail at once with ErrCircuitOpen, without
// calling Redis; once Redis answers again, the first call after the
// cool-down probes, and claims work again.
func TestIdempotencyBreaker(t *testing.T) {
	srv := startRedis(t)
	const deadline, cool = 100 * time.Millisecond, 300 * time.Millisecond
	store := redisstore.NewIdempotency(srv.client(), redisstore.IdempotencyOptions{
		Prefix: uniquePrefix(t), Timeout: deadline, BreakAfter: 3, CoolDown: cool})
	ctx := context.Background()
	claim := func(key string) (time.Duration, error) {
		start := time.Now()
		_, err := store.Claim(ctx, "alice", key, middleware.Fingerprint{}, time.Minute)
		return time.Since(start), err
	}
	srv.pause()
	for i := range 3 {
		if took, err := claim(fmt.Sprint("hung-", i)); err == nil || errors.Is(err, redisstore.ErrCircuitOpen) || took < deadline {
			t.Errorf("claim %d with Redis hung: got %v after %v, want a failure after the %v deadline", i+1, err, took, deadline)
		}
	}
	for i := range 20 {
		if took, err := claim(fmt.Sprint("open-", i)); !errors.Is(err, redisstore.ErrCircuitOpen) || took > 10*time.Millisecond {
			t.Fatalf("claim %d with the breaker open: got %v after %v, want ErrCircuitOpen at once", i+1, err, took)
		}
	}
	srv.resume()
	time.Sleep(cool + 50*time.Millisecond)
	if _, err := claim("after"); err != nil {
		t.Errorf("after the cool-down, Redis back: got %v, want the probe to claim", err)
	}
	if _, err := claim("after-2"); err != nil {
		t.Errorf("then: got %v, want the breaker closed", err)
	}
}
