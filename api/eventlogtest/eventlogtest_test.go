package eventlogtest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz/internal/testhelp"

	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/api/eventlogtest"
)

// TestMemoryLog runs the kit on api.MemoryLog.
func TestMemoryLog(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T, keep int) func() api.EventLog {
		log := api.NewMemoryLog(keep)
		return func() api.EventLog { return log }
	})
}

// fault is one way a log can be wrong. The zero fault is a correct log.
type fault struct {
	reorder      bool // swaps the first two events of a read
	silentGap    bool // a position older than kept reads from the oldest kept
	unbounded    bool // never drops an event
	keepHalf     bool // keeps half of what it was asked to
	again        bool // a Read after an ID starts with that ID's event
	startIsEnd   bool // LogStart reads as ""
	endIsStart   bool // "" reads as LogStart
	racy         bool // appends without holding its lock throughout
	noCancel     bool // a waiting Read does not see its context end
	cancelAppend bool // appends with a done context
	foreign      bool // takes any number as an ID of its own
	lateWake     bool // a waiting Read looks again only every second
	cutData      bool // keeps data up to its first zero byte
	endNoneStart bool // End on an empty log is LogStart, which never reports a gap
	endIsLast    bool // End is the event before the last
}

// wrongLogs are logs each with one fault, and the check that must catch
// it: the kit is only as good as the wrong logs it refuses.
var wrongLogs = map[string]struct {
	f     fault
	check string
}{
	"reorders":             {fault{reorder: true}, "Order"},
	"silent gap":           {fault{silentGap: true}, "Retention"},
	"unbounded":            {fault{unbounded: true}, "Retention"},
	"keeps too few":        {fault{keepHalf: true}, "Retention"},
	"repeats":              {fault{again: true}, "Resume"},
	"start is the end":     {fault{startIsEnd: true}, "Start"},
	"end is the start":     {fault{endIsStart: true}, "Start"},
	"racy append":          {fault{racy: true}, "Concurrent"},
	"ignores cancel":       {fault{noCancel: true}, "Cancelled"},
	"appends on cancel":    {fault{cancelAppend: true}, "Cancelled"},
	"takes foreign IDs":    {fault{foreign: true}, "Unknown"},
	"wakes late":           {fault{lateWake: true}, "Wait"},
	"cuts data at a zero":  {fault{cutData: true}, "Data"},
	"end of none is start": {fault{endNoneStart: true}, "End"},
	"end is one short":     {fault{endIsLast: true}, "End"},
}

// TestKitRefusesWrongLogs runs the kit, in a child process of this test
// binary, on a correct log (it must pass) and on each wrong log (it must
// fail, in the check that looks for that fault).
func TestKitRefusesWrongLogs(t *testing.T) {
	if name, ok := os.LookupEnv("EVENTLOGTEST_CHILD"); ok {
		f := wrongLogs[name].f
		eventlogtest.Run(t, func(t *testing.T, keep int) func() api.EventLog {
			l := newLog(f, keep)
			return func() api.EventLog { return l }
		})
		return
	}
	checks := map[string]string{}
	for name, w := range wrongLogs {
		checks[name] = w.check
	}
	testhelp.KitRefuses(t, "TestKitRefusesWrongLogs", "EVENTLOGTEST_CHILD", checks, "log")
}

// TestKitFaultNames keeps each wrong log's check a check the kit has.
func TestKitFaultNames(t *testing.T) {
	checks := "Order Resume Start End Wait Retention Unknown Data Concurrent Cancelled"
	for name, w := range wrongLogs {
		if !slices.Contains(strings.Fields(checks), w.check) {
			t.Errorf("wrong log %q: got check %q, want one of %s", name, w.check, checks)
		}
	}
}

// log is an EventLog in memory, correct but for its fault: IDs are
// "<tag>.<n>", n from 1.
type log struct {
	f    fault
	tag  string
	keep int

	mu     sync.Mutex
	events []api.LogEvent // events[i] is number first+i
	first  int
	last   int
	next   chan struct{}
}

var tags sync.Map

func newLog(f fault, keep int) *log {
	if f.keepHalf {
		keep /= 2
	}
	n := 0
	tags.Range(func(any, any) bool { n++; return true })
	tag := fmt.Sprintf("L%d", n)
	tags.Store(tag, true)
	return &log{f: f, tag: tag, keep: keep, first: 1, next: make(chan struct{})}
}

func (l *log) Append(ctx context.Context, name string, data []byte) (string, error) {
	if err := ctx.Err(); err != nil && !l.f.cancelAppend {
		return "", err
	}
	if l.f.cutData {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			data = data[:i]
		}
	}
	var id string
	if l.f.racy {
		l.mu.Lock()
		n := l.last + 1
		l.mu.Unlock()
		runtime.Gosched()
		l.mu.Lock()
		id = l.tag + "." + strconv.Itoa(n)
		l.events = append(l.events, api.LogEvent{ID: id, Name: name, Data: data})
		l.last = n
	} else {
		l.mu.Lock()
		l.last++
		id = l.tag + "." + strconv.Itoa(l.last)
		l.events = append(l.events, api.LogEvent{ID: id, Name: name, Data: data})
	}
	if !l.f.unbounded && len(l.events) > l.keep {
		l.first += len(l.events) - l.keep
		l.events = slices.Clone(l.events[len(l.events)-l.keep:])
	}
	next := l.next
	l.next = make(chan struct{})
	l.mu.Unlock()
	close(next)
	if l.f.cancelAppend && ctx.Err() != nil {
		return id, ctx.Err()
	}
	return id, nil
}

func (l *log) End(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.last
	if l.f.endIsLast && n > 0 {
		n--
	}
	if n == 0 && l.f.endNoneStart {
		return api.LogStart, nil
	}
	return l.tag + "." + strconv.Itoa(n), nil
}

func (l *log) Read(ctx context.Context, after string, into []api.LogEvent) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	l.mu.Lock()
	pos := l.last
	switch {
	case after == api.LogStart && !l.f.startIsEnd || after == "" && l.f.endIsStart:
		pos = l.first - 1
	case after == "" || after == api.LogStart:
	default:
		num, ok := strings.CutPrefix(after, l.tag+".")
		if l.f.foreign {
			_, num, ok = strings.Cut(after, ".")
		}
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 0 || n > l.last {
			l.mu.Unlock()
			return 0, fmt.Errorf("%w: %q", api.ErrGap, after)
		}
		pos = n
		if l.f.again {
			pos--
		}
	}
	l.mu.Unlock()
	for {
		l.mu.Lock()
		if pos < l.first-1 {
			if !l.f.silentGap {
				l.mu.Unlock()
				return 0, fmt.Errorf("%w: %d", api.ErrGap, pos)
			}
			pos = l.first - 1
		}
		if pos < l.last {
			k := copy(into, l.events[pos-l.first+1:])
			if l.f.reorder && k > 1 {
				into[0], into[1] = into[1], into[0]
			}
			l.mu.Unlock()
			return k, nil
		}
		next := l.next
		l.mu.Unlock()
		var late <-chan time.Time
		if l.f.lateWake {
			next, late = nil, time.After(time.Second)
		}
		done := ctx.Done()
		if l.f.noCancel {
			done = nil
			if next == nil {
				next = make(chan struct{}) // only the timer wakes it
			}
		}
		select {
		case <-done:
			return 0, ctx.Err()
		case <-next:
		case <-late:
		}
	}
}
