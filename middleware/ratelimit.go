package middleware

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// RatePolicy is a token-bucket policy: a bucket holds up to Requests tokens and
// refills at Requests per Window, continuously; each request takes a token,
// and a request that finds the bucket empty is refused. A client may so
// send Requests at once, then one every Window/Requests.
type RatePolicy struct {
	Requests int           // the bucket's size and the tokens added per Window; positive
	Window   time.Duration // the refill period, a whole number of seconds, at least 1s
}

// RateResult is what [RateStore.Take] reports.
type RateResult struct {
	Allowed   bool          // a token was taken: let the request through
	Remaining int           // whole tokens left after this request
	Wait      time.Duration // until the bucket next gains a whole token; 0 when full
}

// RateStore keeps the token buckets. Take takes one token from key's bucket
// under limit at time now, creating a full bucket for a key it does not
// know, and reports the outcome; it must do so atomically, since requests
// for one key arrive concurrently. [NewMemoryRateStore] keeps buckets in the
// process.
//
// A store shared by several servers keeps, per key, the token count and the
// time it was last updated, and runs the refill-and-take as one atomic
// step: in Redis, say, a Lua script run with EVALSHA on a hash
// {tokens, at}:
//
//	tokens = min(limit.Requests, tokens + (now-at) * limit.Requests/limit.Window)
//	if tokens >= 1 { tokens -= 1; allowed = true }
//	HSET key tokens at=now; PEXPIRE key limit.Window  // a full bucket needs no record
//	return allowed, floor(tokens), (floor(tokens)+1-tokens) / (limit.Requests/limit.Window)
//
// Such a store may ignore now and read its own clock (Redis's TIME), so
// that servers whose clocks differ agree. A network error is returned as
// such; [RateLimitOptions.FailOpen] decides what happens then. The module
// github.com/waltz-go/waltz/redisstore is this store, and the package
// middleware/storetest checks any RateStore's behaviour from its tests.
type RateStore interface {
	Take(ctx context.Context, key string, now time.Time, limit RatePolicy) (RateResult, error)
}

// RateLimitOptions configures [RateLimit]. The zero value limits each
// client address to 100 requests a minute in a 10,000-key memory store,
// and refuses requests when the store fails.
type RateLimitOptions struct {
	// Limit is the policy every key gets. Zero means 100 requests per
	// minute. Requests not positive, or a Window under one second or not
	// a whole number of seconds, panics at construction.
	Limit RatePolicy

	// Key returns the bucket a request counts against. Nil means the
	// client's address ([ClientIP], so after [RealIP] the address its
	// proxies reported), with an IPv6 address cut to its /64 prefix, the
	// network one host is usually given. A key of "" exempts the request.
	Key func(c *waltz.Context) string

	// Store keeps the buckets. Nil means NewMemoryRateStore(10000).
	Store RateStore

	// Policy names the policy in the RateLimit-Policy and RateLimit
	// fields; "default" when empty. It is printable ASCII without '"' or
	// '\', else construction panics.
	Policy string

	// FailOpen lets requests through, without rate limit fields, when the
	// store returns an error. False, the default, answers 503 Service
	// Unavailable (RFC 9110 section 15.6.4) with the error as the cause,
	// rendered by the router's error handler. Either way the error is
	// logged by RateLimit to [waltz.Context.Logger] (the Router's Logger,
	// else slog.Default()): at most one line a second, whose "unlogged"
	// attribute counts the failed requests since the line before that had
	// no line of their own, so an outage under load does not flood the
	// log; the 503 is marked logged ([waltz.Context.MarkLogged]) so that
	// the error handler does not log each one again.
	FailOpen bool
}

// RateLimit returns middleware that limits the rate of requests per key,
// by default per client address, with a token bucket per key.
//
// Every request it lets through gets the fields of the IETF httpapi draft
// "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-11,
// sections 3 and 4), Structured Field lists:
//
//	RateLimit-Policy: "default";q=100;w=60   the policy: q requests per w seconds
//	RateLimit: "default";r=42;t=1            r requests left; no more than r in the next t seconds
//
// t, the "effective window" (section 4.1.2), is the time until the bucket
// gains its next token, rounded up to whole seconds.
//
// A request that finds its bucket empty is not passed on: RateLimit sets
// those two fields and Retry-After (RFC 9110 section 10.2.3, delta-seconds,
// rounded up, at least 1) and returns a shared
// &waltz.HTTPError{Code: 429} (429 Too Many Requests, RFC 6585 section 4)
// for the router's error handler to render.
//
// A request passed on costs 3 allocations with the default key (the key
// string, the RateLimit value and its slice) and a refused one 4 (the
// Retry-After slice too), in the memory store, as the tests hold. It panics at construction, with a
// message starting "waltz: " that names the field, on a bad Limit or
// Policy.
func RateLimit(o RateLimitOptions) waltz.Middleware {
	rl := newRateLimit(o)
	codes := []int{http.StatusTooManyRequests}
	if !rl.failOpen {
		codes = append(codes, http.StatusServiceUnavailable)
	}
	return api.Responds(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			key := rl.key(c)
			if key == "" {
				return next(c)
			}
			res, err := rl.store.Take(c.Request.Context(), key, time.Now(), rl.limit)
			if err != nil {
				rl.logFailure(c, err)
				if !rl.failOpen {
					// logFailure logged it, or counted it for its next
					// line: the error handler must not log each one.
					c.MarkLogged()
					return &waltz.HTTPError{Code: http.StatusServiceUnavailable, Err: fmt.Errorf("waltz: rate limit store: %w", err)}
				}
				return next(c)
			}
			h := c.Writer.Header()
			vs := newValues(2) // the response's own, as values describes
			h["Ratelimit-Policy"] = vs.one(rl.policyField)
			h["Ratelimit"] = vs.one(rl.state(res))
			if !res.Allowed {
				h["Retry-After"] = []string{strconv.FormatInt(max(ceilSeconds(res.Wait), 1), 10)}
				return errTooManyRequests
			}
			return next(c)
		}
	}, codes...)
}

// NOTE: shared; never modified.
var errTooManyRequests = &waltz.HTTPError{Code: http.StatusTooManyRequests}

type rateLimit struct {
	limit       RatePolicy
	key         func(c *waltz.Context) string
	store       RateStore
	policy      string // the quoted policy name
	policyField string // the RateLimit-Policy value
	failOpen    bool

	// The fail-open log's state: when the last line was written (Unix
	// nanoseconds, 0 before the first) and how many requests were let
	// through since without a line.
	loggedAt atomic.Int64
	unlogged atomic.Int64
}

// failLogEvery is the least time between two fail-open log lines.
const failLogEvery = time.Second

// logFailure logs that err made the store fail and what c's request got
// (let through, or 503), unless a line was written less than failLogEvery
// ago, in which case it only counts the request for the next line. Of
// requests failing at once, the one whose compare-and-swap wins writes
// the line.
func (rl *rateLimit) logFailure(c *waltz.Context, err error) {
	now := time.Now().UnixNano()
	last := rl.loggedAt.Load()
	if last != 0 && now-last < int64(failLogEvery) || !rl.loggedAt.CompareAndSwap(last, now) {
		rl.unlogged.Add(1)
		return
	}
	msg := "waltz: rate limit store failed; request let through"
	if !rl.failOpen {
		msg = "waltz: rate limit store failed; request answered 503"
	}
	c.Logger().ErrorContext(c.Request.Context(), msg,
		"method", c.Request.Method, "path", c.Request.URL.Path, "err", err,
		"unlogged", rl.unlogged.Swap(0))
}

func newRateLimit(o RateLimitOptions) *rateLimit {
	rl := &rateLimit{limit: o.Limit, key: o.Key, store: o.Store, failOpen: o.FailOpen}
	if rl.limit == (RatePolicy{}) {
		rl.limit = RatePolicy{Requests: 100, Window: time.Minute}
	}
	if rl.limit.Requests <= 0 {
		panic(fmt.Sprintf("waltz: RateLimitOptions.Limit.Requests is %d; it must be positive", rl.limit.Requests))
	}
	if w := rl.limit.Window; w < time.Second || w%time.Second != 0 {
		panic(fmt.Sprintf("waltz: RateLimitOptions.Limit.Window is %v; it must be a whole number of seconds, at least 1s", w))
	}
	if rl.key == nil {
		rl.key = clientKey
	}
	if rl.store == nil {
		rl.store = NewMemoryRateStore(10000)
	}
	name := o.Policy
	if name == "" {
		name = "default"
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			panic(fmt.Sprintf("waltz: RateLimitOptions.Policy %q must be printable ASCII without '\"' or '\\'", o.Policy))
		}
	}
	rl.policy = `"` + name + `"`
	rl.policyField = fmt.Sprintf("%s;q=%d;w=%d", rl.policy, rl.limit.Requests, rl.limit.Window/time.Second)
	return rl
}

// state formats the RateLimit field for res.
func (rl *rateLimit) state(res RateResult) string {
	var buf [128]byte
	b := append(buf[:0], rl.policy...)
	b = append(b, ";r="...)
	b = strconv.AppendInt(b, int64(max(res.Remaining, 0)), 10)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, ceilSeconds(res.Wait), 10)
	return string(b)
}

// ceilSeconds returns d in whole seconds, rounded up; 0 when d is not
// positive.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

// clientKey is the default key: the client's address, or for IPv6 its /64.
func clientKey(c *waltz.Context) string {
	a := ClientIP(c.Request).WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}
