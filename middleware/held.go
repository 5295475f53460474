package middleware

import (
	"bufio"
	"net"
	"net/http"

	"github.com/waltz-go/waltz"
)

// The writers that hold a response back (Compress's, to decide whether to
// encode it; ETag's, to tag it) share one state machine, written here.
// A holding writer goes through these states, in this order, skipping
// some: stNew (nothing from the handler yet), stBuffering (a final status
// is held, with body bytes), then stPlain (passing through), stCompressing
// (Compress's encoder) or stDiscard (ETag's: a 304, or a 412 to come,
// whose body is dropped); stHijacked ends it all, and so does stRefused,
// when a writer beneath refused to let the held status start the response
// (see waltz.Hold).
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

// holder is the part a holding writer embeds: the writer it wraps, its
// state, and why a writer beneath refused the held status. It gives the
// holding writer Header, Unwrap, Written and Hijack, and the steps every
// holding writer takes the same way: passing informational statuses
// through, telling the writers beneath that a held status has started
// the response, and the error of a write once the response is closed to
// it.
type holder struct {
	w     http.ResponseWriter // the writer wrapped
	state holdState
	err   error // why a writer beneath refused the held status, in stRefused
}

// Header returns the header map of the wrapped writer.
func (h *holder) Header() http.Header { return h.w.Header() }

// Unwrap returns the wrapped writer, for [http.ResponseController].
func (h *holder) Unwrap() http.ResponseWriter { return h.w }

// Written reports whether the handler has started its response (sent or
// held a final status), after which an error page must not be appended.
func (h *holder) Written() bool { return h.state != stNew }

// Hijack lets the caller take over the connection, as [http.Hijacker]
// describes; nothing is written through the holding writer afterwards.
func (h *holder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(h.w).Hijack()
	if err == nil {
		h.state = stHijacked
	}
	return conn, rw, err
}

// informational passes an informational status (1xx other than 101, RFC
// 9110 section 15.2) through at once, as nothing is held for it, and
// reports whether code was one.
func (h *holder) informational(code int) bool {
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		h.w.WriteHeader(code)
		return true
	}
	return false
}

// hold tells the writers beneath that the held status has started the
// response (waltz.Hold), or, when one refuses, moves to stRefused.
func (h *holder) hold() {
	if err := waltz.Hold(h.w); err != nil {
		h.state, h.err = stRefused, err
	}
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
