// Package idemtest checks that a [middleware.IdempotencyStore] keeps keys
// as [middleware.Idempotency] needs them: a store's own tests call [Run]
// with a constructor, and every check runs against the stores it makes.
//
//	func TestIdempotencyConformance(t *testing.T) {
//		idemtest.Run(t, func(t *testing.T) middleware.IdempotencyStore {
//			return middleware.NewMemoryIdempotencyStore(64 << 20)
//		})
//	}
//
// The checks sleep real time on leases and expiries of a few hundred
// milliseconds; run in parallel, the whole kit takes about a second.
// Bounds allow for a slow machine in the direction a delay moves them,
// and no further.
package idemtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
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
//   - Claim: a new key is claimed; claimed again, it is held, with the
//     first claim's fingerprint and no answer.
//   - Atomic: of concurrent claims of one key, exactly one wins.
//   - Answer: a saved answer comes back as it was given (status, every
//     field value in order, a body with any bytes), with the claim's
//     fingerprint.
//   - Scopes: a key is the pair (scope, key): the same key in two scopes,
//     and pairs whose concatenations are equal, are different keys.
//   - Release: a released key is free; a release or save with a token
//     that no longer holds the key changes nothing.
//   - Stale: a claim whose lease lapsed is free, and the first claimer's
//     late Save then changes nothing.
//   - Lease: a claim holds its key for its lease, and no longer.
//   - Expiry: an answer is kept for its ttl, counted from the save, and
//     then the key is free.
//   - ManyKeys: a thousand keys, claimed and saved concurrently, keep
//     their own answers.
//   - CancelledContext: with a context already cancelled, or past its
//     deadline, Claim returns at once; an error it returns wraps the
//     context's, and then it claimed nothing.
func Run(t *testing.T, newStore func(t *testing.T) middleware.IdempotencyStore) {
	t.Helper()
	for _, c := range []struct {
		name string
		run  func(t *testing.T, s middleware.IdempotencyStore)
	}{
		{"Claim", claim},
		{"Atomic", atomic},
		{"Answer", answer},
		{"Scopes", scopes},
		{"Release", release},
		{"Stale", stale},
		{"Lease", lease},
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

// slack is how late a check may run, or a call take, before a bound that
// depends on it would be wrong.
const slack = 150 * time.Millisecond

const hour = time.Hour

func fp(s string) middleware.Fingerprint { return sha256.Sum256([]byte(s)) }

// claimKey calls s.Claim with a live context, failing t on an error.
func claimKey(t *testing.T, s middleware.IdempotencyStore, scope, key string, f middleware.Fingerprint, lease time.Duration) middleware.IdempotencyClaim {
	t.Helper()
	c, err := s.Claim(context.Background(), scope, key, f, lease)
	if err != nil {
		t.Fatalf("Claim(%q, %q): %v", scope, key, err)
	}
	return c
}

func save(t *testing.T, s middleware.IdempotencyStore, scope, key string, token uint64, a *middleware.IdempotencyAnswer, ttl time.Duration) {
	t.Helper()
	if err := s.Save(context.Background(), scope, key, token, a, ttl); err != nil {
		t.Fatalf("Save(%q, %q): %v", scope, key, err)
	}
}

// mustBeFree claims (scope, key) and fails t unless it was free.
func mustBeFree(t *testing.T, s middleware.IdempotencyStore, scope, key, why string) middleware.IdempotencyClaim {
	t.Helper()
	c := claimKey(t, s, scope, key, fp("later"), hour)
	if !c.Claimed {
		t.Fatalf("%s: got the key held (answer %v), want it free", why, c.Answer != nil)
	}
	return c
}

// mustBeHeld claims (scope, key) and fails t unless it was held by a
// request with fingerprint f, done (with an answer) as done says.
func mustBeHeld(t *testing.T, s middleware.IdempotencyStore, scope, key string, f middleware.Fingerprint, done bool, why string) middleware.IdempotencyClaim {
	t.Helper()
	c := claimKey(t, s, scope, key, fp("later"), hour)
	switch {
	case c.Claimed:
		t.Fatalf("%s: got the key free, want it held", why)
	case c.Fingerprint != f:
		t.Fatalf("%s: got fingerprint %x, want the holder's %x", why, c.Fingerprint[:4], f[:4])
	case (c.Answer != nil) != done:
		t.Fatalf("%s: got an answer %v, want %v", why, c.Answer != nil, done)
	}
	return c
}

func claim(t *testing.T, s middleware.IdempotencyStore) {
	c := claimKey(t, s, "alice", "k", fp("first"), hour)
	if !c.Claimed {
		t.Fatalf("a new key: got it held, want it claimed")
	}
	mustBeHeld(t, s, "alice", "k", fp("first"), false, "claimed again")
	mustBeHeld(t, s, "alice", "k", fp("first"), false, "claimed a third time")
}

func atomic(t *testing.T, s middleware.IdempotencyStore) {
	const n = 32
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		won    int
		tokens []uint64
	)
	for i := range n {
		wg.Go(func() {
			c, err := s.Claim(context.Background(), "alice", "atomic", fp(fmt.Sprint(i)), hour)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if c.Claimed {
				won++
				tokens = append(tokens, c.Token)
			}
		})
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("got %d of %d concurrent claims of one key won, want exactly 1", won, n)
	}
}

// sample is an answer with what a store might lose: repeated field
// values in order, a body with zero bytes and every byte value.
func sample() *middleware.IdempotencyAnswer {
	body := []byte(`{"id":7}` + "\x00\r\n")
	for b := range 256 {
		body = append(body, byte(b))
	}
	return &middleware.IdempotencyAnswer{Status: http.StatusCreated, Body: body, Header: http.Header{
		"Content-Type": {"application/json"},
		"Link":         {"</a>; rel=next", "</b>; rel=prev", ""},
		"Location":     {"/orders/7"},
	}}
}

// sameAnswer reports whether got is want: nil and empty headers and
// bodies are alike.
func sameAnswer(got, want *middleware.IdempotencyAnswer) bool {
	if got == nil || got.Status != want.Status || !bytes.Equal(got.Body, want.Body) || len(got.Header) != len(want.Header) {
		return false
	}
	for name, vs := range want.Header {
		if !slices.Equal(got.Header[name], vs) {
			return false
		}
	}
	return true
}

func answer(t *testing.T, s middleware.IdempotencyStore) {
	for _, tc := range []struct {
		key string
		a   *middleware.IdempotencyAnswer
	}{
		{"full", sample()},
		{"empty", &middleware.IdempotencyAnswer{Status: http.StatusNoContent, Body: []byte{}}},
		{"4xx", &middleware.IdempotencyAnswer{Status: http.StatusBadRequest, Body: []byte("no"), Header: http.Header{"Content-Type": {"text/plain"}}}},
	} {
		c := claimKey(t, s, "alice", tc.key, fp(tc.key), hour)
		save(t, s, "alice", tc.key, c.Token, tc.a, hour)
		for i := range 2 {
			got := mustBeHeld(t, s, "alice", tc.key, fp(tc.key), true, "after Save")
			if !sameAnswer(got.Answer, tc.a) {
				t.Fatalf("%s, read %d: got answer %+v, want %+v", tc.key, i+1, got.Answer, tc.a)
			}
		}
	}
}

func scopes(t *testing.T, s middleware.IdempotencyStore) {
	for _, p := range [][2]string{{"alice", "k"}, {"bob", "k"}, {"", "alicek"}, {"alic", "ek"}, {"alice:", "k"}, {"alice", ":k"}} {
		if c := claimKey(t, s, p[0], p[1], fp(p[0]+"|"+p[1]), hour); !c.Claimed {
			t.Fatalf("scope %q key %q: got held (by fingerprint %x), want claimed: another pair's claim reached it", p[0], p[1], c.Fingerprint[:4])
		}
	}
}

func release(t *testing.T, s middleware.IdempotencyStore) {
	c := claimKey(t, s, "alice", "rel", fp("a"), hour)
	if err := s.Release(context.Background(), "alice", "rel", c.Token); err != nil {
		t.Fatal(err)
	}
	c2 := mustBeFree(t, s, "alice", "rel", "after Release")
	if c2.Token == c.Token {
		t.Fatalf("a new claim got the released claim's token %d", c.Token)
	}
	// The first claim's token no longer holds the key: neither its
	// release nor its save may touch the second claim.
	if err := s.Release(context.Background(), "alice", "rel", c.Token); err != nil {
		t.Fatal(err)
	}
	mustBeHeld(t, s, "alice", "rel", fp("later"), false, "after a release with the old token")
	save(t, s, "alice", "rel", c.Token, sample(), hour)
	mustBeHeld(t, s, "alice", "rel", fp("later"), false, "after a save with the old token")
	// Nor may a release undo a saved answer.
	save(t, s, "alice", "rel", c2.Token, sample(), hour)
	if err := s.Release(context.Background(), "alice", "rel", c2.Token); err != nil {
		t.Fatal(err)
	}
	mustBeHeld(t, s, "alice", "rel", fp("later"), true, "after a release of a saved answer")
}

func stale(t *testing.T, s middleware.IdempotencyStore) {
	const l = 200 * time.Millisecond
	first := claimKey(t, s, "alice", "stale", fp("a"), l)
	time.Sleep(l + slack)
	second := mustBeFree(t, s, "alice", "stale", "after the first claim's lease")
	save(t, s, "alice", "stale", first.Token, sample(), hour)
	mustBeHeld(t, s, "alice", "stale", fp("later"), false, "after the lapsed claim's late Save")
	save(t, s, "alice", "stale", second.Token, sample(), hour)
	mustBeHeld(t, s, "alice", "stale", fp("later"), true, "after the holder's Save")
}

func lease(t *testing.T, s middleware.IdempotencyStore) {
	const l = 400 * time.Millisecond
	start := time.Now()
	claimKey(t, s, "alice", "lease", fp("a"), l)
	time.Sleep(l / 2)
	if time.Since(start) < l-slack/2 {
		mustBeHeld(t, s, "alice", "lease", fp("a"), false, "halfway through the lease")
	}
	time.Sleep(time.Until(start.Add(l + slack)))
	mustBeFree(t, s, "alice", "lease", "after the lease")
}

func expiry(t *testing.T, s middleware.IdempotencyStore) {
	// The claim's lease is short and the answer's ttl long: an answer
	// kept only as long as the lease is caught.
	const l, ttl = 100 * time.Millisecond, 600 * time.Millisecond
	c := claimKey(t, s, "alice", "exp", fp("a"), l)
	start := time.Now()
	save(t, s, "alice", "exp", c.Token, sample(), ttl)
	time.Sleep(ttl / 2)
	if time.Since(start) < ttl-slack {
		mustBeHeld(t, s, "alice", "exp", fp("a"), true, "halfway through the ttl")
	}
	time.Sleep(time.Until(start.Add(ttl + slack)))
	mustBeFree(t, s, "alice", "exp", "after the ttl")
}

func manyKeys(t *testing.T, s middleware.IdempotencyStore) {
	const keys, workers = 1000, 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < keys; i += workers {
				key := fmt.Sprintf("many-%d", i)
				c, err := s.Claim(context.Background(), "alice", key, fp(key), hour)
				if err != nil || !c.Claimed {
					t.Errorf("%s: got claimed %v, error %v, want claimed", key, c.Claimed, err)
					return
				}
				a := &middleware.IdempotencyAnswer{Status: 201, Body: []byte(key)}
				if err := s.Save(context.Background(), "alice", key, c.Token, a, hour); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for i := range keys {
		key := fmt.Sprintf("many-%d", i)
		c := claimKey(t, s, "alice", key, fp("later"), hour)
		if c.Claimed || c.Answer == nil || string(c.Answer.Body) != key || c.Fingerprint != fp(key) {
			body := ""
			if c.Answer != nil {
				body = string(c.Answer.Body)
			}
			t.Fatalf("%s: got claimed %v, answer %q, want held with its own answer", key, c.Claimed, body)
		}
	}
}

func cancelled(t *testing.T, s middleware.IdempotencyStore) {
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
		c, err := s.Claim(tc.ctx, "alice", key, fp("a"), hour)
		if d := time.Since(start); d > slack {
			t.Errorf("%s: Claim took %v, want at most %v", tc.name, d, slack)
		}
		switch {
		case err == nil && c.Claimed:
			// A store that ignores the context may claim; then the key is held.
			mustBeHeld(t, s, "alice", key, fp("a"), false, tc.name+", claimed")
		case err == nil:
			t.Errorf("%s: got no error and no claim of a new key", tc.name)
		case !errors.Is(err, tc.ctx.Err()):
			t.Errorf("%s: got error %v, want one that wraps %v", tc.name, err, tc.ctx.Err())
		default:
			mustBeFree(t, s, "alice", key, tc.name+": the failed Claim claimed the key")
		}
	}
}
