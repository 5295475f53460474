package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/api"
)

// An EventLog's one reader of its stream: the waiting of Reads (wait),
// the XREAD BLOCK loop that follows the stream for every reader of the
// instance (follow), the window of recent events it keeps (absorb), and
// the stream's entries and IDs read back (parseEntry, parseID).

// wait waits until the follower read events after p, or failed, or ctx
// is done. A p that is not the follower's tail becomes it: the stream
// holds nothing after p, so the follower reads from there. But not a p
// after the tail while the follower reads for other Reads: they wait
// for the events between the tail and p, which the follower's read from
// the tail brings (and p with them), and which a read from p would
// skip, leaving them to wait for the next event appended.
func (l *EventLog) wait(ctx context.Context, p position) error {
	l.mu.Lock()
	if l.tail != p && !(l.running && l.waiters > 0 && after(p, l.tail)) {
		l.tail, l.base, l.win = p, p, l.win[:0]
		l.gen++
	}
	ch, fails := l.next, l.fails
	l.waiters++
	if !l.running {
		l.running = true
		go l.follow()
	}
	l.mu.Unlock()
	var err error
	select {
	case <-ctx.Done():
		err = fmt.Errorf("waltz: redis event log: %w", ctx.Err())
	case <-ch:
	}
	l.mu.Lock()
	l.waiters--
	if err == nil && l.fails != fails {
		err = l.failed
	}
	l.mu.Unlock()
	return err
}

// after reports whether p names an entry after q in the stream's order.
func after(p, q position) bool {
	return !p.start && p.id != "" && (p.ms > q.ms || p.ms == q.ms && p.sq > q.sq)
}

// follow reads the stream after the tail, with XREAD BLOCK, while Reads
// wait on it, and adds what it reads to the window. An XREAD that brought
// nothing within Block is followed by a look for the tail's entry: a
// stream that holds neither it nor any entry after it lost its data (a
// FLUSHALL, a restart without persistence) and was made again below it,
// with IDs its readers would wait for until the clock passed theirs
// (Redis gives an ID from its clock, above the stream's last only). Then
// the waiting Reads end with ErrGap, as a Read after an ID the stream
// no longer holds does: the log was reset.
func (l *EventLog) follow() {
	for {
		l.mu.Lock()
		if l.waiters == 0 {
			l.running = false
			l.mu.Unlock()
			return
		}
		from, gen := l.tail, l.gen
		l.mu.Unlock()
		id := from.id
		if id == "" {
			id = "0-0"
		}
		var streams []redis.XStream
		err := l.call(context.Background(), l.reads, l.block+blockLate, func(ctx context.Context) error {
			var err error
			streams, err = l.client.XRead(ctx, &redis.XReadArgs{Streams: []string{l.key, id}, Count: 1000, Block: l.block}).Result()
			return err
		})
		l.mu.Lock()
		switch {
		case gen != l.gen:
			// A reader moved the tail while this read ran: read again.
		case err != nil:
			l.stop(err)
			l.mu.Unlock()
			return
		case len(streams) == 1 && len(streams[0].Messages) > 0:
			l.absorb(streams[0].Messages)
			l.wake()
		case from.id != "" && !from.start:
			l.mu.Unlock()
			lost, err := l.lost(context.Background(), from)
			l.mu.Lock()
			if gen == l.gen && (err != nil || lost) {
				if err == nil {
					err = gone(from)
					l.win, l.base, l.tail = l.win[:0], position{}, position{}
				}
				l.stop(err)
				l.mu.Unlock()
				return
			}
		}
		l.mu.Unlock()
	}
}

// blockLate is how late Redis may answer an XREAD BLOCK that found
// nothing: it checks the timeouts of blocked clients on its timer, 10
// times a second by default (the hz setting), so an XREAD BLOCK 1000
// answers between 1,000 and about 1,100 ms. The follower's deadline is
// Block, this and Timeout.
const blockLate = 100 * time.Millisecond

// stop ends the follower on err, which the waiting Reads return.
// NOTE: l.mu is held.
func (l *EventLog) stop(err error) {
	l.fails++
	l.failed = err
	l.running = false
	l.wake()
}

// lost reports whether the stream holds neither the log's event at or
// before p nor any entry after it (XREVRANGE from the end down to it,
// COUNT 1): an entry of another program that p stepped over may have
// been deleted since (XDEL) with nothing of the log lost. The follower
// asks after an idle XREAD, and xrange when the stream holds nothing
// from p on.
func (l *EventLog) lost(ctx context.Context, p position) (bool, error) {
	id := p.eventID()
	if id == "" {
		return false, nil // before the log's first event: nothing to lose
	}
	var n int
	err := l.call(ctx, l.reads, 0, func(ctx context.Context) error {
		ms, err := l.client.XRevRangeN(ctx, l.key, "+", id, 1).Result()
		n = len(ms)
		return err
	})
	return n == 0, err
}

// absorb adds entries the follower read after the tail to the window:
// one numbered one past the tail follows it; any other begins the window
// again (the readers after the tail find the hole with XRANGE). An entry
// the log did not write (another program's XADD to its key) is no event
// of the log: the tail moves past it, numbered as the event before it,
// so that the follower does not read it again and the log's next event
// follows in the window. NOTE: l.mu is held.
func (l *EventLog) absorb(ms []redis.XMessage) {
	for _, m := range ms {
		e, err := parseEntry(m)
		if err != nil {
			l.tail = stepped(l.tail, m.ID)
			continue
		}
		switch {
		case e.pos.n != l.tail.n+1:
			l.win, l.base = l.win[:0], position{}
		case len(l.win) == 0:
			l.base = l.tail
		}
		l.win = append(l.win, e)
		l.tail = e.pos
	}
	if len(l.win) > 2*l.window {
		l.base = l.win[len(l.win)-l.window-1].pos
		n := copy(l.win, l.win[len(l.win)-l.window:])
		clear(l.win[n:])
		l.win = l.win[:n]
	}
}

// wake wakes the Reads that wait. NOTE: l.mu is held.
func (l *EventLog) wake() {
	close(l.next)
	l.next = make(chan struct{})
}

// parseEntry reads a stream entry as the append script wrote it: the
// three fields n, e and d alone, n a decimal number from 1 without a
// sign or a leading zero (the script's test of its own entries, which
// it must match: an entry one takes for an event and the other not
// would be an event lost, or a false gap).
func parseEntry(m redis.XMessage) (entry, error) {
	ms, sq, ok := parseID(m.ID)
	n, _ := m.Values["n"].(string)
	name, okName := m.Values["e"].(string)
	data, okData := m.Values["d"].(string)
	num, err := strconv.ParseInt(n, 10, 64)
	if !ok || err != nil || num < 1 || n[0] < '1' || n[0] > '9' || len(m.Values) != 3 || !okName || !okData {
		return entry{}, fmt.Errorf("waltz: redis event log: entry %q is not an event of this log (n %q)", m.ID, n)
	}
	return entry{ev: api.LogEvent{ID: m.ID, Name: name, Data: []byte(data)}, pos: position{id: m.ID, ms: ms, sq: sq, n: num}}, nil
}

// parseID returns the two numbers of a stream entry's ID, "ms-sq".
func parseID(id string) (ms, sq uint64, ok bool) {
	a, b, ok := strings.Cut(id, "-")
	if !ok {
		return 0, 0, false
	}
	ms, err1 := strconv.ParseUint(a, 10, 64)
	sq, err2 := strconv.ParseUint(b, 10, 64)
	return ms, sq, err1 == nil && err2 == nil
}
