package middleware

import (
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
)

// compressWriter is the http.ResponseWriter Compress installs: a holder
// whose policy decides, from the held status, header and first MinSize
// bytes, whether to send the body as it is or through its encoder.
type compressWriter struct {
	holder // the writer Compress wrapped, the state, the held status and body (see holdState)
	m      *compressor
	enc    encoding // the coding the client accepts best
	head   bool     // a HEAD request: its GET's headers, no body
	gz     *gzip.Writer
	zl     *zlib.Writer
	rtype  string // the representation's Content-Type, told by RepresentationType, or ""
}

var (
	_ http.ResponseWriter = (*compressWriter)(nil)
	_ http.Flusher        = (*compressWriter)(nil)
	_ http.Hijacker       = (*compressWriter)(nil)
	_ io.StringWriter     = (*compressWriter)(nil)
	_ io.ReaderFrom       = (*compressWriter)(nil)
)

// take holds a final status until the body shows whether to compress, or
// sends it at once when the status and header already say no.
func (cw *compressWriter) take(code int) {
	cw.status = code
	if !cw.eligible() {
		_ = cw.sendHeld() // eligible added Vary if it belongs
		return
	}
	cw.hold(code)
}

// Unhold forgets what is held or being encoded, and the representation
// type told (see holder.Unhold): the error answered instead is judged by
// its own type.
func (cw *compressWriter) Unhold() {
	cw.holder.Unhold()
	cw.rtype = ""
}

// release decides, once MinSize bytes are held, the handler flushed or
// it returned (final).
func (cw *compressWriter) release(final bool) error { return cw.decide(final) }

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

// Encodes reports whether Compress would encode, for this request, a 200
// of size bytes of the representation RepresentationType told (or of
// the Content-Type set), with the fields set now. A handler that judges
// an If-Range by a date asks it (waltz.FileServer does): a date names
// the representation whatever its coding, and a range of the identity
// bytes does not continue an encoded 200, so the If-Range is then false
// (RFC 9110 section 13.1.5: the validator of the selected
// representation), where a tag Compress made weak never matches.
func (cw *compressWriter) Encodes(size int64) bool {
	h := cw.w.Header()
	if ct := h["Content-Type"]; len(ct) == 0 && cw.rtype == "" {
		return false
	}
	return cw.enc != encIdentity && size >= int64(cw.m.minSize) && cw.compressibleType(h)
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
			if header.EqualFold(strings.TrimSpace(d), "no-transform") {
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
			if f = strings.TrimSpace(f); f == "*" || header.EqualFold(f, "Accept-Encoding") {
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

// startPlain sends the held status and buffer as they are, with "Vary:
// Accept-Encoding" if vary.
func (cw *compressWriter) startPlain(vary bool) error {
	if vary {
		varyAcceptEncoding(cw.w.Header(), nil)
	}
	return cw.sendHeld()
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
