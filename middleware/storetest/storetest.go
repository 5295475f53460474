// Package storetest checks that a [middleware.RateStore] keeps token buckets as
// [middleware.RateLimit] needs them: a store's own tests call [Run] with a
// constructor, and every check runs against the stores it makes.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) middleware.RateStore {
//			return middleware.NewMemoryRateStore(10000)
//		})
//	}
//
// The checks pass the real time as Take's now and sleep real time, so a
// store that reads its own clock instead (a shared store reading its
// server's clock, say) is checked the same way. They wait on buckets of one
// or two seconds' window; run in parallel, the whole kit takes about three
// seconds. Bounds on Wait allow for a slow machine in the direction a delay
// moves them, and no further.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz/middleware"
)

// Run runs every check as a parallel subtest of t, each on a store of its
// own from newStore, which must be safe to call from several goroutines. A
// store for a shared backend should give each call a fresh key space (a
// key prefix of its own), since checks use the same keys in every run.
//
// The checks:
//   - Burst: a new key has a full bucket; takes report Remaining counting
//     down and Wait of one token's time; the take after the last is refused.
//   - Atomic: concurrent takes on one key allow exactly the bucket's size,
//     each Remaining value reported once.
//   - Refill: tokens come back continuously at Requests per Window, at the
//     right moment and with the fractions kept.
//   - Cap: a bucket left idle for windows holds its size, no more.
//   - Kept: a key whose bucket is not yet full again keeps its count, so
//     a store that forgets keys early (an expiry of one token's time, or
//     in the wrong unit) hands out a full bucket too soon.
//   - Expiry: a key left until its bucket is full again is as good as new.
//   - ManyKeys: a few thousand keys, taken concurrently, keep separate
//     buckets.
//   - CancelledContext: with a context already cancelled, or past its
//     deadline, Take returns at once; an error it returns wraps the
//     context's, and then it took no token.
func Run(t *testing.T, newStore func(t *testing.T) middleware.RateStore) {
	t.Helper()
	for _, c := range []struct {
		name string
		run  func(t *testing.T, s middleware.RateStore)
	}{
		{"Burst", burst},
		{"Atomic", atomic},
		{"Refill", refill},
		{"Cap", capped},
		{"Kept", kept},
		{"Expiry", expiry},
		{"ManyKeys", manyKeys},
		{"CancelledContext", cancelled},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newStore(t))
		})
	}
}

// take calls s.Take with a live context and the real time, failing t on an
// error.
func take(t *testing.T, s middleware.RateStore, key string, l middleware.RatePolicy) middleware.RateResult {
	t.Helper()
	res, err := s.Take(context.Background(), key, time.Now(), l)
	if err != nil {
		t.Fatalf("Take(%q): %v", key, err)
	}
	return res
}

// interval is the time one token takes to come back under l.
func interval(l middleware.RatePolicy) time.Duration { return l.Window / time.Duration(l.Requests) }

// slack is how late a check may run, or a call take, before a bound that
// depends on it would be wrong; bounds are kept at least this far from what
// a store may honestly report.
const slack = 250 * time.Millisecond

func burst(t *testing.T, s middleware.RateStore) {
	l := middleware.RatePolicy{Requests: 5, Window: 10 * time.Second} // a token every 2s
	for i := range l.Requests {
		res := take(t, s, "burst", l)
		if !res.Allowed || res.Remaining != l.Requests-1-i {
			t.Fatalf("take %d: got allowed %v, remaining %d, want true, %d", i+1, res.Allowed, res.Remaining, l.Requests-1-i)
		}
		if res.Wait <= interval(l)-slack || res.Wait > interval(l) {
			t.Errorf("take %d: got Wait %v, want in (%v, %v]", i+1, res.Wait, interval(l)-slack, interval(l))
		}
	}
	res := take(t, s, "burst", l)
	if res.Allowed || res.Remaining != 0 {
		t.Errorf("take %d: got allowed %v, remaining %d, want false, 0", l.Requests+1, res.Allowed, res.Remaining)
	}
	if res.Wait <= interval(l)-slack || res.Wait > interval(l) {
		t.Errorf("refused take: got Wait %v, want in (%v, %v]", res.Wait, interval(l)-slack, interval(l))
	}
}

func atomic(t *testing.T, s middleware.RateStore) {
	// A day's window: nothing refills while the test runs.
	l := middleware.RatePolicy{Requests: 100, Window: 24 * time.Hour}
	const workers, each = 8, 40
	var (
		mu        sync.Mutex
		remaining []int
		wg        sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for range each {
				res, err := s.Take(context.Background(), "atomic", time.Now(), l)
				if err != nil {
					t.Error(err)
					return
				}
				if res.Allowed {
					mu.Lock()
					remaining = append(remaining, res.Remaining)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(remaining) != l.Requests {
		t.Fatalf("got %d of %d concurrent takes allowed, want %d", len(remaining), workers*each, l.Requests)
	}
	slices.Sort(remaining)
	for i, r := range remaining {
		if r != i {
			t.Fatalf("got Remaining values %v, want each of 0..%d once", remaining, l.Requests-1)
		}
	}
}

func refill(t *testing.T, s middleware.RateStore) {
	l := middleware.RatePolicy{Requests: 2, Window: 2 * time.Second} // a token a second
	step := interval(l)
	take(t, s, "refill", l)
	take(t, s, "refill", l)
	res := take(t, s, "refill", l)
	if res.Allowed || res.Wait <= step-slack || res.Wait > step {
		t.Fatalf("drained: got allowed %v, Wait %v, want false, in (%v, %v]", res.Allowed, res.Wait, step-slack, step)
	}
	// Halfway to the next token: still refused, and Wait went down by at
	// least the time slept.
	first := res.Wait
	time.Sleep(step / 2)
	res = take(t, s, "refill", l)
	if res.Allowed || res.Wait > first-step/2+time.Millisecond || res.Wait <= 0 {
		t.Fatalf("half a token later: got allowed %v, Wait %v, want false, in (0, %v]", res.Allowed, res.Wait, first-step/2)
	}
	// One and a half tokens' time after draining: one take, and the half
	// token kept, so the next one is at most half a token away.
	time.Sleep(res.Wait + step/2)
	res = take(t, s, "refill", l)
	if !res.Allowed || res.Remaining != 0 || res.Wait > step/2+time.Millisecond {
		t.Fatalf("1.5 tokens later: got allowed %v, remaining %d, Wait %v, want true, 0, at most %v",
			res.Allowed, res.Remaining, res.Wait, step/2)
	}
	res = take(t, s, "refill", l)
	if res.Allowed || res.Wait > step/2+time.Millisecond {
		t.Fatalf("then: got allowed %v, Wait %v, want false, at most %v", res.Allowed, res.Wait, step/2)
	}
}

func capped(t *testing.T, s middleware.RateStore) {
	l := middleware.RatePolicy{Requests: 1, Window: time.Second}
	take(t, s, "cap", l)
	// Two and a half windows idle: the bucket holds its size, one token,
	// not the two and a half an uncapped count would give.
	time.Sleep(5 * l.Window / 2)
	if res := take(t, s, "cap", l); !res.Allowed || res.Remaining != 0 {
		t.Fatalf("after idling: got allowed %v, remaining %d, want true, 0", res.Allowed, res.Remaining)
	}
	if res := take(t, s, "cap", l); res.Allowed {
		t.Fatalf("after idling, take 2: got allowed, want refused: the bucket filled past its size")
	}
}

func kept(t *testing.T, s middleware.RateStore) {
	l := middleware.RatePolicy{Requests: 2, Window: 2 * time.Second} // a token a second
	take(t, s, "kept", l)
	take(t, s, "kept", l)
	// A token and a half's time after draining: one whole token back, and
	// the bucket still half a token short of full.
	time.Sleep(3 * interval(l) / 2)
	switch res := take(t, s, "kept", l); {
	case !res.Allowed:
		t.Fatalf("1.5 tokens after draining: got refused, want allowed: a token is back after a token's time")
	case res.Remaining != 0:
		t.Fatalf("1.5 tokens after draining: got remaining %d, want 0: the store forgot a key whose bucket was not full",
			res.Remaining)
	}
	if res := take(t, s, "kept", l); res.Allowed {
		t.Fatalf("1.5 tokens after draining, take 2: got allowed, want refused")
	}
}

func expiry(t *testing.T, s middleware.RateStore) {
	l := middleware.RatePolicy{Requests: 4, Window: time.Second} // a token every 250ms
	take(t, s, "expiry", l)
	take(t, s, "expiry", l)
	// Two tokens' time, and some: full again.
	time.Sleep(2*interval(l) + slack)
	for i := range l.Requests {
		res := take(t, s, "expiry", l)
		if !res.Allowed || res.Remaining != l.Requests-1-i {
			t.Fatalf("take %d once full again: got allowed %v, remaining %d, want true, %d", i+1, res.Allowed, res.Remaining, l.Requests-1-i)
		}
	}
	if res := take(t, s, "expiry", l); res.Allowed {
		t.Fatalf("take %d once full again: got allowed, want refused", l.Requests+1)
	}
}

func manyKeys(t *testing.T, s middleware.RateStore) {
	l := middleware.RatePolicy{Requests: 2, Window: time.Hour}
	const keys, workers = 2000, 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < keys; i += workers {
				key := fmt.Sprintf("many-%d", i)
				for j, want := range []middleware.RateResult{
					{Allowed: true, Remaining: 1}, {Allowed: true, Remaining: 0}, {Remaining: 0},
				} {
					res, err := s.Take(context.Background(), key, time.Now(), l)
					if err != nil {
						t.Error(err)
						return
					}
					if res.Allowed != want.Allowed || res.Remaining != want.Remaining {
						t.Errorf("key %q take %d: got allowed %v, remaining %d, want %v, %d",
							key, j+1, res.Allowed, res.Remaining, want.Allowed, want.Remaining)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

func cancelled(t *testing.T, s middleware.RateStore) {
	l := middleware.RatePolicy{Requests: 10, Window: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancelPast := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancelPast()
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{{"cancelled", ctx}, {"past deadline", past}} {
		key := "cancelled-" + tc.name
		start := time.Now()
		_, err := s.Take(tc.ctx, key, time.Now(), l)
		if d := time.Since(start); d > slack {
			t.Errorf("%s: Take took %v, want at most %v", tc.name, d, slack)
		}
		want := l.Requests - 1
		if err == nil {
			want-- // it took a token, as a store that ignores the context may
		} else if !errors.Is(err, tc.ctx.Err()) {
			t.Errorf("%s: got error %v, want one that wraps %v", tc.name, err, tc.ctx.Err())
		}
		if res := take(t, s, key, l); !res.Allowed || res.Remaining != want {
			t.Errorf("%s: next take got allowed %v, remaining %d, want true, %d (error was %v)",
				tc.name, res.Allowed, res.Remaining, want, err)
		}
	}
}
