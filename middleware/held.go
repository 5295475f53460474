package middleware

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"slices"

	"github.com/waltz-go/waltz"
)

// The writers that hold a response back (Compress's, to decide whether to
// encode it; ETag's, to tag it) are one mechanism, written here: holder
// is the http.ResponseWriter both are, and each gives it a policy
// (holding) that decides what the held response becomes.
//
// A holding writer goes through these states, in this order, skipping
// some: stNew (nothing from the handler yet), stBuffering (a final status
// is held, with up to limit body bytes), then stPlain (passing through),
// stCompressing (Compress's: through its encoder) or stDiscard (ETag's: a
// 304, or a 412 to come, whose body is dropped); stHijacked ends it all,
// and so does stRefused, when a writer beneath refused to let the held
// status start the response (see waltz.Hold).
type holdState uint8

const (
	stNew holdState = iota
	stBuffering
	stPlain
	stCompressing
	stDiscard
	stHijacked
	stRefused
)

// holding is what a holding writer decides; its holder asks.
type holding interface {
	// take is given the handler's first final status (stNew), and
	// either holds it (hold, stBuffering) or answers at once.
	take(code int)

	// release ends stBuffering, when the body passed the limit (buf
	// then holds up to one byte more than limit) or the handler
	// flushed (final false), or when the handler has returned (final
	// true: buf is the whole body). It sends what is held, encodes it
	// (stCompressing) or drops it (stDiscard).
	release(final bool) error
}

// encoder is where a body goes in stCompressing: *gzip.Writer and
// *zlib.Writer.
type encoder interface {
	io.WriteCloser
	Flush() error
}

// holder is the http.ResponseWriter part a holding writer embeds: the
// writer it wraps, its state, the held status and body, and every method
// of the writer but the decisions, which it asks of its policy (self).
// It keeps the wrapped writer's Flush, Hijack and ReadFrom (a body that
// is passed on goes to the wrapped writer's ReadFrom: sendfile), Unwrap
// for [http.ResponseController], and WriteString without a copy.
type holder struct {
	w      http.ResponseWriter // the writer wrapped
	self   holding             // the writer that embeds this holder; set once, when it is made
	state  holdState
	status int     // the held status, in stBuffering
	limit  int     // the most body bytes held
	buf    []byte  // NOTE: pooled; the held body in stBuffering, idle later
	zw     encoder // Compress's encoder in stCompressing, else nil
	err    error   // why a writer beneath refused the held status, in stRefused
}

var (
	_ http.ResponseWriter = (*holder)(nil)
	_ http.Flusher        = (*holder)(nil)
	_ http.Hijacker       = (*holder)(nil)
	_ io.StringWriter     = (*holder)(nil)
	_ io.ReaderFrom       = (*holder)(nil)
)

// reset makes h forget its request, keeping its buffer, before its
// writer goes back to the pool: also after a panic, so that nothing
// pooled keeps a finished request.
func (h *holder) reset() {
	h.w, h.state, h.status, h.buf, h.zw, h.err = nil, stNew, 0, h.buf[:0], nil, nil
}

// Unhold forgets the held status and body, and any encoding begun, so
// that the writer holds nothing again (stNew): the router calls it when
// an error is answered before anything of the response was sent (see
// waltz.Hold), so that the error, not what was held, is the answer.
func (h *holder) Unhold() {
	h.state, h.status, h.buf, h.zw, h.err = stNew, 0, h.buf[:0], nil, nil
}

// Header returns the header map of the wrapped writer.
func (h *holder) Header() http.Header { return h.w.Header() }

// Unwrap returns the wrapped writer, for [http.ResponseController].
func (h *holder) Unwrap() http.ResponseWriter { return h.w }

// Written reports whether the handler has started its response (sent or
// held a final status), after which an error page must not be appended.
func (h *holder) Written() bool { return h.state != stNew }

// WriteHeader passes an informational status (1xx other than 101, RFC
// 9110 section 15.2) through at once, as nothing is held for it, and
// gives the first final one to the policy; later ones are ignored.
func (h *holder) WriteHeader(code int) {
	if h.state != stNew {
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		h.w.WriteHeader(code)
		return
	}
	h.self.take(code)
}

// hold holds the status code: it tells the writers beneath that the
// held status has started the response (waltz.Hold), or, when one
// refuses, moves to stRefused.
func (h *holder) hold(code int) {
	h.status, h.state = code, stBuffering
	if err := waltz.Hold(h.w); err != nil {
		h.state, h.err = stRefused, err
	}
}

// sendHeld sends the held status and body as they are.
func (h *holder) sendHeld() error {
	h.state = stPlain
	h.w.WriteHeader(h.status)
	if len(h.buf) == 0 {
		return nil
	}
	_, err := h.w.Write(h.buf)
	h.buf = h.buf[:0]
	return err
}

// closed returns the error of a write in a state that takes no more
// bytes (stHijacked, stRefused), and whether the state is one.
func (h *holder) closed() (error, bool) {
	switch h.state {
	case stHijacked:
		return http.ErrHijacked, true
	case stRefused:
		return h.err, true
	}
	return nil, false
}

// Write holds p, sends it on, encodes it or drops it, as the state says.
func (h *holder) Write(p []byte) (int, error) {
	if h.state == stNew {
		h.WriteHeader(http.StatusOK)
	}
	switch h.state {
	case stBuffering:
		k := min(len(p), h.limit-len(h.buf))
		if h.buf = append(h.buf, p[:k]...); k == len(p) {
			return k, nil
		}
		if err := h.self.release(false); err != nil {
			return k, err
		}
		n, err := h.Write(p[k:])
		return k + n, err
	case stPlain:
		return h.w.Write(p)
	case stCompressing:
		return h.zw.Write(p)
	case stDiscard:
		return len(p), nil
	}
	err, _ := h.closed()
	return 0, err
}

// WriteString is Write for a string, without converting it to a []byte
// when it is held, passed on or encoded.
func (h *holder) WriteString(s string) (int, error) {
	if h.state == stNew {
		h.WriteHeader(http.StatusOK)
	}
	switch h.state {
	case stBuffering:
		k := min(len(s), h.limit-len(h.buf))
		if h.buf = append(h.buf, s[:k]...); k == len(s) {
			return k, nil
		}
		if err := h.self.release(false); err != nil {
			return k, err
		}
		n, err := h.WriteString(s[k:])
		return k + n, err
	case stPlain:
		return io.WriteString(h.w, s)
	case stCompressing:
		if cap(h.buf) < 512 {
			return h.zw.Write([]byte(s))
		}
		// Copy through the idle buffer rather than allocate a []byte.
		for n := 0; n < len(s); {
			k := copy(h.buf[:cap(h.buf)], s[n:])
			if _, err := h.zw.Write(h.buf[:k]); err != nil {
				return n, err
			}
			n += k
		}
		return len(s), nil
	case stDiscard:
		return len(s), nil
	}
	err, _ := h.closed()
	return 0, err
}

// ReadFrom copies r to the response: into the held body while it is
// held, then to the wrapped writer's ReadFrom when it is passed on
// (sendfile for an *os.File over TCP), or through the idle buffer to the
// encoder, with no 32 KB copy buffer.
func (h *holder) ReadFrom(r io.Reader) (int64, error) {
	if h.state == stNew {
		h.WriteHeader(http.StatusOK)
	}
	var total int64
	for h.state == stBuffering {
		// Read up to one byte past the limit: a body of limit bytes is
		// still held whole, and one more ends the holding.
		if cap(h.buf) == len(h.buf) {
			h.buf = slices.Grow(h.buf, min(4096, h.limit+1-len(h.buf)))
		}
		n, err := r.Read(h.buf[len(h.buf):min(cap(h.buf), h.limit+1)])
		h.buf = h.buf[:len(h.buf)+n]
		total += int64(n)
		if len(h.buf) > h.limit {
			if rerr := h.self.release(false); rerr != nil {
				return total, rerr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
	switch h.state {
	case stPlain:
		n, err := io.Copy(h.w, r)
		return total + n, err
	case stDiscard:
		n, err := io.Copy(io.Discard, r)
		return total + n, err
	case stCompressing:
		if cap(h.buf) < 4096 {
			h.buf = make([]byte, 0, 4096) // kept by the pool from now on
		}
		for {
			n, err := r.Read(h.buf[:cap(h.buf)])
			if n > 0 {
				if _, werr := h.zw.Write(h.buf[:n]); werr != nil {
					return total, werr
				}
				total += int64(n)
			}
			if err == io.EOF {
				return total, nil
			}
			if err != nil {
				return total, err
			}
		}
	}
	err, _ := h.closed()
	return total, err
}

// Flush sends what is held (the policy decides how: see release), then
// flushes the encoder, if any, and the wrapped writer.
func (h *holder) Flush() { _ = h.FlushError() }

// FlushError is Flush that returns an error, such as
// [http.ErrNotSupported] when the wrapped writer cannot flush.
func (h *holder) FlushError() error {
	if h.state == stNew {
		h.WriteHeader(http.StatusOK)
	}
	if h.state == stBuffering {
		if err := h.self.release(false); err != nil {
			return err
		}
	}
	switch h.state {
	case stDiscard:
		return nil
	case stCompressing:
		if err := h.zw.Flush(); err != nil {
			return err
		}
	case stHijacked, stRefused:
		err, _ := h.closed()
		return err
	}
	return http.NewResponseController(h.w).Flush()
}

// Hijack lets the caller take over the connection, as [http.Hijacker]
// describes; nothing is written through the holding writer afterwards.
func (h *holder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(h.w).Hijack()
	if err == nil {
		h.state = stHijacked
	}
	return conn, rw, err
}
