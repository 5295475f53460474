package api

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
)

// EventLog is an ordered, bounded log of events, each an event name and
// its data, that a [Feed] publishes to and streams from: the one
// interface of a log in the process ([NewMemoryLog]) and of one shared by
// every instance of a service (the module
// github.com/waltz-go/waltz/redisstore keeps one in a Redis stream).
// The package api/eventlogtest checks a log from its tests.
//
// An event's ID is the log's own, a string with no CR, LF or NUL that
// identifies the event and its place in the log; the stream's event IDs
// are these, so that a client that reconnects with Last-Event-ID resumes
// right after its event, whichever instance it reaches. A position is
// where a Read starts:
//
//   - "": the end of the log: the events appended after the call;
//   - "0" ([LogStart]): the beginning: the oldest event the log keeps;
//   - an ID the log returned: the events after that one;
//   - a position End returned: the events appended after End's call.
//
// Every method is safe for concurrent use, by any number of processes for
// a shared log.
//
//   - Append adds one event to the end of the log and returns its ID. It
//     is atomic: it is appended once or not at all, in one order that
//     every reader sees. It returns an error when it cannot (a network
//     error, a deadline passed); a call with a done context returns at
//     once, and its error wraps the context's.
//   - Read waits until the log holds events after the position after, or
//     ctx is done, then copies the first of them in order, at most
//     len(into), into into and returns how many (at least one). When
//     after is an ID the log no longer keeps (older than its retention)
//     or never gave (another log's, or this log's before it lost its
//     content), or when events after it were dropped before they could
//     be read, it returns an error wrapping [ErrGap]: events may be
//     missing there, and no later Read from that position returns any.
//     When ctx is done first it returns 0 and an error wrapping ctx's;
//     any other error says the log cannot be read now (its store is
//     unreachable), and a later Read may succeed. into's events share
//     the log's memory: the caller does not modify their Data.
//   - End returns the position of the log's end now: the ID of its last
//     event, or, when it holds none, a position of the log's own before
//     the first event it will hold (never "" nor a string with CR, LF
//     or NUL). A Read after it starts with the first event appended
//     after End's call, as a Read after "" does, and reports [ErrGap]
//     when that event was dropped before it was read; but, unlike "",
//     the position can be kept and given again later: a [Feed] that
//     follows the log "from now on" sends it as its stream's first id,
//     so that a client that reconnects before any event came misses
//     none. Its errors are Read's, but for ErrGap, which it never
//     returns.
//
// A log is bounded: it keeps at least the most recent events up to its
// size, and drops older ones.
type EventLog interface {
	Append(ctx context.Context, name string, data []byte) (id string, err error)
	Read(ctx context.Context, after string, into []LogEvent) (int, error)
	End(ctx context.Context) (string, error)
}

// LogEvent is one event of an [EventLog]: its ID, its name and its data,
// the JSON of a value of the event's type.
type LogEvent struct {
	ID   string
	Name string
	Data []byte
}

// LogStart is the position of the beginning of an [EventLog]: a Read
// after it starts with the oldest event the log keeps, and never reports
// a gap. A client sends it as Last-Event-ID to read all that is kept.
const LogStart = "0"

// ErrGap is the error, wrapped, of an [EventLog]'s Read when events after
// its position may be missing: the position is older than the log's
// retention, unknown to the log, or the events after it were dropped
// before they were read. A [Feed] then sends its reset event and goes on
// from the beginning of what the log keeps, so a gap is never silent.
var ErrGap = errors.New("waltz: event log: events after this position are no longer kept")

// MemoryLog is an [EventLog] in the process's memory that keeps the last
// events up to its size: a [Feed]'s log for a service of one instance.
// Its IDs are a number, counted from 1, and a tag of the log's own
// ("12-5f3a2b9c"), so that an ID from another log, another instance's
// or this process's before a restart, is told from its own: a Read after
// it reports [ErrGap] rather than a wrong place. End on a log that holds
// no event yet is the number 0 with the tag ("0-5f3a2b9c").
//
// Append costs one allocation (the ID) and keeps data as it is given,
// which the caller does not modify afterwards; Read costs none. Readers
// that wait share one channel, closed at the next Append.
type MemoryLog struct {
	tag string // "-5f3a2b9c", after each ID's number

	mu     sync.Mutex
	events []LogEvent    // NOTE: a ring: the event numbered n is at (n-1) % len(events)
	last   uint64        // the number of the last event appended; 0 when none was
	next   chan struct{} // closed at the next Append
}

// NewMemoryLog returns a MemoryLog that keeps the last size events. It
// panics, with a message starting "waltz: ", when size is below 1.
func NewMemoryLog(size int) *MemoryLog {
	if size < 1 {
		panic(fmt.Sprintf("waltz: api.NewMemoryLog: size %d: a log keeps at least one event", size))
	}
	return &MemoryLog{
		tag:    fmt.Sprintf("-%08x", rand.Uint32()),
		events: make([]LogEvent, size),
		next:   make(chan struct{}),
	}
}

// Append adds the event to the end of the log and returns its ID. It
// returns the context's error, and appends nothing, when ctx is done.
func (l *MemoryLog) Append(ctx context.Context, name string, data []byte) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("waltz: memory event log: %w", err)
	}
	l.mu.Lock()
	n := l.last + 1
	id := strconv.FormatUint(n, 10) + l.tag
	l.events[(n-1)%uint64(len(l.events))] = LogEvent{ID: id, Name: name, Data: data}
	l.last = n
	next := l.next
	l.next = make(chan struct{})
	l.mu.Unlock()
	close(next)
	return id, nil
}

// Read copies the events after the position after into into, waiting
// for one when there is none yet, as [EventLog] says.
func (l *MemoryLog) Read(ctx context.Context, after string, into []LogEvent) (int, error) {
	if len(into) == 0 {
		return 0, nil
	}
	l.mu.Lock()
	pos, start, err := l.position(after)
	l.mu.Unlock()
	if err != nil {
		return 0, err
	}
	for {
		l.mu.Lock()
		first := l.first()
		if start {
			pos = first - 1
		}
		switch {
		case pos+1 < first:
			l.mu.Unlock()
			return 0, fmt.Errorf("%w: event %d is no longer kept (the oldest is %d)", ErrGap, pos+1, first)
		case pos < l.last:
			n := 0
			for ; n < len(into) && pos < l.last; n++ {
				pos++
				into[n] = l.events[(pos-1)%uint64(len(l.events))]
			}
			l.mu.Unlock()
			return n, nil
		}
		next := l.next
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("waltz: memory event log: %w", ctx.Err())
		case <-next:
		}
	}
}

// first returns the number of the oldest event kept (last+1 when none
// is). NOTE: l.mu is held.
func (l *MemoryLog) first() uint64 {
	if l.last < uint64(len(l.events)) {
		return 1
	}
	return l.last - uint64(len(l.events)) + 1
}

// End returns the position of the log's end, as [EventLog] says: the
// last event's ID, or "0" and the tag when none was appended. It returns
// the context's error when ctx is done.
func (l *MemoryLog) End(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("waltz: memory event log: %w", err)
	}
	l.mu.Lock()
	last := l.last
	l.mu.Unlock()
	return strconv.FormatUint(last, 10) + l.tag, nil
}

// position returns the number of the event after which a Read from after
// starts (0: before the first): the last one for "", the one an ID or
// End's position names; for LogStart, start, whatever is oldest when the
// Read looks. An ID of another log, or a number this log has not
// reached, is a gap. NOTE: l.mu is held.
func (l *MemoryLog) position(after string) (pos uint64, start bool, err error) {
	switch after {
	case "":
		return l.last, false, nil
	case LogStart:
		return 0, true, nil
	}
	num, ok := strings.CutSuffix(after, l.tag)
	n, err := strconv.ParseUint(num, 10, 64)
	if !ok || err != nil || n > l.last || num != strconv.FormatUint(n, 10) {
		return 0, false, fmt.Errorf("%w: %q is no ID of this log", ErrGap, after)
	}
	return n, false, nil
}
