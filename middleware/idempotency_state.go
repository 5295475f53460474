package middleware

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

// A keyed request's pooled state for Idempotency: its body, read once
// and handed on; the request copy that carries it; the recorder that
// passes its answer through and keeps what a replay needs; the context a
// Save or Release gets.

// idemState is one keyed request's buffers, pooled.
type idemState struct {
	buf  []byte // the fingerprint's input: method, pattern, path, query, then the body
	at   int    // where the body starts in buf
	body idemBody
	req  http.Request // the request passed on, with body
	rec  answerRecorder
	ctx  detached
}

var idemStates = sync.Pool{New: func() any { return new(idemState) }}

// maxPooledBuf is the largest buffer put back in the pool: a big body's
// stays with its request.
const maxPooledBuf = 64 << 10

func (st *idemState) free() {
	buf, rbody, fields := st.buf[:0], st.rec.body[:0], st.rec.fields[:0]
	if cap(buf) > maxPooledBuf {
		buf = nil
	}
	if cap(rbody) > maxPooledBuf {
		rbody = nil
	}
	clear(fields[:cap(fields)])
	*st = idemState{buf: buf}
	st.rec.body, st.rec.fields = rbody, fields
	idemStates.Put(st)
}

// readBody reads c's request into st.buf, after the fingerprint's other
// parts, within the router's body limit.
func (st *idemState) readBody(c *waltz.Context) error {
	req := c.Request
	b := append(st.buf[:0], req.Method...)
	b = append(b, 0)
	b = append(b, c.Pattern()...)
	b = append(b, 0)
	b = append(b, req.URL.Path...)
	b = append(b, 0)
	b = append(b, req.URL.RawQuery...)
	b = append(b, 0)
	st.at = len(b)
	limit := c.MaxBodyBytes()
	if limit > 0 && req.ContentLength > limit {
		st.buf = b
		return bodyTooLarge(limit)
	}
	if req.Body != nil && req.Body != http.NoBody {
		for {
			if len(b) == cap(b) {
				b = slices.Grow(b, max(512, len(b)))
			}
			n, err := req.Body.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if limit > 0 && int64(len(b)-st.at) > limit {
				st.buf = b
				return bodyTooLarge(limit)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				st.buf = b
				var he *waltz.HTTPError
				if errors.As(err, &he) {
					return err // BodyLimit's 413, say
				}
				return readFailure(c, err)
			}
		}
	}
	st.buf = b
	return nil
}

// readFailure is the answer to a body that could not be read, as the
// typed engine's reader classifies it (what Bind answers): 408 Request
// Timeout, closing the connection, when the read deadline passed (RFC 9110
// section 15.5.9), 400 otherwise.
func readFailure(c *waltz.Context, err error) error {
	be, ok := typed.ReadError(err).(*typed.BodyError)
	if !ok {
		return &waltz.HTTPError{Code: http.StatusBadRequest, Message: "the request body could not be read", Err: err}
	}
	if be.Reason == typed.ReasonTimeout {
		c.Writer.Header().Set("Connection", "close")
	}
	return &waltz.HTTPError{Code: be.Status, Message: be.Message, Err: err}
}

func bodyTooLarge(limit int64) error {
	return &waltz.HTTPError{Code: http.StatusRequestEntityTooLarge,
		Message: fmt.Sprintf("the body may be at most %d bytes", limit), Err: &http.MaxBytesError{Limit: limit}}
}

// run runs next with a copy of c's request whose body is the one read.
func (st *idemState) run(c *waltz.Context, next waltz.HandlerFunc) error {
	orig := c.Request
	st.req = *orig
	st.body.r.Reset(st.buf[st.at:])
	st.req.Body = &st.body
	if orig.Body == nil || orig.Body == http.NoBody {
		st.req.Body = orig.Body
	}
	c.Request = &st.req
	defer func() { c.Request = orig }()
	return next(c)
}

// idemBody is the body read, handed to the handlers again.
type idemBody struct{ r bytes.Reader }

func (b *idemBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *idemBody) Close() error               { return nil }

// answerRecorder passes a response through to w and records its status,
// the fields of names as sent, and up to max bytes of its body: all the
// handlers wrote, whether or not w took it all, since a client that lost
// the answer on the way is the one that retries.
type answerRecorder struct {
	w      http.ResponseWriter
	names  []string    // the fields to record, canonical
	fields [][2]string // name and value of each recorded field value
	status int
	sent   bool // the fields were recorded, at the first write
	body   []byte
	max    int
	over   bool // the body passed max: not kept
	lost   bool // a write to w failed: the client did not get it all
}

func (r *answerRecorder) start(w http.ResponseWriter, max int, names []string) {
	r.w, r.max, r.names = w, max, names
	r.status, r.sent, r.over, r.lost, r.body, r.fields = 0, false, false, false, r.body[:0], r.fields[:0]
}

// snapshot records the fields of r.names as they are in w's header map.
func (r *answerRecorder) snapshot() {
	r.sent = true
	h := r.w.Header()
	for _, name := range r.names {
		for _, v := range h[name] {
			r.fields = append(r.fields, [2]string{name, v})
		}
	}
}

func (r *answerRecorder) Header() http.Header { return r.w.Header() }

func (r *answerRecorder) WriteHeader(code int) {
	if !r.sent && code >= 200 {
		r.status = code
		r.snapshot()
	}
	r.w.WriteHeader(code)
}

func (r *answerRecorder) Write(p []byte) (int, error) {
	if !r.sent {
		r.status = http.StatusOK
		r.snapshot()
	}
	r.record(p)
	n, err := r.w.Write(p)
	r.lost = r.lost || err != nil
	return n, err
}

func (r *answerRecorder) WriteString(s string) (int, error) {
	if !r.sent {
		r.status = http.StatusOK
		r.snapshot()
	}
	if !r.over && len(r.body)+len(s) <= r.max {
		r.body = append(r.body, s...)
	} else {
		r.over = true
	}
	n, err := io.WriteString(r.w, s)
	r.lost = r.lost || err != nil
	return n, err
}

func (r *answerRecorder) record(p []byte) {
	if !r.over && len(r.body)+len(p) <= r.max {
		r.body = append(r.body, p...)
	} else {
		r.over = true
	}
}

// Unhold forgets what was recorded: the router calls it when it answers
// an error instead of a response held beneath, of which nothing was sent
// (see waltz.Hold), so that the error's answer is what is recorded.
func (r *answerRecorder) Unhold() {
	r.status, r.sent, r.over, r.lost, r.body, r.fields = 0, false, false, false, r.body[:0], r.fields[:0]
}

// Flush sends what was written so far, through w.
func (r *answerRecorder) Flush() { _ = http.NewResponseController(r.w).Flush() }

// Unwrap returns the writer inside, for http.NewResponseController.
func (r *answerRecorder) Unwrap() http.ResponseWriter { return r.w }

var (
	_ http.Flusher    = (*answerRecorder)(nil)
	_ io.StringWriter = (*answerRecorder)(nil)
)

// failLog logs a store's failures at most once a second, counting the
// requests it did not log a line for, so that an outage under load does
// not flood the log.
type failLog struct {
	mu       sync.Mutex
	at       time.Time // when the last line was written
	unlogged int64
}

func (l *failLog) log(c *waltz.Context, msg string, err error) {
	now := time.Now()
	l.mu.Lock()
	if !l.at.IsZero() && now.Sub(l.at) < time.Second {
		l.unlogged++
		l.mu.Unlock()
		return
	}
	n := l.unlogged
	l.at, l.unlogged = now, 0
	l.mu.Unlock()
	c.Logger().ErrorContext(c.Request.Context(), msg, "method", c.Request.Method, "path", c.Request.URL.Path,
		"err", err, "unlogged", n)
}

// detached is a request's context.Context without its cancellation or
// deadline, for a Save or Release: the answer was made whether or not the
// client is still there, and the store's own deadline bounds the call. It
// lives in the pooled idemState, so it costs no allocation where
// context.WithoutCancel would cost one. NOTE: a store does not keep the
// context it was given after the call returns, so reusing it is safe.
type detached struct{ parent context.Context }

func (*detached) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*detached) Done() <-chan struct{}       { return nil }
func (*detached) Err() error                  { return nil }
func (d *detached) Value(key any) any         { return d.parent.Value(key) }
