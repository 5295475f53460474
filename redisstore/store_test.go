package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/middleware/storetest"
	"github.com/waltz-go/waltz/redisstore"
)

// TestConformance runs the RateStore conformance checks on a real Redis.
func TestConformance(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	storetest.Run(t, func(t *testing.T) middleware.RateStore {
		// The checks run in parallel, thousands of calls, on a machine that
		// may be busy with other work: the outage tests hold the default
		// 100 ms deadline; here a late answer is not the store's fault.
		return redisstore.New(rdb, redisstore.Options{Prefix: uniquePrefix(t), Timeout: 5 * time.Second})
	})
}

// TestExpiresWhenFull: a key's time to live is the time its bucket takes to
// fill again, so Redis forgets a client once it would have a full bucket.
func TestExpiresWhenFull(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	prefix := uniquePrefix(t)
	s := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	l := middleware.RatePolicy{Requests: 4, Window: 4 * time.Second} // a token a second
	ctx := context.Background()
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second} {
		if _, err := s.Take(ctx, "k", time.Now(), l); err != nil {
			t.Fatal(err)
		}
		ttl, err := rdb.PTTL(ctx, prefix+"k").Result()
		if err != nil {
			t.Fatal(err)
		}
		// Taken a few milliseconds apart, so up to that much less.
		if ttl > want || ttl < want-200*time.Millisecond {
			t.Errorf("after %d takes: got PTTL %v, want in [%v, %v]", i+1, ttl, want-200*time.Millisecond, want)
		}
	}
}

// TestReloadsScript: on a Redis that lacks the script (a new server, or
// after SCRIPT FLUSH, as a restart leaves it) a Take still succeeds, loads
// the script, and the takes after it run it by its SHA-1 alone.
func TestReloadsScript(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	s := redisstore.New(rdb, redisstore.Options{Prefix: uniquePrefix(t)})
	l := middleware.RatePolicy{Requests: 4, Window: time.Hour}
	ctx := context.Background()
	for i, want := range []int{3, 2, 1, 0} {
		if i == 2 {
			if err := rdb.ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
		}
		res, err := s.Take(ctx, "k", time.Now(), l)
		if err != nil || !res.Allowed || res.Remaining != want {
			t.Fatalf("take %d: got %+v, %v, want allowed with %d left", i+1, res, err, want)
		}
	}
	stats, err := rdb.Do(ctx, "INFO", "commandstats").Text()
	if err != nil {
		t.Fatal(err)
	}
	// Four EVALSHAs and two NOSCRIPT retries; a load at the first take and
	// one after the flush; no EVAL, which would send the whole script.
	for _, want := range []string{"cmdstat_evalsha:calls=6,", "cmdstat_script|load:calls=2,"} {
		if !strings.Contains(stats, want) {
			t.Errorf("got command stats %q, want %q in them", stats, want)
		}
	}
	if _, line, _ := strings.Cut(stats, "cmdstat_evalsha:"); !strings.Contains(strings.SplitN(line, "\n", 2)[0], ",failed_calls=2") {
		t.Errorf("got EVALSHA stats %q, want 2 failed calls", line)
	}
	if strings.Contains(stats, "cmdstat_eval:") {
		t.Errorf("got command stats %q, want no EVAL", stats)
	}
}

// TestNewPanics: a client that ignores context deadlines, and a negative
// Timeout, are refused at construction.
func TestNewPanics(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client redis.Scripter
		o      redisstore.Options
		want   string
	}{
		{"no context timeouts", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), redisstore.Options{}, "ContextTimeoutEnabled"},
		{"negative timeout", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true}),
			redisstore.Options{Timeout: -time.Second}, "Options.Timeout is -1s"},
		{"nil client", nil, redisstore.Options{}, "client is nil"},
		{"negative cool-down", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", ContextTimeoutEnabled: true}),
			redisstore.Options{CoolDown: -time.Second}, "Options.CoolDown is -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) {
					t.Errorf("got panic %q, want one starting \"waltz: \" that says %q", msg, tc.want)
				}
			}()
			redisstore.New(tc.client, tc.o)
		})
	}
}

// TestManyKeysBoundedMemory: 100,000 distinct keys, each taken once, do
// not pile up: each expires when its bucket is full again (here 100ms
// later), so Redis holds only the recent ones while they arrive, and
// nothing, and about the memory it started with, once they stop.
func TestManyKeysBoundedMemory(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	s := redisstore.New(rdb, redisstore.Options{Prefix: uniquePrefix(t), Timeout: time.Second})
	l := middleware.RatePolicy{Requests: 10, Window: time.Second} // full again 100ms after one take
	ctx := context.Background()
	baseline := srv.info("memory", "used_memory")

	const keys, workers = 100_000, 16
	var (
		next, peak atomic.Int64
		wg         sync.WaitGroup
		done       = make(chan struct{})
	)
	go func() { // DBSIZE every 50ms while the keys arrive
		probe := redis.NewClient(&redis.Options{Addr: srv.addr})
		defer probe.Close()
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if n, err := probe.DBSize(ctx).Result(); err == nil && n > peak.Load() {
				peak.Store(n)
			}
		}
	}()
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for i := next.Add(1); i <= keys; i = next.Add(1) {
				if _, err := s.Take(ctx, fmt.Sprintf("client-%d", i), time.Now(), l); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	took := time.Since(start)
	t.Logf("%d keys in %v; at most %d in Redis at once", keys, took, peak.Load())
	if p := peak.Load(); p > keys/4 {
		t.Errorf("got up to %d keys in Redis at once, want at most %d: keys are not expiring", p, keys/4)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n, err := rdb.DBSize(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d keys 5s after the last take, want 0", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Freed memory goes back to Redis's allocator; allow 1 MiB for its
	// caches and buffers.
	if used := srv.info("memory", "used_memory"); used > baseline+1<<20 {
		t.Errorf("used_memory %d bytes after expiry, %d before: want within 1 MiB", used, baseline)
	}
}
