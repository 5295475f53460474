package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/api/eventlogtest"
	"github.com/waltz-go/waltz/redisstore"
)

// TestEventLogConformance runs api/eventlogtest's checks on the Redis
// event log: each log a stream of its own, each handle to it a client of
// its own, as another instance's would be.
func TestEventLogConformance(t *testing.T) {
	srv := startRedis(t)
	var n atomic.Int64
	eventlogtest.Run(t, func(t *testing.T, keep int) func() api.EventLog {
		key := fmt.Sprintf("%s:%d", uniquePrefix(t), n.Add(1))
		return func() api.EventLog {
			return redisstore.NewEventLog(srv.client(), key, redisstore.EventLogOptions{Keep: keep, Timeout: time.Second})
		}
	})
}

// TestEventLogOutage: Redis hung (SIGSTOP), then killed and started
// again without its data. Hung: each Append fails within the deadline
// (100ms + slack), and once the breaker opened (after 5) at once; a Read
// waiting at the tail fails within Block and the deadline. Killed and
// started again: a Read after an ID of the lost stream is ErrGap, and
// what is appended after is read, from the start, every event.
func TestEventLogOutage(t *testing.T) {
	srv := startRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	const deadline, block = 100 * time.Millisecond, 300 * time.Millisecond
	log := redisstore.NewEventLog(rdb, uniquePrefix(t), redisstore.EventLogOptions{Timeout: deadline, Block: block})
	ctx := context.Background()
	id, err := log.Append(ctx, "n", []byte(`1`))
	if err != nil {
		t.Fatal(err)
	}

	waiting := make(chan error, 1)
	go func() {
		_, err := log.Read(ctx, id, make([]api.LogEvent, 1))
		waiting <- err
	}()
	time.Sleep(50 * time.Millisecond)
	srv.pause()
	paused := time.Now()
	select {
	case err := <-waiting:
		if err == nil || errors.Is(err, api.ErrGap) {
			t.Errorf("a waiting Read, Redis hung: got %v, want the failure", err)
		}
		if d := time.Since(paused); d > block+deadline+600*time.Millisecond {
			t.Errorf("a waiting Read, Redis hung: failed after %v, want within Block %v and the deadline %v", d, block, deadline)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting Read, Redis hung: no answer within 5s")
	}
	var open int
	for i := range 12 {
		at := time.Now()
		_, err := log.Append(ctx, "n", []byte(`2`))
		d := time.Since(at)
		switch {
		case err == nil:
			t.Fatalf("Append %d with Redis hung: no error", i)
		case errors.Is(err, redisstore.ErrCircuitOpen):
			open++
			if d > 10*time.Millisecond {
				t.Errorf("Append %d, breaker open: took %v, want at once", i, d)
			}
		case d > deadline+150*time.Millisecond:
			t.Errorf("Append %d with Redis hung: took %v, want within the deadline %v", i, d, deadline)
		}
	}
	if open < 5 {
		t.Errorf("%d of 12 Appends met the open breaker, want the breaker open after 5 failures", open)
	}

	srv.kill()
	srv.start()
	time.Sleep(300 * time.Millisecond) // the breaker's cool-down
	var read error
	for range 30 { // go-redis dials again within about a second
		if _, read = log.Read(ctx, id, make([]api.LogEvent, 1)); errors.Is(read, api.ErrGap) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !errors.Is(read, api.ErrGap) {
		t.Fatalf("a Read after an ID Redis lost: got %v, want ErrGap", read)
	}
	var ids []string
	for i := range 3 {
		id, err := log.Append(ctx, "n", fmt.Appendf(nil, "%d", i))
		if err != nil {
			t.Fatalf("Append after the restart: %v", err)
		}
		ids = append(ids, id)
	}
	buf := make([]api.LogEvent, 8)
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	n, err := log.Read(rctx, api.LogStart, buf)
	var got []string
	for _, ev := range buf[:n] {
		got = append(got, ev.ID)
	}
	if err != nil || strings.Join(got, " ") != strings.Join(ids, " ") {
		t.Errorf("after the restart, from the start: got %q, %v; want %q", got, err, ids)
	}
}

// TestEventLogSlowReader: a reader more than Keep events behind, whose
// next event Redis trimmed, gets ErrGap from the follower's window and
// from XRANGE alike, never a later event.
func TestEventLogSlowReader(t *testing.T) {
	srv := startRedis(t)
	key := uniquePrefix(t)
	log := redisstore.NewEventLog(srv.client(), key, redisstore.EventLogOptions{Keep: 10, Window: 5})
	other := redisstore.NewEventLog(srv.client(), key, redisstore.EventLogOptions{Keep: 10, Window: 5})
	ctx := context.Background()
	first, err := log.Append(ctx, "n", []byte(`0`))
	if err != nil {
		t.Fatal(err)
	}
	// A reader waits at the tail, so the follower reads every event.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go other.Read(rctx, first, make([]api.LogEvent, 1))
	for i := range 500 {
		if _, err := log.Append(ctx, "n", fmt.Appendf(nil, "%d", i+1)); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []*redisstore.EventLog{log, other} {
		if _, err := l.Read(ctx, first, make([]api.LogEvent, 4)); !errors.Is(err, api.ErrGap) {
			t.Errorf("after the first of 501 events (Keep 10): got %v, want ErrGap", err)
		}
	}
}

// TestEventLogLargeEvents: 40 events of 3.5 MB, more than an XRANGE of
// a Read's 33 entries can bring within the 100ms deadline. A reader from
// the start gets every one, and a publication after its reads is not
// refused: a read that took too long is no failure of Redis, and the
// reads' breaker is not Append's.
func TestEventLogLargeEvents(t *testing.T) {
	srv := startRedis(t)
	log := redisstore.NewEventLog(srv.client(), uniquePrefix(t), redisstore.EventLogOptions{Timeout: 100 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	big := []byte(`"` + strings.Repeat("x", 3500<<10) + `"`)
	const n = 40
	for i := range n {
		if _, err := log.Append(ctx, "big", big); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	buf := make([]api.LogEvent, 32)
	after, got := api.LogStart, 0
	for got < n {
		k, err := log.Read(ctx, after, buf)
		if err != nil {
			t.Fatalf("after %d events: %v", got, err)
		}
		for _, ev := range buf[:k] {
			if len(ev.Data) != len(big) {
				t.Fatalf("event %d: got %d bytes, want %d", got, len(ev.Data), len(big))
			}
			got++
		}
		after = buf[k-1].ID
		clear(buf)
	}
	if _, err := log.Append(ctx, "small", []byte(`1`)); err != nil {
		t.Errorf("Append after the reads: %v", err)
	}
}

// slowXRead is a go-redis hook that holds each XREAD's answer for delay
// before the caller gets it: the follower of an EventLog on that client
// learns of an event that late, while its other calls are not delayed.
type slowXRead struct{ delay time.Duration }

func (slowXRead) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h slowXRead) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == "xread" {
			time.Sleep(h.delay)
		}
		return err
	}
}

func (slowXRead) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestEventLogReaderAheadOfFollower: a reader waits at the tail; an
// event is appended, and before the follower has it another reader of
// the instance comes to wait after that event (a client that reconnects
// with its ID from another instance, or a stream from now on whose End
// saw it). The first reader still gets the event at once, not when the
// next one is appended.
func TestEventLogReaderAheadOfFollower(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	rdb.AddHook(slowXRead{delay: 300 * time.Millisecond})
	key := uniquePrefix(t)
	log := redisstore.NewEventLog(rdb, key, redisstore.EventLogOptions{Timeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := log.Append(ctx, "n", []byte(`1`))
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		into := make([]api.LogEvent, 4)
		n, err := log.Read(ctx, first, into)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- into[n-1].ID
	}()
	time.Sleep(100 * time.Millisecond) // the reader waits; the follower's XREAD blocks
	second, err := log.Append(ctx, "n", []byte(`2`))
	if err != nil {
		t.Fatal(err)
	}
	// Another reader waits after the second event while the follower's
	// answer is held.
	bctx, bcancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer bcancel()
	log.Read(bctx, second, make([]api.LogEvent, 1))
	select {
	case id := <-got:
		if id != second {
			t.Errorf("the reader after the first event got %q, want %q", id, second)
		}
	case <-time.After(3 * time.Second):
		t.Errorf("the reader after the first event did not get the second within 3 s (it waits for a third)")
	}
}

// countXRead is a go-redis hook that counts the XREADs sent.
type countXRead struct{ n *atomic.Int64 }

func (countXRead) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h countXRead) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "xread" {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (countXRead) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestEventLogForeignEntry: an entry the log did not write (an XADD of
// another program, or of an operator, to the log's key) comes while a
// Read waits at the tail. It is no event of the log: the Read steps over
// it and goes on waiting, Append numbers its next event after the log's
// own last one (before, its script failed on the entry, and every
// publication with it), the Read gets that event, and a Read from before
// the entry by XRANGE, End and a Read from End step over it too. The
// follower does not read the entry again and again (one XREAD after
// another, each answered at once, for as long as Reads wait).
func TestEventLogForeignEntry(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	var xreads atomic.Int64
	rdb.AddHook(countXRead{&xreads})
	key := uniquePrefix(t)
	log := redisstore.NewEventLog(rdb, key, redisstore.EventLogOptions{Timeout: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := log.Append(ctx, "n", []byte(`1`))
	if err != nil {
		t.Fatal(err)
	}
	type read struct {
		evs []api.LogEvent
		err error
	}
	done := make(chan read, 1)
	go func() {
		buf := make([]api.LogEvent, 4)
		n, err := log.Read(ctx, first, buf)
		done <- read{buf[:n], err}
	}()
	time.Sleep(100 * time.Millisecond) // the reader waits at the tail
	foreign, err := srv.client().XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []string{"foo", "bar"}}).Result()
	if err != nil {
		t.Fatal(err)
	}
	before := xreads.Load()
	time.Sleep(500 * time.Millisecond)
	if n := xreads.Load() - before; n > 5 {
		t.Errorf("%d XREADs in 500ms after an entry of another writer, with Block 1s: the follower reads it again and again", n)
	}
	select {
	case r := <-done:
		t.Fatalf("Read after an entry of another writer: got %v, %v; want it to wait for the log's next event", r.evs, r.err)
	default:
	}
	second, err := log.Append(ctx, "n", []byte(`2`))
	if err != nil {
		t.Fatalf("Append after an entry of another writer: %v", err)
	}
	if !idAfter(second, foreign) {
		t.Errorf("Append after the entry %s of another writer: got the ID %s, want a later one", foreign, second)
	}
	select {
	case r := <-done:
		if r.err != nil || len(r.evs) != 1 || r.evs[0].ID != second || string(r.evs[0].Data) != "2" {
			t.Errorf("the waiting Read: got %v, %v; want the event %s", r.evs, r.err, second)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the waiting Read did not get the event appended after the entry of another writer within 2 s")
	}
	other := redisstore.NewEventLog(srv.client(), key, redisstore.EventLogOptions{Timeout: time.Second})
	buf := make([]api.LogEvent, 4)
	if n, err := other.Read(ctx, first, buf); err != nil || n != 1 || buf[0].ID != second {
		t.Errorf("a Read by XRANGE from before the entry of another writer: got %v, %v; want the event %s", buf[:n], err, second)
	}
	if n, err := other.Read(ctx, api.LogStart, buf); err != nil || n != 2 || buf[0].ID != first || buf[1].ID != second {
		t.Errorf("a Read from the start: got %v, %v; want the events %s and %s", buf[:n], err, first, second)
	}
	if err := srv.client().XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []string{"foo", "baz"}}).Err(); err != nil {
		t.Fatal(err)
	}
	end, err := other.End(ctx)
	if err != nil || end != second {
		t.Errorf("End, the stream's last entry another writer's: got %q, %v; want the log's last event %q", end, err, second)
	}
	rctx, rcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer rcancel()
	if n, err := other.Read(rctx, end, buf); n != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a Read from End: got %v, %v; want it to wait", buf[:n], err)
	}
	third, err := other.Append(ctx, "n", []byte(`3`))
	if err != nil {
		t.Fatalf("Append after another entry of another writer: %v", err)
	}
	if n, err := log.Read(ctx, second, buf); err != nil || n != 1 || buf[0].ID != third {
		t.Errorf("a Read after the second event: got %v, %v; want the event %s", buf[:n], err, third)
	}
}

// idAfter reports whether the stream entry ID a comes after b.
func idAfter(a, b string) bool {
	am, as, _ := strings.Cut(a, "-")
	bm, bs, _ := strings.Cut(b, "-")
	num := func(s string) uint64 { n, _ := strconv.ParseUint(s, 10, 64); return n }
	return num(am) > num(bm) || num(am) == num(bm) && num(as) > num(bs)
}

// TestEventLogEmptiedBelow: Redis comes back empty (FLUSHALL, or a
// restart without persistence) and the IDs it gives now are below those
// it gave before (the old ones were made by a clock ahead of this one:
// here an hour ahead, written as explicit IDs). A Read waiting after an
// old ID, and a Read after one this instance's window still holds, are
// told the log was reset (ErrGap) within Block, not left waiting until
// the clock passes the old IDs; a Read from the start gets the new
// events. Restarted, the waiting Read fails with the connection (a
// Feed's retry field), and the Read after the old ID is ErrGap.
func TestEventLogEmptiedBelow(t *testing.T) {
	t.Run("FLUSHALL", func(t *testing.T) {
		testEmptiedBelow(t, true, func(srv *redisServer) {
			if err := srv.client().FlushAll(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("restarted", func(t *testing.T) {
		testEmptiedBelow(t, false, func(srv *redisServer) {
			srv.kill()
			srv.start()
		})
	})
}

// testEmptiedBelow is TestEventLogEmptiedBelow with empty emptying
// Redis; gap says whether the Read that waited then is ErrGap (else any
// error).
func testEmptiedBelow(t *testing.T, gap bool, empty func(*redisServer)) {
	srv := startRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: true, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { rdb.Close() })
	key := uniquePrefix(t)
	const block = 300 * time.Millisecond
	log := redisstore.NewEventLog(rdb, key, redisstore.EventLogOptions{Timeout: time.Second, Block: block})
	ctx := context.Background()
	ahead := fmt.Sprintf("%d-0", time.Now().Add(time.Hour).UnixMilli())
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, ID: ahead, Values: []string{"n", "1", "e", "n", "d", "1"}}).Err(); err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() { // waits at the first event, so that the follower reads the second into its window
		n, err := log.Read(ctx, ahead, make([]api.LogEvent, 2))
		if err == nil && n != 1 {
			err = fmt.Errorf("%d events", n)
		}
		first <- err
	}()
	time.Sleep(100 * time.Millisecond)
	old, err := log.Append(ctx, "n", []byte(`2`))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatalf("a Read waiting after the first event: got %v, want the second", err)
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := log.Read(ctx, old, make([]api.LogEvent, 1))
		waiting <- err
	}()
	time.Sleep(100 * time.Millisecond) // the reader waits at the tail
	empty(srv)
	var fresh string
	for range 30 { // go-redis dials again within about a second
		if fresh, err = log.Append(ctx, "n", []byte(`new`)); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if idAfter(fresh, old) {
		t.Fatalf("the new ID %s is after the old %s: the case is not made", fresh, old)
	}
	select {
	case err := <-waiting:
		if err == nil || gap && !errors.Is(err, api.ErrGap) {
			t.Errorf("the Read waiting after %s: got %v, want ErrGap (gap %v) or another error", old, err, gap)
		}
	case <-time.After(block + 2*time.Second):
		t.Fatalf("the Read waiting after %s, Redis emptied: no answer within Block and 2 s", old)
	}
	rctx, cancel := context.WithTimeout(ctx, block+2*time.Second)
	defer cancel()
	if _, err := log.Read(rctx, old, make([]api.LogEvent, 1)); !errors.Is(err, api.ErrGap) {
		t.Errorf("a Read after %s, which the window held: got %v, want ErrGap", old, err)
	}
	buf := make([]api.LogEvent, 4)
	if n, err := log.Read(ctx, api.LogStart, buf); err != nil || n != 1 || buf[0].ID != fresh {
		t.Errorf("a Read from the start: got %v, %v; want the event %s", buf[:n], err, fresh)
	}
}

// TestEventLogForeignNumbered: entries another program added whose field
// n is no number the log writes ("-3", "1.5", "0x10", "007") or that
// hold more than the log's three fields are no events of the log, for
// the append script as for the reads: the script numbers the next event
// after the log's own last one, and a Read gets it. Before, the script
// took any n Lua's tonumber read (numbering the next event -2 or 2.5,
// which the reads then stepped over as no event: it was lost, and every
// event after it), or took an n in a field the reads saw differently.
func TestEventLogForeignNumbered(t *testing.T) {
	srv := startRedis(t)
	ctx := context.Background()
	for _, fields := range [][]string{
		{"n", "-3"},
		{"n", "1.5"},
		{"n", "0x10"},
		{"n", "007"},
		{"n", "5", "e", "x", "d", "y", "z", "1"},
		{"x", "1", "n", "5"},
	} {
		t.Run(strings.Join(fields, ","), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second) // a Read that waits for a lost event fails
			defer cancel()
			key := uniquePrefix(t) + strings.Join(fields, ",")
			log := redisstore.NewEventLog(srv.client(), key, redisstore.EventLogOptions{Timeout: time.Second})
			first, err := log.Append(ctx, "n", []byte(`1`))
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.client().XAdd(ctx, &redis.XAddArgs{Stream: key, Values: fields}).Err(); err != nil {
				t.Fatal(err)
			}
			second, err := log.Append(ctx, "n", []byte(`2`))
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]api.LogEvent, 4)
			if n, err := log.Read(ctx, first, buf); err != nil || n != 1 || buf[0].ID != second {
				t.Errorf("a Read after the first event: got %v, %v; want the event %s", buf[:n], err, second)
			}
			if n, err := log.Read(ctx, api.LogStart, buf); err != nil || n != 2 || buf[0].ID != first || buf[1].ID != second {
				t.Errorf("a Read from the start: got %v, %v; want the events %s and %s", buf[:n], err, first, second)
			}
			if end, err := log.End(ctx); err != nil || end != second {
				t.Errorf("End: got %q, %v; want %q", end, err, second)
			}
		})
	}
}

// TestEventLogForeignDeleted: another program adds an entry to the log's
// stream while a Read waits at the tail, then deletes it (XDEL, as a
// consumer of its own entries does). Nothing of the log was lost: the
// Read goes on waiting and gets the next event, where it got ErrGap, the
// follower finding neither the entry it stepped onto nor any after it.
func TestEventLogForeignDeleted(t *testing.T) {
	srv := startRedis(t)
	key := uniquePrefix(t)
	const block = 200 * time.Millisecond
	log := redisstore.NewEventLog(srv.client(), key, redisstore.EventLogOptions{Timeout: time.Second, Block: block})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first, err := log.Append(ctx, "n", []byte(`1`))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	buf := make([]api.LogEvent, 2)
	go func() {
		n, err := log.Read(ctx, first, buf)
		if err == nil && n != 1 {
			err = fmt.Errorf("%d events", n)
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // the reader waits at the tail
	foreign, err := srv.client().XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []string{"foo", "bar"}}).Result()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(block / 2) // the follower steps onto it
	if err := srv.client().XDel(ctx, key, foreign).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * block) // idle XREADs, each followed by the look for the tail's entry
	second, err := log.Append(ctx, "n", []byte(`2`))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || buf[0].ID != second {
		t.Errorf("the Read waiting after %s, an entry of another program added and deleted: got %v, %v; want the event %s", first, buf[0], err, second)
	}
}

// TestEventLogForeignDeletedAhead: a Read comes after an event the
// follower has not read yet (its XREAD's answer is held), which an entry
// of another program follows: the Read steps over that entry and waits
// after it, ahead of the follower. The entry is deleted (XDEL); the
// follower then brings the event, which wakes the Read, and its XRANGE
// from the entry finds nothing. Nothing of the log was lost: the Read
// goes on waiting and gets the next event, where it got ErrGap.
func TestEventLogForeignDeletedAhead(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	rdb.AddHook(slowXRead{delay: 300 * time.Millisecond})
	key := uniquePrefix(t)
	log := redisstore.NewEventLog(rdb, key, redisstore.EventLogOptions{Timeout: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first, err := log.Append(ctx, "n", []byte(`1`))
	if err != nil {
		t.Fatal(err)
	}
	behind := make(chan error, 1)
	go func() {
		_, err := log.Read(ctx, first, make([]api.LogEvent, 1))
		behind <- err
	}()
	time.Sleep(100 * time.Millisecond) // that reader waits; the follower's XREAD blocks
	second, err := log.Append(ctx, "n", []byte(`2`))
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []string{"foo", "bar"}}).Result()
	if err != nil {
		t.Fatal(err)
	}
	ahead := make(chan error, 1)
	buf := make([]api.LogEvent, 1)
	go func() {
		n, err := log.Read(ctx, second, buf)
		if err == nil && n != 1 {
			err = fmt.Errorf("%d events", n)
		}
		ahead <- err
	}()
	time.Sleep(50 * time.Millisecond) // it steps over the foreign entry and waits, while the follower's answer is held
	if err := rdb.XDel(ctx, key, foreign).Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-behind; err != nil {
		t.Fatalf("the Read after the first event: %v", err)
	}
	time.Sleep(500 * time.Millisecond) // the follower's answer came: the Read ahead woke
	third, err := log.Append(ctx, "n", []byte(`3`))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-ahead; err != nil || buf[0].ID != third {
		t.Errorf("the Read after %s, followed by an entry of another program, deleted: got %v, %v; want the event %s", second, buf[0], err, third)
	}
}

// addForeign adds n entries of another program to the stream key, in
// one script.
func addForeign(t *testing.T, rdb *redis.Client, key string, n int) {
	t.Helper()
	const script = `for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], '*', 'foo', 'bar') end`
	if err := rdb.Eval(context.Background(), script, []string{key}, n).Err(); err != nil && err != redis.Nil {
		t.Fatal(err)
	}
}

// TestEventLogForeignBound: Append and End step back over 1,000 entries
// of another program after the log's last event, and no more. Past
// that, both return an error that says so (Append adding nothing), and
// it is not Redis failing: the breakers stay closed. With 200,000 such
// entries, the append script does not hold Redis (single-threaded, so
// every client waits) for 20 ms or more, where it walked back through
// all of them.
func TestEventLogForeignBound(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	ctx := context.Background()
	const foreignErr = "more than 1000 entries of another program"

	t.Run("1000", func(t *testing.T) {
		key := uniquePrefix(t)
		log := redisstore.NewEventLog(rdb, key, redisstore.EventLogOptions{Timeout: time.Second})
		first, err := log.Append(ctx, "n", []byte(`1`))
		if err != nil {
			t.Fatal(err)
		}
		addForeign(t, rdb, key, 1000)
		if end, err := log.End(ctx); err != nil || end != first {
			t.Errorf("End after the event %s and 1,000 entries of another program: %q, %v", first, end, err)
		}
		second, err := log.Append(ctx, "n", []byte(`2`))
		if err != nil {
			t.Fatalf("Append after 1,000 entries of another program: %v", err)
		}
		if ms, err := rdb.XRange(ctx, key, second, second).Result(); err != nil || len(ms) != 1 || ms[0].Values["n"] != "2" {
			t.Errorf("the event appended after 1,000 entries of another program: %v, %v; want n 2", ms, err)
		}
	})

	t.Run("1001", func(t *testing.T) {
		key := uniquePrefix(t)
		log := redisstore.NewEventLog(rdb, key, redisstore.EventLogOptions{Timeout: time.Second})
		first, err := log.Append(ctx, "n", []byte(`1`))
		if err != nil {
			t.Fatal(err)
		}
		addForeign(t, rdb, key, 1001)
		for i := range 8 { // more than BreakAfter (5)
			if _, err := log.Append(ctx, "n", []byte(`2`)); err == nil || !strings.Contains(err.Error(), foreignErr) {
				t.Fatalf("Append %d after 1,001 entries of another program: %v; want %q", i, err, foreignErr)
			}
			if _, err := log.End(ctx); err == nil || !strings.Contains(err.Error(), foreignErr) {
				t.Fatalf("End %d after 1,001 entries of another program: %v; want %q", i, err, foreignErr)
			}
		}
		if _, err := log.Read(ctx, "", make([]api.LogEvent, 1)); err == nil || !strings.Contains(err.Error(), foreignErr) {
			t.Errorf("Read from the end: %v; want %q", err, foreignErr)
		}
		if n, _ := rdb.XLen(ctx, key).Result(); n != 1002 {
			t.Errorf("the stream holds %d entries, want 1,002: an Append that failed added one", n)
		}
		buf := make([]api.LogEvent, 1)
		if n, err := log.Read(ctx, api.LogStart, buf); err != nil || n != 1 || buf[0].ID != first {
			t.Errorf("Read from the start (the reads' breaker closed): %d, %v", n, err)
		}
		// Deleting the other program's entries ends the error.
		ms, err := rdb.XRange(ctx, key, "("+first, "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ID
		}
		if err := rdb.XDel(ctx, key, ids...).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := log.Append(ctx, "n", []byte(`2`)); err != nil {
			t.Errorf("Append once the entries were deleted: %v", err)
		}
	})

	t.Run("200000", func(t *testing.T) {
		key := uniquePrefix(t)
		log := redisstore.NewEventLog(rdb, key, redisstore.EventLogOptions{})
		if _, err := log.Append(ctx, "n", []byte(`1`)); err != nil {
			t.Fatal(err)
		}
		addForeign(t, rdb, key, 200_000)
		if err := rdb.ConfigSet(ctx, "slowlog-log-slower-than", "20000").Err(); err != nil {
			t.Fatal(err)
		}
		if err := rdb.SlowLogReset(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if _, err := log.Append(ctx, "n", []byte(`2`)); err == nil || !strings.Contains(err.Error(), foreignErr) {
			t.Errorf("Append after 200,000 entries of another program: %v; want %q", err, foreignErr)
		}
		if _, err := log.End(ctx); err == nil || !strings.Contains(err.Error(), foreignErr) {
			t.Errorf("End after 200,000 entries of another program: %v; want %q", err, foreignErr)
		}
		time.Sleep(time.Second) // a script that outlived Append's deadline ends
		slow, err := rdb.SlowLogGet(ctx, 10).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range slow {
			t.Errorf("Redis ran %v for %v", s.Args, s.Duration)
		}
	})
}

// TestEventLogIdleBlocks: a Read waits at the tail of a quiet log
// through a dozen idle XREADs, then gets the next event. Redis answers
// an XREAD BLOCK that found nothing on its timer (hz 10: up to 100 ms
// late), so the follower's deadline of Block and Timeout (50 ms here)
// passed before the answer on most of them, and the Read failed.
func TestEventLogIdleBlocks(t *testing.T) {
	srv := startRedis(t)
	const block = 200 * time.Millisecond
	log := redisstore.NewEventLog(srv.client(), uniquePrefix(t), redisstore.EventLogOptions{Timeout: 50 * time.Millisecond, Block: block})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, err := log.Append(ctx, "n", []byte(`1`))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	buf := make([]api.LogEvent, 1)
	go func() {
		_, err := log.Read(ctx, first, buf)
		done <- err
	}()
	time.Sleep(12 * block)
	second, err := log.Append(ctx, "n", []byte(`2`))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || buf[0].ID != second {
		t.Errorf("the Read waiting at the tail of a quiet log: got %v, %v; want the event %s", buf[0], err, second)
	}
}
