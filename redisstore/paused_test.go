package redisstore_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// sample is one request of TestRedisPausedBreaker's load.
type sample struct {
	at      time.Duration // since the load began, when the request was sent
	took    time.Duration
	route   int // index in the test's routers
	code    int
	limited bool // the RateLimit field was set: the store answered
}

// TestRedisPausedBreaker: Redis is paused (SIGSTOP) for 10 s while 8
// goroutines send requests without pause, in turn to a router limited in
// Redis with FailOpen, to one limited in the memory store, and to one
// limited in Redis without FailOpen, each Redis router with a store of
// its own and the fail-fast client settings. Once the breakers opened
// (from a second into the pause), the FailOpen requests pay no deadline:
// their 99th percentile is within 1.2 times the memory store's over the
// same time, and the 503s' is under half the deadline (the
// error handler renders them, so their cost is not the memory store's). Each router
// logs under a line a second through the pause, and the lines' counts of
// requests not logged add up to every request that failed. Within a
// second of SIGCONT the limits hold again: answers carry the RateLimit
// field.
func TestRedisPausedBreaker(t *testing.T) {
	srv := startRedis(t)
	const (
		workers  = 8
		deadline = 100 * time.Millisecond
		warm     = time.Second
		pause    = 10 * time.Second
		after    = 2 * time.Second
	)
	newStore := func() *redisstore.Store {
		rdb := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1})
		t.Cleanup(func() { rdb.Close() })
		return redisstore.New(rdb, redisstore.Options{Prefix: uniquePrefix(t), Timeout: deadline})
	}
	l := middleware.RatePolicy{Requests: 1_000_000, Window: time.Hour} // never refused: the store's answer is what is measured
	var openLogs, closedLogs, memLogs syncBuffer
	routers := []http.Handler{
		limitedRouter(newStore(), l, true, &openLogs),
		limitedRouter(middleware.NewMemoryRateStore(1000), l, true, &memLogs),
		limitedRouter(newStore(), l, false, &closedLogs),
	}
	const redisOpen, memory, redisClosed = 0, 1, 2

	var stop atomic.Bool
	samples := make([][]sample, workers)
	begin := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			key := fmt.Sprint("worker-", w)
			for n := 0; !stop.Load(); n++ {
				i := []int{redisOpen, memory, redisClosed, memory}[n%4]
				req := httptest.NewRequest(http.MethodGet, "/", nil)
				req.Header.Set("X-Client", key)
				rec := httptest.NewRecorder()
				at := time.Since(begin)
				routers[i].ServeHTTP(rec, req)
				samples[w] = append(samples[w], sample{at, time.Since(begin) - at, i, rec.Code, rec.Header().Get("RateLimit") != ""})
			}
		})
	}
	time.Sleep(warm)
	srv.pause()
	paused := time.Since(begin)
	time.Sleep(pause)
	srv.resume()
	resumed := time.Since(begin)
	time.Sleep(after)
	stop.Store(true)
	wg.Wait()
	var all []sample
	for _, s := range samples {
		all = append(all, s...)
	}

	// Latency once the breakers are open.
	var lat [3][]time.Duration
	for _, s := range all {
		if s.at >= paused+time.Second && s.at+s.took < resumed {
			lat[s.route] = append(lat[s.route], s.took)
			if s.route != memory && s.limited {
				t.Errorf("a request to router %d %v after the pause began got the RateLimit field, want Redis unanswered", s.route, s.at-paused)
			}
		}
	}
	p99 := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[len(d)*99/100]
	}
	po, pm, pc := p99(lat[redisOpen]), p99(lat[memory]), p99(lat[redisClosed])
	t.Logf("breaker open, %d requests: p99 FailOpen %v, memory store %v (ratio %.2f), FailOpen false (503) %v",
		len(lat[0])+len(lat[1])+len(lat[2]), po, pm, float64(po)/float64(pm), pc)
	if len(lat[redisOpen]) < 100 || len(lat[memory]) < 100 {
		t.Fatalf("requests while the breaker was open: %d to Redis, %d to memory; want at least 100 each", len(lat[redisOpen]), len(lat[memory]))
	}
	if float64(po) > 1.2*float64(pm) {
		t.Errorf("p99 with the breaker open: got %v, want within 1.2 × the memory store's %v", po, pm)
	}
	if pc > deadline/2 {
		t.Errorf("p99 of the 503s with the breaker open: got %v, want under half the %v deadline", pc, deadline)
	}

	// The log, through the pause.
	for _, tc := range []struct {
		name  string
		logs  *syncBuffer
		route int
	}{{"FailOpen", &openLogs, redisOpen}, {"FailOpen false", &closedLogs, redisClosed}} {
		failures := 0
		for _, s := range all {
			if s.route == tc.route && !s.limited {
				failures++
			}
		}
		lines, accounted := 0, 0
		for l := range strings.Lines(tc.logs.String()) {
			var rec struct {
				Msg      string
				Unlogged int
			}
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("%s: log line %q: %v", tc.name, l, err)
			}
			lines++
			accounted += 1 + rec.Unlogged
		}
		span := resumed - paused + after
		t.Logf("%s: %d log lines in %v for %d failed requests (%d accounted for by the lines)", tc.name, lines, span.Round(time.Millisecond), failures, accounted)
		if max := int(span/time.Second) + 1; lines > max {
			t.Errorf("%s: got %d log lines in %v, want at most %d (one a second)", tc.name, lines, span, max)
		}
		// The requests since the last line wait for the next: at most
		// a second's worth are not counted yet.
		if accounted > failures || lines == 0 {
			t.Errorf("%s: the log accounts for %d requests of %d failed, want some and no more", tc.name, accounted, failures)
		}
	}

	// The limits, after SIGCONT.
	back := time.Duration(-1)
	for _, s := range all {
		if s.route == redisOpen && s.at >= resumed && s.limited && (back < 0 || s.at+s.took-resumed < back) {
			back = s.at + s.took - resumed
		}
		if s.route != memory && s.at >= resumed-time.Second && s.took > deadline/2 && testing.Verbose() {
			t.Logf("a probe to router %d: sent %v after SIGCONT, took %v, limited %v", s.route, s.at-resumed, s.took, s.limited)
		}
	}
	t.Logf("the first answer from Redis came %v after SIGCONT", back)
	if back < 0 || back > time.Second {
		t.Errorf("after SIGCONT: the first request limited by Redis again came %v after it, want within 1s", back)
	}
	// A second after SIGCONT the breaker is closed and Redis answers
	// again. A request may still miss its 100 ms deadline when the
	// machine is starved of CPU (CI beside other work), and is then let
	// through without the field, as FailOpen says; a breaker left open
	// would leave them all without it.
	late, sent := 0, 0
	for _, s := range all {
		if s.route == redisOpen && s.at >= resumed+time.Second {
			sent++
			if !s.limited {
				late++
			}
		}
	}
	t.Logf("requests sent a second or more after SIGCONT: %d, %d of them without the RateLimit field", sent, late)
	if sent == 0 || late*100 > sent {
		t.Errorf("requests sent a second or more after SIGCONT without the RateLimit field: %d of %d, want at most 1%%", late, sent)
	}
}
