package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// rateLimited returns a router with mw in front of GET /.
func rateLimited(mw waltz.Middleware) *waltz.Router {
	r := waltz.New()
	r.Use(mw)
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
	return r
}

func get(tb testing.TB, h http.Handler, remote string) *httptest.ResponseRecorder {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.RemoteAddr = remote
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestRateLimit(t *testing.T) {
	r := rateLimited(RateLimit(RateLimitOptions{Limit: RatePolicy{Requests: 2, Window: time.Minute}}))
	policy := `"default";q=2;w=60`
	for i, tc := range []struct {
		remote     string
		code       int
		state      string // the RateLimit field
		retryAfter string
	}{
		// draft-ietf-httpapi-ratelimit-headers-11 section 4.1: r left, t
		// until the next token.
		{"192.0.2.1:1", 200, `"default";r=1;t=30`, ""},
		{"192.0.2.1:2", 200, `"default";r=0;t=30`, ""},
		// RFC 6585 section 4 and RFC 9110 section 10.2.3: 429 with
		// Retry-After in seconds until one token is back.
		{"192.0.2.1:3", 429, `"default";r=0;t=30`, "30"},
		// Another client has its own bucket.
		{"192.0.2.2:1", 200, `"default";r=1;t=30`, ""},
		// An IPv6 client's /64 is one bucket: a host cannot hop addresses.
		{"[2001:db8:1:2::1]:1", 200, `"default";r=1;t=30`, ""},
		{"[2001:db8:1:2::ffff]:1", 200, `"default";r=0;t=30`, ""},
		{"[2001:db8:1:2:aaaa::1]:1", 429, `"default";r=0;t=30`, "30"},
		{"[2001:db8:1:3::1]:1", 200, `"default";r=1;t=30`, ""},
		// An IPv4-mapped address is the IPv4 client's bucket.
		{"[::ffff:192.0.2.1]:1", 429, `"default";r=0;t=30`, "30"},
	} {
		t.Run(fmt.Sprint(i, tc.remote), func(t *testing.T) {
			w := get(t, r, tc.remote)
			if w.Code != tc.code {
				t.Errorf("got status %d, want %d", w.Code, tc.code)
			}
			h := w.Header()
			if got := h.Get("RateLimit-Policy"); got != policy {
				t.Errorf("got RateLimit-Policy %q, want %q", got, policy)
			}
			if got := h.Get("RateLimit"); got != tc.state {
				t.Errorf("got RateLimit %q, want %q", got, tc.state)
			}
			if got := h.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("got Retry-After %q, want %q", got, tc.retryAfter)
			}
		})
	}
}

func TestMemoryStoreBucket(t *testing.T) {
	s := NewMemoryRateStore(10)
	l := RatePolicy{Requests: 3, Window: 3 * time.Second} // one token a second
	t0 := time.Unix(1000, 0)
	for i, tc := range []struct {
		at   time.Duration // since t0
		want RateResult
	}{
		{0, RateResult{Allowed: true, Remaining: 2, Wait: time.Second}},
		{0, RateResult{Allowed: true, Remaining: 1, Wait: time.Second}},
		{0, RateResult{Allowed: true, Remaining: 0, Wait: time.Second}},
		{0, RateResult{Remaining: 0, Wait: time.Second}},
		{500 * time.Millisecond, RateResult{Remaining: 0, Wait: 500 * time.Millisecond}},
		{time.Second, RateResult{Allowed: true, Remaining: 0, Wait: time.Second}},
		{2500 * time.Millisecond, RateResult{Allowed: true, Remaining: 0, Wait: 500 * time.Millisecond}},
		// A clock that goes back refills nothing and breaks nothing.
		{-time.Hour, RateResult{Remaining: 0, Wait: 500 * time.Millisecond}},
		// Refill stops at the bucket's size.
		{time.Hour, RateResult{Allowed: true, Remaining: 2, Wait: time.Second}},
	} {
		got, err := s.Take(context.Background(), "k", t0.Add(tc.at), l)
		if err != nil || got != tc.want {
			t.Errorf("%d at %v: got %+v, %v, want %+v", i, tc.at, got, err, tc.want)
		}
	}
}

func TestMemoryStoreEvictsLeastRecentlyUsed(t *testing.T) {
	s := NewMemoryRateStore(2)
	l := RatePolicy{Requests: 1, Window: time.Hour}
	now := time.Unix(1000, 0)
	take := func(key string) bool {
		res, _ := s.Take(context.Background(), key, now, l)
		return res.Allowed
	}
	for i, tc := range []struct {
		key  string
		want bool
	}{
		{"a", true}, {"b", true}, {"a", false}, // a is now more recent than b
		{"c", true},  // evicts b
		{"a", false}, // a kept its empty bucket
		{"b", true},  // b was dropped: a full bucket again; evicts c
		{"c", true},
	} {
		if got := take(tc.key); got != tc.want {
			t.Errorf("%d %s: got allowed %v, want %v", i, tc.key, got, tc.want)
		}
	}
	if n := s.Len(); n != 2 {
		t.Errorf("got %d keys, want 2", n)
	}
}

// Hostile: a million distinct client addresses must not grow memory past
// the store's bound.
func TestMemoryStoreBoundedMemory(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	const maxKeys = 10_000
	s := NewMemoryRateStore(maxKeys)
	l := RatePolicy{Requests: 10, Window: time.Minute}
	now := time.Now()
	fill := func(from, to int) {
		for i := from; i < to; i++ {
			a := netip.AddrFrom4([4]byte{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)})
			s.Take(context.Background(), a.String(), now, l)
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	fill(0, 4*maxKeys)
	before := heap()
	fill(4*maxKeys, n)
	after := heap()
	if got := s.Len(); got > maxKeys {
		t.Errorf("got %d keys, want at most %d", got, maxKeys)
	}
	// The store holds about 1.5 MB at 10,000 keys; allow 1 MB of noise.
	if after > before+1<<20 {
		t.Errorf("heap grew from %d to %d bytes over %d more keys", before, after, n-4*maxKeys)
	}
	runtime.KeepAlive(s)
}

func TestMemoryStoreConcurrent(t *testing.T) {
	s := NewMemoryRateStore(4096)
	l := RatePolicy{Requests: 100, Window: time.Hour}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if res, _ := s.Take(context.Background(), "same", time.Now(), l); res.Allowed {
					allowed.Add(1)
				}
				s.Take(context.Background(), fmt.Sprint(g, i), time.Now(), l)
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got != 100 {
		t.Errorf("got %d requests allowed from one key, want 100", got)
	}
}

type failingStore struct{}

func (failingStore) Take(context.Context, string, time.Time, RatePolicy) (RateResult, error) {
	return RateResult{}, errors.New("connection refused")
}

func TestRateLimitOptions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		o      RateLimitOptions
		remote string
		code   int
		state  string
	}{
		// Secure by default: a failing store refuses (RFC 9110 section 15.6.4).
		{"store fails closed", RateLimitOptions{Store: failingStore{}}, "192.0.2.1:1", 503, ""},
		{"store fails open", RateLimitOptions{Store: failingStore{}, FailOpen: true}, "192.0.2.1:1", 200, ""},
		{"empty key exempts", RateLimitOptions{Key: func(*waltz.Context) string { return "" }, Store: failingStore{}}, "192.0.2.1:1", 200, ""},
		{"custom key and policy", RateLimitOptions{Key: func(c *waltz.Context) string { return "k" }, Policy: "per-app", Limit: RatePolicy{Requests: 5, Window: 5 * time.Second}}, "192.0.2.1:1", 200, `"per-app";r=4;t=1`},
		// A RemoteAddr that is no address still counts, in one bucket.
		{"unparsable peer", RateLimitOptions{}, "@", 200, `"default";r=99;t=1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := get(t, rateLimited(RateLimit(tc.o)), tc.remote)
			if w.Code != tc.code {
				t.Errorf("got status %d, want %d", w.Code, tc.code)
			}
			if got := w.Header().Get("RateLimit"); got != tc.state {
				t.Errorf("got RateLimit %q, want %q", got, tc.state)
			}
		})
	}
}

// TestRateLimitFailOpenLogs: a store error let through is logged to the
// Router's Logger, as the error handler's records are, not to slog.Default.
func TestRateLimitFailOpenLogs(t *testing.T) {
	var buf bytes.Buffer
	r := rateLimited(RateLimit(RateLimitOptions{Store: failingStore{}, FailOpen: true}))
	r.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	if w := get(t, r, "192.0.2.1:1"); w.Code != http.StatusOK {
		t.Errorf("got status %d, want 200", w.Code)
	}
	if got := buf.String(); !strings.Contains(got, "rate limit store failed") || !strings.Contains(got, "connection refused") {
		t.Errorf("got log %q, want the store's error in the Router's Logger", got)
	}
}

// TestRateLimitFailLogBounded: an outage under load writes at most one
// log line a second, whether the requests are let through or answered
// 503 (the error handler logs none of the 503s itself), and the lines'
// "unlogged" counts account for every failed request.
func TestRateLimitFailLogBounded(t *testing.T) {
	for _, failOpen := range []bool{true, false} {
		t.Run(fmt.Sprintf("FailOpen=%v", failOpen), func(t *testing.T) {
			want := http.StatusOK
			if !failOpen {
				want = http.StatusServiceUnavailable
			}
			var buf syncBuffer
			r := rateLimited(RateLimit(RateLimitOptions{Store: failingStore{}, FailOpen: failOpen}))
			r.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
			const n = 500
			start := time.Now()
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					if w := get(t, r, fmt.Sprintf("192.0.2.%d:1", i%200)); w.Code != want {
						t.Errorf("got status %d, want %d", w.Code, want)
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			time.Sleep(failLogEvery + 50*time.Millisecond)
			if w := get(t, r, "192.0.2.1:1"); w.Code != want {
				t.Errorf("got status %d, want %d", w.Code, want)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if max := 2 + int(elapsed/failLogEvery); len(lines) > max {
				t.Errorf("got %d log lines for %d requests in %v, want at most %d", len(lines), n+1, elapsed, max)
			}
			if len(lines) < 2 {
				t.Fatalf("got %d log lines, want one for the first failure and one after the pause", len(lines))
			}
			total := 0
			for _, l := range lines {
				var rec struct {
					Msg      string
					Unlogged int
				}
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatalf("log line %q: %v", l, err)
				}
				if !strings.Contains(rec.Msg, "rate limit store failed") {
					t.Errorf("log line %q: want RateLimit's own, not the error handler's", l)
				}
				total += 1 + rec.Unlogged
			}
			if total != n+1 {
				t.Errorf("got %d requests accounted for by the log, want %d", total, n+1)
			}
		})
	}
}

func TestRateLimitPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"negative requests", func() { RateLimit(RateLimitOptions{Limit: RatePolicy{Requests: -1, Window: time.Second}}) }, "waltz: RateLimitOptions.Limit.Requests"},
		{"window missing", func() { RateLimit(RateLimitOptions{Limit: RatePolicy{Requests: 1}}) }, "waltz: RateLimitOptions.Limit.Window"},
		{"fractional window", func() { RateLimit(RateLimitOptions{Limit: RatePolicy{Requests: 1, Window: 1500 * time.Millisecond}}) }, "waltz: RateLimitOptions.Limit.Window"},
		{"quote in policy", func() { RateLimit(RateLimitOptions{Policy: `a"b`}) }, "waltz: RateLimitOptions.Policy"},
		{"control in policy", func() { RateLimit(RateLimitOptions{Policy: "a\nb"}) }, "waltz: RateLimitOptions.Policy"},
		{"no keys", func() { NewMemoryRateStore(0) }, "waltz: NewMemoryRateStore maxKeys"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.HasPrefix(got, tc.want) {
					t.Errorf("got panic %q, want prefix %q", got, tc.want)
				}
			}()
			tc.f()
		})
	}
}

func TestRateLimitAllocs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		requests int
		want     float64
	}{
		{"allowed", 1 << 30, 3},
		{"refused", 1, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rateLimited(RateLimit(RateLimitOptions{Limit: RatePolicy{Requests: tc.requests, Window: time.Second}}))
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			r.ServeHTTP(&nopWriter{h: http.Header{}}, req) // the bucket exists before the count
			if got := allocsOn(r, req); got != tc.want {
				t.Errorf("got %v allocs, want %v", got, tc.want)
			}
		})
	}
}

// A RateLimit after RealIP counts each client behind the proxies.
func ExampleRateLimit() {
	r := waltz.New()
	r.Use(
		RealIP(RealIPOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}),
		RateLimit(RateLimitOptions{Limit: RatePolicy{Requests: 2, Window: time.Minute}}),
	)
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })

	for range 3 {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = "10.0.0.1:5000"
		req.Header.Set("X-Forwarded-For", "198.51.100.7")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Printf("%d %s %q\n", w.Code, w.Header().Get("RateLimit"), w.Header().Get("Retry-After"))
	}
	// Output:
	// 200 "default";r=1;t=30 ""
	// 200 "default";r=0;t=30 ""
	// 429 "default";r=0;t=30 "30"
}

func BenchmarkMemoryStore(b *testing.B) {
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}).String()
	}
	l := RatePolicy{Requests: 1 << 30, Window: time.Second}
	for _, shards := range []int{1, 16} {
		b.Run(fmt.Sprint("shards=", shards), func(b *testing.B) {
			s := newMemoryStore(2048, shards) // half the keys: evictions too
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				now, i := time.Now(), 0
				for pb.Next() {
					s.Take(context.Background(), keys[i%len(keys)], now, l)
					i += 7
				}
			})
		})
	}
}
