package redisstore_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// The multi-instance tests run this test binary again as waltz servers,
// one process each, sharing one Redis: serveEnv set in its environment
// makes TestMain serve instead of testing.
const serveEnv = "WALTZ_REDISSTORE_SERVE"

// exampleRedis is the address of the redis-server TestMain starts for the
// examples, which cannot start one of their own.
var exampleRedis string

func TestMain(m *testing.M) {
	switch os.Getenv(serveEnv) {
	case "":
	case "idempotency":
		serveIdempotency()
		return
	case "bookmarks":
		serveBookmarks()
		return
	default:
		serve()
		return
	}
	os.Exit(runTests(m))
}

// runTests runs the tests with a redis-server for the examples, and stops
// it after them.
func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "redisstore-example")
	if err == nil {
		defer os.RemoveAll(dir)
		exampleRedis, err = freeAddr()
	}
	var cmd *exec.Cmd
	if err == nil {
		cmd, err = launchRedis(exampleRedis, dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	return m.Run()
}

// serve runs one instance: a waltz router whose GET / is rate limited per
// X-Client header through a Redis store, with the limit and Redis address
// from the environment and the instance's clock offset by CLOCK_OFFSET. It
// prints its address, then serves until its standard input closes (the
// test ended or died).
func serve() {
	n, _ := strconv.Atoi(os.Getenv("LIMIT_REQUESTS"))
	window, _ := time.ParseDuration(os.Getenv("LIMIT_WINDOW"))
	offset, _ := time.ParseDuration(os.Getenv("CLOCK_OFFSET"))
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR"), ContextTimeoutEnabled: true})
	r := waltz.New()
	r.Use(middleware.RateLimit(middleware.RateLimitOptions{
		Limit: middleware.RatePolicy{Requests: n, Window: window},
		Key:   func(c *waltz.Context) string { return c.Request.Header.Get("X-Client") },
		Store: offsetClock{redisstore.New(rdb, redisstore.Options{Timeout: time.Second}), offset},
	}))
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	http.Serve(ln, r)
}

// offsetClock passes the store a clock that is off by d, as a machine
// whose clock is wrong would: RateLimit's now, moved.
type offsetClock struct {
	middleware.RateStore
	d time.Duration
}

func (o offsetClock) Take(ctx context.Context, key string, now time.Time, l middleware.RatePolicy) (middleware.RateResult, error) {
	return o.RateStore.Take(ctx, key, now.Add(o.d), l)
}

// startInstance starts a server process on redisAddr with limit l and a
// clock off by offset, and returns its base URL. It is stopped when the
// test ends.
func startInstance(t *testing.T, redisAddr string, l middleware.RatePolicy, offset time.Duration) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serveEnv+"=1", "REDIS_ADDR="+redisAddr,
		"LIMIT_REQUESTS="+strconv.Itoa(l.Requests), "LIMIT_WINDOW="+l.Window.String(), "CLOCK_OFFSET="+offset.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("instance did not report its address: %v", err)
	}
	return "http://" + strings.TrimSpace(line)
}

// client sends requests with keep-alive connections, enough for the load.
var client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

// get sends GET base/ as the client key and returns the status and the
// RateLimit field.
func get(t *testing.T, base, key string) (int, string) {
	req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
	req.Header.Set("X-Client", key)
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("RateLimit")
}

// TestTwoProcessesShareLimit: two server processes sharing one Redis, each
// under concurrent load for one client, let that client through exactly N
// times a window in total, not N per process, window after window.
func TestTwoProcessesShareLimit(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	// A token every second: the burst of 400 requests must end before one
	// comes back for the count to be exact, which leaves room for -race on
	// a loaded 2-core machine (300 ms did not).
	l := middleware.RatePolicy{Requests: 10, Window: 10 * time.Second}
	bases := []string{startInstance(t, srv.addr, l, 0), startInstance(t, srv.addr, l, 0)}
	rdb := srv.client()
	const clientsPerSide, perClient = 8, 25
	for window := 1; window <= 3; window++ {
		// Each window starts when the last one's bucket is full again,
		// which is when Redis lets the key expire.
		waitGone(t, rdb, "waltz:ratelimit:client", l.Window+3*time.Second)
		var (
			mu     sync.Mutex
			counts = map[int]int{}
			wg     sync.WaitGroup
		)
		start := time.Now()
		for _, base := range bases {
			for range clientsPerSide {
				wg.Go(func() {
					for range perClient {
						code, _ := get(t, base, "client")
						mu.Lock()
						counts[code]++
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
		took := time.Since(start)
		total := len(bases) * clientsPerSide * perClient
		t.Logf("window %d: %d requests from both sides in %v: %v", window, total, took, counts)
		// Exact as long as the burst ends before a token comes back.
		if took >= l.Window/time.Duration(l.Requests) {
			t.Fatalf("window %d: the burst took %v, longer than one token's time (%v): the count cannot be exact",
				window, took, l.Window/time.Duration(l.Requests))
		}
		if counts[200] != l.Requests || counts[429] != total-l.Requests {
			t.Errorf("window %d: got %d allowed and %d refused of %d, want %d and %d",
				window, counts[200], counts[429], total, l.Requests, total-l.Requests)
		}
	}
}

// waitGone waits up to d for key to be gone from Redis.
func waitGone(t *testing.T, rdb *redis.Client, key string, d time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		n, err := rdb.Exists(context.Background(), key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("key %q still in Redis after %v", key, d)
		}
	}
}

// TestClockOffsetAgree: two instances whose clocks differ by minutes count
// one client's requests as one: the store reads Redis's clock, so the
// instance ahead sees no extra refill, the one behind no lost one.
func TestClockOffsetAgree(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	// A token every 15s: none comes back during the test, while a clock
	// 5 minutes ahead, if believed, would fill the bucket.
	l := middleware.RatePolicy{Requests: 4, Window: time.Minute}
	ahead, behind := startInstance(t, srv.addr, l, 5*time.Minute), startInstance(t, srv.addr, l, -3*time.Minute)
	for i, tc := range []struct {
		base  string
		code  int
		state string
	}{
		{ahead, 200, `"default";r=3;t=15`},
		{behind, 200, `"default";r=2;t=15`},
		{ahead, 200, `"default";r=1;t=15`},
		{behind, 200, `"default";r=0;t=15`},
		{ahead, 429, `"default";r=0;t=15`},
		{behind, 429, `"default";r=0;t=15`},
	} {
		code, state := get(t, tc.base, "clock")
		if code != tc.code || state != tc.state {
			t.Errorf("request %d: got %d %q, want %d %q", i+1, code, state, tc.code, tc.state)
		}
	}
}
