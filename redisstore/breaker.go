package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// ErrCircuitOpen is the error, wrapped, of a call the store did not make
// because its circuit breaker is open: Redis failed the calls before it,
// and is given a rest before the next probe. [middleware.RateLimitOptions]'
// FailOpen decides the answer, as for any store error, and
// [middleware.IdempotencyOptions]' FailOpen for the idempotency store.
var ErrCircuitOpen = errors.New("circuit open: Redis failed the calls before, none made until the next probe")

// breaker is a circuit breaker for the calls a store makes to Redis, for
// any store of this package to hold one of. Closed, every call goes
// through. After threshold failures in a row it opens: for coolDown no
// call goes through, so that while Redis hangs no request waits out its
// deadline. Then it is half open: the first call after the cool-down goes
// through as a probe, the others are still refused; the probe's success
// closes the breaker, its failure opens it for another coolDown. A call
// that ended neither way (its caller gave up) lets another probe go.
//
// It is safe for concurrent use and costs two atomic loads a call while
// closed. A nil *breaker lets every call through.
type breaker struct {
	threshold int64
	coolDown  int64 // nanoseconds

	failures  atomic.Int64 // consecutive failures
	openUntil atomic.Int64 // Unix nanoseconds the cool-down ends at; 0 when closed
	probing   atomic.Bool  // NOTE: a probe is in flight, in the half-open state
}

// outcome is how a call that went through ended, for record.
type outcome uint8

const (
	succeeded outcome = iota // Redis answered
	failed                   // Redis failed or did not answer in time
	abandoned                // the caller gave up first: says nothing of Redis
)

// newBreaker returns a breaker that opens after threshold failures in a
// row and rests coolDown each time, or nil when threshold is negative.
func newBreaker(threshold int, coolDown time.Duration) *breaker {
	if threshold < 0 {
		return nil
	}
	return &breaker{threshold: int64(threshold), coolDown: int64(coolDown)}
}

// allow reports whether a call at now (Unix nanoseconds) may go to Redis.
// A true answer must be followed by one record of how the call ended.
func (b *breaker) allow(now int64) bool {
	if b == nil {
		return true
	}
	until := b.openUntil.Load()
	if until == 0 {
		return true
	}
	if now < until {
		return false
	}
	return b.probing.CompareAndSwap(false, true)
}

// record notes how a call that allow let through ended, at now.
func (b *breaker) record(o outcome, now int64) {
	if b == nil {
		return
	}
	switch o {
	case succeeded:
		b.failures.Store(0)
		if b.openUntil.Load() != 0 {
			b.openUntil.Store(0)
		}
		b.probing.Store(false)
	case failed:
		if b.failures.Add(1) >= b.threshold || b.probing.Load() {
			b.openUntil.Store(now + b.coolDown)
			b.probing.Store(false)
		}
	case abandoned:
		b.probing.Store(false)
	}
}

// guard is what every store of the package puts around one call to Redis:
// the call's deadline and the store's breaker.
type guard struct {
	timeout time.Duration
	brk     *breaker // nil when BreakAfter is negative
}

// newGuard returns the guard of a store whose options are named options
// (for the panic's message), with their defaults: a 100 ms deadline, a
// breaker that opens after 5 failures in a row and rests 250 ms. It panics
// on a negative timeout or coolDown.
func newGuard(options string, timeout time.Duration, breakAfter int, coolDown time.Duration) guard {
	if timeout < 0 {
		panic(fmt.Sprintf("waltz: redisstore.%s.Timeout is %v; it must not be negative", options, timeout))
	}
	if coolDown < 0 {
		panic(fmt.Sprintf("waltz: redisstore.%s.CoolDown is %v; it must not be negative", options, coolDown))
	}
	if timeout == 0 {
		timeout = 100 * time.Millisecond
	}
	if breakAfter == 0 {
		breakAfter = 5
	}
	if coolDown == 0 {
		coolDown = 250 * time.Millisecond
	}
	return guard{timeout: timeout, brk: newBreaker(breakAfter, coolDown)}
}

// start reports whether the breaker lets a call go now and, if it does,
// returns ctx with the call's deadline and its cancel. A true answer must
// be followed by one finish, with the caller's own ctx.
func (g *guard) start(ctx context.Context) (context.Context, context.CancelFunc, bool) {
	return g.startFor(ctx, g.timeout)
}

// startFor is start with the deadline d from now, for a call that
// carries more than most (see Idempotency.Save).
func (g *guard) startFor(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc, bool) {
	if !g.brk.allow(time.Now().UnixNano()) {
		return nil, nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	return ctx, cancel, true
}

// finish records how a started call ended: err is what Redis or the
// connection said, parent the caller's context (without the deadline).
func (g *guard) finish(parent context.Context, err error) {
	g.brk.record(judge(parent, err), time.Now().UnixNano())
}

// judge returns what a call's error says of Redis: nothing when the
// caller's own context ended first.
func judge(parent context.Context, err error) outcome {
	switch {
	case err == nil:
		return succeeded
	case parent.Err() != nil:
		return abandoned
	}
	return failed
}
