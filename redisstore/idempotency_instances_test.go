package redisstore_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// serveIdempotency runs one instance for the idempotency tests: a waltz
// router whose POST /orders is made idempotent through a Redis store,
// scoped by the X-Client header, with a handler that takes HANDLER_TIME
// and answers 201 naming this process and its run; GET /runs answers how
// many times the handler ran here. It prints its address, then serves
// until its standard input closes.
func serveIdempotency() {
	took, _ := time.ParseDuration(os.Getenv("HANDLER_TIME"))
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR"), ContextTimeoutEnabled: true})
	var runs atomic.Int64
	r := waltz.New()
	r.Use(middleware.Idempotency(middleware.IdempotencyOptions{
		Store: redisstore.NewIdempotency(rdb, redisstore.IdempotencyOptions{Timeout: time.Second}),
		Scope: func(c *waltz.Context) string { return c.Request.Header.Get("X-Client") },
	}))
	r.Post("/orders", func(c *waltz.Context) error {
		n := runs.Add(1)
		body, _ := io.ReadAll(c.Request.Body)
		time.Sleep(took)
		c.Writer.Header().Set("Location", fmt.Sprintf("/orders/%d-%d", os.Getpid(), n))
		return c.Text(http.StatusCreated, fmt.Sprintf("process %d run %d body %s", os.Getpid(), n, body))
	})
	r.Get("/runs", func(c *waltz.Context) error { return c.Text(http.StatusOK, strconv.FormatInt(runs.Load(), 10)) })
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

// startIdempotencyInstance starts a serveIdempotency process on redisAddr
// and returns its base URL; it is stopped when the test ends.
func startIdempotencyInstance(t *testing.T, redisAddr string, handlerTime time.Duration) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serveEnv+"=idempotency", "REDIS_ADDR="+redisAddr, "HANDLER_TIME="+handlerTime.String())
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

// TestIdempotencyTwoProcesses: two server processes sharing one Redis get
// the same key 100 times at once, half each, spread over about a second
// while the first run takes 300ms: the handler runs exactly once, in one
// of them, and every other answer is a 409 (while it runs) or its answer
// replayed (after), from either process.
func TestIdempotencyTwoProcesses(t *testing.T) {
	// Not parallel: its timing, and that of the rate-limit tests that
	// count a burst, would suffer from sharing the machine's two cores.
	srv := startRedis(t)
	const took = 300 * time.Millisecond
	bases := []string{startIdempotencyInstance(t, srv.addr, took), startIdempotencyInstance(t, srv.addr, took)}
	type answer struct {
		code             int
		replayed         string
		body, location   string
		instance, number int
	}
	answers := make([]answer, 100)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Go(func() {
			time.Sleep(time.Duration(i%20) * 50 * time.Millisecond) // 0 to 950ms
			base := bases[i%2]
			req, _ := http.NewRequest(http.MethodPost, base+"/orders", strings.NewReader(`{"sku":"A-1","qty":2}`))
			req.Header.Set("X-Client", "alice")
			req.Header.Set("Idempotency-Key", `"order-8e03978e"`)
			resp, err := client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers[i] = answer{resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), string(body), resp.Header.Get("Location"), i % 2, i}
		})
	}
	wg.Wait()

	runs := 0
	for _, base := range bases {
		resp, err := client.Get(base + "/runs")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		n, _ := strconv.Atoi(string(b))
		runs += n
	}
	if runs != 1 {
		t.Fatalf("the handler ran %d times across both processes, want exactly 1", runs)
	}
	var first *answer
	for i := range answers {
		if a := &answers[i]; a.code == http.StatusCreated && a.replayed == "" {
			if first != nil {
				t.Fatalf("two answers were not replays: %+v and %+v", *first, *a)
			}
			first = a
		}
	}
	if first == nil {
		t.Fatal("no answer was the run's own")
	}
	counts := map[string]int{}
	for _, a := range answers {
		switch {
		case a.number == first.number:
			counts["run"]++
		case a.code == http.StatusConflict:
			counts[fmt.Sprintf("409 from process %d", a.instance+1)]++
		case a.code == http.StatusCreated && a.replayed == "true" && a.body == first.body && a.location == first.location:
			counts[fmt.Sprintf("replay from process %d", a.instance+1)]++
		default:
			t.Errorf("request %d to process %d: got %d replayed %q %q, want a 409 or the run's answer %q replayed",
				a.number, a.instance+1, a.code, a.replayed, a.body, first.body)
		}
	}
	t.Logf("the run: %q from process %d; the others: %v", first.body, first.instance+1, counts)
	for _, kind := range []string{"409 from process 1", "409 from process 2", "replay from process 1", "replay from process 2"} {
		if counts[kind] == 0 {
			t.Errorf("no %s: the spread did not reach both answers in both processes (%v)", kind, counts)
		}
	}
}
