package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/waltz-go/waltz/internal/typed"
)

// Event is one event of a typed event stream, as [Events] delivers it.
type Event[E any] struct {
	// ID is the stream's last event ID when the event came: its own id
	// field, or the one before it when it had none (as an EventSource's
	// lastEventId). Sent as Last-Event-ID, it resumes the stream after
	// this event.
	ID string

	// Data is a value of the event set with the field of the event's name
	// set to its data.
	Data E
}

// Reconnect sets how long [Events] waits before it connects again after
// a stream ended or failed, until the server's retry field sets another
// time. The default is 1 s. Op ignores it.
func Reconnect(d time.Duration) Option { return func(s *settings) { s.reconnect = d } }

// IdleTimeout sets how long [Events] waits for the next byte of an open
// stream (an event, or a comment such as an api.Feed's ": ping", every
// 15 s by default) before it takes the connection as dead: it closes it
// and connects again, as after a connection that failed. A server that
// stops answering without closing (a network partition, a paused
// process) sends nothing TCP would notice for many minutes. Zero, the
// default, waits as long as the connection lasts; set it above the
// interval of the server's pings, three times it, say (45 s for a
// Feed's default). Op ignores it.
func IdleTimeout(d time.Duration) Option { return func(s *settings) { s.idle = max(d, 0) } }

// idleWatch reads r, and closes body when no byte came for d: the read
// then fails, and fired says why.
type idleWatch struct {
	r     io.Reader
	d     time.Duration
	t     *time.Timer
	fired atomic.Bool
}

func (w *idleWatch) Read(b []byte) (int, error) {
	n, err := w.r.Read(b)
	if n > 0 {
		w.t.Reset(w.d)
	}
	return n, err
}

// maxEventLine is the longest line of an event stream a client reads, in
// bytes; a longer one ends the stream with an error.
const maxEventLine = 4 << 20

// maxEventData is the most data one event may hold, in bytes: its data
// lines' values, each with the LF the parser appends. An event of more
// ends the stream with an error, so that a stream of data lines with no
// blank line between them cannot grow the client's memory without bound.
const maxEventData = 4 << 20

// Events returns the call of the typed operation route, "METHOD
// /pattern" as [Op] takes it, whose Out Body is an api.Events[E]: the
// call sends in as Op does, asking for text/event-stream, and returns
// the events as they come, each decoded into a value of the event set E
// with the field of its name set ([Event]).
//
// It reconnects by itself, as an EventSource does (WHATWG HTML,
// "Server-sent events"): when the stream ends or the connection fails,
// it waits the reconnection time (the server's last retry field, else
// [Reconnect]'s, 1 s by default) and sends the request again with
// Last-Event-ID set to the ID of the last event it got, so that a server
// that resumes after it (an api.Feed) sends each event once, across
// instances too. In's own Last-Event-ID field, if it has one, is where
// the first request starts. An event cut off with its connection is not
// delivered: it comes again after the reconnection. A 502, 503 or 504
// answer is retried the same way, after its Retry-After (seconds or an
// HTTP-date, RFC 9110 section 10.2.3) when that is longer. After
// connections in a row that brought no event (each failed, or ended
// with none), it backs off, as WHATWG HTML lets it: it waits the
// reconnection time, at least 100 ms, doubled for each but the first,
// up to 64 times; a connection that brings one ends the back-off.
// No wait is longer than a day (a retry field of more sets a day); ctx
// ends any at once.
//
// It reconnects only when the route's method is safe or idempotent (GET,
// HEAD, OPTIONS, TRACE, PUT, DELETE, QUERY), as RFC 9110 section 9.2.2
// says a client should: the stream of a POST or a PATCH is read from
// one answer, and the sequence ends at its end, with no error, or with
// the error of a connection that failed or of a 502, 503 or 504 answer.
//
// The sequence ends, after yielding a non-nil error, when ctx is done
// (ctx's error); when the request cannot be sent, which trying again
// would not change: http.Client.Do's error for one it refuses before
// sending (a Client.URL that is not http or https, a header field value
// with a control character), or for a redirect its policy refuses, or
// the error naming a last event ID that Last-Event-ID cannot carry (the
// server's id, with a control character); on an error answer
// ([*waltz.HTTPError], as Op's), on an answer that is not
// text/event-stream, when an event's data does not
// decode into its type, or when a line, or the data of one event (its
// data lines together), is longer than 4 MiB (an error wrapping
// [bufio.ErrTooLong]); or when the loop over it stops. Events whose
// names E does not declare are skipped,
// as an EventSource without a listener for them does. A Feed's reset
// event comes as any event: the events after it may not follow the ones
// before, and a client that holds state built from them reads it again.
// The http.Client's Timeout, if any, bounds each connection: leave it
// zero and end the stream with ctx.
//
// Events panics as Op does, and when E is not an event set.
func Events[In, E any](c *Client, route string, opts ...Option) func(ctx context.Context, in In) iter.Seq2[Event[E], error] {
	o, st := planEvents(c, route, reflect.TypeFor[In](), opts)
	plan, err := typed.PlanEvents(reflect.TypeFor[E]())
	if err != nil {
		panic(fmt.Sprintf("waltz: client: route %q: %v", route, err))
	}
	return func(ctx context.Context, in In) iter.Seq2[Event[E], error] {
		return func(yield func(Event[E], error) bool) {
			sc := scratches.Get().(*scratch)
			// NOTE: o's plan was made from In, the type of in.
			req, err := o.request(ctx, sc, unsafe.Pointer(&in))
			scratches.Put(sc)
			if err != nil {
				yield(Event[E]{}, err)
				return
			}
			s := &stream[E]{o: o, plan: plan, req: req, yield: yield, delay: st.reconnect, idle: st.idle, lastID: req.Header.Get("Last-Event-ID")}
			if err := s.run(ctx); err != nil {
				yield(Event[E]{}, err)
			}
		}
	}
}

// planEvents makes the op of route for the In type in, whose answer is
// an event stream.
func planEvents(c *Client, s string, in reflect.Type, opts []Option) (*op, settings) {
	if c == nil {
		panic(fmt.Sprintf("waltz: client: route %q: the Client is nil", s))
	}
	st := settings{reconnect: time.Second}
	for _, opt := range opts {
		opt(&st)
	}
	o := &op{c: c, rt: parseRoute(s), media: st.media, accept: []string{"text/event-stream"}}
	var err error
	if o.in, err = typed.PlanIn(in, o.rt.names); err == nil {
		err = o.in.Encodable()
	}
	if err != nil {
		panic(fmt.Sprintf("waltz: client: route %q: %v", s, err))
	}
	if o.media == typed.MediaForm && !o.in.TakesForm() {
		panic(fmt.Sprintf("waltz: client: route %q: %v", s, typed.PlanError(in, nil, `client.Form: the Body field does not take forms (consumes:"form")`)))
	}
	return o, st
}

// read reads the events of resp until it ends; nil at a clean end.
func (s *stream[E]) read(resp *http.Response) error {
	o := s.o
	if resp.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorAnswer))
		switch resp.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return &againError{problem(resp, body), retryAfter(resp.Header.Get("Retry-After"), time.Now())}
		}
		return &finalError{problem(resp, body)}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
		return &finalError{fmt.Errorf("waltz: %s %s: answer %d of type %q, want 200 text/event-stream", o.rt.method, o.rt.pattern,
			resp.StatusCode, resp.Header.Get("Content-Type"))}
	}
	var body io.Reader = resp.Body
	var idle *idleWatch
	if s.idle > 0 {
		idle = &idleWatch{r: resp.Body, d: s.idle}
		idle.t = time.AfterFunc(s.idle, func() {
			idle.fired.Store(true)
			resp.Body.Close()
		})
		defer idle.t.Stop()
		body = idle
	}
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, maxEventLine)
	sc.Split((&lineSplitter{}).split)
	var (
		data bytes.Buffer
		name []byte
		id   = s.lastID // the last event ID buffer, the stream's once an event is dispatched
	)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			s.lastID = id
			if err := s.dispatch(&data, name); err != nil {
				return err
			}
			data.Reset()
			name = name[:0]
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = append(name[:0], value...)
		case "data":
			if data.Len()+len(value)+1 > maxEventData {
				return &finalError{fmt.Errorf("waltz: %s %s: an event's data longer than %d bytes (after %q): %w",
					o.rt.method, o.rt.pattern, maxEventData, s.lastID, bufio.ErrTooLong)}
			}
			data.Write(value)
			data.WriteByte('\n')
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				id = string(value)
			}
		case "retry":
			// Any digits set the reconnection time (WHATWG HTML); past
			// maxDelay (or past a uint64), maxDelay.
			if isDigits(value) {
				s.delay = maxDelay
				if ms, err := strconv.ParseUint(string(value), 10, 64); err == nil && ms < uint64(maxDelay/time.Millisecond) {
					s.delay = time.Duration(ms) * time.Millisecond
				}
			}
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return &finalError{fmt.Errorf("waltz: %s %s: an event stream line longer than %d bytes: %w", o.rt.method, o.rt.pattern, maxEventLine, err)}
	} else if idle != nil && idle.fired.Load() {
		return fmt.Errorf("waltz: %s %s: no byte of the event stream for %v (after %q): the connection is taken as dead", o.rt.method, o.rt.pattern, s.idle, s.lastID)
	} else if err != nil {
		return fmt.Errorf("waltz: %s %s: the event stream was cut (after %q): %w", o.rt.method, o.rt.pattern, s.lastID, err)
	}
	return nil
}

// dispatch delivers the event whose data buffer is data and name name
// ("message" when empty), if it has data and E declares it.
func (s *stream[E]) dispatch(data *bytes.Buffer, name []byte) error {
	if data.Len() == 0 {
		return nil
	}
	s.got = true
	n := string(name)
	if n == "" {
		n = "message"
	}
	i, t, ok := s.plan.Lookup(n)
	if !ok {
		return nil
	}
	v := reflect.New(t)
	if err := json.Unmarshal(bytes.TrimSuffix(data.Bytes(), []byte("\n")), v.Interface()); err != nil {
		return &finalError{fmt.Errorf("waltz: %s %s: event %q (after %q): %w", s.o.rt.method, s.o.rt.pattern, n, s.lastID, err)}
	}
	ev := Event[E]{ID: s.lastID}
	reflect.ValueOf(&ev.Data).Elem().Field(i).Set(v)
	if !s.yield(ev, nil) {
		return errStop
	}
	return nil
}

// isDigits reports whether b is ASCII digits only, as a retry field's
// value must be.
func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// lineSplitter splits one answer's event stream into lines, for a
// bufio.Scanner, as WHATWG HTML's "Parsing an event stream" says: one
// UTF-8 byte order mark at its start is no part of its first line (the
// stream is decoded as UTF-8, which takes it away), and a line ends at
// CR LF, LF or CR. A CR ends its line at once, so that an event whose
// blank line is a CR is dispatched before more bytes come; an LF that
// comes right after it, in the same read or the next, is skipped.
type lineSplitter struct {
	started bool // past the byte order mark, if any
	cr      bool // the last line ended with a CR
}

// bom is UTF-8's byte order mark, U+FEFF.
const bom = "\xEF\xBB\xBF"

// split is the bufio.SplitFunc of s.
func (s *lineSplitter) split(data []byte, atEOF bool) (int, []byte, error) {
	skip := 0
	switch {
	case !s.started:
		if len(data) < len(bom) && !atEOF && strings.HasPrefix(bom, string(data)) {
			return 0, nil, nil // a byte order mark, or the start of one
		}
		s.started = true
		if bytes.HasPrefix(data, []byte(bom)) {
			skip = len(bom)
		}
	case s.cr && len(data) > 0:
		if data[0] == '\n' {
			skip = 1 // the LF of a CR LF
		}
		s.cr = false
	}
	for i := skip; i < len(data); i++ {
		if c := data[i]; c == '\n' || c == '\r' {
			s.cr = c == '\r'
			return i + 1, data[skip:i], nil
		}
	}
	// At EOF, a line with no end is an event cut off: dropped.
	return skip, nil, nil
}
