package storetest_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz/internal/testhelp"

	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/middleware/storetest"
)

// fault is one way a store can be wrong. The zero fault is a correct
// store.
type fault struct {
	racy          bool                                      // lets go of its lock between reading a bucket and writing it back, so concurrent takes lose updates
	noRefill      bool                                      // tokens never come back
	wholeTokens   bool                                      // drops the fraction of a token at every take
	noCap         bool                                      // lets an idle bucket grow past its size
	forgetAfter   func(middleware.RatePolicy) time.Duration // drops a key this long after its last take
	extraToken    bool                                      // lets Requests+1 through
	noWait        bool                                      // reports Wait 0 while allowing
	keyPrefixLen  int                                       // keys only by their first bytes
	takeOnCancel  bool                                      // takes the token, then reports the context's error
	blockOnCancel time.Duration                             // ignores the context and takes this long
	plainError    bool                                      // on a done context, an error that does not wrap the context's
	fixedWindow   bool                                      // counts takes in windows from a key's first take, as INCR then EXPIRE does
}

// wrongStores are stores each with one fault, and the check that must
// catch it: the kit is only as good as the wrong stores it refuses.
var wrongStores = map[string]struct {
	f     fault
	check string
}{
	"racy":                    {fault{racy: true}, "Atomic"},
	"no refill":               {fault{noRefill: true}, "Refill"},
	"whole tokens":            {fault{wholeTokens: true}, "Refill"},
	"no cap":                  {fault{noCap: true}, "Cap"},
	"forgets a key too early": {fault{forgetAfter: func(l middleware.RatePolicy) time.Duration { return l.Window / time.Duration(l.Requests) }}, "Kept"},
	"extra token":             {fault{extraToken: true}, "Burst"},
	"no wait":                 {fault{noWait: true}, "Burst"},
	"keys collide":            {fault{keyPrefixLen: 6}, "ManyKeys"},
	"takes on cancel":         {fault{takeOnCancel: true}, "CancelledContext"},
	"blocks on cancel":        {fault{blockOnCancel: time.Second}, "CancelledContext"},
	"plain error":             {fault{plainError: true}, "CancelledContext"},
	"fixed window":            {fault{fixedWindow: true}, "Refill"},
}

// TestKitRefusesWrongStores runs the kit, in a child process of this test
// binary, on a correct store (it must pass) and on each wrong store (it
// must fail, in the check that looks for that fault).
func TestKitRefusesWrongStores(t *testing.T) {
	if name, ok := os.LookupEnv("STORETEST_CHILD"); ok {
		f := wrongStores[name].f
		storetest.Run(t, func(*testing.T) middleware.RateStore { return &store{f: f, buckets: map[string]*bucket{}} })
		return
	}
	checks := map[string]string{}
	for name, w := range wrongStores {
		checks[name] = w.check
	}
	testhelp.KitRefuses(t, "TestKitRefusesWrongStores", "STORETEST_CHILD", checks, "store")
}

// store is a token bucket store in memory, correct but for its fault.
type store struct {
	f       fault
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

func (s *store) Take(ctx context.Context, key string, now time.Time, l middleware.RatePolicy) (middleware.RateResult, error) {
	err := ctx.Err()
	switch {
	case err == nil:
		return s.take(key, now, l), nil
	case s.f.blockOnCancel > 0:
		time.Sleep(s.f.blockOnCancel)
	case s.f.plainError:
		return middleware.RateResult{}, errors.New("store unreachable")
	case s.f.takeOnCancel:
		s.take(key, now, l)
	}
	return middleware.RateResult{}, err
}

func (s *store) take(key string, now time.Time, l middleware.RatePolicy) middleware.RateResult {
	if n := s.f.keyPrefixLen; n > 0 && len(key) > n {
		key = key[:n]
	}
	size := float64(l.Requests)
	perSecond := size / l.Window.Seconds()

	s.mu.Lock()
	if s.f.fixedWindow {
		defer s.mu.Unlock()
		return s.fixed(key, now, l)
	}
	b, ok := s.buckets[key]
	if ok && s.f.forgetAfter != nil && now.Sub(b.at) >= s.f.forgetAfter(l) {
		ok = false
	}
	var nb bucket
	if ok {
		nb = *b
	} else {
		nb = bucket{tokens: size, at: now}
	}
	if s.f.racy {
		s.mu.Unlock()
		time.Sleep(time.Microsecond) // what a round trip between read and write would be
	}
	if elapsed := now.Sub(nb.at); elapsed > 0 && !s.f.noRefill {
		nb.tokens += elapsed.Seconds() * perSecond
		if !s.f.noCap {
			nb.tokens = min(size, nb.tokens)
		}
	}
	nb.at = now
	var res middleware.RateResult
	if nb.tokens >= 1 || s.f.extraToken && nb.tokens >= 0 {
		nb.tokens--
		res.Allowed = true
	}
	if s.f.wholeTokens {
		nb.tokens = float64(int(nb.tokens))
	}
	res.Remaining = max(0, int(nb.tokens))
	if next := float64(res.Remaining + 1); next <= size {
		res.Wait = time.Duration((next - max(nb.tokens, 0)) / perSecond * float64(time.Second))
	}
	if s.f.noWait && res.Allowed {
		res.Wait = 0
	}
	if s.f.racy {
		s.mu.Lock()
	}
	s.buckets[key] = &nb
	s.mu.Unlock()
	return res
}

// fixed counts takes in windows of l.Window from a key's first take: tokens
// is the count and at the window's start. It reports Wait as one token's
// time, as a token bucket would.
func (s *store) fixed(key string, now time.Time, l middleware.RatePolicy) middleware.RateResult {
	b, ok := s.buckets[key]
	if !ok || now.Sub(b.at) >= l.Window {
		b = &bucket{at: now}
		s.buckets[key] = b
	}
	res := middleware.RateResult{Wait: l.Window / time.Duration(l.Requests)}
	if int(b.tokens) < l.Requests {
		b.tokens++
		res.Allowed = true
	}
	res.Remaining = l.Requests - int(b.tokens)
	return res
}

// TestKitFaultNames keeps each wrong store's check a check the kit has.
func TestKitFaultNames(t *testing.T) {
	checks := "Burst Atomic Refill Cap Kept Expiry ManyKeys CancelledContext"
	for name, w := range wrongStores {
		if !strings.Contains(checks, w.check) {
			t.Errorf("wrong store %q: got check %q, want one of %s", name, w.check, checks)
		}
	}
}
