package idemtest_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz/internal/testhelp"

	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/middleware/idemtest"
)

// fault is one way a store can be wrong. The zero fault is a correct
// store.
type fault struct {
	racy          bool // lets go of its lock between finding a key free and claiming it
	noFingerprint bool // reports a held key's fingerprint as zero
	anyToken      bool // saves and releases whatever the token
	noLease       bool // a claim never lapses
	noExpiry      bool // an answer never expires
	leaseExpiry   bool // keeps an answer for the claim's lease, not the ttl
	joinKeys      bool // keys by scope+key, so "ab"+"c" is "a"+"bc"
	firstValue    bool // keeps only each field's first value
	textBody      bool // keeps the body up to its first zero byte
	claimOnCancel bool // claims, then reports the context's error
	keyPrefixLen  int  // keys only by their first bytes
}

// wrongStores are stores each with one fault, and the check that must
// catch it: the kit is only as good as the wrong stores it refuses.
var wrongStores = map[string]struct {
	f     fault
	check string
}{
	"racy":                  {fault{racy: true}, "Atomic"},
	"no fingerprint":        {fault{noFingerprint: true}, "Claim"},
	"any token":             {fault{anyToken: true}, "Release"},
	"no lease":              {fault{noLease: true}, "Lease"},
	"no expiry":             {fault{noExpiry: true}, "Expiry"},
	"expiry is the lease":   {fault{leaseExpiry: true}, "Expiry"},
	"joined keys":           {fault{joinKeys: true}, "Scopes"},
	"first value only":      {fault{firstValue: true}, "Answer"},
	"text body":             {fault{textBody: true}, "Answer"},
	"claims on cancel":      {fault{claimOnCancel: true}, "CancelledContext"},
	"keys collide":          {fault{keyPrefixLen: 6}, "ManyKeys"},
	"stale save overwrites": {fault{anyToken: true}, "Stale"},
}

// TestKitRefusesWrongStores runs the kit, in a child process of this test
// binary, on a correct store (it must pass) and on each wrong store (it
// must fail, in the check that looks for that fault).
func TestKitRefusesWrongStores(t *testing.T) {
	if name, ok := os.LookupEnv("IDEMTEST_CHILD"); ok {
		f := wrongStores[name].f
		idemtest.Run(t, func(*testing.T) middleware.IdempotencyStore { return &store{f: f, keys: map[string]*entry{}} })
		return
	}
	checks := map[string]string{}
	for name, w := range wrongStores {
		checks[name] = w.check
	}
	testhelp.KitRefuses(t, "TestKitRefusesWrongStores", "IDEMTEST_CHILD", checks, "store")
}

// TestKitFaultNames keeps each wrong store's check a check the kit has.
func TestKitFaultNames(t *testing.T) {
	checks := "Claim Atomic Answer Scopes Release Stale Lease Expiry ManyKeys CancelledContext"
	for name, w := range wrongStores {
		if !slices.Contains(strings.Fields(checks), w.check) {
			t.Errorf("wrong store %q: got check %q, want one of %s", name, w.check, checks)
		}
	}
}

// store is an IdempotencyStore in memory, correct but for its fault.
type store struct {
	f     fault
	mu    sync.Mutex
	keys  map[string]*entry
	token uint64
}

type entry struct {
	fp      middleware.Fingerprint
	token   uint64
	answer  *middleware.IdempotencyAnswer
	expires time.Time
	lease   time.Duration
}

func (s *store) name(scope, key string) string {
	k := scope + "\n" + key
	if s.f.joinKeys {
		k = scope + key
	}
	if n := s.f.keyPrefixLen; n > 0 && len(k) > n {
		k = k[:n]
	}
	return k
}

func (s *store) Claim(ctx context.Context, scope, key string, fp middleware.Fingerprint, lease time.Duration) (middleware.IdempotencyClaim, error) {
	if err := ctx.Err(); err != nil && !s.f.claimOnCancel {
		return middleware.IdempotencyClaim{}, err
	}
	k := s.name(scope, key)
	s.mu.Lock()
	e := s.keys[k]
	if e != nil && time.Now().Before(e.expires) {
		defer s.mu.Unlock()
		c := middleware.IdempotencyClaim{Fingerprint: e.fp, Answer: e.answer}
		if s.f.noFingerprint {
			c.Fingerprint = middleware.Fingerprint{}
		}
		return c, nil
	}
	if s.f.racy {
		s.mu.Unlock()
		time.Sleep(time.Millisecond) // what a round trip between a GET and a SET would be
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	s.token++
	exp := time.Now().Add(lease)
	if s.f.noLease {
		exp = time.Now().Add(time.Hour)
	}
	s.keys[k] = &entry{fp: fp, token: s.token, expires: exp, lease: lease}
	return middleware.IdempotencyClaim{Claimed: true, Token: s.token}, ctx.Err()
}

func (s *store) Save(ctx context.Context, scope, key string, token uint64, a *middleware.IdempotencyAnswer, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.keys[s.name(scope, key)]
	if e == nil || e.answer != nil || (e.token != token && !s.f.anyToken) || !time.Now().Before(e.expires) {
		return nil
	}
	kept := &middleware.IdempotencyAnswer{Status: a.Status, Header: http.Header{}, Body: a.Body}
	for name, vs := range a.Header {
		if s.f.firstValue {
			vs = vs[:1]
		}
		kept.Header[name] = vs
	}
	if i := bytes.IndexByte(a.Body, 0); s.f.textBody && i >= 0 {
		kept.Body = a.Body[:i]
	}
	e.answer = kept
	switch {
	case s.f.noExpiry:
		e.expires = time.Now().Add(time.Hour)
	case s.f.leaseExpiry:
		e.expires = time.Now().Add(e.lease)
	default:
		e.expires = time.Now().Add(ttl)
	}
	return nil
}

func (s *store) Release(ctx context.Context, scope, key string, token uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.name(scope, key)
	if e := s.keys[k]; e != nil && e.answer == nil && (e.token == token || s.f.anyToken) {
		delete(s.keys, k)
	}
	return nil
}
