package client_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

type (
	tick    struct{ N int }
	gone    struct{ N int }
	changes struct {
		Tick  *tick      `event:"tick"`
		Gone  *gone      `event:"gone"`
		Reset *api.Reset `event:"reset"`
	}
	changesIn struct {
		Topic  string `path:"topic"`
		LastID string `header:"Last-Event-ID"`
	}
	changesOut struct{ Body api.Events[changes] }
)

// lastIDs records the Last-Event-ID of each request a feedServer got.
type lastIDs struct {
	mu  sync.Mutex
	ids []string
}

func (l *lastIDs) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ids...)
}

// feedServer serves GET /feeds/:topic from feed, recording each
// request's Last-Event-ID.
func feedServer(t *testing.T, feed *api.Feed[changes]) (*httptest.Server, *lastIDs) {
	t.Helper()
	r := waltz.New()
	var got lastIDs
	api.Op(r, http.MethodGet, "/feeds/:topic", func(c *waltz.Context, in *changesIn) (*changesOut, error) {
		got.mu.Lock()
		got.ids = append(got.ids, in.LastID)
		got.mu.Unlock()
		return &changesOut{Body: feed.Follow(in.LastID)}, nil
	}, api.Operation{})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv, &got
}

// TestEventsDroppedConnections: the server side of the connection is
// closed every few events while events are published; the stream comes
// back with Last-Event-ID each time, and every event arrives once, in
// order.
func TestEventsDroppedConnections(t *testing.T) {
	const total = 300
	feed := api.NewFeed[changes](api.NewMemoryLog(total))
	srv, lastIDs := feedServer(t, feed)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	follow := client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(5*time.Millisecond))

	go func() {
		for i := range total {
			if _, err := feed.Publish(context.Background(), changes{Tick: &tick{N: i}}); err != nil {
				t.Error(err)
			}
			if i%10 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	next, drops := 0, 0
	var lastID string
	for ev, err := range follow(ctx, changesIn{Topic: "t", LastID: api.LogStart}) {
		if err != nil {
			t.Fatalf("after %d events: %v", next, err)
		}
		if ev.Data.Tick == nil || ev.Data.Tick.N != next {
			t.Fatalf("event %d: got %+v (id %q), want tick %d: each once, in order", next, ev.Data, ev.ID, next)
		}
		if ev.ID == "" || ev.ID == lastID {
			t.Fatalf("event %d: id %q after %q, want a new one", next, ev.ID, lastID)
		}
		lastID = ev.ID
		if next++; next == total {
			break
		}
		if next%37 == 0 {
			srv.CloseClientConnections()
			drops++
		}
	}
	if next != total {
		t.Fatalf("got %d events, want %d", next, total)
	}
	reqs := lastIDs.list()
	for i, id := range reqs[1:] {
		if id == "" || id == api.LogStart {
			t.Errorf("request %d came back with Last-Event-ID %q, want the last event's", i+2, id)
		}
	}
	if len(reqs) < 3 {
		t.Errorf("got %d requests for %d dropped connections, want at least 3", len(reqs), drops)
	}
	t.Logf("%d events, %d connections dropped, %d requests", total, drops, len(reqs))
}

// TestEventsReset: a Last-Event-ID older than the log keeps gets the
// feed's reset event, with the ID sent, then the events kept.
func TestEventsReset(t *testing.T) {
	feed := api.NewFeed[changes](api.NewMemoryLog(2))
	srv, _ := feedServer(t, feed)
	var ids []string
	for i := range 4 {
		id, err := feed.Publish(context.Background(), changes{Gone: &gone{N: i}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	for ev, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic")(ctx, changesIn{Topic: "t", LastID: ids[0]}) {
		if err != nil {
			t.Fatal(err)
		}
		switch d := ev.Data; {
		case d.Reset != nil:
			got = append(got, fmt.Sprintf("%s reset %s", ev.ID, d.Reset.LastEventID))
		case d.Gone != nil:
			got = append(got, fmt.Sprintf("%s gone %d", ev.ID, d.Gone.N))
		}
		if len(got) == 3 {
			break
		}
	}
	want := []string{"0 reset " + ids[0], ids[2] + " gone 2", ids[3] + " gone 3"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestEventsWire: the parser reads what the standard allows (CR LF, CR
// and LF line ends, comments, a field with no value, data on several
// lines, no space after the colon), keeps the retry hint, skips events it
// does not declare, resumes with the last ID after a clean end, and ends
// on an event it cannot decode.
func TestEventsWire(t *testing.T) {
	var (
		mu       sync.Mutex
		requests []string
		at       []time.Time
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.Header.Get("Last-Event-ID")+" "+r.Header.Get("Accept"))
		at = append(at, time.Now())
		n := len(requests)
		mu.Unlock()
		if n == 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		switch n {
		case 1:
			fmt.Fprint(w, ": hello\r\nretry: 40\r\n\r\nid: 1\revent: tick\rdata:{\"N\":\r\ndata: 1}\r\n\r\n"+
				"id: 2\nevent: other\ndata: {}\n\nevent: gone\ndata: {\"N\": 2}\n\nid: 3\nevent: tick\ndata: {\"N\":3")
		case 3:
			fmt.Fprint(w, "id\nevent: tick\ndata: {\"N\":4}\n\nevent: tick\ndata: {\"N\":\"five\"}\n\n")
		}
	}))
	defer srv.Close()
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	var got []string
	var last error
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ev, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(time.Hour))(ctx, changesIn{Topic: "t"}) {
		if err != nil {
			last = err
			continue
		}
		switch {
		case ev.Data.Tick != nil:
			got = append(got, fmt.Sprintf("%q tick %d", ev.ID, ev.Data.Tick.N))
		case ev.Data.Gone != nil:
			got = append(got, fmt.Sprintf("%q gone %d", ev.ID, ev.Data.Gone.N))
		}
	}
	want := `"1" tick 1|"2" gone 2|"" tick 4`
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("got %s, want %s", g, want)
	}
	if last == nil || !strings.Contains(last.Error(), `event "tick"`) {
		t.Errorf("the last error: got %v, want the event that does not decode", last)
	}
	mu.Lock()
	defer mu.Unlock()
	if w := []string{" text/event-stream", "2 text/event-stream", "2 text/event-stream"}; strings.Join(requests, "|") != strings.Join(w, "|") {
		t.Errorf("requests (Last-Event-ID, Accept): got %q, want %q", requests, w)
	}
	for i := 1; i < len(at); i++ {
		if d := at[i].Sub(at[i-1]); d < 40*time.Millisecond || d > 5*time.Second {
			t.Errorf("request %d came %v after the one before, want the retry hint's 40ms", i+1, d)
		}
	}
}

// TestEventsEnds: an error answer ends the sequence with its problem, an
// answer of another type with an error, a done context with its error,
// and a loop that stops ends the request.
func TestEventsEnds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimPrefix(r.URL.Path, "/feeds/") {
		case "missing":
			http.Error(w, "no such feed", http.StatusNotFound)
		case "json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, "{}")
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	follow := client.Events[changesIn, changes](c, "GET /feeds/:topic")
	first := func(ctx context.Context, topic string) error {
		for _, err := range follow(ctx, changesIn{Topic: topic}) {
			return err
		}
		return nil
	}
	var he *waltz.HTTPError
	if err := first(context.Background(), "missing"); !errors.As(err, &he) || he.Code != 404 || he.Message != "no such feed" {
		t.Errorf("404: got %v, want its HTTPError", err)
	}
	if err := first(context.Background(), "json"); err == nil || !strings.Contains(err.Error(), "text/event-stream") {
		t.Errorf("JSON: got %v, want an error naming text/event-stream", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := first(ctx, "quiet"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a quiet stream until the deadline: got %v, want context.DeadlineExceeded", err)
	}
	// Refused before sending, as Op's.
	bad := client.Events[struct {
		N int `query:"n" maximum:"3"`
	}, changes](c, "GET /feeds/x")
	for _, err := range bad(context.Background(), struct {
		N int `query:"n" maximum:"3"`
	}{N: 9}) {
		if !errors.Is(err, client.ErrNotSent) {
			t.Errorf("a refused In: got %v, want ErrNotSent", err)
		}
	}
}

// TestEventsDataCap: a server that sends data lines without the blank
// line that ends an event (here 8 MiB of 1 KiB lines, then the end of
// the answer) does not grow the client's memory: past 4 MiB of data the
// stream ends with an error wrapping bufio.ErrTooLong, and does not
// connect again.
func TestEventsDataCap(t *testing.T) {
	var requests atomic.Int64
	line := "data: " + strings.Repeat("x", 1024) + "\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		for range 8 << 10 {
			if _, err := io.WriteString(w, line); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var last error
	for _, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(time.Millisecond))(ctx, changesIn{Topic: "t"}) {
		last = err
	}
	if !errors.Is(last, bufio.ErrTooLong) || !strings.Contains(last.Error(), "event's data longer than 4194304 bytes") {
		t.Errorf("got %v, want an error wrapping bufio.ErrTooLong that names the event's data", last)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("got %d requests, want 1: too long an event ends the stream", n)
	}
}

// TestEventsFromNow: a stream that starts from now on (no Last-Event-ID)
// is cut before its first event, and an event is published while the
// client waits to reconnect: the client comes back with the position the
// stream began with, and gets the event.
func TestEventsFromNow(t *testing.T) {
	log := api.NewMemoryLog(10)
	feed := api.NewFeed[changes](log)
	srv, lastIDs := feedServer(t, feed)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	end, _ := log.End(ctx)
	go func() {
		for len(lastIDs.list()) == 0 {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // the stream sent its first id
		srv.CloseClientConnections()
		if _, err := feed.Publish(context.Background(), changes{Tick: &tick{N: 1}}); err != nil {
			t.Error(err)
		}
	}()
	var got *tick
	for ev, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(300*time.Millisecond))(ctx, changesIn{Topic: "t"}) {
		if err != nil {
			t.Fatalf("got %v, want the event published while the client was away", err)
		}
		got = ev.Data.Tick
		break
	}
	if got == nil || got.N != 1 {
		t.Errorf("got %+v, want tick 1", got)
	}
	if reqs := lastIDs.list(); len(reqs) < 2 || reqs[0] != "" || reqs[1] != end {
		t.Errorf("requests' Last-Event-ID: got %q, want none, then the log's end %q", reqs, end)
	}
}

// TestEventsResetOnce: a reset from a log that holds no event (a Redis
// that lost its data) moves the client's last event ID to LogStart, so
// a reconnection gets no second reset, and then the next event.
func TestEventsResetOnce(t *testing.T) {
	feed := api.NewFeed[changes](api.NewMemoryLog(10))
	srv, lastIDs := feedServer(t, feed)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []string
	for ev, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(10*time.Millisecond))(ctx, changesIn{Topic: "t", LastID: "7-00c0ffee"}) {
		if err != nil {
			t.Fatalf("after %q: %v", got, err)
		}
		switch d := ev.Data; {
		case d.Reset != nil:
			got = append(got, ev.ID+" reset")
			if len(got) > 1 {
				break
			}
			srv.CloseClientConnections()
			go func() { // the client reconnects once the loop's body returns
				for len(lastIDs.list()) < 2 && ctx.Err() == nil {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(50 * time.Millisecond) // the stream reads the log
				if _, err := feed.Publish(context.Background(), changes{Tick: &tick{N: 1}}); err != nil {
					t.Error(err)
				}
			}()
		case d.Tick != nil:
			got = append(got, fmt.Sprint("tick ", d.Tick.N))
		}
		if len(got) == 2 {
			break
		}
	}
	if g := strings.Join(got, ", "); g != "0 reset, tick 1" {
		t.Errorf("got %s, want one reset (id 0), then tick 1", g)
	}
	if reqs := lastIDs.list(); len(reqs) < 2 || reqs[1] != api.LogStart {
		t.Errorf("requests' Last-Event-ID: got %q, want the stale ID, then %q", reqs, api.LogStart)
	}
}

// rawServer serves every request with h, given the request's number
// (from 1), and counts them.
func rawServer(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(int(n.Add(1)), w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// flush writes s and flushes it to the client.
func flush(w http.ResponseWriter, s string) {
	io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

// TestEventsCRAtOnce: on a stream whose lines end in CR alone, an event
// is dispatched as soon as its blank line's CR arrives, not when the
// next byte does (the server sends nothing more until the client has
// it); and a CR LF whose LF comes in a later read is one line end, not a
// line end and a blank line (WHATWG HTML, "Parsing an event stream").
func TestEventsCRAtOnce(t *testing.T) {
	got1 := make(chan struct{})
	srv, _ := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		flush(w, "event: tick\rdata: {\"N\":1}\r\r")
		select {
		case <-got1:
		case <-r.Context().Done():
			return
		}
		flush(w, "event: tick\r\ndata: {\"N\":\r")
		time.Sleep(20 * time.Millisecond) // the LF in a read of its own
		flush(w, "\ndata: 2}\r\n\r")
		<-r.Context().Done()
	})
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var got []int
	for ev, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic")(ctx, changesIn{Topic: "t"}) {
		if err != nil {
			t.Fatalf("after ticks %v: %v", got, err)
		}
		got = append(got, ev.Data.Tick.N)
		if len(got) == 1 {
			close(got1)
		} else {
			break
		}
	}
	if fmt.Sprint(got) != "[1 2]" {
		t.Errorf("got ticks %v, want [1 2], each as its last CR came", got)
	}
}

// TestEventsBOM: a UTF-8 byte order mark at the start of each answer's
// stream is no part of its first line (WHATWG HTML: the stream is
// decoded as UTF-8, which takes one leading BOM away), even when its
// bytes come in reads of their own.
func TestEventsBOM(t *testing.T) {
	srv, _ := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 {
			flush(w, "\xEF")
			time.Sleep(20 * time.Millisecond)
			flush(w, "\xBB\xBFevent: tick\ndata: {\"N\":1}\n\n")
			return
		}
		flush(w, "\uFEFFevent: tick\ndata: {\"N\":2}\n\n")
		<-r.Context().Done()
	})
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var got []int
	for ev, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(time.Millisecond))(ctx, changesIn{Topic: "t"}) {
		if err != nil {
			t.Fatalf("after ticks %v: %v", got, err)
		}
		if got = append(got, ev.Data.Tick.N); len(got) == 2 {
			break
		}
	}
	if fmt.Sprint(got) != "[1 2]" {
		t.Errorf("got ticks %v, want [1 2]", got)
	}
}

// TestEventsLoopExits: a loop body that panics, or ends its goroutine
// (runtime.Goexit, as t.Fatal does), still closes the answer, so the
// server's request ends.
func TestEventsLoopExits(t *testing.T) {
	for name, exit := range map[string]func(){
		"panic":  func() { panic("the loop's body") },
		"Goexit": runtime.Goexit,
	} {
		t.Run(name, func(t *testing.T) {
			ended := make(chan struct{})
			srv, _ := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				flush(w, "event: tick\ndata: {\"N\":1}\n\n")
				<-r.Context().Done()
				close(ended)
			})
			c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer func() { recover() }()
				for range client.Events[changesIn, changes](c, "GET /feeds/:topic")(context.Background(), changesIn{Topic: "t"}) {
					exit()
				}
			}()
			<-done
			select {
			case <-ended:
			case <-time.After(2 * time.Second):
				t.Errorf("2s after the loop's body left by %s, the server's request is still open", name)
				srv.CloseClientConnections()
			}
		})
	}
}

// eventsErrors runs follow until it ends, or for at most a second, and
// returns the errors it yielded and the events' IDs.
func eventsErrors(t *testing.T, follow func(context.Context, changesIn) iter.Seq2[client.Event[changes], error], ctx context.Context) (ids []string, errs []error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	for ev, err := range follow(ctx, changesIn{Topic: "t"}) {
		if err != nil {
			errs = append(errs, err)
		} else {
			ids = append(ids, ev.ID)
		}
	}
	return ids, errs
}

// TestEventsNotSendable: a request that cannot be sent (a Client.URL
// whose scheme is not http or https, a header field value net/http
// refuses, a redirect the http.Client refuses, a last event ID from the
// server with a control character, which Last-Event-ID cannot carry)
// ends the stream with its error, once, rather than being tried again
// in silence; a server that cannot be reached is tried again until ctx
// ends.
func TestEventsNotSendable(t *testing.T) {
	srv, requests := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/loop/") {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		flush(w, "id: a\x01b\nevent: tick\ndata: {\"N\":1}\n\n")
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, tc := range []struct {
		name, url string
		header    http.Header
		ids       string
		want      string // in the one error; "" for ctx's
		requests  int64
	}{
		{"scheme", strings.Replace(srv.URL, "http://127.0.0.1", "localhost", 1), nil, "", "unsupported protocol scheme", 0},
		{"header", srv.URL, http.Header{"X-Token": {"a\x01b"}}, "", "invalid header field value", 0},
		{"redirect", srv.URL + "/loop", nil, "", "stopped after 10 redirects", 10},
		{"id", srv.URL, nil, `["a\x01b"]`, `the last event ID "a\x01b"`, 1},
		{"unreachable", closed.URL, nil, "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := requests.Load()
			c := &client.Client{URL: tc.url, HTTP: srv.Client()}
			follow := client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(10*time.Millisecond))
			ids, errs := eventsErrors(t, follow, client.WithHeader(context.Background(), tc.header))
			if g := fmt.Sprintf("%q", ids); len(ids) > 0 && g != tc.ids || len(ids) == 0 && tc.ids != "" {
				t.Errorf("events' IDs: got %s, want %s", g, tc.ids)
			}
			switch {
			case len(errs) != 1:
				t.Errorf("got the errors %v, want one", errs)
			case tc.want == "" && !errors.Is(errs[0], context.DeadlineExceeded):
				t.Errorf("got %v, want ctx's error", errs[0])
			case tc.want != "" && !strings.Contains(errs[0].Error(), tc.want):
				t.Errorf("got %v, want an error with %q", errs[0], tc.want)
			}
			if n := requests.Load() - before; n != tc.requests {
				t.Errorf("the server got %d requests, want %d", n, tc.requests)
			}
		})
	}
}

// TestEventsQueryRedirect: the events of a QUERY follow a 301 with the
// same QUERY and its content, as Op's call does (RFC 10008 section 2.5).
func TestEventsQueryRedirect(t *testing.T) {
	r := waltz.New()
	r.Query("/find", func(c *waltz.Context) error { return c.Redirect(http.StatusMovedPermanently, "/moved") })
	api.Op(r, waltz.MethodQuery, "/moved", func(c *waltz.Context, in *findIn) (*changesOut, error) {
		return &changesOut{Body: func(s *api.EventSender[changes]) error {
			return s.Send("", changes{Tick: &tick{N: len(in.Body.Prefix)}})
		}}, nil
	}, api.Operation{})
	srv := httptest.NewServer(r)
	defer srv.Close()
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var in findIn
	in.Body.Prefix = "abc"
	for ev, err := range client.Events[findIn, changes](c, "QUERY /find")(ctx, in) {
		if err != nil || ev.Data.Tick == nil || ev.Data.Tick.N != 3 {
			t.Errorf("got %+v, %v; want tick 3, the length of the query's prefix", ev.Data, err)
		}
		break
	}
}

// TestEventsOnce: the events of a POST, which is not idempotent, are
// read from one answer: the request is not sent again (RFC 9110 section
// 9.2.2) after a clean end, which ends the sequence, after a dropped
// connection or a 503, whose errors end it.
func TestEventsOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string // in the last error; "" for none
	}{
		{"end", ""},
		{"drop", "unexpected EOF"},
		{"busy", "503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, requests := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					http.Error(w, "POST only", http.StatusMethodNotAllowed)
					return
				}
				if tc.name == "busy" {
					http.Error(w, "busy", http.StatusServiceUnavailable)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				flush(w, "event: tick\ndata: {\"N\":1}\n\n")
				if tc.name == "drop" {
					panic(http.ErrAbortHandler) // the connection is closed, not ended
				}
			})
			c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			var (
				ticks int
				last  error
			)
			for ev, err := range client.Events[changesIn, changes](c, "POST /feeds/:topic", client.Reconnect(10*time.Millisecond))(ctx, changesIn{Topic: "t"}) {
				if err != nil {
					last = err
				} else if ev.Data.Tick != nil {
					ticks++
				}
			}
			switch {
			case tc.want == "" && last != nil:
				t.Errorf("got %v, want the sequence to end with no error", last)
			case tc.want != "" && (last == nil || !strings.Contains(last.Error(), tc.want)):
				t.Errorf("got %v, want an error with %q", last, tc.want)
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("the POST was sent %d times, want once", n)
			}
			if want := map[bool]int{true: 0, false: 1}[tc.name == "busy"]; ticks != want {
				t.Errorf("got %d ticks, want %d", ticks, want)
			}
		})
	}
}

// TestEventsRetryAfter: a 503's Retry-After, in seconds or an HTTP-date,
// is waited at least before the next request (RFC 9110 section 10.2.3),
// though the reconnection time is shorter; and ctx ends the wait at once.
func TestEventsRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after func() string
	}{
		{"seconds", func() string { return "1" }},
		{"date", func() string { return time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu sync.Mutex
				at [2]time.Time
			)
			srv, _ := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				if n > 2 {
					return
				}
				mu.Lock()
				at[n-1] = time.Now()
				mu.Unlock()
				if n == 1 {
					w.Header().Set("Retry-After", tc.after())
					http.Error(w, "busy", http.StatusServiceUnavailable)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				flush(w, "event: tick\ndata: {\"N\":1}\n\n")
			})
			c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			for _, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(10*time.Millisecond))(ctx, changesIn{Topic: "t"}) {
				if err != nil {
					t.Fatal(err)
				}
				break
			}
			mu.Lock()
			defer mu.Unlock()
			if d := at[1].Sub(at[0]); d < 900*time.Millisecond {
				t.Errorf("the second request came %v after the 503, want a second at least", d)
			}
		})
	}
	srv, _ := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	ids, errs := eventsErrors(t, client.Events[changesIn, changes](c, "GET /feeds/:topic"), ctx)
	if d := time.Since(start); len(ids) > 0 || len(errs) != 1 || !errors.Is(errs[0], context.DeadlineExceeded) || d > time.Second {
		t.Errorf("a wait of 120 s, ctx done after 200ms: got %v after %v, want ctx's error at once", errs, d)
	}
}

// TestEventsHugeRetry: a retry field of any digits sets the reconnection
// time (WHATWG HTML), one past 2^32-1 ms or past a time.Duration too,
// cut to a day: the client does not come back within the test.
func TestEventsHugeRetry(t *testing.T) {
	for _, retry := range []string{"4294967296", "99999999999999999999999"} {
		t.Run(retry, func(t *testing.T) {
			srv, requests := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				flush(w, "retry: "+retry+"\nevent: tick\ndata: {\"N\":1}\n\n")
			})
			c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			for range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(10*time.Millisecond))(ctx, changesIn{Topic: "t"}) {
			}
			if n := requests.Load(); n != 1 {
				t.Errorf("got %d requests in 300ms after retry: %s, want 1", n, retry)
			}
		})
	}
}

// TestEventsBackoff: with a reconnection time of 0, failed attempts (a
// 503 each) are tried again after a wait that doubles from a floor, not
// at once; a connection that delivers an event starts from the
// reconnection time again.
func TestEventsBackoff(t *testing.T) {
	var (
		mu sync.Mutex
		at []time.Time
	)
	srv, _ := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		if n != 4 && n != 6 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		flush(w, "event: tick\ndata: {\"N\":1}\n\n")
	})
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ticks := 0
	for _, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.Reconnect(0))(ctx, changesIn{Topic: "t"}) {
		if err != nil {
			t.Fatal(err)
		}
		if ticks++; ticks == 2 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var gaps []time.Duration
	for i := 1; i < len(at); i++ {
		gaps = append(gaps, at[i].Sub(at[i-1]))
	}
	if len(gaps) != 5 {
		t.Fatalf("got the gaps between requests %v, want 5", gaps)
	}
	if gaps[0] < 50*time.Millisecond || gaps[1] < 2*gaps[0]*9/10 || gaps[2] < 2*gaps[1]*9/10 {
		t.Errorf("gaps after 1, 2, 3 failures: %v, want each twice the one before, from a floor", gaps[:3])
	}
	if gaps[3] > gaps[2]/2 || gaps[4] < 50*time.Millisecond || gaps[4] > gaps[2]/2 {
		t.Errorf("gaps after an event and after the failure that follows: %v %v, want none, then the floor's", gaps[3], gaps[4])
	}
}

// TestEventsIdleTimeout: with IdleTimeout, a connection that sends no
// byte for that long (a server paused, a network partition) is closed
// and made again, resuming after the last event; comments (a Feed's
// pings) keep it open; and a POST's stream, read once, ends with the
// error instead.
func TestEventsIdleTimeout(t *testing.T) {
	srv, n := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		switch n {
		case 1: // one event, then silence
			flush(w, "id: 1\nevent: tick\ndata: {\"N\":1}\n\n")
		case 2: // the next one, after pings that keep the connection
			if r.Header.Get("Last-Event-ID") != "1" {
				flush(w, "event: tick\ndata: {\"N\":-1}\n\n")
				return
			}
			for range 6 {
				time.Sleep(50 * time.Millisecond)
				flush(w, ": ping\n\n")
			}
			flush(w, "id: 2\nevent: tick\ndata: {\"N\":2}\n\n")
		}
		<-r.Context().Done()
	})
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var got []int
	for ev, err := range client.Events[changesIn, changes](c, "GET /feeds/:topic", client.IdleTimeout(150*time.Millisecond), client.Reconnect(time.Millisecond))(ctx, changesIn{Topic: "t"}) {
		if err != nil {
			t.Fatalf("after ticks %v: %v", got, err)
		}
		if got = append(got, ev.Data.Tick.N); len(got) == 2 {
			break
		}
	}
	if fmt.Sprint(got) != "[1 2]" || n.Load() != 2 {
		t.Errorf("got ticks %v in %d connections, want [1 2] in 2: the silent one closed, the pinging one kept", got, n.Load())
	}

	// A POST's stream is read once: its silence ends it, with the error.
	post, _ := rawServer(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		flush(w, "id: 1\nevent: tick\ndata: {\"N\":1}\n\n")
		<-r.Context().Done()
	})
	c = &client.Client{URL: post.URL, HTTP: post.Client()}
	var last error
	for _, err := range client.Events[changesIn, changes](c, "POST /feeds/:topic", client.IdleTimeout(100*time.Millisecond))(ctx, changesIn{Topic: "t"}) {
		last = err
	}
	if last == nil || !strings.Contains(last.Error(), "taken as dead") {
		t.Errorf("a POST's silent stream: got %v, want the idle error", last)
	}
}
