package redisstore

import (
	"sync"
	"testing"
	"time"
)

// TestBreaker walks the breaker through its states on a clock of its own:
// closed through threshold-1 failures, open at the threshold for the
// cool-down, one probe when it is over, open again when the probe fails,
// closed when it succeeds; an abandoned probe lets the next call probe.
func TestBreaker(t *testing.T) {
	const cool = int64(time.Second)
	b := newBreaker(3, time.Second)
	now := int64(1_000_000_000)
	step := func(what string, wantAllow bool, o outcome, wantState string) {
		t.Helper()
		got := b.allow(now)
		if got != wantAllow {
			t.Fatalf("%s: allow got %v, want %v", what, got, wantAllow)
		}
		if got {
			b.record(o, now)
		}
		if s := b.state(now); s != wantState {
			t.Fatalf("%s: state got %s, want %s", what, s, wantState)
		}
	}
	step("failure 1", true, failed, "closed")
	step("failure 2", true, failed, "closed")
	step("success resets", true, succeeded, "closed")
	step("failure 1 again", true, failed, "closed")
	step("failure 2 again", true, failed, "closed")
	step("failure 3 opens", true, failed, "open")
	step("refused while open", false, 0, "open")
	now += cool - 1
	step("refused at the end of the cool-down", false, 0, "open")
	now++
	if !b.allow(now) {
		t.Fatal("the first call after the cool-down: refused, want the probe")
	}
	if b.allow(now) {
		t.Fatal("a second call while the probe is in flight: let through, want refused")
	}
	b.record(failed, now)
	if s := b.state(now); s != "open" {
		t.Fatalf("after the probe failed: got %s, want open", s)
	}
	now += cool
	if !b.allow(now) {
		t.Fatal("probe after the second cool-down: refused")
	}
	b.record(abandoned, now)
	if !b.allow(now) {
		t.Fatal("after an abandoned probe: refused, want another probe")
	}
	b.record(succeeded, now)
	if s := b.state(now); s != "closed" {
		t.Fatalf("after the probe succeeded: got %s, want closed", s)
	}
	step("closed again: failure 1", true, failed, "closed")
	if newBreaker(-1, time.Second) != nil || !(*breaker)(nil).allow(now) {
		t.Error("a negative threshold: want no breaker, every call through")
	}
}

// TestBreakerOneProbe: of many callers at the end of the cool-down, one
// gets the probe.
func TestBreakerOneProbe(t *testing.T) {
	b := newBreaker(1, time.Millisecond)
	b.record(failed, 0)
	now := int64(time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	probes := 0
	for range 64 {
		wg.Go(func() {
			if b.allow(now) {
				mu.Lock()
				probes++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if probes != 1 {
		t.Errorf("probes let through: got %d, want 1", probes)
	}
}

// state returns "closed", "open" or "half-open", for the tests.
func (b *breaker) state(now int64) string {
	if b == nil {
		return "closed"
	}
	switch until := b.openUntil.Load(); {
	case until == 0:
		return "closed"
	case now < until:
		return "open"
	}
	return "half-open"
}
