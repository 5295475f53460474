package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/middleware"
)

// Idempotency is a [middleware.IdempotencyStore] on Redis, so that a retry
// that reaches another instance of a service finds the first request's
// claim or answer: with four instances behind a load balancer a key still
// runs once. It is safe for concurrent use. Needs Redis 7.0 or newer (SET
// with both NX and GET).
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
//	api.Use(middleware.Idempotency(middleware.IdempotencyOptions{
//		Store: redisstore.NewIdempotency(rdb, redisstore.IdempotencyOptions{}),
//	}))
//
// Each key is one Redis string, holding either a claim (its token and the
// request's fingerprint, set to expire after the lease) or an answer (the
// fingerprint and the encoded answer, set to expire after the ttl):
//
//   - Claim is one round trip, SET key claim PX lease NX GET: atomic, it
//     claims a free key or returns what holds it, so a first request and
//     a replay cost one round trip each before the handler runs, or
//     instead of it;
//   - Save is one round trip, EVALSHA of a script that replaces the
//     claim with the answer only if the claim is still the caller's;
//   - Release is one round trip, EVALSHA of a script that deletes the key
//     only if it holds the caller's claim.
//
// After a restart or SCRIPT FLUSH Redis answers NOSCRIPT to a script;
// go-redis then sends it whole, once. Every call has a deadline
// (IdempotencyOptions.Timeout): while Redis is down or hung a call
// returns an error within it, and [middleware.IdempotencyOptions.FailOpen]
// decides what a failed Claim means — 503 by default (fail closed: no
// request runs twice, none runs at all while Redis is away), or the
// request run unprotected. A Save that fails leaves the claim, which
// lapses after its lease; a retry after that runs again. A circuit
// breaker (IdempotencyOptions.BreakAfter) spares the requests even the
// wait: after calls fail in a row it fails the next at once, for a
// cool-down, then probes.
type Idempotency struct {
	client redis.UniversalClient
	prefix string
	guard
}

// IdempotencyOptions configures [NewIdempotency]. The zero value is the
// default.
type IdempotencyOptions struct {
	// Prefix is put before every key in Redis; empty means
	// "waltz:idempotency:".
	Prefix string

	// Timeout bounds every call, round trip and any reconnect included:
	// it is the context deadline of each call (or the caller's, when that
	// is sooner), but a Save's, which gets it once for each MiB of the
	// answer it stores begun: a Save that fails leaves the request to run
	// again. A Claim that reads an answer back has one Timeout, so raise
	// it with middleware.IdempotencyOptions.MaxAnswerBytes (1 MiB by
	// default). Zero means 100ms. Negative panics.
	Timeout time.Duration

	// BreakAfter and CoolDown are the circuit breaker's, as in [Options]:
	// after BreakAfter calls in a row fail (zero means 5; negative, no
	// breaker), every call returns an error wrapping [ErrCircuitOpen] at
	// once, without calling Redis, for CoolDown (zero means 250ms;
	// negative panics); then one call probes. Claim, Save and Release
	// share the breaker.
	BreakAfter int
	CoolDown   time.Duration
}

// saveScript replaces the claim KEYS[1] holds with an answer, if the claim
// is ARGV[1] (the claim marker and token): the value becomes "d", the
// claim's fingerprint and ARGV[2] (the encoded answer), expiring after
// ARGV[3] milliseconds. It returns 1 when it saved, 0 when the key was
// not held by that claim.
var saveScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, 9) ~= ARGV[1] then
	return 0
end
redis.call('SET', KEYS[1], 'd' .. string.sub(v, 10, 41) .. ARGV[2], 'PX', ARGV[3])
return 1
`)

// releaseScript deletes KEYS[1] if it holds the claim ARGV[1].
var releaseScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, 9) == ARGV[1] then
	redis.call('DEL', KEYS[1])
	return 1
end
return 0
`)

// NewIdempotency returns an Idempotency store that keeps its keys through
// client, a *redis.Client, *redis.ClusterClient or *redis.Ring. The client
// must have ContextTimeoutEnabled set: without it go-redis waits its
// ReadTimeout (seconds) for a Redis that does not answer, whatever the
// deadline.
//
// NewIdempotency panics, with a message starting "waltz: ", on a nil
// client, a negative Timeout or a client without ContextTimeoutEnabled.
func NewIdempotency(client redis.UniversalClient, o IdempotencyOptions) *Idempotency {
	if client == nil {
		panic("waltz: redisstore.NewIdempotency: the client is nil")
	}
	g := newGuard("IdempotencyOptions", o.Timeout, o.BreakAfter, o.CoolDown)
	if !contextTimeouts(client) {
		panic("waltz: redisstore.NewIdempotency: the client's ContextTimeoutEnabled is false, so a call to a Redis that " +
			"does not answer would wait the client's ReadTimeout, not IdempotencyOptions.Timeout: set it in the client's options")
	}
	s := &Idempotency{client: client, prefix: o.Prefix, guard: g}
	if s.prefix == "" {
		s.prefix = "waltz:idempotency:"
	}
	return s
}

// errIdemCircuitOpen is what a call returns while the breaker is open.
var errIdemCircuitOpen = fmt.Errorf("waltz: redis idempotency store: %w", ErrCircuitOpen)

// call runs f, one call to Redis, through the breaker, with the store's
// deadline on ctx; f's error is what Redis or the connection said.
func (s *Idempotency) call(ctx context.Context, f func(ctx context.Context) error) error {
	return s.callFor(ctx, s.timeout, f)
}

// callFor is call with the deadline d.
func (s *Idempotency) callFor(ctx context.Context, d time.Duration, f func(ctx context.Context) error) error {
	tctx, cancel, ok := s.startFor(ctx, d)
	if !ok {
		return errIdemCircuitOpen
	}
	defer cancel()
	err := f(tctx)
	s.finish(ctx, err)
	if err != nil {
		return fmt.Errorf("waltz: redis idempotency store: %w", err)
	}
	return nil
}

// redisKey is the Redis key of (scope, key): the prefix, the scope's
// length and the two, so that no two pairs share one.
func (s *Idempotency) redisKey(scope, key string) string {
	b := make([]byte, 0, len(s.prefix)+len(scope)+len(key)+8)
	b = append(b, s.prefix...)
	b = strconv.AppendInt(b, int64(len(scope)), 10)
	b = append(b, ':')
	b = append(b, scope...)
	b = append(b, key...)
	return string(b)
}

// claimMark is the first 9 bytes of a claim's value: 'c' and the token.
func claimMark(token uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{'c'}, token)
}

// Claim claims (scope, key) as [middleware.IdempotencyStore] describes, in
// one round trip. An error (Redis unreachable, the deadline passed, ctx
// done, the breaker open: [ErrCircuitOpen], a value this store did not
// write) is returned wrapped, starting "waltz: redis idempotency store: ";
// a claim may then have been made (when the deadline ended the call after
// Redis ran it), which lapses after lease.
func (s *Idempotency) Claim(ctx context.Context, scope, key string, fp middleware.Fingerprint, lease time.Duration) (middleware.IdempotencyClaim, error) {
	token := rand.Uint64() | 1 // never 0, the zero claim's
	val := append(claimMark(token), fp[:]...)
	rk := s.redisKey(scope, key)
	var old string
	claimed := false
	err := s.call(ctx, func(ctx context.Context) error {
		var err error
		old, err = s.client.SetArgs(ctx, rk, val, redis.SetArgs{Mode: "NX", Get: true, TTL: lease}).Result()
		if errors.Is(err, redis.Nil) {
			claimed, err = true, nil
		}
		return err
	})
	switch {
	case err != nil:
		return middleware.IdempotencyClaim{}, err
	case claimed:
		return middleware.IdempotencyClaim{Claimed: true, Token: token}, nil
	}
	c, err := decodeHeld(old)
	if err != nil {
		return middleware.IdempotencyClaim{}, fmt.Errorf("waltz: redis idempotency store: key %q: %w", rk, err)
	}
	return c, nil
}

// Save keeps a for (scope, key) as [middleware.IdempotencyStore] describes,
// in one round trip. An error is returned wrapped as Claim's are.
func (s *Idempotency) Save(ctx context.Context, scope, key string, token uint64, a *middleware.IdempotencyAnswer, ttl time.Duration) error {
	enc := encodeAnswer(a)
	keys, args := []string{s.redisKey(scope, key)}, []any{claimMark(token), enc, max(ttl.Milliseconds(), 1)}
	return s.callFor(ctx, saveTimeout(s.timeout, len(enc)), func(ctx context.Context) error { return saveScript.Run(ctx, s.client, keys, args...).Err() })
}

// saveTimeout is the deadline of a Save whose encoded answer is n bytes:
// the store's Timeout for each MiB begun, so that an answer above the
// middleware's default MaxAnswerBytes (1 MiB) is given the time to go
// whole. A Save that fails leaves the claim to lapse, and a retry after
// that runs the request again: the one outcome a store must not cause
// for want of time.
func saveTimeout(timeout time.Duration, n int) time.Duration {
	return timeout * time.Duration(max(1, (n+saveSpan-1)/saveSpan))
}

// saveSpan is the bytes of an answer a Save is given one Timeout for.
const saveSpan = 1 << 20

// Release frees (scope, key) as [middleware.IdempotencyStore] describes, in
// one round trip. An error is returned wrapped as Claim's are; the claim
// then lapses after its lease.
func (s *Idempotency) Release(ctx context.Context, scope, key string, token uint64) error {
	keys := []string{s.redisKey(scope, key)}
	return s.call(ctx, func(ctx context.Context) error { return releaseScript.Run(ctx, s.client, keys, claimMark(token)).Err() })
}

// decodeHeld reads the value of a held key: a claim ('c', token,
// fingerprint) or an answer ('d', fingerprint, encoded answer).
func decodeHeld(v string) (middleware.IdempotencyClaim, error) {
	var c middleware.IdempotencyClaim
	switch {
	case len(v) == 1+8+len(c.Fingerprint) && v[0] == 'c':
		copy(c.Fingerprint[:], v[9:])
		return c, nil
	case len(v) >= 1+len(c.Fingerprint) && v[0] == 'd':
		copy(c.Fingerprint[:], v[1:])
		a, err := decodeAnswer([]byte(v[1+len(c.Fingerprint):]))
		if err != nil {
			return c, err
		}
		c.Answer = a
		return c, nil
	}
	return c, errors.New("the value is neither a claim nor an answer")
}

// encodeAnswer encodes a as: the status, the number of fields, each
// field's name and its values (each a uvarint length and the bytes,
// counts as uvarints), then the body, to the end.
func encodeAnswer(a *middleware.IdempotencyAnswer) []byte {
	n := 16 + len(a.Body)
	for name, vs := range a.Header {
		n += len(name) + 8
		for _, v := range vs {
			n += len(v) + 4
		}
	}
	b := make([]byte, 0, n)
	b = binary.AppendUvarint(b, uint64(a.Status))
	b = binary.AppendUvarint(b, uint64(len(a.Header)))
	for name, vs := range a.Header {
		b = appendString(b, name)
		b = binary.AppendUvarint(b, uint64(len(vs)))
		for _, v := range vs {
			b = appendString(b, v)
		}
	}
	return append(b, a.Body...)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errBadAnswer = errors.New("the stored answer is malformed")

// decodeAnswer reads what encodeAnswer wrote.
func decodeAnswer(b []byte) (*middleware.IdempotencyAnswer, error) {
	d := decoder{b: b}
	status := d.uvarint()
	nf := d.uvarint()
	if d.err != nil || status < 100 || status > 999 || nf > uint64(len(b)) {
		return nil, errBadAnswer
	}
	a := &middleware.IdempotencyAnswer{Status: int(status)}
	if nf > 0 {
		a.Header = make(http.Header, nf)
	}
	for range nf {
		name := d.string()
		nv := d.uvarint()
		if d.err != nil || nv > uint64(len(b)) {
			return nil, errBadAnswer
		}
		vs := make([]string, nv)
		for i := range vs {
			vs[i] = d.string()
		}
		a.Header[name] = vs
	}
	if d.err != nil {
		return nil, errBadAnswer
	}
	a.Body = d.b
	return a, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errBadAnswer
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errBadAnswer
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
