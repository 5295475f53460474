package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

type fdChange struct {
	Created *evItem `event:"created"`
	Deleted *evGone `event:"deleted"`
	Reset   *Reset  `event:"reset" doc:"events were missed"`
}

type fdIn struct {
	LastID string `header:"Last-Event-ID"`
}

type fdOut struct {
	Body Events[fdChange]
}

// fdRouter serves GET /changes from feed.
func fdRouter(feed *Feed[fdChange]) *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodGet, "/changes", func(c *waltz.Context, in *fdIn) (*fdOut, error) {
		return &fdOut{Body: feed.Follow(in.LastID)}, nil
	}, Operation{ID: "changes"})
	return r
}

// fdStream opens GET /changes on srv with the Last-Event-ID last ("" for
// none) and returns its reader; the stream ends with the test.
func fdStream(t *testing.T, srv *httptest.Server, last string) *bufio.Reader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/changes", nil)
	if last != "" {
		req.Header.Set("Last-Event-ID", last)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("got %d, want 200", resp.StatusCode)
	}
	return bufio.NewReader(resp.Body)
}

// want reads events from br and fails t unless they are want, each as
// "id event data".
func wantEvents(t *testing.T, br *bufio.Reader, want ...string) {
	t.Helper()
	var last string
	var comments []string
	for i, w := range want {
		prev := last
		ev, err := readEvent(t, br, &last, &comments)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		id := ev.ID
		if last == prev {
			id = "-" // no id field of its own
		}
		if got := id + " " + ev.Event + " " + ev.Data; got != w {
			t.Errorf("event %d: got %q, want %q", i, got, w)
		}
	}
}

func publish(t *testing.T, f *Feed[fdChange], ev fdChange) string {
	t.Helper()
	id, err := f.Publish(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestFeedResume: a stream starts after the client's Last-Event-ID, with
// the log's IDs as its ids, and goes on with what is published after.
func TestFeedResume(t *testing.T) {
	feed := NewFeed[fdChange](NewMemoryLog(10))
	srv := httptest.NewServer(fdRouter(feed))
	t.Cleanup(srv.Close)
	id1 := publish(t, feed, fdChange{Created: &evItem{ID: 1, Name: "a"}})
	id2 := publish(t, feed, fdChange{Deleted: &evGone{ID: 1}})
	br := fdStream(t, srv, id1)
	wantEvents(t, br, id2+` deleted {"id":1}`)
	id3 := publish(t, feed, fdChange{Created: &evItem{ID: 2, Name: "b"}})
	wantEvents(t, br, id3+` created {"id":2,"name":"b"}`)

	// From the start, everything kept; with no Last-Event-ID, what comes.
	wantEvents(t, fdStream(t, srv, LogStart), id1+` created {"id":1,"name":"a"}`, id2+` deleted {"id":1}`, id3+` created {"id":2,"name":"b"}`)
	now := fdStream(t, srv, "")
	time.Sleep(50 * time.Millisecond) // the stream reads the log's end first
	id4 := publish(t, feed, fdChange{Deleted: &evGone{ID: 2}})
	wantEvents(t, now, id4+` deleted {"id":2}`)
}

// TestFeedReset: an ID older than the log keeps, or another log's, gets
// the reset event (the id LogStart, the client's ID as its data) and
// then every event kept, from the oldest: nothing missed in silence.
func TestFeedReset(t *testing.T) {
	feed := NewFeed[fdChange](NewMemoryLog(2))
	srv := httptest.NewServer(fdRouter(feed))
	t.Cleanup(srv.Close)
	var ids []string
	for i := range 4 {
		ids = append(ids, publish(t, feed, fdChange{Deleted: &evGone{ID: int64(i)}}))
	}
	other, _ := NewMemoryLog(2).Append(context.Background(), "deleted", []byte(`{}`))
	// After the last event dropped, nothing is missing.
	wantEvents(t, fdStream(t, srv, ids[1]), ids[2]+` deleted {"id":2}`, ids[3]+` deleted {"id":3}`)
	for _, last := range []string{ids[0], other, "7", "x"} {
		t.Run(last, func(t *testing.T) {
			wantEvents(t, fdStream(t, srv, last), `0 reset {"lastEventId":"`+last+`"}`, ids[2]+` deleted {"id":2}`, ids[3]+` deleted {"id":3}`)
		})
	}
	// The document names the reset event, of the Reset schema.
	var doc struct {
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal(OpenAPI(fdRouter(feed), Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	if s := string(doc.Components.Schemas["Reset"]); !strings.Contains(s, `"lastEventId"`) {
		t.Errorf("components: Reset is %s, want its schema", s)
	}
}

// TestFeedSkipsUndeclared: an event of a name the set does not declare
// (another version's, in a shared log) is not sent; its ID still moves
// the stream on.
func TestFeedSkipsUndeclared(t *testing.T) {
	log := NewMemoryLog(10)
	feed := NewFeed[fdChange](log)
	srv := httptest.NewServer(fdRouter(feed))
	t.Cleanup(srv.Close)
	log.Append(context.Background(), "renamed", []byte(`{"id":1}`))
	id := publish(t, feed, fdChange{Deleted: &evGone{ID: 2}})
	wantEvents(t, fdStream(t, srv, LogStart), id+` deleted {"id":2}`)
}

// failingLog is a log whose Reads fail, as one whose store is down.
type failingLog struct{ reads atomic.Int64 }

func (l *failingLog) Append(context.Context, string, []byte) (string, error) {
	return "", errors.New("down")
}

func (l *failingLog) End(context.Context) (string, error) { return "", errors.New("down") }

func (l *failingLog) Read(context.Context, string, []LogEvent) (int, error) {
	l.reads.Add(1)
	return 0, errors.New("down")
}

// TestFeedRetry: a log that cannot be read ends the stream with a retry
// field alone (no event dispatched), the Feed's Retry in milliseconds
// and up to half again, at random (twenty streams do not all ask the
// same); twenty failures in a row log one line, not twenty.
func TestFeedRetry(t *testing.T) {
	var logs strings.Builder
	log := &failingLog{}
	feed := NewFeed[fdChange](log)
	feed.Retry = 1500 * time.Millisecond
	feed.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	srv := httptest.NewServer(fdRouter(feed))
	t.Cleanup(srv.Close)
	seen := map[int]bool{}
	for range 20 {
		body, err := io.ReadAll(fdStream(t, srv, "3"))
		var ms int
		if n, _ := fmt.Sscanf(string(body), "retry: %d\n\n", &ms); err != nil || n != 1 || ms < 1500 || ms >= 2250 ||
			string(body) != fmt.Sprintf("retry: %d\n\n", ms) {
			t.Fatalf("got %q, %v; want the retry field alone, 1500 to 2249 ms, then the end", body, err)
		}
		seen[ms] = true
	}
	if len(seen) < 5 {
		t.Errorf("twenty streams asked %d reconnection times, want them spread: %v", len(seen), seen)
	}
	if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), "err=down") {
		t.Errorf("got %d log lines, want 1 naming the error:\n%s", n, logs.String())
	}
	if _, err := feed.Publish(context.Background(), fdChange{Created: &evItem{}}); err == nil {
		t.Error("Publish to a failing log: got no error")
	}
	if _, err := feed.Publish(context.Background(), fdChange{}); err == nil {
		t.Error("Publish of no event: got no error")
	}
}

type fdNoReset struct {
	Created *evItem `event:"created"`
}

type fdTwoResets struct {
	A *Reset `event:"a"`
	B *Reset `event:"b"`
}

func TestNewFeedPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"nil log", func() { NewFeed[fdChange](nil) }, "the log is nil"},
		{"no reset", func() { NewFeed[fdNoReset](NewMemoryLog(1)) }, "no field of type *api.Reset"},
		{"two resets", func() { NewFeed[fdTwoResets](NewMemoryLog(1)) }, "both *api.Reset"},
		{"not a set", func() { NewFeed[int](NewMemoryLog(1)) }, "an event set must be a struct"},
		{"size 0", func() { NewMemoryLog(0) }, "keeps at least one event"},
	} {
		msg := panicMessage(tc.f)
		if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: panic got %q, want one starting \"waltz: \" with %q", tc.name, msg, tc.want)
		}
	}
}

// countWriter is a flushing writer that cancels a context once it has
// written n events.
type countWriter struct {
	flushNopWriter
	n      int
	cancel context.CancelFunc
}

func (w *countWriter) Write(b []byte) (int, error) {
	if w.n--; w.n == 0 {
		w.cancel()
	}
	return len(b), nil
}

// TestFeedAllocs: a stream that follows a memory log costs no more
// allocations per event than a typed Send of the same event does (the
// cost of Events[E] before logs): the count is the difference between
// following 2,000 events and 1,000, over 1,000, so the stream's own
// setup is not spread over the events.
func TestFeedAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	log := NewMemoryLog(4000)
	feed := NewFeed[fdChange](log)
	item := &evItem{ID: 42, Name: "answer"}
	for range 2000 {
		publish(t, feed, fdChange{Created: item})
	}
	follow := func(n int) float64 {
		return testing.AllocsPerRun(20, func() {
			ctx, cancel := context.WithCancel(context.Background())
			w := &countWriter{flushNopWriter: flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}, n: n, cancel: cancel}
			_ = feed.Follow(LogStart)(&EventSender[fdChange]{es: testStream(w, ctx), plan: feed.plan})
		})
	}
	perEvent := (follow(2000) - follow(1000)) / 1000

	w := &flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}
	s := &EventSender[fdChange]{es: testStream(w, context.Background()), plan: feed.plan}
	send := func() { _ = s.Send("42", fdChange{Created: item}) }
	send()
	sendN := testing.AllocsPerRun(100, send)
	t.Logf("allocations per event: following a memory log %.3f, a typed Send %.0f", perEvent, sendN)
	if perEvent > sendN {
		t.Errorf("following a memory log: got %.3f allocs per event, want at most a typed Send's %.0f", perEvent, sendN)
	}
}

// TestFeedFromNow: a stream from now on starts with the log's end as an
// id field alone, which dispatches no event, so that a client that comes
// back with it before any event came gets what was published while it
// was away; the end of an empty log is a position too.
func TestFeedFromNow(t *testing.T) {
	log := NewMemoryLog(10)
	feed := NewFeed[fdChange](log)
	srv := httptest.NewServer(fdRouter(feed))
	t.Cleanup(srv.Close)
	var ids []string
	for round := range 2 {
		end, err := log.End(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if round == 1 && end != ids[0] {
			t.Fatalf("End after one event: got %q, want its ID %q", end, ids[0])
		}
		br := fdStream(t, srv, "")
		lines := make(chan string, 1)
		go func() {
			first, _ := br.ReadString('\n')
			blank, _ := br.ReadString('\n')
			lines <- first + blank
		}()
		var got string
		select {
		case got = <-lines:
		case <-time.After(2 * time.Second):
		}
		if got != "id: "+end+"\n\n" {
			t.Fatalf("round %d: the stream began with %q, want the id field %q alone", round, got, end)
		}
		id := publish(t, feed, fdChange{Deleted: &evGone{ID: int64(round)}})
		ids = append(ids, id)
		wantEvents(t, fdStream(t, srv, end), id+` deleted {"id":`+strconv.Itoa(round)+`}`)
	}
}
