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
type Response struct {
	w      http.ResponseWriter
	sw     io.StringWriter // w, if it takes strings; asked on the first WriteString
	swSet  bool            // sw has been asked for
	status int
	size   int64
	wrote  bool // NOTE: true once a final status has been sent
	// NOTE: true once the connection was hijacked; nothing may be written
	// through w after that.
	hijacked bool
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
func (r *Response) reset(w http.ResponseWriter) {
	*r = Response{w: w}
}

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
	r.w.WriteHeader(code)
}

// Write writes body bytes, sending a 200 status first if none was sent.
func (r *Response) Write(b []byte) (int, error) {
	if r.hijacked {
		return 0, http.ErrHijacked
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
	if r.hijacked {
		return 0, http.ErrHijacked
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
	if r.hijacked {
		return 0, http.ErrHijacked
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
// on the raw connection.
func (r *Response) Status() int {
	if !r.wrote {
		return http.StatusOK
	}
	return r.status
}

// Size returns the number of body bytes written, in bytes.
func (r *Response) Size() int64 { return r.size }

// Written reports whether the status line has been sent, after which the
// status can no longer change. It is true after a hijack too.
func (r *Response) Written() bool { return r.wrote }

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
func (r *Response) FlushError() error {
	if r.hijacked {
		return http.ErrHijacked
	}
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	return http.NewResponseController(r.w).Flush()
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
