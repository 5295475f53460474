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
//     on one connection of the client's pool, held for up to Block while
//     the log is quiet (size the pool, go-redis's PoolSize, above the
//     number of logs with Reads waiting at once, or the other calls wait
//     for a connection), and keeps the last Window events for its readers:
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
//   - A stream that holds neither a reader's entry nor any after it lost
//     its data (a FLUSHALL, a restart without persistence): its new IDs,
//     from Redis's clock, may be below the ones read before, so a Read
//     after one is ErrGap at once, and the Reads that wait at the tail
//     learn it within Block (the follower looks for the tail's entry
//     after each XREAD that brought nothing), not once the clock passes
//     the old IDs.
//   - An entry another program added to the stream (an XADD of its own)
//     is no event of the log: Append numbers its event after the log's
//     last one, and Read and End step over it. Append and End look back
//     over at most 1,000 such entries after the log's last event (Redis
//     serves no other client while the script looks, about 1.5 µs an
//     entry): past that, they return an error saying so, and Append adds
//     nothing, rather than number the event without knowing the last
//     one's number. A log shares its key with no other program; deleting
//     those entries (XDEL) ends the error, as deleting the key does (the
//     log then starts again from 1, and its readers get ErrGap).
//
// Every call has a deadline (EventLogOptions.Timeout) and goes through a
// circuit breaker, as the other stores' calls do, one for Append and one
// for the reads, so that reads that fail never refuse a publication:
// while Redis is down or hung, Append returns an error within the
// deadline (at once while its breaker is open), and a Read that waits
// returns one within Block, the deadline and 100 ms (see
// EventLogOptions.Block); a [api.Feed] then ends its
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
	// Read waiting on a Redis that hangs returns an error within Block,
	// Timeout and 100 ms (Redis ends a blocked XREAD on its timer, up to
	// 100 ms late with its default hz of 10). An XREAD that waited the whole Block for nothing is followed
	// by one XREVRANGE, which finds a stream emptied below the readers'
	// position (a Redis restarted without its data): those Reads then get
	// ErrGap. So an instance with Reads waiting on a quiet log makes two
	// calls each Block. Zero means 1 s.
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
	start  bool   // LogStart: whatever is first
	event  string // after another program's entry: the ID of the log's event before it ("" when none)
}

// stepped returns the position after the entry of ID id of another
// program, which follows p: numbered as p, and after p's event.
func stepped(p position, id string) position {
	ms, sq, _ := parseID(id)
	return position{id: id, ms: ms, sq: sq, n: p.n, start: p.start, event: p.eventID()}
}

// eventID returns the ID of the log's last event at or before p, "" when
// none.
func (p position) eventID() string {
	if p.event != "" || p.n == 0 {
		return p.event
	}
	return p.id
}

// appendScript appends the event (name ARGV[2], data ARGV[3]) to the
// stream KEYS[1], numbered one past the log's last entry (1 in a stream
// that holds none), trimmed to about ARGV[1] entries; it returns the
// entry's ID. The log's last entry is the last that holds the three
// fields n, e and d alone, n a decimal number from 1 without a sign or
// a leading zero, as the script writes it and as parseEntry reads it:
// the entries another program added after it are stepped over (the last
// one read alone, those before it a hundred at a time, XREVRANGE's start
// inclusive, so each page after the first begins with the entry that
// ended the one before), at most ARGV[4] of them: past that the script
// returns false (a nil answer) and adds nothing.
var appendScript = redis.NewScript(`
local limit = tonumber(ARGV[4]) + 1
local n, from, count, seen = 1, '+', 1, 0
while true do
	local es = redis.call('XREVRANGE', KEYS[1], from, '-', 'COUNT', count)
	local first = 1
	if from ~= '+' then first = 2 end
	for i = first, #es do
		local f = es[i][2]
		seen = seen + 1
		if #f == 6 then
			local v = {}
			for j = 1, 5, 2 do v[f[j]] = f[j + 1] end
			if v.e and v.d and v.n and string.match(v.n, '^[1-9]%d*$') then
				n = tonumber(v.n) + 1
				return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'n', n, 'e', ARGV[2], 'd', ARGV[3])
			end
		end
	end
	if #es < count then break end
	if seen >= limit then return false end
	from, count = es[#es][1], math.min(100, limit - seen) + 1
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
// trip. Its error starts "waltz: redis event log: "; more than 1,000
// entries of another program after the log's last event are an error
// (see [EventLog]), which the circuit breaker does not count as Redis
// failing.
func (l *EventLog) Append(ctx context.Context, name string, data []byte) (string, error) {
	var id string
	var foreign bool
	err := l.call(ctx, l.brk, 0, func(ctx context.Context) error {
		var err error
		id, err = appendScript.Run(ctx, l.client, []string{l.key}, l.keep, name, data, maxForeign).Text()
		foreign = err == redis.Nil // Redis answered: no failure for the breaker
		return err
	})
	if err == nil && foreign {
		err = l.errForeign()
	}
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
			es, q, err := l.xrange(ctx, p, len(into))
			if err != nil || len(es) > 0 {
				for i := range es {
					into[i] = es[i].ev
				}
				return len(es), err
			}
			// The stream holds no event after p; q is past the entries
			// of other programs that follow it, if any.
			p = q
			if p.start {
				// The stream holds no event: its first is numbered 1.
				p = position{id: p.id, ms: p.ms, sq: p.sq}
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
// its last event's ID (XREVRANGE COUNT 1, one round trip, more when
// entries another program added follow it), or "0-0" when it holds
// none. Its error starts "waltz: redis event log: "; more than 1,000
// entries of another program after the log's last event are an error,
// as for Append.
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
	if err != nil {
		return position{}, fmt.Errorf("%w: %v", api.ErrGap, err)
	}
	return e.pos, nil
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
