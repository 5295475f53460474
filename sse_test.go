package waltz

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sseEvent is what a client's EventSource dispatches.
type sseEvent struct {
	id, event, data string
	retry           int // milliseconds; -1 when not set
}

// readEvent reads up to the next dispatched event, following the WHATWG
// HTML "Interpreting an event stream" rules: lines split at LF (the
// server sends no CR), "field: value" with one leading space stripped,
// comments skipped, a blank line dispatches when the data buffer is not
// empty. lastID carries the last event ID across events, as the client's
// does; comments collects comment lines.
func readEvent(tb testing.TB, br *bufio.Reader, lastID *string, comments *[]string) (sseEvent, error) {
	tb.Helper()
	ev := sseEvent{retry: -1}
	var data strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		if strings.ContainsRune(line, '\r') {
			tb.Errorf("stream line %q holds a CR", line)
		}
		if line == "" {
			if data.Len() == 0 {
				ev = sseEvent{retry: ev.retry}
				continue
			}
			ev.data, ev.id = strings.TrimSuffix(data.String(), "\n"), *lastID
			return ev, nil
		}
		if line[0] == ':' {
			*comments = append(*comments, line)
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data.WriteString(value + "\n")
		case "event":
			ev.event = value
		case "id":
			if !strings.ContainsRune(value, 0) {
				*lastID = value
			}
		case "retry":
			if n, err := strconv.Atoi(value); err == nil {
				ev.retry = n
			}
		default:
			tb.Errorf("stream line %q: unknown field", line)
		}
	}
}

// flushRecorder is a ResponseWriter that records the body and counts
// flushes; it has no write deadline.
type flushRecorder struct {
	httptest.ResponseRecorder
	flushes int
}

func (w *flushRecorder) Flush() { w.flushes++ }

// testStream returns an EventStream on w, as Context.EventStream makes it,
// without sending headers.
func testStream(w http.ResponseWriter, ctx context.Context) *EventStream {
	return &EventStream{w: w, rc: http.NewResponseController(w), ctx: ctx, WriteTimeout: time.Second}
}

func TestEventSend(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   Event
		wire string // "" when Send must fail
		data string // the data the client sees
	}{
		{"data", Event{Data: "hi"}, "data: hi\n\n", "hi"},
		{"empty data dispatches", Event{}, "data: \n\n", ""},
		{"all fields", Event{ID: "7", Event: "update", Data: "x", Retry: 1500 * time.Millisecond},
			"id: 7\nevent: update\nretry: 1500\ndata: x\n\n", "x"},
		{"retry truncated to ms", Event{Data: "x", Retry: 2*time.Millisecond + 999*time.Microsecond}, "retry: 2\ndata: x\n\n", "x"},
		// Hostile: a positive retry under 1 ms truncated to "retry: 0" would
		// make every client reconnect at once, in a loop.
		{"positive retry under 1ms is 1", Event{Data: "x", Retry: 500 * time.Microsecond}, "retry: 1\ndata: x\n\n", "x"},
		{"multi-line LF", Event{Data: "a\nb"}, "data: a\ndata: b\n\n", "a\nb"},
		{"multi-line CRLF", Event{Data: "a\r\nb"}, "data: a\ndata: b\n\n", "a\nb"},
		{"multi-line CR", Event{Data: "a\rb"}, "data: a\ndata: b\n\n", "a\nb"},
		{"trailing LF", Event{Data: "a\n"}, "data: a\ndata: \n\n", "a\n"},
		{"only LF", Event{Data: "\n"}, "data: \ndata: \n\n", "\n"},
		{"CR CR LF", Event{Data: "a\r\r\nb"}, "data: a\ndata: \ndata: b\n\n", "a\n\nb"},
		// Hostile data cannot end the event early or forge fields.
		{"blank line in data", Event{Data: "a\n\nid: 666\nevent: evil\ndata: x"},
			"data: a\ndata: \ndata: id: 666\ndata: event: evil\ndata: data: x\n\n", "a\n\nid: 666\nevent: evil\ndata: x"},
		{"leading space kept", Event{Data: " x"}, "data:  x\n\n", " x"},
		{"colon line", Event{Data: ":not a comment"}, "data: :not a comment\n\n", ":not a comment"},
		{"NUL in data", Event{Data: "a\x00b"}, "data: a\x00b\n\n", "a\x00b"},
		{"unicode", Event{Data: "π\u2028😀"}, "data: π\u2028😀\n\n", "π\u2028😀"},
		{"id with spaces", Event{ID: " a b ", Data: "x"}, "id:  a b \ndata: x\n\n", "x"},
		{"id LF", Event{ID: "1\ndata: evil", Data: "x"}, "", ""},
		{"id CR", Event{ID: "1\r", Data: "x"}, "", ""},
		{"id NUL", Event{ID: "1\x00", Data: "x"}, "", ""},
		{"event LF", Event{Event: "a\nb", Data: "x"}, "", ""},
		{"event CR", Event{Event: "a\r", Data: "x"}, "", ""},
		{"negative retry", Event{Data: "x", Retry: -time.Second}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &flushRecorder{ResponseRecorder: *httptest.NewRecorder()}
			err := testStream(w, context.Background()).Send(tc.ev)
			if tc.wire == "" {
				if err == nil || !strings.HasPrefix(err.Error(), "waltz: ") || w.Body.Len() != 0 {
					t.Fatalf("got error %v and %q written, want a waltz: error and nothing", err, w.Body)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := w.Body.String(); got != tc.wire {
				t.Errorf("wire: got %q, want %q", got, tc.wire)
			}
			if w.flushes != 1 {
				t.Errorf("flushes: got %d, want 1", w.flushes)
			}
			var id string
			var comments []string
			ev, err := readEvent(t, bufio.NewReader(w.Body), &id, &comments)
			if err != nil {
				t.Fatalf("reading the event back: %v", err)
			}
			if ev.data != tc.data || ev.event != tc.ev.Event || id != tc.ev.ID {
				t.Errorf("client sees %+v, want data %q event %q id %q", ev, tc.data, tc.ev.Event, tc.ev.ID)
			}
		})
	}
}

func TestEventStreamStart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		before  func(c *Context)
		writer  func() http.ResponseWriter
		wantErr error // nil: no error
		wantHdr bool
	}{
		{"fresh", func(*Context) {}, func() http.ResponseWriter { return &flushRecorder{ResponseRecorder: *httptest.NewRecorder()} }, nil, true},
		{"headers kept", func(c *Context) { c.Writer.Header().Set("X-Accel-Buffering", "no") },
			func() http.ResponseWriter { return &flushRecorder{ResponseRecorder: *httptest.NewRecorder()} }, nil, true},
		{"content-length dropped", func(c *Context) { c.Writer.Header().Set("Content-Length", "5") },
			func() http.ResponseWriter { return &flushRecorder{ResponseRecorder: *httptest.NewRecorder()} }, nil, true},
		{"already started", func(c *Context) { c.Writer.WriteHeader(http.StatusTeapot) },
			func() http.ResponseWriter { return &flushRecorder{ResponseRecorder: *httptest.NewRecorder()} }, errStarted, false},
		{"cannot flush", func(*Context) {}, func() http.ResponseWriter { return newNopWriter() }, http.ErrNotSupported, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.writer()
			var err error
			r := New()
			r.Get("/events", func(c *Context) error {
				tc.before(c)
				_, err = c.EventStream()
				return nil
			})
			r.ServeHTTP(w, httptest.NewRequest("GET", "/events", nil))
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tc.wantErr == errStarted && !errors.Is(err, ErrResponseStarted):
				t.Fatalf("got %v, want an already-started error", err)
			case tc.wantErr == http.ErrNotSupported && !errors.Is(err, http.ErrNotSupported):
				t.Fatalf("got %v, want http.ErrNotSupported", err)
			}
			h := w.Header()
			if got := h.Get("Content-Type") == "text/event-stream" && h.Get("Cache-Control") == "no-cache"; got != tc.wantHdr {
				t.Errorf("Content-Type %q, Cache-Control %q: got set %v, want %v", h.Get("Content-Type"), h.Get("Cache-Control"), got, tc.wantHdr)
			}
			if h.Get("Content-Length") != "" {
				t.Errorf("Content-Length: got %q, want none", h.Get("Content-Length"))
			}
			if fr, ok := w.(*flushRecorder); ok && tc.wantErr == nil && (fr.flushes != 1 || fr.Code != 200) {
				t.Errorf("got status %d and %d flushes, want 200 and 1", fr.Code, fr.flushes)
			}
		})
	}
}

var errStarted = errors.New("started")

// bufferingWriter holds everything written until Flush, as a compressing
// writer does; it exposes Unwrap and nothing else of the writer below.
type bufferingWriter struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (w *bufferingWriter) Write(b []byte) (int, error) { return w.buf.Write(b) }
func (w *bufferingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
func (w *bufferingWriter) FlushError() error {
	if _, err := w.ResponseWriter.Write(w.buf.Bytes()); err != nil {
		return err
	}
	w.buf.Reset()
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func buffering(next HandlerFunc) HandlerFunc {
	return func(c *Context) error {
		bw := &bufferingWriter{ResponseWriter: c.Writer}
		c.Writer = bw
		defer func() { c.Writer = bw.ResponseWriter }()
		err := next(c)
		_ = bw.FlushError()
		return err
	}
}

// TestEventStreamEndToEnd streams events to a real client through a
// middleware that holds writes until flushed: the handler sends the next
// event only after the client has read the previous one, so each must have
// been flushed on its own. The client then leaves, and Done must fire.
func TestEventStreamEndToEnd(t *testing.T) {
	events := []Event{
		{ID: "1", Data: "first"},
		{Event: "update", Data: "line one\nline two"},
		{ID: "3", Retry: 2 * time.Second, Data: ""},
	}
	read := make(chan struct{})
	handlerDone := make(chan error, 1)
	r := New()
	r.Use(buffering)
	r.Get("/events", func(c *Context) error {
		es, err := c.EventStream()
		if err != nil {
			handlerDone <- err
			return err
		}
		for i, ev := range events {
			if err := es.Send(ev); err != nil {
				handlerDone <- err
				return nil
			}
			select {
			case <-read:
			case <-time.After(5 * time.Second):
				handlerDone <- errors.New("the client never read the event: not flushed")
				return nil
			}
			if i == len(events)-1 {
				break // the client leaves after the last event: a ping could race it
			}
			if err := es.Ping(); err != nil {
				handlerDone <- err
				return nil
			}
		}
		select {
		case <-es.Done():
			handlerDone <- nil
		case <-time.After(5 * time.Second):
			handlerDone <- errors.New("Done did not fire after the client left")
		}
		return nil
	})
	srv := httptest.NewServer(r)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct, cc := resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"); ct != "text/event-stream" || cc != "no-cache" {
		t.Errorf("headers: got Content-Type %q, Cache-Control %q, want text/event-stream, no-cache", ct, cc)
	}
	br := bufio.NewReader(resp.Body)
	var lastID string
	var comments []string
	for i, want := range events {
		got, err := readEvent(t, br, &lastID, &comments)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		wantID := want.ID
		if wantID == "" && i > 0 {
			wantID = events[i-1].ID // the last event ID carries over
		}
		wantRetry := -1
		if want.Retry > 0 {
			wantRetry = int(want.Retry.Milliseconds())
		}
		if got.data != want.Data || got.event != want.Event || got.id != wantID || got.retry != wantRetry {
			t.Errorf("event %d: got %+v, want %+v", i, got, want)
		}
		read <- struct{}{}
	}
	cancel()
	if err := <-handlerDone; err != nil {
		t.Fatal(err)
	}
	if len(comments) < 2 || comments[0] != ": ping" {
		t.Errorf("comments: got %q, want pings", comments)
	}
}

// TestEventStreamWriteTimeout: a server WriteTimeout shorter than the
// stream does not cut it, because each event moves the deadline; with the
// deadline left alone (WriteTimeout 0) the same stream is cut.
func TestEventStreamWriteTimeout(t *testing.T) {
	const n = 6
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		all     bool
	}{
		{"extended", time.Second, true},
		{"left alone", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			r.Get("/events", func(c *Context) error {
				start := time.Now()
				es, err := c.EventStream()
				if err != nil {
					return err
				}
				if tc.timeout == 0 {
					// Put back the deadline the server set when the
					// request came in, as if nothing had moved it.
					es.WriteTimeout = 0
					_ = http.NewResponseController(c.Writer).SetWriteDeadline(start.Add(200 * time.Millisecond))
				}
				for i := range n {
					if err := es.Send(Event{Data: strconv.Itoa(i)}); err != nil {
						return nil
					}
					time.Sleep(80 * time.Millisecond)
				}
				return nil
			})
			srv := httptest.NewUnstartedServer(r)
			srv.Config.WriteTimeout = 200 * time.Millisecond
			srv.Start()
			defer srv.Close()
			resp, err := srv.Client().Get(srv.URL + "/events")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			var id string
			var comments []string
			got := 0
			for ; got < n; got++ {
				if _, err := readEvent(t, br, &id, &comments); err != nil {
					break
				}
			}
			if (got == n) != tc.all {
				t.Errorf("events read: got %d of %d, want all: %v", got, n, tc.all)
			}
		})
	}
}

// TestEventStreamShutdown: when the server cancels request contexts (as at
// shutdown, through BaseContext here), Done fires, Send reports it, and
// the client sees the stream end.
func TestEventStreamShutdown(t *testing.T) {
	base, stop := context.WithCancel(context.Background())
	defer stop()
	sendErr := make(chan error, 1)
	r := New()
	r.Get("/events", func(c *Context) error {
		es, err := c.EventStream()
		if err != nil {
			return err
		}
		if err := es.Send(Event{Data: "hello"}); err != nil {
			return err
		}
		select {
		case <-es.Done():
			sendErr <- es.Send(Event{Data: "too late"})
		case <-time.After(5 * time.Second):
			sendErr <- errors.New("Done did not fire")
		}
		return nil
	})
	srv := httptest.NewUnstartedServer(r)
	srv.Config.BaseContext = func(net.Listener) context.Context { return base }
	srv.Start()
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var id string
	var comments []string
	if ev, err := readEvent(t, br, &id, &comments); err != nil || ev.data != "hello" {
		t.Fatalf("got %+v, %v, want data hello", ev, err)
	}
	stop()
	if err := <-sendErr; !errors.Is(err, context.Canceled) {
		t.Errorf("Send after shutdown: got %v, want context.Canceled", err)
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Errorf("after shutdown: got %q, %v, want a clean end", rest, err)
	}
}

// flushNopWriter discards everything and can flush.
// deadlineNopWriter also has a write deadline, as net/http's writers do.
type deadlineNopWriter struct{ flushNopWriter }

func (*deadlineNopWriter) SetWriteDeadline(time.Time) error { return nil }

// TestEventStreamAllocs holds the costs the docs state: Send and Ping
// allocate nothing once the buffer has grown, with or without deadlines;
// starting a stream costs 6 allocations.
func TestEventStreamAllocs(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    http.ResponseWriter
	}{
		{"no deadline", &flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}},
		{"deadline", &deadlineNopWriter{flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			es := testStream(tc.w, context.Background())
			ev := Event{ID: "42", Event: "update", Data: "one\ntwo\nthree", Retry: time.Second}
			_ = es.Send(ev)
			if got := testing.AllocsPerRun(100, func() { _ = es.Send(ev) }); got != 0 {
				t.Errorf("Send allocations: got %v, want 0", got)
			}
			if got := testing.AllocsPerRun(100, func() { _ = es.Ping() }); got != 0 {
				t.Errorf("Ping allocations: got %v, want 0", got)
			}
		})
	}
	r := New()
	r.Get("/events", func(c *Context) error {
		_, err := c.EventStream()
		return err
	})
	w := &deadlineNopWriter{flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}}
	req := httptest.NewRequest("GET", "/events", nil)
	got := testing.AllocsPerRun(100, func() {
		clear(w.H)
		r.ServeHTTP(w, req)
	})
	t.Logf("start: %v", got)
	if got > 6 {
		t.Errorf("EventStream allocations: got %v, want at most 6", got)
	}
}

// TestStreamOnHead: a HEAD to a route that streams until the client
// leaves (an event stream; a handler that writes and flushes until a write
// fails) gets the headers and the handler returns at once, so the
// connection goes on to answer the next request, over HTTP/1.1 and h2c,
// for 200 clients at once, each on a connection of its own.
func TestStreamOnHead(t *testing.T) {
	var running atomic.Int64
	stop := make(chan struct{}) // closed when the test fails, so that it does not hang
	var once sync.Once
	release := func() { once.Do(func() { close(stop) }) }
	defer release()
	r := New()
	r.Get("/events", func(c *Context) error {
		running.Add(1)
		defer running.Add(-1)
		es, err := c.EventStream()
		if err != nil {
			return err
		}
		ping := time.NewTicker(5 * time.Millisecond)
		defer ping.Stop()
		for {
			select {
			case <-es.Done():
				return nil
			case <-stop:
				return nil
			case <-ping.C:
				if err := es.Ping(); err != nil {
					return nil
				}
			}
		}
	})
	r.Get("/flushed", func(c *Context) error {
		running.Add(1)
		defer running.Add(-1)
		rc := http.NewResponseController(c.Writer)
		c.Writer.Header().Set("Content-Type", "text/plain")
		for {
			if _, err := io.WriteString(c.Writer, "tick\n"); err != nil {
				return nil
			}
			if err := rc.Flush(); err != nil {
				return nil
			}
			select {
			case <-c.Request.Context().Done():
				return nil
			case <-stop:
				return nil
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	r.Get("/ping", func(c *Context) error { return c.Text(http.StatusOK, "pong") })
	for _, proto := range []string{"HTTP/1.1", "h2c"} {
		for _, path := range []string{"/events", "/flushed"} {
			t.Run(proto+path, func(t *testing.T) {
				srv := httptest.NewUnstartedServer(r)
				var p http.Protocols
				if proto == "h2c" {
					p.SetUnencryptedHTTP2(true)
				} else {
					p.SetHTTP1(true)
				}
				srv.Config.Protocols = &p
				srv.Start()
				defer srv.Close()
				defer func() { // a handler left running: let it go, after the test has failed
					if running.Load() != 0 {
						release()
					}
				}()
				const clients = 200
				errs := make(chan error, clients)
				for range clients {
					go func() {
						tr := &http.Transport{Protocols: &p, MaxConnsPerHost: 1}
						defer tr.CloseIdleConnections()
						// A HEAD whose handler never returns holds its connection
						// forever: any bound catches it. 20 s leaves room for 200
						// clients under -race on a loaded 2-core machine.
						cl := &http.Client{Transport: tr, Timeout: 20 * time.Second}
						res, err := cl.Head(srv.URL + path)
						if err != nil {
							errs <- err
							return
						}
						res.Body.Close()
						if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct == "" {
							errs <- fmt.Errorf("HEAD: got %d %q, want 200 with the GET's Content-Type", res.StatusCode, ct)
							return
						}
						res, err = cl.Get(srv.URL + "/ping")
						if err != nil {
							errs <- fmt.Errorf("the request after the HEAD: %w", err)
							return
						}
						b, _ := io.ReadAll(res.Body)
						res.Body.Close()
						if string(b) != "pong" {
							errs <- fmt.Errorf("the request after the HEAD: got %q, want pong", b)
							return
						}
						errs <- nil
					}()
				}
				for range clients {
					if err := <-errs; err != nil {
						t.Error(err)
					}
				}
				deadline := time.Now().Add(10 * time.Second)
				for running.Load() != 0 && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
				if n := running.Load(); n != 0 {
					t.Errorf("%d handlers still running after their HEADs were answered", n)
				}
			})
		}
	}
}

// TestEventStreamAfterHandler: a stream kept by a goroutine past its
// handler's return is over. Send returns ErrStreamEnded, at once after the
// request and while a later, unrelated request is served on the pooled
// Context, and that request's response never gets the stream's data; Done
// is closed. Under a middleware writer (Compress's, pooled) the same holds.
func TestEventStreamAfterHandler(t *testing.T) {
	for _, wrapped := range []bool{false, true} {
		t.Run(fmt.Sprintf("wrapped=%v", wrapped), func(t *testing.T) {
			r := New()
			if wrapped {
				r.Use(func(next HandlerFunc) HandlerFunc {
					return func(c *Context) error {
						orig := c.Writer
						c.Writer = &passWriter{ResponseWriter: orig}
						defer func() { c.Writer = orig }()
						return next(c)
					}
				})
			}
			kept := make(chan *EventStream, 1)
			r.Get("/stream", func(c *Context) error {
				es, err := c.EventStream()
				if err != nil {
					return err
				}
				kept <- es
				return nil
			})
			var stale func() error
			r.Get("/other", func(c *Context) error {
				done := make(chan error, 1)
				go func() { done <- stale() }() // the goroutine that kept the stream
				if err := <-done; !errors.Is(err, ErrStreamEnded) {
					t.Errorf("Send during a later request: got %v, want ErrStreamEnded", err)
				}
				return c.Text(http.StatusOK, "other")
			})
			for range 20 {
				r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/stream", nil))
				es := <-kept
				secret := Event{Data: "SECRET-OF-STREAM"}
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("Send after the handler returned panicked: %v", p)
						}
					}()
					if err := es.Send(secret); !errors.Is(err, ErrStreamEnded) {
						t.Errorf("Send after the handler returned: got %v, want ErrStreamEnded", err)
					}
				}()
				select {
				case <-es.Done():
				default:
					t.Errorf("Done after the handler returned: not closed")
				}
				stale = func() error { return es.Send(secret) }
				w := httptest.NewRecorder()
				r.ServeHTTP(w, httptest.NewRequest("GET", "/other", nil))
				if strings.Contains(w.Body.String(), "SECRET") || w.Body.String() != "other" {
					t.Fatalf("the later request's body: got %q, want %q", w.Body.String(), "other")
				}
			}
		})
	}
}

// passWriter is a middleware writer that passes everything on.
type passWriter struct{ http.ResponseWriter }

func (w *passWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
