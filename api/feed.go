package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/typed"
)

// Feed publishes the events of the event set E (see [Events]) to an
// [EventLog] and streams them from it: the handler of an operation whose
// Out Body is an Events[E] returns Follow's stream, and whatever
// publishes calls Publish. With a log shared by every instance of a
// service (redisstore's), an event published on one instance reaches the
// streams of all, and a client that reconnects to any of them with
// Last-Event-ID resumes right after its last event:
//
//	type Change struct {
//		Created *Bookmark  `event:"created"`
//		Reset   *api.Reset `event:"reset" doc:"events were missed: read the list again"`
//	}
//
//	feed := api.NewFeed[Change](api.NewMemoryLog(1000))
//	id, err := feed.Publish(ctx, Change{Created: &b})
//
//	func changes(c *waltz.Context, in *FeedInput) (*FeedOutput, error) {
//		return &FeedOutput{Body: feed.Follow(in.LastID)}, nil // in.LastID: header:"Last-Event-ID"
//	}
//
// A stream sends each event with the log's ID as its id. When it cannot
// go on from the client's position without a gap (the ID is older than
// the log keeps, another log's, or events after it were dropped before
// the stream read them), it sends E's reset event, whose data is a
// [Reset] and whose id is [LogStart], and goes on from the oldest event
// the log keeps: so the document names the answer, a client is never
// left with a silent gap, and one that reconnects before another event
// came sends Last-Event-ID: 0, not the stale ID that would get the reset
// again. When the log cannot be read (its store is
// unreachable), it sends a retry field (Retry) and ends, and the client
// comes back after that time, to this instance or another. It ends when
// the client leaves or the server shuts down. Events whose names E does
// not declare (another version's, in a shared log) are skipped.
//
// A Feed is safe for concurrent use. Set its fields before the first
// stream, and leave them unchanged after.
type Feed[E any] struct {
	// Retry is the reconnection time a stream asks of its client (the
	// retry field, in milliseconds) when it ends because the log cannot
	// be read, plus up to half again, chosen at random for each stream:
	// the clients one failure ended together, which an EventSource
	// brings back after exactly the time asked, come back spread out,
	// not at once. Zero means 1 s (1 to 1.5 s).
	Retry time.Duration

	// Ping is how often a stream sends the comment ": ping", which a
	// client ignores, while it is open, events or not: so that a proxy
	// does not cut a stream that has had no event for its idle timeout
	// (nginx's proxy_read_timeout is 60 s), and a client that has gone is
	// found by the failed write, which ends the stream. Zero means 15 s;
	// negative sends none.
	Ping time.Duration

	// Logger gets the log's read failures: at most one line a second,
	// whose "unlogged" attribute counts the failures since the line
	// before that had no line of their own, so an outage under load does
	// not flood the log. Nil means slog.Default().
	Logger *slog.Logger

	log   EventLog
	plan  *typed.EventPlan
	reset int // the index of E's *Reset field

	// The failure log's state: when the last line was written (Unix
	// nanoseconds, 0 before the first), and the failures since without
	// a line.
	loggedAt atomic.Int64
	unlogged atomic.Int64
}

// Reset is the data of a [Feed]'s reset event, which an event set
// declares as a field of type *Reset with the name of its choice
// (`event:"reset"`): the stream could not go on right after
// LastEventID, and events after it may be missing. The events that
// follow it are those the log keeps, from the oldest; a client that
// holds state built from the events reads it again.
type Reset struct {
	LastEventID string `json:"lastEventId" doc:"the position the stream could not resume after: the client's Last-Event-ID"`
}

var resetType = reflect.TypeFor[*Reset]()

// NewFeed returns a Feed of the event set E on log. It panics, with a
// message starting "waltz: ", on a nil log, when E is not an event set
// (see [Events]), and when E has not exactly one field of type *[Reset],
// the event a stream sends when it cannot resume without a gap.
func NewFeed[E any](log EventLog) *Feed[E] {
	t := reflect.TypeFor[E]()
	if log == nil {
		panic(fmt.Sprintf("waltz: api.NewFeed[%s]: the log is nil", t))
	}
	plan, err := typed.PlanEvents(t)
	if err != nil {
		panic(fmt.Sprintf("waltz: api.NewFeed: %v", err))
	}
	f := &Feed[E]{log: log, plan: plan, reset: -1}
	for i := range t.NumField() {
		if t.Field(i).Type != resetType {
			continue
		}
		if f.reset >= 0 {
			panic(fmt.Sprintf("waltz: api.NewFeed[%s]: fields %s and %s are both *api.Reset; a feed has one reset event", t, t.Field(f.reset).Name, t.Field(i).Name))
		}
		f.reset = i
	}
	if f.reset < 0 {
		panic(fmt.Sprintf("waltz: api.NewFeed[%s]: the event set has no field of type *api.Reset "+
			"(Reset *api.Reset `event:\"reset\"`), the event a stream sends when it cannot resume without a gap", t))
	}
	return f
}

// Publish appends ev, a value of the event set with exactly one field
// set, to the log and returns its ID. Its error is the log's (the store
// is unreachable, ctx is done), or says that not exactly one field is
// set or the data cannot be encoded; then nothing was appended.
func (f *Feed[E]) Publish(ctx context.Context, ev E) (string, error) {
	// NOTE: &ev points to a value of E, the type the plan was made from.
	name, data, err := f.plan.Event(unsafe.Pointer(&ev))
	if err != nil {
		return "", fmt.Errorf("waltz: event of %T: %w", ev, err)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return "", fmt.Errorf("waltz: event %q: encoding its data: %w", name, err)
	}
	return f.log.Append(ctx, name, b)
}

// Follow returns the stream of the events after the position after: an
// ID the log gave (the client's Last-Event-ID), [LogStart] for all the
// log keeps, or "" for the events published from now on. A stream from
// now on starts with the log's end ([EventLog]'s End) as an id field
// alone, which dispatches no event but sets the client's last event ID
// (WHATWG HTML, "Server-sent events", dispatching an event), so that a
// client that reconnects before the first event came resumes there and
// misses nothing published while it was away.
func (f *Feed[E]) Follow(after string) Events[E] {
	return func(s *EventSender[E]) error { return f.follow(s, after) }
}

// followBatch is how many events a stream reads from the log at once.
const followBatch = 32

// follow sends s the events after pos until the client leaves, the
// server shuts down or the log fails.
func (f *Feed[E]) follow(s *EventSender[E], pos string) error {
	ctx, cancel := context.WithCancel(seam.Router.StreamContext(s.es))
	defer cancel()
	if every := f.pingEvery(); every > 0 {
		k := startKeepalive(s.es, every, cancel)
		defer k.stop()
	}
	if pos == "" {
		end, err := f.log.End(ctx)
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil
		default:
			f.logFailure(ctx, err)
			_ = seam.Router.SendRetry(s.es, f.retry())
			return nil
		}
		if seam.Router.SendID(s.es, end) != nil {
			return nil
		}
		pos = end
	}
	var buf [followBatch]LogEvent
	for {
		n, err := f.log.Read(ctx, pos, buf[:])
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, ErrGap):
			if f.sendReset(s, pos) != nil {
				return nil
			}
			pos = LogStart
			continue
		default:
			f.logFailure(ctx, err)
			_ = seam.Router.SendRetry(s.es, f.retry())
			return nil
		}
		for i := range buf[:n] {
			ev := &buf[i]
			if _, _, ok := f.plan.Lookup(ev.Name); ok {
				if sendLogged(s.es, ev) != nil {
					return nil // the client left, or the server shuts down
				}
			}
			pos = ev.ID
		}
		clear(buf[:n]) // the log's memory is not held while waiting
	}
}

// sendLogged sends ev, an event of the log, on es.
func sendLogged(es *waltz.EventStream, ev *LogEvent) error {
	if bytes.ContainsAny(ev.Data, "\r\n") {
		// Not one line of JSON: one data line each.
		return es.Send(waltz.Event{ID: ev.ID, Event: ev.Name, Data: string(ev.Data)})
	}
	return seam.Router.SendEvent(es, ev.ID, ev.Name, ev.Data)
}

// sendReset sends the reset event of a stream that cannot go on after
// pos without a gap. Its id is LogStart, where the stream goes on from:
// the client's last event ID moves there.
func (f *Feed[E]) sendReset(s *EventSender[E], pos string) error {
	var ev E
	reflect.ValueOf(&ev).Elem().Field(f.reset).Set(reflect.ValueOf(&Reset{LastEventID: pos}))
	return s.Send(LogStart, ev)
}

// pingEvery returns how often a stream pings, 0 for never.
func (f *Feed[E]) pingEvery() time.Duration {
	switch {
	case f.Ping < 0:
		return 0
	case f.Ping == 0:
		return pingEvery
	}
	return f.Ping
}

// retry returns the reconnection time a failed stream sends: Retry
// (1 s when zero) and up to half of it again, at random.
func (f *Feed[E]) retry() time.Duration {
	d := time.Second
	if f.Retry > 0 {
		d = f.Retry
	}
	if d >= 2*time.Millisecond {
		d += rand.N(d / 2)
	}
	return d
}

// failLogEvery is the least time between two lines of a Feed's failures.
const failLogEvery = time.Second

// logFailure logs err, a failed Read of the log, unless a line was
// written less than failLogEvery ago; then it only counts it.
func (f *Feed[E]) logFailure(ctx context.Context, err error) {
	now := time.Now().UnixNano()
	last := f.loggedAt.Load()
	if last != 0 && now-last < int64(failLogEvery) || !f.loggedAt.CompareAndSwap(last, now) {
		f.unlogged.Add(1)
		return
	}
	l := f.Logger
	if l == nil {
		l = slog.Default()
	}
	l.ErrorContext(ctx, "waltz: event log cannot be read; stream ended with a retry hint",
		"retry", f.retry(), "err", err, "unlogged", f.unlogged.Swap(0))
}
