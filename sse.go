package waltz

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Event is one server-sent event, as the WHATWG HTML standard's
// "Server-sent events" section describes its fields.
type Event struct {
	// ID sets the client's last event ID, which a reconnecting EventSource
	// sends back in the Last-Event-ID request header. "" sends no id field.
	// It must hold no CR, LF or NUL (a client ignores an id with a NUL).
	ID string

	// Event is the event type, the name an EventSource listens for with
	// addEventListener; "" sends none, which the client dispatches as
	// "message". It must hold no CR or LF.
	Event string

	// Data is the event's data. It is sent as one "data:" line per line of
	// Data (split at CR LF, CR or LF), and the client joins the lines with
	// LF (WHATWG HTML, "Interpreting an event stream"): every line break
	// arrives as LF, so "a\rb\r\nc" is received as "a\nb\nc". Text whose
	// only line breaks are LF goes through intact; encode data that must
	// keep CR (as JSON does). It is always sent, so every Send dispatches
	// one event on the client, with empty data if Data is "".
	Data string

	// Retry, if positive, sets the client's reconnection time, sent in whole
	// milliseconds (truncated, but at least 1). It must not be negative.
	Retry time.Duration
}

// EventStream sends server-sent events on one response. Make one with
// [Context.EventStream], inside the handler; like the Context, it must not
// be used from two goroutines at once. It ends when the handler that made
// it returns: Done is closed then, and Send and Ping return an error
// wrapping [ErrStreamEnded] without touching the response, which by then
// may be another request's (the Context and its writers are reused). A
// goroutine that Sends while the handler is returning waits for that
// Send to finish before the handler's return completes.
type EventStream struct {
	// WriteTimeout bounds each write: before every event the connection's
	// write deadline is set to now plus WriteTimeout (through
	// [http.ResponseController.SetWriteDeadline]), so a server WriteTimeout
	// does not cut a live stream while a client that stops reading is still
	// let go. Context.EventStream sets it to 30 seconds; zero or negative
	// leaves the deadline as it is. Writers that have no deadline, such as
	// httptest.ResponseRecorder, are not an error.
	WriteTimeout time.Duration

	w      http.ResponseWriter
	rc     *http.ResponseController
	ctx    context.Context
	cancel context.CancelFunc // ends ctx, when the stream ends
	buf    []byte             // the event being written, reused
	err    error              // NOTE: the first write or flush error; every later Send returns it

	// NOTE: mu is held for every write, and by end, which sets over
	// once the handler that made the stream returned: no write reaches
	// the writers after that.
	mu   sync.Mutex
	over bool
	next *EventStream // the Context's next stream (Context.streams)

	noDeadline bool // the writer has no write deadline; stop asking
}

// defaultEventWriteTimeout is EventStream.WriteTimeout's starting value.
const defaultEventWriteTimeout = 30 * time.Second

// EventStream starts a server-sent event stream (WHATWG HTML,
// "Server-sent events") on c's response: it sets Content-Type
// "text/event-stream" and Cache-Control "no-cache", sends the 200 status
// and headers, and flushes them, so the client's EventSource opens at once.
// Set any other header (X-Accel-Buffering: no, for nginx) before calling
// it. A reconnecting client's last event ID is in the Last-Event-ID request
// header.
//
// It writes through c.Writer, so writer-wrapping middleware sees the
// stream, and flushes through [http.ResponseController], which reaches the
// real connection through any wrapper that has Flush or Unwrap.
//
// On a HEAD request (which the router answers with the GET handler) it
// sends the same headers and a stream that is already over: Done is
// closed and Send and Ping return an error wrapping
// [http.ErrBodyNotAllowed], so the handler returns at once instead of
// holding a goroutine and a connection that no event can ever reach.
//
// It returns an error, and the stream must not be used, when the response
// has already started (one wrapping [ErrResponseStarted]; nothing is sent
// then) or when the writer cannot flush (an error wrapping
// [http.ErrNotSupported], after the headers were written). Making the
// stream costs 6 allocations (2 of them the context that ends with the
// handler); Send and Ping cost none once the buffer has grown to the
// largest event.
//
// A typical handler:
//
//	es, err := c.EventStream()
//	if err != nil {
//		return err
//	}
//	ping := time.NewTicker(15 * time.Second)
//	defer ping.Stop()
//	for {
//		select {
//		case <-es.Done():
//			return nil // the client left, or the server is shutting down
//		case m := <-updates:
//			if err := es.Send(waltz.Event{Event: "update", Data: m}); err != nil {
//				return nil // the client is gone; nothing left to answer
//			}
//		case <-ping.C:
//			if err := es.Ping(); err != nil {
//				return nil
//			}
//		}
//	}
func (c *Context) EventStream() (*EventStream, error) {
	return c.stream("EventStream", "text/event-stream", "no-cache")
}

// stream starts a stream of the media type ctype on c's response, as
// EventStream does, with the Cache-Control cache ("" for none); the
// error of a response started already names the caller, who.
func (c *Context) stream(who, ctype, cache string) (*EventStream, error) {
	if c.started() {
		return nil, fmt.Errorf("%w: %s called after status %d was sent", ErrResponseStarted, who, c.resp.Status())
	}
	c.call.SentTo = c.Writer
	c.resp.whole, c.resp.wholeAt = ctype == "text/event-stream", -1
	es := &EventStream{
		WriteTimeout: defaultEventWriteTimeout,
		w:            c.Writer,
		rc:           http.NewResponseController(c.Writer),
	}
	// Done closes at shutdown too (see ShutdownStarted), and when the
	// handler returns (end).
	es.ctx, es.cancel = untilShutdown(c.Request.Context())
	es.next, c.streams = c.streams, es
	h := es.w.Header()
	h.Set("Content-Type", ctype)
	if cache != "" {
		h.Set("Cache-Control", cache)
	}
	h.Del("Content-Length")
	es.extendDeadline()
	es.w.WriteHeader(http.StatusOK)
	if err := es.rc.Flush(); err != nil {
		return nil, fmt.Errorf("waltz: event stream: flushing: %w", err)
	}
	if c.Request.Method == http.MethodHead {
		// The headers were the whole answer (RFC 9110 section 9.3.2).
		// net/http drops every body byte of a HEAD, so no write would
		// ever fail, and on a kept-alive connection nothing would
		// cancel the request: the stream is over as it starts.
		es.cancel()
		es.err = errHeadStream
	}
	return es, nil
}

// errHeadStream is what Send and Ping return on the stream of a HEAD.
var errHeadStream = fmt.Errorf("waltz: event stream: a HEAD request takes no events: %w", http.ErrBodyNotAllowed)

// Done returns a channel that is closed when the request's context is done:
// the client has gone away, or the [Server] serving it began to shut down
// ([ShutdownStarted]). A handler should then return, which ends the stream
// cleanly.
func (es *EventStream) Done() <-chan struct{} { return es.ctx.Done() }

// Send writes ev and flushes it to the client. It returns an error, and
// writes nothing, when a field is invalid (see [Event]); it returns the
// request context's error (context.Canceled) once the request context is
// done; otherwise the error, if any, is the write's or the flush's, which
// usually means the client has gone, and later calls return it too.
func (es *EventStream) Send(ev Event) error {
	if strings.ContainsAny(ev.ID, "\r\n\x00") {
		return fmt.Errorf("waltz: event id %q holds a CR, LF or NUL", ev.ID)
	}
	if strings.ContainsAny(ev.Event, "\r\n") {
		return fmt.Errorf("waltz: event type %q holds a CR or LF", ev.Event)
	}
	if ev.Retry < 0 {
		return fmt.Errorf("waltz: event retry %v is negative", ev.Retry)
	}
	b := es.buf[:0]
	if ev.ID != "" {
		b = append(append(append(b, "id: "...), ev.ID...), '\n')
	}
	if ev.Event != "" {
		b = append(append(append(b, "event: "...), ev.Event...), '\n')
	}
	if ev.Retry > 0 {
		b = append(strconv.AppendInt(append(b, "retry: "...), max(1, ev.Retry.Milliseconds()), 10), '\n')
	}
	b = appendData(b, ev.Data)
	es.buf = append(b, '\n')
	return es.write(es.buf)
}

// appendData appends data as "data:" lines, one per line of data. A space
// follows the colon, and the client strips exactly one, so a line that
// starts with a space keeps it.
func appendData(b []byte, data string) []byte {
	for {
		i := strings.IndexAny(data, "\r\n")
		if i < 0 {
			return append(append(append(b, "data: "...), data...), '\n')
		}
		b = append(append(append(b, "data: "...), data[:i]...), '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
}

// Ping writes the comment line ": ping" and flushes it. A client ignores
// comments; sending one every 15 to 30 seconds keeps proxies from closing
// an idle stream and finds a client that has gone. Its errors are Send's.
func (es *EventStream) Ping() error {
	return es.write(pingComment)
}

// NOTE: shared; never modified.
var pingComment = []byte(": ping\n\n")

// write sends b, a whole event or comment, and flushes it.
func (es *EventStream) write(b []byte) error {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.over {
		return errStreamEnded
	}
	if es.err != nil {
		return es.err
	}
	if err := es.ctx.Err(); err != nil {
		return err
	}
	es.extendDeadline()
	if _, err := es.w.Write(b); err != nil {
		es.err = fmt.Errorf("waltz: event stream: %w", err)
		return es.err
	}
	if err := es.rc.Flush(); err != nil {
		es.err = fmt.Errorf("waltz: event stream: flushing: %w", err)
		return es.err
	}
	return nil
}

// extendDeadline moves the write deadline WriteTimeout ahead. A writer
// without deadlines is fine, and is not asked again (each answer costs 2
// allocations); any other error will show on the write.
func (es *EventStream) extendDeadline() {
	if es.WriteTimeout <= 0 || es.noDeadline {
		return
	}
	err := es.rc.SetWriteDeadline(time.Now().Add(es.WriteTimeout))
	es.noDeadline = errors.Is(err, http.ErrNotSupported)
}

// ErrStreamEnded is the error Send and Ping return, wrapped, on an
// [EventStream] used after the handler that made it returned.
var ErrStreamEnded = errors.New("waltz: event stream used after its handler returned")

// errStreamEnded is what Send and Ping return once the stream ended.
var errStreamEnded = fmt.Errorf("%w: its response belongs to the finished request", ErrStreamEnded)

// end ends es: no write reaches its writers from now on, and Done is
// closed. It waits for a write in progress on another goroutine.
func (es *EventStream) end() {
	es.mu.Lock()
	es.over = true
	es.mu.Unlock()
	es.cancel()
}

// endStreams ends every EventStream made on c. The chain calls it when a
// handler returns, before the middleware outside resumes and takes its
// writer away (to pool it, say); release calls it too.
func (c *Context) endStreams() {
	for es := c.streams; es != nil; es = es.next {
		es.end()
	}
	c.streams = nil
}

// sendJSON sends one event of the type event (valid already) whose data
// is data, one line of JSON, with the ID id, as Send would.
func (es *EventStream) sendJSON(id, event string, data []byte) error {
	if strings.ContainsAny(id, "\r\n\x00") {
		return fmt.Errorf("waltz: event id %q holds a CR, LF or NUL", id)
	}
	b := es.buf[:0]
	if id != "" {
		b = append(append(append(b, "id: "...), id...), '\n')
	}
	b = append(append(append(b, "event: "...), event...), '\n')
	b = append(append(append(b, "data: "...), data...), "\n\n"...)
	es.buf = b
	return es.write(es.buf)
}

// sendLine writes data, one line (a JSON value, for a stream of JSON
// Lines), and a line feed, and flushes them, as Send does an event.
func (es *EventStream) sendLine(data []byte) error {
	es.buf = append(append(es.buf[:0], data...), '\n')
	return es.write(es.buf)
}

// sendRetry sends a retry field alone, and the blank line after it: the
// client's reconnection time becomes d (in whole milliseconds, at least
// 1), and no event is dispatched, since no data came (WHATWG HTML,
// "Server-sent events", dispatching an event with an empty data buffer).
func (es *EventStream) sendRetry(d time.Duration) error {
	b := strconv.AppendInt(append(es.buf[:0], "retry: "...), max(1, d.Milliseconds()), 10)
	es.buf = append(b, "\n\n"...)
	return es.write(es.buf)
}

// sendID sends an id field alone, and the blank line after it: the
// client's last event ID becomes id, and no event is dispatched, since
// no data came (WHATWG HTML, "Server-sent events", dispatching an event:
// the last event ID is set before the empty data buffer is looked at).
// id must hold no CR, LF or NUL.
func (es *EventStream) sendID(id string) error {
	if strings.ContainsAny(id, "\r\n\x00") {
		return fmt.Errorf("waltz: event id %q holds a CR, LF or NUL", id)
	}
	es.buf = append(append(append(es.buf[:0], "id: "...), id...), "\n\n"...)
	return es.write(es.buf)
}
