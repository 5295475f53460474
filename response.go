package waltz

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// Response wraps the http.ResponseWriter of a request. It records the status
// code and the number of body bytes written, so that middleware can read them
// after the handler returns, and forwards only the first final WriteHeader.
// Unwrap gives [http.ResponseController] the underlying writer, so Flush,
// Hijack, SetReadDeadline and SetWriteDeadline reach it.
//
// It is also where every writer of the request agrees on what has happened
// to the response. A middleware writer that holds a status back (to tag or
// compress the body, say) tells the Response with [Hold], so [Response.Started]
// is true from the moment the handler chose its status, whichever writer
// holds it; the error paths (the error handler, middleware.Recoverer,
// middleware.Timeout) read that one answer. [Response.Aborted] tells a
// holding writer that what it holds must never be sent. The header map
// describes the body that will be sent, for a 200, a HEAD and a 304 alike:
// a 304 may carry the Content-Type, Content-Length and Content-Encoding its
// 200 would have, for the writers above to read, and the Response drops
// them when it sends it; an error answer is rendered without the entity fields (ETag,
// Content-Length, Content-Encoding, Content-Range, Last-Modified) of a body
// that was not sent.
type Response struct {
	// c is the Context the Response is part of, set when the Context is
	// made, kept by reset: a refusal of a QUERY route carries its
	// Accept-Query (query.go). Nil in a copied Context's.
	c      *Context
	w      http.ResponseWriter
	sw     io.StringWriter // w, if it takes strings; asked on the first WriteString
	swSet  bool            // sw has been asked for
	status int
	size   int64
	wrote  bool // NOTE: true once a final status has been sent
	// NOTE: true once the connection was hijacked; nothing may be written
	// through w after that.
	hijacked bool
	held     bool // NOTE: a writer above took a final status and holds it (Hold)
	aborted  bool // NOTE: the response is to be cut; nothing held may be sent
	head     bool // the request is a HEAD: no body goes out
	flushed  bool // the status went out with a Flush on a HEAD: the response is over
	// whole: the response is a whole answer (a helper's, a typed
	// operation's) or an event stream, so that an error after it is
	// logged, not an abort (Context.stands); wholeAt, the bytes sent
	// when it was set, -1 for a stream: a byte written after a whole
	// answer (a part past it) makes it no longer whole.
	whole   bool
	wholeAt int64
}

var (
	_ http.ResponseWriter = (*Response)(nil)
	_ io.StringWriter     = (*Response)(nil)
	_ http.Flusher        = (*Response)(nil)
	_ http.Hijacker       = (*Response)(nil)
	_ io.ReaderFrom       = (*Response)(nil)
)

// reset prepares r for a request answered through w. Whether w takes
// strings is asked by the first WriteString, so a request that writes none
// does not pay for the type check, and one that writes several pays once.
func (r *Response) reset(w http.ResponseWriter, head bool) {
	*r = Response{c: r.c, w: w, head: head}
}

// answered records whether an answer went out whole, and the bytes sent
// then.
func (r *Response) answered(whole bool) { r.whole, r.wholeAt = whole, r.size }

// isWhole reports whether the response is a whole answer, nothing written
// after it, or an event stream.
func (r *Response) isWhole() bool { return r.whole && (r.wholeAt < 0 || r.size == r.wholeAt) }

// Header returns the header map that WriteHeader will send.
func (r *Response) Header() http.Header { return r.w.Header() }

// WriteHeader sends the status line and headers. An informational code
// (1xx other than 101, RFC 9110 section 15.2) is passed through every time;
// of the final codes only the first is sent, later ones are ignored.
func (r *Response) WriteHeader(code int) {
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		if !r.hijacked {
			r.w.WriteHeader(code)
		}
		return
	}
	if r.wrote {
		return // Hijack sets wrote as well, so this drops a status after one too
	}
	r.wrote, r.status = true, code
	if code >= http.StatusBadRequest && r.c != nil {
		r.c.acceptQueryOnError() // a refusal of a QUERY route says what the route takes
	}
	if code == http.StatusNotModified && !r.overResponse() {
		// Writers above may have left the 200's representation fields
		// for each other to read (see Response); a 304 has no body to
		// describe (RFC 9110 section 15.4.5).
		h := r.w.Header()
		delete(h, "Content-Type")
		delete(h, "Content-Length")
		delete(h, "Content-Encoding")
	}
	r.w.WriteHeader(code)
}

// Write writes body bytes, sending a 200 status first if none was sent. On
// a HEAD request whose headers were flushed, it returns
// [http.ErrBodyNotAllowed]: see FlushError.
func (r *Response) Write(b []byte) (int, error) {
	if r.hijacked || r.flushed {
		return 0, r.closedErr()
	}
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	n, err := r.w.Write(b)
	r.size += int64(n)
	return n, err
}

// WriteString writes s as Write does, without copying it when the
// underlying writer implements io.StringWriter.
func (r *Response) WriteString(s string) (int, error) {
	if r.hijacked || r.flushed {
		return 0, r.closedErr()
	}
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	var n int
	var err error
	if !r.swSet {
		r.sw, _ = r.w.(io.StringWriter)
		r.swSet = true
	}
	if r.sw != nil {
		n, err = r.sw.WriteString(s)
	} else {
		n, err = r.w.Write([]byte(s))
	}
	r.size += int64(n)
	return n, err
}

// ReadFrom copies src into the body, sending a 200 status first if none
// was sent, through the underlying writer's ReadFrom when it has one (so
// net/http can hand an *os.File to sendfile, as http.ServeContent wants).
// It returns the number of bytes copied.
func (r *Response) ReadFrom(src io.Reader) (int64, error) {
	if r.hijacked || r.flushed {
		return 0, r.closedErr()
	}
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	var n int64
	var err error
	if rf, ok := r.w.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(r.w, src) // r.w has no ReadFrom: no call back into r
	}
	r.size += n
	return n, err
}

// Status returns the status code sent, or 200 when nothing has been sent yet
// (which is what net/http sends for a handler that writes nothing). After a
// hijack with no status sent before it, it returns 0: the handler answered
// on the raw connection; so it does for a response aborted before a status
// was sent ([Response.Aborted]): the client got none.
func (r *Response) Status() int {
	if !r.wrote {
		if r.aborted {
			return 0
		}
		return http.StatusOK
	}
	return r.status
}

// Size returns the number of body bytes written, in bytes.
func (r *Response) Size() int64 { return r.size }

// Written reports whether the status line has been sent, after which the
// status can no longer change. It is true after a hijack too. A status
// held by a middleware writer is not written yet; [Response.Started]
// counts it.
func (r *Response) Written() bool { return r.wrote }

// Started reports whether the response has started: a final status was
// sent, or was taken by a writer that holds it back (see [Hold]), or the
// connection was hijacked. From then on the status cannot change: an
// error or a panic aborts the response (an error after a helper's whole
// answer, on an event stream, or once the client has gone, is only
// logged), since the client would take what it got, or what a holding
// writer would still send, for the whole answer; only a response that
// is held, with nothing sent, is taken back for an error's answer (see
// [Hold]).
func (r *Response) Started() bool { return r.wrote || r.held }

// Aborted reports whether the response is to be cut once the chain
// returns: an error (a panic recovered by middleware.Recoverer, say) was
// answered after the response had started, and it was not taken back.
// A writer that holds a status or body must then send nothing more and
// close no encoder, so that the client sees a truncated response rather
// than a short one that looks complete.
func (r *Response) Aborted() bool { return r.aborted }

// Hold records that a writer above the Response took a final status and
// holds it back, with any body, instead of passing it on: the response has
// started ([Response.Started]). The writers between are asked first, as
// [Hold] describes, and an error from one of them (a deadline that has
// passed) is returned, in which case nothing is recorded. After a hijack
// it returns [http.ErrHijacked].
func (r *Response) Hold() error {
	if r.hijacked {
		return http.ErrHijacked
	}
	if err := Hold(r.w); err != nil {
		return err
	}
	r.held = true
	return nil
}

// Unhold undoes [Response.Hold] for a holding writer that gives up what it
// held without having sent anything, to return an error instead (ETag's
// 412 for a failed If-Match on the body it held): the response has not
// started again, so the router's error handler renders that error. The
// router calls it too, when it takes a held response back for an error
// (see [Hold]). It does nothing once a status was sent or the connection
// hijacked.
func (r *Response) Unhold() {
	if !r.wrote {
		r.held = false
	}
}

// Hold is what a response writer that holds back a final status calls, with
// the writer it wraps, when it takes one: it tells the writers beneath, down
// to the request's [Response], that the response has started though nothing
// has been sent yet. It walks from w through the writers' Unwrap methods to
// the first that has a method Hold() error and returns that method's
// result: a Response records the start; a writer that may refuse to start
// the response (middleware.Timeout's, after its deadline) returns why, and
// otherwise passes the call on with Hold of its own writer. When the walk
// finds no such method (a writer with no Unwrap hides the rest) it
// returns nil.
//
// A holding writer that gets an error must send nothing and return the
// error from its writes. One that gets nil, and later finds
// [Response.Aborted] true, must drop what it holds.
//
// When a handler returns an error while the response is held, so that
// nothing of it was sent, the router takes the response back: it calls
// the method Unhold() of every writer from [Context.Writer] down to the
// request's Response, each of which must forget what it holds or counted
// (a holding writer goes back to holding nothing), and then answers the
// error as one returned before the response started. When a writer on the
// way has no such method (it may have kept what passed it), or the error
// wraps [http.ErrAbortHandler], the router aborts the response instead.
func Hold(w http.ResponseWriter) error {
	for w != nil {
		if h, ok := w.(interface{ Hold() error }); ok {
			return h.Hold()
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// Hijacked reports whether the connection was taken over with Hijack
// (through [http.ResponseController] or directly). After that the Response
// writes nothing: WriteHeader does nothing, and Write and WriteString
// return [http.ErrHijacked], so no error page can reach a connection the
// handler owns.
func (r *Response) Hijacked() bool { return r.hijacked }

// Unwrap returns the underlying http.ResponseWriter, for
// [http.ResponseController].
func (r *Response) Unwrap() http.ResponseWriter { return r.w }

// Flush sends any buffered body bytes to the client, sending a 200 status
// first if none was sent. It does nothing when the underlying writer cannot
// flush; use FlushError to learn that.
func (r *Response) Flush() { _ = r.FlushError() }

// FlushError is Flush that returns an error, such as
// [http.ErrNotSupported] when the underlying writer cannot flush.
//
// On a HEAD request the first flush sends the headers, and from then on
// FlushError, Write, WriteString and ReadFrom return
// [http.ErrBodyNotAllowed]: net/http discards every body byte of a HEAD,
// so a handler that streams until a write fails (an event stream, a
// progress feed) would never end, and on a kept-alive connection nothing
// tells it that the client has gone (RFC 9110 section 9.3.2: the answer
// to HEAD is the headers alone).
func (r *Response) FlushError() error {
	if r.hijacked || r.flushed {
		return r.closedErr()
	}
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	err := http.NewResponseController(r.w).Flush()
	r.flushed = r.head && err == nil
	return err
}

// overResponse reports whether another Response lies beneath r's writer,
// as it does for the Context that WrapMiddleware runs the rest of a chain
// on: the writers between still read what a 304 leaves for them, and the
// Response beneath drops it.
func (r *Response) overResponse() bool { return bottom(r.w) != nil }

// closedErr is the error of a write to a response that takes no more.
func (r *Response) closedErr() error {
	if r.hijacked {
		return http.ErrHijacked
	}
	return http.ErrBodyNotAllowed
}

// Hijack lets the caller take over the connection, as [http.Hijacker]
// describes; it returns [http.ErrNotSupported] when the underlying writer
// cannot (HTTP/2, for one).
func (r *Response) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(r.w).Hijack()
	if err == nil {
		r.hijacked, r.wrote = true, true
	}
	return conn, rw, err
}
