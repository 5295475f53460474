package waltz

import (
	"io"
	"net/http"
	"time"
)

// A long download under a server's WriteTimeout. net/http's WriteTimeout
// runs from the end of the request's headers to the end of the response,
// so a file that takes longer than that to reach the client (a 1 GiB file
// at 10 MB/s takes 100 s, and the default WriteTimeout is 60 s) is cut
// partway, and the client gets a truncated body however fast it reads.
// The answers that send a file or a Download's content give each span of
// it the whole WriteTimeout instead.

// pacedSpan is how many bytes of a long body are written under one
// extension of the connection's write deadline: a client must take at
// least this much in each WriteTimeout (about 17 KiB/s under the default
// 60 s) or be cut, as one that stops reading is.
const pacedSpan = 1 << 20

// paced returns w, or, when the server that received req has a
// WriteTimeout and size (in bytes; negative when not known) is above
// pacedSpan, a writer that sets the connection's write deadline to now
// plus that WriteTimeout before each pacedSpan bytes it writes (through
// [http.ResponseController.SetWriteDeadline]), the first as it begins to
// write. A writer with no deadline to set (a
// wrapper without Unwrap, an httptest.ResponseRecorder) is written to as
// it is.
func paced(w http.ResponseWriter, req *http.Request, size int64) http.ResponseWriter {
	if size >= 0 && size <= pacedSpan || req.Method == http.MethodHead {
		return w // a HEAD sends no body to pace
	}
	srv, _ := req.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil || srv.WriteTimeout <= 0 {
		return w
	}
	// One allocation: the controller is held by value.
	return &pacedWriter{ResponseWriter: w, rc: *http.NewResponseController(w), timeout: srv.WriteTimeout}
}

// pacedWriter is paced's writer.
type pacedWriter struct {
	http.ResponseWriter
	rc      http.ResponseController
	timeout time.Duration
	left    int64            // bytes the span has left before the next extension
	off     bool             // the deadline cannot be set: write as is
	part    io.LimitedReader // a span of ReadFrom's source, reused
}

// Unwrap gives [http.ResponseController] the writer beneath.
func (p *pacedWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// extend starts a span, moving the write deadline to now plus the
// server's WriteTimeout.
func (p *pacedWriter) extend() {
	p.left = pacedSpan
	if p.off {
		return
	}
	if err := p.rc.SetWriteDeadline(time.Now().Add(p.timeout)); err != nil {
		p.off = true // not supported: the deadline stays as net/http set it
	}
}

// Write writes b, in spans when it is long.
func (p *pacedWriter) Write(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		if p.left <= 0 {
			p.extend()
		}
		k := int(min(int64(len(b)), p.left))
		m, err := p.ResponseWriter.Write(b[:k])
		n += m
		p.left -= int64(m)
		if err != nil {
			return n, err
		}
		b = b[k:]
	}
	return n, nil
}

// ReadFrom copies src into the body a span at a time, each through the
// writer beneath's ReadFrom when it has one: a span of an *os.File (or of
// an io.LimitedReader of one, which http.ServeContent gives) stays an
// *os.File in an io.LimitedReader, which net/http hands to sendfile.
func (p *pacedWriter) ReadFrom(src io.Reader) (int64, error) {
	rf, ok := p.ResponseWriter.(io.ReaderFrom)
	if !ok {
		return io.Copy(writerOnly{p}, src)
	}
	var n int64
	limit := int64(-1) // src's own limit, when it is an io.LimitedReader
	if lr, ok := src.(*io.LimitedReader); ok {
		src, limit = lr.R, lr.N
		defer func() { lr.N -= n }()
	}
	for limit < 0 || n < limit {
		if p.left <= 0 {
			p.extend()
		}
		p.part.R, p.part.N = src, p.left
		if limit >= 0 {
			p.part.N = min(p.left, limit-n)
		}
		want := p.part.N
		m, err := rf.ReadFrom(&p.part)
		n += m
		p.left -= m
		if err != nil || m < want {
			p.part.R = nil
			return n, err // an error, or src ended
		}
	}
	p.part.R = nil
	return n, nil
}

// writerOnly hides a writer's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }
