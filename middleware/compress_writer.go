package middleware

import (
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// compressWriter is the http.ResponseWriter Compress installs.
type compressWriter struct {
	holder // the writer Compress wrapped, the state (see holdState)
	m      *compressor
	enc    encoding // the coding the client accepts best
	head   bool     // a HEAD request: its GET's headers, no body
	status int
	buf    []byte      // NOTE: pooled; body bytes held while stBuffering
	zw     flateWriter // gz or zl while stCompressing, else nil
	gz     *gzip.Writer
	zl     *zlib.Writer
	rtype  string // the representation's Content-Type, told by RepresentationType, or ""
}

// flateWriter is what *gzip.Writer and *zlib.Writer have in common.
type flateWriter interface {
	io.WriteCloser
	Flush() error
}

var (
	_ http.ResponseWriter = (*compressWriter)(nil)
	_ http.Flusher        = (*compressWriter)(nil)
	_ http.Hijacker       = (*compressWriter)(nil)
	_ io.StringWriter     = (*compressWriter)(nil)
	_ io.ReaderFrom       = (*compressWriter)(nil)
)

// WriteHeader holds a final status until the body shows whether to
// compress; informational ones pass through at once.
func (cw *compressWriter) WriteHeader(code int) {
	if cw.state != stNew {
		return
	}
	if cw.informational(code) {
		return
	}
	cw.status, cw.state = code, stBuffering
	if !cw.eligible() {
		_ = cw.startPlain(false) // eligible added Vary if it belongs
		return
	}
	cw.hold()
}

// Write compresses, buffers or passes on p, as decided.
func (cw *compressWriter) Write(p []byte) (int, error) {
	if cw.state == stNew {
		cw.WriteHeader(http.StatusOK)
	}
	if err, ok := cw.closed(); ok {
		return 0, err
	}
	switch cw.state {
	case stCompressing:
		return cw.zw.Write(p)
	case stBuffering:
		k := min(len(p), cw.m.minSize-len(cw.buf))
		if cw.buf = append(cw.buf, p[:k]...); len(cw.buf) < cw.m.minSize {
			return k, nil
		}
		if err := cw.decide(false); err != nil {
			return k, err
		}
		n, err := cw.Write(p[k:])
		return k + n, err
	}
	return cw.w.Write(p)
}

// WriteString is Write for a string, without converting it to a []byte
// when it is buffered or passed on.
func (cw *compressWriter) WriteString(s string) (int, error) {
	if cw.state == stNew {
		cw.WriteHeader(http.StatusOK)
	}
	switch cw.state {
	case stBuffering:
		k := min(len(s), cw.m.minSize-len(cw.buf))
		if cw.buf = append(cw.buf, s[:k]...); len(cw.buf) < cw.m.minSize {
			return k, nil
		}
		if err := cw.decide(false); err != nil {
			return k, err
		}
		n, err := cw.WriteString(s[k:])
		return k + n, err
	case stPlain:
		return io.WriteString(cw.w, s)
	case stRefused:
		return 0, cw.err
	}
	if cw.state == stCompressing && cap(cw.buf) >= 512 {
		// Copy through the idle buffer rather than allocate a []byte.
		for n := 0; n < len(s); {
			k := copy(cw.buf[:cap(cw.buf)], s[n:])
			if _, err := cw.zw.Write(cw.buf[:k]); err != nil {
				return n, err
			}
			n += k
		}
		return len(s), nil
	}
	return cw.Write([]byte(s))
}

// eligible reports whether the held response may still be compressed, as
// far as its status and headers tell, and gives the answers that are not
// compressed the ETag and Vary the 200 they stand for carries, or would.
func (cw *compressWriter) eligible() bool {
	h := cw.w.Header()
	switch cw.status {
	case http.StatusNotModified:
		cw.notModified(h)
		return false
	case http.StatusSwitchingProtocols, http.StatusNoContent:
		return false
	}
	if cw.status == http.StatusPartialContent || cw.status == http.StatusRequestedRangeNotSatisfiable {
		// A range of the identity body (ranges of an encoded one are not
		// served), or the answer that none of the ranges asked for
		// exists: they vary as their 200 does.
		if cw.compressibleType(h) {
			varyAcceptEncoding(h, nil)
		}
		return false
	}
	if len(h["Content-Range"]) > 0 || !cw.compressibleType(h) {
		return false
	}
	if cw.enc == encIdentity {
		varyAcceptEncoding(h, nil) // another client, accepting gzip, would get gzip
		return false
	}
	return true
}

// compressibleType reports whether a response with header h may be
// compressed as far as its fields tell: no Content-Encoding, no
// no-transform, and a compressible type: the representation's, when
// RepresentationType told it, else the Content-Type (or none yet, to be
// sniffed).
func (cw *compressWriter) compressibleType(h http.Header) bool {
	if len(h["Content-Encoding"]) > 0 || noTransform(h["Cache-Control"]) {
		return false
	}
	if cw.rtype != "" {
		return cw.m.compressible(cw.rtype)
	}
	ct, typed := h["Content-Type"]
	return !typed || len(ct) > 0 && cw.m.compressible(ct[0])
}

// notModified gives a 304 the ETag and Vary of the 200 it stands for
// (RFC 9110 section 15.4.5), as far as the Content-Type and
// Content-Length left on it tell (see waltz.Response), or the type
// RepresentationType told: Vary when the type is compressible, and the
// tag made weak when that 200 would have been compressed for this client.
// A 304 with neither says nothing of its 200 and is left as it is.
func (cw *compressWriter) notModified(h http.Header) {
	if ct := h["Content-Type"]; len(ct) == 0 && cw.rtype == "" || !cw.compressibleType(h) {
		return
	}
	varyAcceptEncoding(h, nil)
	if cw.enc == encIdentity {
		return
	}
	if cl := h["Content-Length"]; len(cl) > 0 {
		if n, err := strconv.ParseInt(cl[0], 10, 64); err == nil && n < int64(cw.m.minSize) {
			return // too small to have been compressed
		}
	}
	weakenETag(h)
}

// weakenETag makes a strong ETag weak, W/"x" for "x": the encoded bytes
// differ from the identity ones, so the strong tag must not be shared (RFC
// 9110 section 8.8.3.3).
func weakenETag(h http.Header) {
	if et := h["Etag"]; len(et) > 0 && strings.HasPrefix(et[0], `"`) {
		h["Etag"] = []string{"W/" + et[0]}
	}
}

// noTransform reports whether a Cache-Control field has no-transform
// (RFC 9111 section 5.2.2.6), which Compress takes as the handler's wish
// that the body go out as it is.
func noTransform(cc []string) bool {
	for _, v := range cc {
		for v != "" {
			var d string
			d, v, _ = strings.Cut(v, ",")
			if strings.EqualFold(strings.TrimSpace(d), "no-transform") {
				return true
			}
		}
	}
	return false
}

// varyAcceptEncoding adds Accept-Encoding to h's Vary unless it is there
// or Vary is "*". A new Vary gets a value slice of the response's own,
// from own when it is not nil (see values).
func varyAcceptEncoding(h http.Header, own *values) {
	vs, ok := h["Vary"]
	if !ok {
		if own == nil {
			own = &values{}
		}
		h["Vary"] = own.one("Accept-Encoding")
		return
	}
	for _, v := range vs {
		for v != "" {
			var f string
			f, v, _ = strings.Cut(v, ",")
			if f = strings.TrimSpace(f); f == "*" || strings.EqualFold(f, "Accept-Encoding") {
				return
			}
		}
	}
	h.Add("Vary", "Accept-Encoding")
}

// decide ends stBuffering: it compresses or not, and writes the buffer
// out. final is true when the handler has returned, so the buffer is the
// whole body; otherwise the buffer is full or the handler flushed.
func (cw *compressWriter) decide(final bool) error {
	h := cw.w.Header()
	if ct, typed := h["Content-Type"]; typed {
		if len(ct) == 0 || !cw.m.compressible(ct[0]) {
			return cw.startPlain(false)
		}
	} else {
		if len(cw.buf) == 0 {
			return cw.startPlain(false) // net/http sends no type either
		}
		sniffed := http.DetectContentType(cw.buf)
		if !cw.m.compressible(sniffed) {
			return cw.startPlain(false)
		}
		// Set it: net/http would sniff the compressed bytes otherwise.
		h["Content-Type"] = []string{sniffed}
	}
	if !final || len(cw.buf) >= cw.m.minSize {
		return cw.startCompressing(false)
	}
	if cw.head && len(cw.buf) == 0 {
		// A HEAD whose handler wrote no body (http.ServeContent) gets
		// the headers its GET would: compressed when the declared
		// length is large enough (RFC 9110 section 9.3.2).
		if cl := h["Content-Length"]; len(cl) > 0 {
			if n, err := strconv.ParseInt(cl[0], 10, 64); err == nil && n >= int64(cw.m.minSize) {
				return cw.startCompressing(true)
			}
		}
	}
	return cw.startPlain(true)
}

// startPlain sends the held status and buffer as they are.
func (cw *compressWriter) startPlain(vary bool) error {
	if vary {
		varyAcceptEncoding(cw.w.Header(), nil)
	}
	cw.state = stPlain
	cw.w.WriteHeader(cw.status)
	if len(cw.buf) == 0 {
		return nil
	}
	_, err := cw.w.Write(cw.buf)
	cw.buf = cw.buf[:0]
	return err
}

// startCompressing sends the held status with the coding's headers and
// writes the buffer through a pooled compressor; with headersOnly (a HEAD
// with no body written) it sends the headers and nothing else.
func (cw *compressWriter) startCompressing(headersOnly bool) error {
	h := cw.w.Header()
	vs := newValues(2) // Content-Encoding and Vary
	if cw.enc == encGzip {
		h["Content-Encoding"] = vs.one("gzip")
	} else {
		h["Content-Encoding"] = vs.one("deflate")
	}
	delete(h, "Content-Length")
	delete(h, "Accept-Ranges") // ranges of the encoded body are not served
	weakenETag(h)
	varyAcceptEncoding(h, &vs)
	if headersOnly {
		cw.state = stPlain
		cw.w.WriteHeader(cw.status)
		return nil
	}
	cw.state = stCompressing
	cw.w.WriteHeader(cw.status)
	sink := (*compressSink)(cw)
	switch {
	case cw.enc == encGzip && cw.gz == nil:
		cw.gz, _ = gzip.NewWriterLevel(sink, cw.m.level) // level checked by newCompressor
		cw.zw = cw.gz
	case cw.enc == encGzip:
		cw.gz.Reset(sink)
		cw.zw = cw.gz
	case cw.zl == nil:
		cw.zl, _ = zlib.NewWriterLevel(sink, cw.m.level)
		cw.zw = cw.zl
	default:
		cw.zl.Reset(sink)
		cw.zw = cw.zl
	}
	if len(cw.buf) == 0 {
		return nil
	}
	_, err := cw.zw.Write(cw.buf)
	cw.buf = cw.buf[:0]
	return err
}

// compressSink is where a compressWriter's compressor writes: to the
// wrapped writer of the request being served. Pointing the pooled
// compressor at its own pooled wrapper, never at a request's writer, means
// nothing pooled keeps a finished request.
type compressSink compressWriter

func (s *compressSink) Write(p []byte) (int, error) { return s.w.Write(p) }

// finish completes the response after the handler returned. An aborted
// response gets nothing more: not the held bytes, nor the compressor's
// trailer, which would make a partial body look whole.
func (cw *compressWriter) finish(aborted bool) {
	if aborted {
		return
	}
	switch cw.state {
	case stBuffering:
		_ = cw.decide(true)
		if cw.state != stCompressing {
			return
		}
		fallthrough
	case stCompressing:
		_ = cw.zw.Close() // a write error is the client gone: nothing to tell
	}
}

// Flush sends what is held: it decides to compress (a held body too small
// so far is compressed, so that streams stay compressed), flushes the
// compressor, then the wrapped writer.
func (cw *compressWriter) Flush() { _ = cw.FlushError() }

// FlushError is Flush that returns an error, such as
// [http.ErrNotSupported] when the wrapped writer cannot flush.
func (cw *compressWriter) FlushError() error {
	if cw.state == stNew {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.state == stBuffering {
		if err := cw.decide(false); err != nil {
			return err
		}
	}
	if cw.state == stRefused {
		return cw.err
	}
	if cw.state == stCompressing {
		if err := cw.zw.Flush(); err != nil {
			return err
		}
	}
	return http.NewResponseController(cw.w).Flush()
}

// ReadFrom copies r to the response. A body that is not compressed goes
// to the wrapped writer's ReadFrom (sendfile for an *os.File over TCP); a
// compressed one goes through the pooled buffer, with no 32 KB copy buffer.
func (cw *compressWriter) ReadFrom(r io.Reader) (int64, error) {
	if cw.state == stNew {
		cw.WriteHeader(http.StatusOK)
	}
	var total int64
	for cw.state == stBuffering {
		n, err := r.Read(cw.buf[len(cw.buf):cw.m.minSize])
		cw.buf = cw.buf[:len(cw.buf)+n]
		total += int64(n)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		if len(cw.buf) == cw.m.minSize {
			if err := cw.decide(false); err != nil {
				return total, err
			}
		}
	}
	if err, ok := cw.closed(); ok {
		return total, err
	}
	if cw.state == stPlain {
		n, err := io.Copy(cw.w, r)
		return total + n, err
	}
	if cap(cw.buf) < 4096 {
		cw.buf = make([]byte, 0, 4096) // kept by the pool from now on
	}
	for {
		n, err := r.Read(cw.buf[:cap(cw.buf)])
		if n > 0 {
			if _, werr := cw.zw.Write(cw.buf[:n]); werr != nil {
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
