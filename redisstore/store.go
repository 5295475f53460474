// Package redisstore keeps [middleware.RateLimit]'s token buckets in Redis,
// so that every instance of a service behind a load balancer counts a
// client against the same bucket: with four instances a client gets its
// limit once, not four times.
//
//	rdb := redis.NewClient(&redis.Options{
//		Addr:                  "127.0.0.1:6379",
//		ContextTimeoutEnabled: true, // Options.Timeout bounds every call
//		MaxRetries:            -1,   // a failed call is not sent again within the deadline
//		DialerRetries:         1,    // nor is a refused dial
//	})
//	r.Use(middleware.RateLimit(middleware.RateLimitOptions{
//		Limit:    middleware.RatePolicy{Requests: 100, Window: time.Minute},
//		Store:    redisstore.New(rdb, redisstore.Options{}),
//		FailOpen: true, // let requests through while Redis is away
//	}))
//
// Each Take is one round trip: EVALSHA of a Lua script that refills and
// takes as one atomic step on Redis's own clock (TIME), so instances whose
// clocks differ agree, and that sets each key to expire when its bucket
// would be full again, so Redis holds only the clients seen within about
// a Window. Every call has a deadline (Options.Timeout): while Redis is
// down or hung a request waits at most that long before the store returns
// an error, and [middleware.RateLimitOptions.FailOpen] decides the answer.
// A circuit breaker spares the requests even that wait: after
// Options.BreakAfter failed calls in a row the store answers at once with
// an error wrapping [ErrCircuitOpen], for Options.CoolDown, then lets one
// call probe Redis.
package redisstore

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/middleware"
)

// takeScript refills and takes one token of the bucket KEYS[1], a hash
// {tokens, at}: tokens the count at time at, in microseconds of Redis's
// clock. ARGV[1] is the bucket's size (Limit.Requests), ARGV[2] the Window
// in microseconds. The bucket gains size tokens per window, continuously,
// never past size; a clock that went back refills nothing for that time,
// and refills from the clock's new reading on. It returns
// {allowed (0 or 1), whole tokens left, microseconds until the next whole
// token (0 when full)}, and sets the key to expire when the bucket would
// be full again: a full bucket is what a missing key means. Numbers are
// written with 17 significant digits, which a double reads back exactly.
const takeScript = `
local size = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tokens, at = size, now
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
if b[1] and b[2] then
	tokens, at = tonumber(b[1]), tonumber(b[2])
	-- A stamp ahead of the clock (a failover to a replica whose clock is
	-- behind) counts from now: the lost time refills nothing, and the
	-- bucket does not wait for the clock to catch up with the stamp.
	if at > now then
		at = now
	end
	tokens = math.min(size, tokens + (now - at) * size / window)
	at = now
end
local allowed = 0
if tokens >= 1 then
	tokens = tokens - 1
	allowed = 1
end
local remaining = math.floor(tokens)
local wait = 0
if remaining + 1 <= size then
	wait = math.ceil((remaining + 1 - tokens) * window / size)
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil((size - tokens) * window / size / 1000)))
return {allowed, remaining, wait}
`

// takeSHA is the script's SHA-1, which EVALSHA names it by.
var takeSHA = func() string {
	h := sha1.Sum([]byte(takeScript))
	return hex.EncodeToString(h[:])
}()

// Options configures [New]. The zero value is the default.
type Options struct {
	// Prefix is put before every key in Redis, to keep the buckets apart
	// from other data and from another limiter's. Empty means
	// "waltz:ratelimit:".
	Prefix string

	// Timeout bounds every Take, round trip and any reconnect included:
	// it is the context deadline of each call (or the caller's, when that
	// is sooner). Zero means 100ms. Negative panics.
	Timeout time.Duration

	// BreakAfter is how many calls in a row must fail (an error from
	// Redis or the connection, or the Timeout passing; not a caller that
	// gave up first) for the circuit breaker to open: Take then returns an
	// error wrapping ErrCircuitOpen at once, without calling Redis, for
	// CoolDown; then the first Take is let through as a probe, whose
	// success closes the breaker and whose failure opens it for another
	// CoolDown. Zero means 5; negative means no breaker.
	BreakAfter int

	// CoolDown is how long the open breaker lets no call through. Zero
	// means 250ms, so that limits hold again within about that long of
	// Redis coming back, while a hung Redis costs one request its Timeout
	// every CoolDown. Negative panics.
	CoolDown time.Duration
}

// Store is a [middleware.RateStore] on Redis. It is safe for concurrent use.
// One Store, or one Prefix, serves one [middleware.RateLimit].
type Store struct {
	client redis.Scripter
	prefix string
	guard
	args atomic.Pointer[limitArgs] // the script's arguments for the last Limit seen
}

// limitArgs are a Limit's script arguments, formatted once.
type limitArgs struct {
	limit middleware.RatePolicy
	args  []any // size, window in microseconds
}

// New returns a Store that keeps its buckets through client, a
// *redis.Client, *redis.ClusterClient or *redis.Ring (any
// [redis.Scripter]). Such a client must have ContextTimeoutEnabled set:
// without it go-redis waits its ReadTimeout (seconds) for a Redis that does
// not answer, whatever the deadline, and New panics. The Redis server must
// be 5.0 or newer (scripts replicated by their effects, so the script may
// read TIME before writing).
//
// Give the client fail-fast settings, as the package example does:
// MaxRetries -1 and DialerRetries 1, so that a refused or failed call
// comes back as soon as it fails rather than after retries and their
// backoffs have spent the deadline.
//
// New panics, with a message starting "waltz: ", on a nil client, a
// negative Timeout or CoolDown, or a client without ContextTimeoutEnabled.
func New(client redis.Scripter, o Options) *Store {
	if client == nil {
		panic("waltz: redisstore.New: the client is nil")
	}
	g := newGuard("Options", o.Timeout, o.BreakAfter, o.CoolDown)
	if !contextTimeouts(client) {
		panic("waltz: redisstore.New: the client's ContextTimeoutEnabled is false, so a call to a Redis that " +
			"does not answer would wait the client's ReadTimeout, not Options.Timeout: set it in the client's options")
	}
	s := &Store{client: client, prefix: o.Prefix, guard: g}
	if s.prefix == "" {
		s.prefix = "waltz:ratelimit:"
	}
	return s
}

// contextTimeouts reports whether client honours context deadlines, as
// far as its type tells.
func contextTimeouts(client redis.Scripter) bool {
	switch c := client.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return true
}

// Take takes a token from key's bucket under limit, as [middleware.RateStore]
// describes, in one round trip (two more, once, after Redis lost its
// script cache: a restart or SCRIPT FLUSH). It ignores now and uses
// Redis's clock. An error (Redis unreachable, the deadline passed, ctx
// done, the breaker open: [ErrCircuitOpen]) is returned wrapped, starting
// "waltz: redis store: "; no token was taken, except when the deadline or
// ctx ended the call after Redis had run the script and before its reply
// arrived.
func (s *Store) Take(ctx context.Context, key string, _ time.Time, limit middleware.RatePolicy) (middleware.RateResult, error) {
	tctx, cancel, ok := s.start(ctx)
	if !ok {
		return middleware.RateResult{}, errCircuitOpen
	}
	defer cancel()
	res, err := s.take(tctx, key, limit)
	s.finish(ctx, err)
	return res, err
}

// errCircuitOpen is what Take returns while the breaker is open.
var errCircuitOpen = fmt.Errorf("waltz: redis store: %w", ErrCircuitOpen)

// take is one Take through the breaker, on ctx with the deadline set.
func (s *Store) take(ctx context.Context, key string, limit middleware.RatePolicy) (middleware.RateResult, error) {
	keys, args := []string{s.prefix + key}, s.argsFor(limit)
	v, err := s.client.EvalSha(ctx, takeSHA, keys, args...).Int64Slice()
	if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		// Redis restarted or its scripts were flushed: load the script
		// and run it again, once.
		if err = s.client.ScriptLoad(ctx, takeScript).Err(); err == nil {
			v, err = s.client.EvalSha(ctx, takeSHA, keys, args...).Int64Slice()
		}
	}
	if err == nil && len(v) != 3 {
		err = fmt.Errorf("the script returned %d values, want 3", len(v))
	}
	if err != nil {
		return middleware.RateResult{}, fmt.Errorf("waltz: redis store: %w", err)
	}
	return middleware.RateResult{Allowed: v[0] == 1, Remaining: int(v[1]), Wait: time.Duration(v[2]) * time.Microsecond}, nil
}

// argsFor returns the script's arguments for limit, formatted once per
// distinct limit (RateLimit passes the same one every time).
func (s *Store) argsFor(limit middleware.RatePolicy) []any {
	if a := s.args.Load(); a != nil && a.limit == limit {
		return a.args
	}
	a := &limitArgs{limit: limit, args: []any{limit.Requests, limit.Window.Microseconds()}}
	s.args.Store(a)
	return a.args
}
