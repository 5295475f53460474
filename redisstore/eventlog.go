package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/api"
)

// EventLog is an [api.EventLog] on a Redis stream, so that an event
// published through any instance of a service reaches the streams of all,
// and a client that reconnects to any of them with Last-Event-ID resumes
// right after its event: a [api.Feed]'s log for a service behind a load
// balancer. It is safe for concurrent use. Needs Redis 5.0 or newer.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
//	feed := api.NewFeed[Change](redisstore.NewEventLog(rdb, "bookmarks:changes", redisstore.EventLogOptions{}))
//
// The stream's IDs are the events' IDs ("1733469332000-0"); End of a
// stream that holds no entry is "0-0", an ID no entry has, which names
// the place before the first (numbered 1). Each entry
// holds the event's number in the log (n, counted from 1 by the script
// that appends), its name (e) and its data (d):
//
//   - Append is one round trip: EVALSHA of a script that reads the last
//     entry's number and adds the next with XADD MAXLEN ~ Keep, atomically,
//     so the numbers have no hole and Redis trims the oldest entries
//     (keeping at least Keep).
//   - Each instance reads the stream's tail with one XREAD BLOCK at a time,
//     on one connection, and keeps the last Window events for its readers:
//     a Read at the tail waits on it, and a Read behind it, by Window
//     events or more, reads the stream with XRANGE.
//   - A position is checked against the entry it names (XRANGE id id, once
//     per Read that does not find it in memory), and each event read
//     against the number before it: an ID the stream no longer holds
//     (trimmed, or lost with Redis's data in a restart without
//     persistence) and a hole in the numbers (events trimmed before a slow
//     reader read them) are [api.ErrGap], never a silent gap. (An ID of
//     another stream is told apart only when this stream holds no entry
//     of that ID: two streams appended to in the same millisecond give
//     the same IDs.)
//
// Every call has a deadline (EventLogOptions.Timeout) and goes through a
// circuit breaker, as the other stores' calls do, one for Append and one
// for the reads, so that reads that fail never refuse a publication:
// while Redis is down or hung, Append returns an error within the
// deadline (at once while its breaker is open), and a Read that waits
// returns one within Block and the deadline; a [api.Feed] then ends its
// streams with a retry field, and their clients come back. An Append
// whose deadline passed may still have been applied, if Redis got it
// before it hung: a publisher that tries again may publish the event
// twice.
//
// A Read behind the window asks XRANGE for as many entries as fit its
// buffer, up to a count the log learns: an XRANGE of more than one entry
// that does not answer within the deadline (large events, a slow link)
// is not a failure of Redis; the count is halved and the read made
// again at once, and the count doubles back after each read that
// answered in time. So large events slow a reader that catches up, but
// never leave the log unreadable while Redis answers.
type EventLog struct {
	client redis.UniversalClient
	key    string
	keep   string // Keep, for the script
	block  time.Duration
	window int
	guard           // the deadline, and Append's breaker
	reads  *breaker // every read's breaker

	// NOTE: span is how many entries an XRANGE asks for at most, from 1
	// to maxSpan: halved when one of more than one entry timed out,
	// doubled when one answered in time.
	span atomic.Int64

	mu      sync.Mutex
	win     []entry       // NOTE: the last events the follower read, in order, numbered without a hole
	base    position      // the entry before win[0], when known (a Read after it is served from win)
	tail    position      // the entry the follower reads after: the window's last, or a reader's
	gen     uint64        // counts the times a reader moved tail, so a follower's read from before is dropped
	running bool          // a follower runs
	waiters int           // Reads waiting on the follower
	next    chan struct{} // closed when the follower read events, or failed
	fails   uint64        // counts the follower's failures
	failed  error         // the last one
}

// EventLogOptions configures [NewEventLog]. The zero value is the default.
type EventLogOptions struct {
	// Keep is how many events the stream keeps at least: XADD's MAXLEN ~
	// (Redis may keep up to a node's worth more, 100 by default). Zero
	// means 10,000.
	Keep int

	// Window is how many of the last events each instance keeps in its
	// memory for its readers. Zero means Keep, or 1,024 if that is less.
	Window int

	// Block is how long one XREAD waits for the stream's next event; a
	// Read waiting on a Redis that hangs returns an error within Block and
	// Timeout. Zero means 1 s.
	Block time.Duration

	// Timeout, BreakAfter and CoolDown are the deadline and circuit
	// breaker of every call, as in [Options]: zero means 100ms, 5 failures
	// in a row and 250ms. Append has a breaker of these, and the reads
	// another.
	Timeout    time.Duration
	BreakAfter int
	CoolDown   time.Duration
}

// entry is one event of the stream with its place: its ID as two numbers
// and its number in the log.
type entry struct {
	ev  api.LogEvent
	pos position
}

// position is a place in the stream: after the entry of ID (ms, sq),
// numbered n. The zero position is before the first entry of a stream
// that has none.
type position struct {
	id     string
	ms, sq uint64
	n      int64
	start  bool // LogStart: whatever is first
}

// appendScript appends the event (name ARGV[2], data ARGV[3]) to the
// stream KEYS[1], numbered one past the last entry (1 in an empty
// stream), trimmed to about ARGV[1] entries; it returns the entry's ID.
var appendScript = redis.NewScript(`
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local n = 1
if #last > 0 then
	n = tonumber(last[1][2][2]) + 1
end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'n', n, 'e', ARGV[2], 'd', ARGV[3])
`)

// NewEventLog returns an EventLog on the stream key through client, a
// *redis.Client, *redis.ClusterClient or *redis.Ring, which must have
// ContextTimeoutEnabled set (see [NewIdempotency]). Logs of the same key
// on any number of instances are one log.
//
// NewEventLog panics, with a message starting "waltz: ", on a nil client,
// an empty key, a negative option or a client without
// ContextTimeoutEnabled.
func NewEventLog(client redis.UniversalClient, key string, o EventLogOptions) *EventLog {
	if client == nil {
		panic("waltz: redisstore.NewEventLog: the client is nil")
	}
	if key == "" {
		panic("waltz: redisstore.NewEventLog: the key is empty")
	}
	if o.Keep < 0 || o.Window < 0 || o.Block < 0 {
		panic(fmt.Sprintf("waltz: redisstore.NewEventLog: EventLogOptions Keep %d, Window %d, Block %v: none may be negative", o.Keep, o.Window, o.Block))
	}
	g := newGuard("EventLogOptions", o.Timeout, o.BreakAfter, o.CoolDown)
	if !contextTimeouts(client) {
		panic("waltz: redisstore.NewEventLog: the client's ContextTimeoutEnabled is false, so a call to a Redis that " +
			"does not answer would wait the client's ReadTimeout, not EventLogOptions.Timeout: set it in the client's options")
	}
	if o.Keep == 0 {
		o.Keep = 10_000
	}
	if o.Window == 0 {
		o.Window = min(o.Keep, 1024)
	}
	if o.Block == 0 {
		o.Block = time.Second
	}
	l := &EventLog{client: client, key: key, keep: strconv.Itoa(o.Keep), block: o.Block, window: o.Window,
		guard: g, reads: newGuard("EventLogOptions", o.Timeout, o.BreakAfter, o.CoolDown).brk, next: make(chan struct{})}
	l.span.Store(maxSpan)
	return l
}

// maxSpan is the most entries an XRANGE asks for; a Read of more is
// served in parts.
const maxSpan = 64

// errLogCircuitOpen is what a call returns while the breaker is open.
var errLogCircuitOpen = fmt.Errorf("waltz: redis event log: %w", ErrCircuitOpen)

// call runs f, one call to Redis, through the breaker b, with the
// deadline extra+Timeout on ctx.
func (l *EventLog) call(ctx context.Context, b *breaker, extra time.Duration, f func(ctx context.Context) error) error {
	return l.callMany(ctx, b, extra, false, f)
}

// errTooMany is callMany's error when the deadline passed on a call of
// many entries.
var errTooMany = errors.New("too many entries for the deadline")

// callMany is call, for a call that reads many entries when many is
// true: its deadline passing then says the answer was too large, not
// that Redis failed; the breaker is not told, and the error is
// errTooMany.
func (l *EventLog) callMany(ctx context.Context, b *breaker, extra time.Duration, many bool, f func(ctx context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("waltz: redis event log: %w", err)
	}
	if !b.allow(time.Now().UnixNano()) {
		return errLogCircuitOpen
	}
	tctx, cancel := context.WithTimeout(ctx, extra+l.timeout)
	defer cancel()
	err := f(tctx)
	if errors.Is(err, redis.Nil) {
		err = nil // no entry, which is an answer
	}
	if many && err != nil && ctx.Err() == nil && tctx.Err() != nil {
		b.record(abandoned, time.Now().UnixNano())
		return errTooMany
	}
	b.record(judge(ctx, err), time.Now().UnixNano())
	if err != nil {
		return fmt.Errorf("waltz: redis event log: %w", err)
	}
	return nil
}

// Append adds the event to the stream, as [api.EventLog] says: one round
// trip. Its error starts "waltz: redis event log: ".
func (l *EventLog) Append(ctx context.Context, name string, data []byte) (string, error) {
	var id string
	err := l.call(ctx, l.brk, 0, func(ctx context.Context) error {
		var err error
		id, err = appendScript.Run(ctx, l.client, []string{l.key}, l.keep, name, data).Text()
		return err
	})
	return id, err
}

// Read copies the events after the position after into into, waiting
// for one when there is none yet, as [api.EventLog] says.
func (l *EventLog) Read(ctx context.Context, after string, into []api.LogEvent) (int, error) {
	if len(into) == 0 {
		return 0, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("waltz: redis event log: %w", err)
	}
	p, err := l.position(ctx, after)
	if err != nil {
		return 0, err
	}
	for {
		l.mu.Lock()
		if n := l.fromWindow(p, into); n > 0 {
			l.mu.Unlock()
			return n, nil
		}
		atTail := !p.start && p == l.tail
		l.mu.Unlock()
		if !atTail {
			es, err := l.xrange(ctx, p, len(into))
			if err != nil || len(es) > 0 {
				for i := range es {
					into[i] = es[i].ev
				}
				return len(es), err
			}
			if p.start {
				p = position{} // the stream is empty: its first entry is 1
			}
		}
		if err := l.wait(ctx, p); err != nil {
			return 0, err
		}
	}
}

// beforeFirst is End's position of a stream that holds no entry: the
// zero position, before the entry numbered 1. No entry has the ID 0-0.
const beforeFirst = "0-0"

// End returns the position of the stream's end, as [api.EventLog] says:
// its last entry's ID (XREVRANGE COUNT 1, one round trip), or "0-0" when
// it holds none. Its error starts "waltz: redis event log: ".
func (l *EventLog) End(ctx context.Context) (string, error) {
	p, err := l.last(ctx)
	switch {
	case err != nil:
		return "", err
	case p.id == "":
		return beforeFirst, nil
	}
	return p.id, nil
}

// last returns the position of the stream's last entry, the zero one
// when it holds none.
func (l *EventLog) last(ctx context.Context) (position, error) {
	var p position
	err := l.call(ctx, l.reads, 0, func(ctx context.Context) error {
		ms, err := l.client.XRevRangeN(ctx, l.key, "+", "-", 1).Result()
		if err == nil && len(ms) == 1 {
			var e entry
			if e, err = parseEntry(ms[0]); err == nil {
				p = e.pos
			}
		}
		return err
	})
	return p, err
}

// position returns the position of after: the stream's last entry for
// "", the start for LogStart, the place before the first entry for
// End's "0-0", the entry of that ID otherwise (from the window, or the
// stream), or ErrGap when the stream holds no such entry.
func (l *EventLog) position(ctx context.Context, after string) (position, error) {
	switch after {
	case api.LogStart:
		return position{start: true}, nil
	case beforeFirst:
		return position{}, nil
	case "":
		return l.last(ctx)
	}
	ms, sq, ok := parseID(after)
	if !ok {
		return position{}, fmt.Errorf("%w: %q is no ID of a Redis stream", api.ErrGap, after)
	}
	l.mu.Lock()
	if i := l.find(ms, sq); i >= 0 && l.win[i].pos.id == after {
		p := l.win[i].pos
		l.mu.Unlock()
		return p, nil
	}
	l.mu.Unlock()
	var found []redis.XMessage
	err := l.call(ctx, l.reads, 0, func(ctx context.Context) error {
		var err error
		found, err = l.client.XRangeN(ctx, l.key, after, after, 1).Result()
		return err
	})
	if err != nil {
		return position{}, err
	}
	if len(found) == 0 {
		return position{}, fmt.Errorf("%w: the stream holds no event %q (trimmed, or lost)", api.ErrGap, after)
	}
	e, err := parseEntry(found[0])
	return e.pos, err
}

// find returns the index in the window of the entry of ID (ms, sq), or
// -1. NOTE: l.mu is held.
func (l *EventLog) find(ms, sq uint64) int {
	lo, hi := 0, len(l.win)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p := l.win[m].pos; p.ms < ms || p.ms == ms && p.sq < sq {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(l.win) && l.win[lo].pos.ms == ms && l.win[lo].pos.sq == sq {
		return lo
	}
	return -1
}

// fromWindow copies the events after p that the window holds into into,
// if it holds p itself, and returns how many. NOTE: l.mu is held.
func (l *EventLog) fromWindow(p position, into []api.LogEvent) int {
	if p.start || len(l.win) == 0 {
		return 0
	}
	i := int(p.n - l.win[0].pos.n)
	switch {
	case i == -1 && p == l.base && p.id != "":
	case i < 0 || i >= len(l.win) || l.win[i].pos != p:
		return 0
	}
	n := 0
	for _, e := range l.win[i+1:] {
		if n == len(into) {
			break
		}
		into[n] = e.ev
		n++
	}
	return n
}

// xrange reads up to k entries after p from the stream: ErrGap when the
// entry after p is not numbered one past it, the entries up to a hole
// otherwise.
func (l *EventLog) xrange(ctx context.Context, p position, k int) ([]entry, error) {
	ms, err := l.xrangeSpan(ctx, p, k)
	if err != nil {
		return nil, err
	}
	es := make([]entry, 0, len(ms))
	for _, m := range ms {
		e, err := parseEntry(m)
		if err != nil {
			return nil, err
		}
		switch {
		case !p.start && e.pos.id == p.id:
			if e.pos.n != p.n {
				return nil, fmt.Errorf("%w: event %q is another than the one read before (the stream was made again)", api.ErrGap, p.id)
			}
			continue
		case !p.start && e.pos.n != p.n+1:
			if len(es) == 0 {
				return nil, fmt.Errorf("%w: event %d after %q is no longer kept", api.ErrGap, p.n+1, p.id)
			}
			return es, nil // the hole is the next Read's
		}
		es = append(es, e)
		p = e.pos
		if len(es) == k {
			break
		}
	}
	return es, nil
}

// xrangeSpan reads the entries of the stream from p on (p itself
// included when it is an entry), at most k after it and at most span:
// an XRANGE of more than one entry after p that times out is made again
// at once with half as many, down to one, whose timeout is a failure.
func (l *EventLog) xrangeSpan(ctx context.Context, p position, k int) ([]redis.XMessage, error) {
	for {
		span := l.span.Load()
		n := min(int64(k), span)
		from, count := "-", n
		if !p.start {
			from, count = p.id, n+1 // p itself, to check it is still the same entry
			if p.id == "" {
				from, count = "0-1", n
			}
		}
		var ms []redis.XMessage
		err := l.callMany(ctx, l.reads, 0, n > 1, func(ctx context.Context) error {
			var err error
			ms, err = l.client.XRangeN(ctx, l.key, from, "+", count).Result()
			return err
		})
		switch {
		case err == errTooMany:
			l.span.CompareAndSwap(span, max(1, span/2))
			continue
		case err == nil && span < maxSpan:
			l.span.CompareAndSwap(span, min(maxSpan, span*2))
		}
		return ms, err
	}
}
