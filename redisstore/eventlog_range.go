package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/api"
)

// An EventLog's reads of the stream behind its window: XRANGE from a
// position (xrange), checked against the events' numbers and stepping
// over the entries of other programs, in spans the deadline allows
// (xrangeSpan), and the stream's last event, read back from its end
// (last).

// xrange reads up to k events after p from the stream: ErrGap when the
// event after p is not numbered one past it, or when the stream holds
// neither the log's event at or before p nor any entry after it (Redis
// lost its data, and the IDs it gives now are below p's; see lost), the
// events up to a hole otherwise. An
// entry another program added is no event of the log: it is stepped
// over. The position returned is past the last entry read, an event or
// another program's entry (then numbered as the event before it).
func (l *EventLog) xrange(ctx context.Context, p position, k int) ([]entry, position, error) {
	ms, err := l.xrangeSpan(ctx, p, k)
	if err != nil {
		return nil, p, err
	}
	if len(ms) == 0 && !p.start && p.id != "" {
		// p's own entry is gone: lost data, or only an entry of another
		// program that p stepped over, deleted since (XDEL), which is
		// no event of the log lost.
		if lost, err := l.lost(ctx, p); err != nil || lost {
			if err == nil {
				err = gone(p)
			}
			return nil, p, err
		}
		return nil, p, nil
	}
	es := make([]entry, 0, len(ms))
	for _, m := range ms {
		e, err := parseEntry(m)
		if err != nil {
			p = stepped(p, m.ID)
			continue
		}
		switch {
		case !p.start && e.pos.id == p.id:
			if e.pos.n != p.n {
				return nil, p, fmt.Errorf("%w: event %q is another than the one read before (the stream was made again)", api.ErrGap, p.id)
			}
			continue
		case !p.start && e.pos.n != p.n+1:
			if len(es) == 0 {
				return nil, p, fmt.Errorf("%w: event %d after %q is no longer kept", api.ErrGap, p.n+1, p.id)
			}
			return es, p, nil // the hole is the next Read's
		}
		es = append(es, e)
		p = e.pos
		if len(es) == k {
			break
		}
	}
	return es, p, nil
}

// gone is the ErrGap of a position whose entry the stream no longer
// holds, with none after it.
func gone(p position) error {
	return fmt.Errorf("%w: the stream holds neither %q nor any entry after it (Redis lost its data, or the stream was made again)", api.ErrGap, p.id)
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

// last returns the position of the stream's last event, the zero one
// when it holds none: the entries another program added after it are
// stepped over, as the append script steps over them.
func (l *EventLog) last(ctx context.Context) (position, error) {
	var p position
	var foreign bool
	err := l.call(ctx, l.reads, 0, func(ctx context.Context) error {
		from, count, seen := "+", int64(1), int64(0)
		for {
			ms, err := l.client.XRevRangeN(ctx, l.key, from, "-", count).Result()
			if err != nil {
				return err
			}
			for i, m := range ms {
				if i == 0 && from != "+" {
					continue // inclusive: the entry that ended the page before
				}
				seen++
				if e, err := parseEntry(m); err == nil {
					p = e.pos
					return nil
				}
			}
			if int64(len(ms)) < count {
				return nil
			}
			if seen >= maxForeign+1 {
				foreign = true // Redis answered: no failure for the breaker
				return nil
			}
			from, count = ms[len(ms)-1].ID, min(maxSpan, maxForeign+1-seen)+1
		}
	})
	if err == nil && foreign {
		err = l.errForeign()
	}
	return p, err
}

// maxForeign is how many entries of another program after the log's
// last event Append and End step over at most. Redis runs a script
// alone, every other client waiting: its walk back costs about 1.5 µs
// an entry (XREVRANGE's answer made into Lua tables), so 1,000 keep it
// near 2 ms.
const maxForeign = 1000

// errForeign is the error of Append and End when more than maxForeign
// entries of another program follow the log's last event.
func (l *EventLog) errForeign() error {
	return fmt.Errorf("waltz: redis event log: more than %d entries of another program follow the last event of this log in stream %q: "+
		"give the log a key of its own, or delete those entries (XDEL)", maxForeign, l.key)
}
