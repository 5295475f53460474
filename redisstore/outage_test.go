package redisstore_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// limitedRouter returns a router whose GET / is limited per X-Client by
// store, answering as failOpen says when the store fails, and logging to
// logs.
func limitedRouter(store middleware.RateStore, l middleware.RatePolicy, failOpen bool, logs *syncBuffer) *waltz.Router {
	r := waltz.New()
	r.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	r.Use(middleware.RateLimit(middleware.RateLimitOptions{
		Limit:    l,
		Key:      func(c *waltz.Context) string { return c.Request.Header.Get("X-Client") },
		Store:    store,
		FailOpen: failOpen,
	}))
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
	return r
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// answer is one request's outcome.
type answer struct {
	code    int
	limited bool // the RateLimit field was set
	took    time.Duration
}

// ask sends n concurrent GET / for key to h and returns their outcomes.
func ask(h http.Handler, key string, n int) []answer {
	out := make([]answer, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("X-Client", key)
			w := httptest.NewRecorder()
			start := time.Now()
			h.ServeHTTP(w, req)
			out[i] = answer{w.Code, w.Header().Get("RateLimit") != "", time.Since(start)}
		})
	}
	wg.Wait()
	return out
}

// TestRedisOutage: while Redis is hung (its process stopped) or gone (its
// process killed), every request gets the FailOpen answer — through
// without rate limit fields, or 503 when FailOpen is off — within the
// store's deadline, measured; once Redis runs again the limits hold.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	const deadline = 100 * time.Millisecond
	// What the deadline may be exceeded by: the scheduling of a loaded
	// machine, and the answer after it.
	const slack = 150 * time.Millisecond
	// No breaker here: every answer is measured against the deadline;
	// TestRedisPausedBreaker measures the breaker.
	store := redisstore.New(srv.client(), redisstore.Options{Timeout: deadline, BreakAfter: -1})
	l := middleware.RatePolicy{Requests: 3, Window: time.Hour}
	var logs syncBuffer
	open, closed := limitedRouter(store, l, true, &logs), limitedRouter(store, l, false, &logs)

	// limits checks that key's limit holds: of Requests+2 concurrent
	// requests, Requests get through, and all carry the RateLimit field.
	limits := func(phase, key string) {
		t.Helper()
		counts := map[int]int{}
		for _, a := range ask(open, key, l.Requests+2) {
			counts[a.code]++
			if !a.limited {
				t.Errorf("%s: got %d without RateLimit, want the field", phase, a.code)
			}
		}
		if counts[200] != l.Requests || counts[429] != 2 {
			t.Errorf("%s: got %v of %d requests, want %d 200s and two 429s", phase, counts, l.Requests+2, l.Requests)
		}
	}
	outage := func(phase string) {
		t.Helper()
		var worst time.Duration
		for _, tc := range []struct {
			h    http.Handler
			code int
		}{{open, 200}, {closed, 503}} {
			for _, a := range ask(tc.h, "during-"+phase, 8) {
				worst = max(worst, a.took)
				if a.code != tc.code || a.limited {
					t.Errorf("%s: got %d (RateLimit set: %v), want %d without RateLimit", phase, a.code, a.limited, tc.code)
				}
				if a.took > deadline+slack {
					t.Errorf("%s: an answer took %v, want at most the %v deadline and %v", phase, a.took, deadline, slack)
				}
			}
		}
		t.Logf("%s: slowest of 16 concurrent answers %v (deadline %v)", phase, worst, deadline)
	}

	// A client that keeps sending, one request after another, through the
	// whole run: every answer comes within the deadline, whatever Redis
	// is doing when it is sent.
	stop := make(chan struct{})
	var steady []answer
	var steadyDone sync.WaitGroup
	steadyDone.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			steady = append(steady, ask(open, "steady", 1)...)
		}
	})

	limits("before", "a")
	srv.pause()
	outage("Redis hung")
	srv.kill()
	outage("Redis gone")
	if !strings.Contains(logs.String(), "rate limit store failed; request let through") {
		t.Errorf("got logs %q, want the fail-open requests logged", logs.String())
	}
	srv.start()
	limits("after restart", "b")
	close(stop)
	steadyDone.Wait()
	var worst time.Duration
	for _, a := range steady {
		worst = max(worst, a.took)
		if a.code != 200 && a.code != 429 {
			t.Errorf("steady client: got %d, want 200 or 429", a.code)
		}
	}
	if worst > deadline+slack {
		t.Errorf("steady client: slowest of %d answers took %v, want at most the %v deadline and %v", len(steady), worst, deadline, slack)
	}
	t.Logf("steady client: %d requests across the outage and the restart, slowest %v", len(steady), worst)
}
