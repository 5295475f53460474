// Package eventlogtest checks that an [api.EventLog] keeps events as a
// [api.Feed] needs them: a log's own tests call [Run] with a constructor,
// and every check runs against the logs it makes.
//
//	func TestEventLogConformance(t *testing.T) {
//		eventlogtest.Run(t, func(t *testing.T, keep int) func() api.EventLog {
//			log := api.NewMemoryLog(keep)
//			return func() api.EventLog { return log }
//		})
//	}
//
// The checks wait on real time only where a Read must block (a few
// hundred milliseconds); run in parallel, the kit takes about a second
// on a log in memory.
package eventlogtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz/api"
)

// Run runs every check as a parallel subtest of t. newLog makes a new,
// empty log that keeps at least the last keep events (and may keep a
// few more, as a Redis stream trimmed with MAXLEN ~ does), and returns
// the function that opens a handle to it: each call is another
// instance's handle to the same log (for a log in the process, the log
// itself). newLog must be safe to call from several goroutines; a log
// on a shared store takes a key of its own each time.
//
// The checks:
//   - Order: events appended one after another come back in that order,
//     with the IDs Append returned, through another handle, in reads of
//     any size.
//   - Resume: a Read after each ID starts with the next event, never the
//     same one again, and one after the last waits.
//   - Start: LogStart reads from the oldest event kept; "" only the
//     events appended after the Read began.
//   - End: End is the last event's ID, or on an empty log a position
//     (neither "" nor with CR, LF or NUL) after which a Read, through
//     another handle, waits, then returns the events appended after,
//     from the first, and reports api.ErrGap once that one is dropped.
//   - Wait: a Read that waits returns as soon as an event is appended,
//     through any handle (within half a second).
//   - Retention: a log keeps at least the last keep events, is bounded
//     (the oldest of many times more are dropped), and a Read after an
//     ID whose next event is dropped reports api.ErrGap, never a later
//     event; LogStart never does.
//   - Unknown: an ID the log never gave (another log's, given a few
//     milliseconds before, or a made-up one) reports api.ErrGap.
//   - Data: names and data come back byte for byte (every byte value, 64
//     KiB of data).
//   - Concurrent: events appended from 8 goroutines at once are read by
//     4 readers as one order, each once, each goroutine's in its order.
//   - Cancelled: with a context already done, Append appends nothing and
//     Read and End return at once, each with an error that wraps the
//     context's;
//     a waiting Read returns when its context is cancelled.
func Run(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	t.Helper()
	for _, c := range []struct {
		name string
		run  func(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog)
	}{
		{"Order", order},
		{"Resume", resume},
		{"Start", start},
		{"End", end},
		{"Wait", wait},
		{"Retention", retention},
		{"Unknown", unknown},
		{"Data", data},
		{"Concurrent", concurrent},
		{"Cancelled", cancelled},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newLog)
		})
	}
}

// patience is how long a check waits for a Read that must return, and
// blocking is how long one that must wait is given to return anyway.
const (
	patience = 2 * time.Second
	blocking = 200 * time.Millisecond
)

// woken is the most a waiting Read may take to return once an event is
// appended, and a call with a done context to return: "at once", on a
// machine that may be busy.
const woken = 500 * time.Millisecond

// appendN appends n events named name with the data {"n":i} through l
// and returns their IDs.
func appendN(t *testing.T, l api.EventLog, name string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		id, err := l.Append(context.Background(), name, fmt.Appendf(nil, `{"n":%d}`, i))
		if err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
		if id == "" || strings.ContainsAny(id, "\r\n\x00") || id == api.LogStart {
			t.Fatalf("Append %d: got ID %q, want one that is neither empty, nor LogStart, nor holds CR, LF or NUL", i, id)
		}
		ids[i] = id
	}
	return ids
}

// read reads through l from after until it has n events or patience
// runs out, in reads of at most batch events.
func read(t *testing.T, l api.EventLog, after string, n, batch int) ([]api.LogEvent, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	var got []api.LogEvent
	buf := make([]api.LogEvent, batch)
	for len(got) < n {
		k, err := l.Read(ctx, after, buf[:min(batch, n-len(got))])
		if err != nil {
			return got, err
		}
		if k == 0 {
			return got, errors.New("the log's Read returned no event and no error")
		}
		for _, ev := range buf[:k] {
			got = append(got, api.LogEvent{ID: ev.ID, Name: ev.Name, Data: bytes.Clone(ev.Data)})
		}
		after = buf[k-1].ID
	}
	return got, nil
}

// mustWait fails t unless a Read through l after after waits (returns
// only when its context ends, with an error wrapping the context's).
func mustWait(t *testing.T, l api.EventLog, after, why string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), blocking)
	defer cancel()
	done := make(chan struct{})
	var (
		n   int
		err error
	)
	go func() {
		defer close(done)
		n, err = l.Read(ctx, after, make([]api.LogEvent, 4))
	}()
	select {
	case <-done:
	case <-time.After(blocking + patience):
		t.Fatalf("%s: Read did not return %v after its context's deadline", why, patience)
	}
	if n != 0 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%s: got %d events, %v; want the Read to wait until its deadline, and its error", why, n, err)
	}
}

// ids returns the IDs of evs.
func ids(evs []api.LogEvent) []string {
	s := make([]string, len(evs))
	for i, ev := range evs {
		s[i] = ev.ID
	}
	return s
}

func order(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	open := newLog(t, 100)
	w := appendN(t, open(), "n", 50)
	for _, batch := range []int{1, 3, 64} {
		got, err := read(t, open(), api.LogStart, 50, batch)
		if err != nil {
			t.Fatalf("reads of %d: %v", batch, err)
		}
		if !slices.Equal(ids(got), w) {
			t.Fatalf("reads of %d: got IDs %q, want the appended %q", batch, ids(got), w)
		}
		for i, ev := range got {
			if want := fmt.Sprintf(`{"n":%d}`, i); ev.Name != "n" || string(ev.Data) != want {
				t.Fatalf("reads of %d: event %d is %q %s, want n %s", batch, i, ev.Name, ev.Data, want)
			}
		}
	}
}

func resume(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	open := newLog(t, 100)
	w := appendN(t, open(), "n", 20)
	for i, id := range w[:len(w)-1] {
		got, err := read(t, open(), id, 1, 1)
		if err != nil || len(got) != 1 || got[0].ID != w[i+1] {
			t.Fatalf("a Read after event %d (%q): got %q, %v; want event %d (%q)", i, id, ids(got), err, i+1, w[i+1])
		}
	}
	mustWait(t, open(), w[len(w)-1], "a Read after the last event")
}

func start(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	open := newLog(t, 100)
	mustWait(t, open(), api.LogStart, "LogStart on an empty log")
	mustWait(t, open(), "", `"" on an empty log`)
	w := appendN(t, open(), "n", 3)
	got, err := read(t, open(), api.LogStart, 3, 8)
	if err != nil || !slices.Equal(ids(got), w) {
		t.Fatalf("LogStart: got %q, %v; want every event %q", ids(got), err, w)
	}
	mustWait(t, open(), "", `"" on a log of 3 events`)
	// A Read from "" returns an event appended after it began: events
	// are appended until it returns, since when it began is its own.
	res := make(chan []api.LogEvent, 1)
	go func() {
		got, err := read(t, open(), "", 1, 8)
		if err != nil {
			t.Error(err)
		}
		res <- got
	}()
	var later []string
	for {
		select {
		case got := <-res:
			if len(got) != 1 || !slices.Contains(later, got[0].ID) {
				t.Fatalf(`"" while events are appended: got %q, want one of those appended after the Read began %q`, ids(got), later)
			}
			return
		case <-time.After(50 * time.Millisecond):
			if len(later) == 100 {
				t.Fatal(`"" while events are appended: the Read did not return`)
			}
			later = append(later, appendN(t, open(), "n", 1)...)
		}
	}
}

func end(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	const keep = 10
	open := newLog(t, keep)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	empty, err := open().End(ctx)
	if err != nil || empty == "" || strings.ContainsAny(empty, "\r\n\x00") {
		t.Fatalf("End on an empty log: got %q, %v; want a position that is not \"\" and holds no CR, LF or NUL", empty, err)
	}
	mustWait(t, open(), empty, "after End of an empty log")
	w := appendN(t, open(), "n", 3)
	got, err := read(t, open(), empty, 3, 8)
	if err != nil || !slices.Equal(ids(got), w) {
		t.Fatalf("after End of the empty log (%q): got %q, %v; want every event appended after %q", empty, ids(got), err, w)
	}
	last, err := open().End(ctx)
	if err != nil || last != w[2] {
		t.Fatalf("End of a log of 3 events: got %q, %v; want the last one's ID %q", last, err, w[2])
	}
	mustWait(t, open(), last, "after End of a log of 3 events")
	// Kept and given again after the events after it were dropped, it
	// is a gap, never a later event.
	appendN(t, open(), "n", 100*keep)
	for _, p := range []string{empty, last} {
		if got, err := read(t, open(), p, 1, 1); !errors.Is(err, api.ErrGap) {
			t.Errorf("after End %q, 1,000 events later (keep %d): got %q, %v; want ErrGap", p, keep, ids(got), err)
		}
	}
}

func wait(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	open := newLog(t, 100)
	w := appendN(t, open(), "n", 1)
	reader, writer := open(), open()
	for round := range 5 {
		res := make(chan error, 1)
		var got []api.LogEvent
		go func() {
			var err error
			got, err = read(t, reader, w[len(w)-1], 1, 1)
			res <- err
		}()
		time.Sleep(20 * time.Millisecond)
		w = append(w, appendN(t, writer, "n", 1)...)
		at := time.Now()
		select {
		case err := <-res:
			if err != nil || got[0].ID != w[len(w)-1] {
				t.Fatalf("round %d: got %q, %v; want %q", round, ids(got), err, w[len(w)-1])
			}
		case <-time.After(woken):
			t.Fatalf("round %d: a waiting Read did not return within %v of the Append", round, woken)
		}
		if d := time.Since(at); d > woken {
			t.Fatalf("round %d: the Read returned %v after the Append, want within %v", round, d, woken)
		}
	}
}

func retention(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	const keep, n = 10, 1000
	open := newLog(t, keep)
	w := appendN(t, open(), "n", n)
	// The last keep events are kept, in order.
	got, err := read(t, open(), w[n-keep-1], keep, keep)
	if err != nil || !slices.Equal(ids(got), w[n-keep:]) {
		t.Fatalf("after event %d of %d (keep %d): got %q, %v; want the last %d", n-keep-1, n, keep, ids(got), err, keep)
	}
	// Bounded: the oldest are gone, as a gap.
	if _, err := read(t, open(), w[0], 1, 1); !errors.Is(err, api.ErrGap) {
		t.Fatalf("after event 0 of %d (keep %d): got %v, want ErrGap: the log must drop old events", n, keep, err)
	}
	// Every position answers the next event or ErrGap, the gaps first.
	kept := false
	for i, id := range w[:n-1] {
		got, err := read(t, open(), id, 1, 1)
		switch {
		case errors.Is(err, api.ErrGap):
			if kept {
				t.Fatalf("after event %d: ErrGap, but a Read after an older event was answered", i)
			}
		case err != nil:
			t.Fatalf("after event %d: %v", i, err)
		case got[0].ID != w[i+1]:
			t.Fatalf("after event %d: got %q, want event %d (%q) or ErrGap: a silent gap", i, got[0].ID, i+1, w[i+1])
		default:
			kept = true
		}
	}
	// LogStart reads what is kept, in order, ending with the last.
	buf := make([]api.LogEvent, n)
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	k, err := open().Read(ctx, api.LogStart, buf)
	if err != nil || k < keep || k == n {
		t.Fatalf("LogStart: got %d events, %v; want at least %d and fewer than %d", k, err, keep, n)
	}
	first := slices.Index(w, buf[0].ID)
	if first < 0 {
		t.Fatalf("LogStart began with %q, no ID Append returned", buf[0].ID)
	}
	all, err := read(t, open(), buf[0].ID, n-1-first, n)
	if err != nil || !slices.Equal(ids(all), w[first+1:]) {
		t.Fatalf("LogStart began with %q (event %d): got the rest %d events, %v; want every later event", buf[0].ID, first, len(all), err)
	}
}

func unknown(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	open := newLog(t, 100)
	otherOpen := newLog(t, 100)
	other := appendN(t, otherOpen(), "n", 5)
	// Later: a log whose IDs are times (a Redis stream's) may give the
	// very IDs another gave in the same millisecond, which no log can
	// tell from its own.
	time.Sleep(5 * time.Millisecond)
	appendN(t, open(), "n", 5)
	for _, id := range []string{other[0], other[4], "x", "1", "99999999999999-0", "-"} {
		if _, err := read(t, open(), id, 1, 1); !errors.Is(err, api.ErrGap) {
			t.Errorf("after %q, no ID of this log: got %v, want ErrGap", id, err)
		}
	}
}

func data(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	open := newLog(t, 100)
	var every []byte
	for b := range 256 {
		every = append(every, byte(b))
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	want := []api.LogEvent{
		{Name: "bytes", Data: every},
		{Name: "big", Data: big},
		{Name: "json", Data: []byte(`{"s":"\u0000 é \n","n":[1,2]}`)},
		{Name: "a-longer.name_with:colon", Data: []byte(`0`)},
	}
	for i := range want {
		id, err := open().Append(context.Background(), want[i].Name, want[i].Data)
		if err != nil {
			t.Fatal(err)
		}
		want[i].ID = id
	}
	got, err := read(t, open(), api.LogStart, len(want), 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Name != want[i].Name || !bytes.Equal(got[i].Data, want[i].Data) {
			t.Errorf("event %d: got %q %q (%d bytes), want %q %q (%d bytes)", i, got[i].ID, got[i].Name, len(got[i].Data),
				want[i].ID, want[i].Name, len(want[i].Data))
		}
	}
}

func concurrent(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	const writers, each, readers = 8, 100, 4
	open := newLog(t, writers*each)
	var wg sync.WaitGroup
	got := make([][]api.LogEvent, readers)
	for r := range readers {
		wg.Go(func() {
			var err error
			if got[r], err = read(t, open(), api.LogStart, writers*each, 16); err != nil {
				t.Errorf("reader %d: after %d events: %v", r, len(got[r]), err)
			}
		})
	}
	for w := range writers {
		wg.Go(func() {
			l := open()
			for i := range each {
				if _, err := l.Append(context.Background(), fmt.Sprint("w", w), fmt.Appendf(nil, "%d", i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for r := range readers {
		if !slices.Equal(ids(got[r]), ids(got[0])) {
			t.Fatalf("readers 0 and %d saw different orders", r)
		}
	}
	next := map[string]int{}
	seen := map[string]bool{}
	for _, ev := range got[0] {
		if seen[ev.ID] {
			t.Fatalf("ID %q read twice", ev.ID)
		}
		seen[ev.ID] = true
		if want := fmt.Sprint(next[ev.Name]); string(ev.Data) != want {
			t.Fatalf("writer %s: got its event %s, want %s: each writer's events in its order, each once", ev.Name, ev.Data, want)
		}
		next[ev.Name]++
	}
}

func cancelled(t *testing.T, newLog func(t *testing.T, keep int) func() api.EventLog) {
	open := newLog(t, 100)
	w := appendN(t, open(), "n", 1)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, ctx := range []context.Context{done, past} {
		at := time.Now()
		id, err := open().Append(ctx, "n", []byte("1"))
		if err == nil || !errors.Is(err, ctx.Err()) {
			t.Errorf("Append with a done context: got %q, %v; want an error wrapping %v", id, err, ctx.Err())
		}
		n, err := open().Read(ctx, w[0], make([]api.LogEvent, 1))
		if n != 0 || !errors.Is(err, ctx.Err()) {
			t.Errorf("Read with a done context: got %d, %v; want 0 and an error wrapping %v", n, err, ctx.Err())
		}
		if p, err := open().End(ctx); !errors.Is(err, ctx.Err()) {
			t.Errorf("End with a done context: got %q, %v; want an error wrapping %v", p, err, ctx.Err())
		}
		if d := time.Since(at); d > woken {
			t.Errorf("with a done context: Append, Read and End took %v, want at once", d)
		}
	}
	mustWait(t, open(), w[0], "after a cancelled Append")
	// A waiting Read returns when its context is cancelled.
	ctx, cancel3 := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() {
		_, err := open().Read(ctx, w[0], make([]api.LogEvent, 1))
		res <- err
	}()
	time.Sleep(blocking / 2)
	cancel3()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a waiting Read, cancelled: got %v, want an error wrapping context.Canceled", err)
		}
	case <-time.After(patience):
		t.Errorf("a waiting Read did not return within %v of its cancel", patience)
	}
}
