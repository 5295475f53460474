package middleware

import (
	"bytes"
	"hash/crc64"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/waltz-go/waltz/internal/cond"
)

// The writer ETag installs on GET and HEAD, and the fields it takes from
// the request while the handler runs: see [ETag].

// etagWriter is the http.ResponseWriter ETag installs on GET and HEAD: a
// holder whose policy tags the held 200 and judges the request's
// preconditions by the tag. Its states are the holding writers' (see
// holdState): stNew, stBuffering (a 200 held with up to MaxSize bytes of
// its body), stPlain (passing through), stDiscard (the answer was 304 or
// will be 412: the body is dropped), stHijacked and stRefused.
type etagWriter struct {
	holder             // the writer ETag wrapped, the state, the held body
	req    http.Header // the request's, for its preconditions
	head   bool        // a HEAD request
	failed bool        // the answer is 412, for serve to return

	// ranged is the request, when the handler got it without its
	// conditional fields (see strip): ETag judges them, and answers its
	// Range from the held body; else nil.
	ranged   *http.Request
	saved    [len(conditionalFields)][]string // the fields strip took
	stripped bool                             // NOTE: saved holds the fields; the header lacks them
	own      string                           // the handler's own tag on a 200 held to answer ranged's Range
}

var (
	_ http.ResponseWriter = (*etagWriter)(nil)
	_ http.Flusher        = (*etagWriter)(nil)
	_ http.Hijacker       = (*etagWriter)(nil)
	_ io.StringWriter     = (*etagWriter)(nil)
	_ io.ReaderFrom       = (*etagWriter)(nil)
)

// take holds a 200 without an ETag to tag its body, answers the
// preconditions at once for a 200 with one, and passes on anything else.
func (ew *etagWriter) take(code int) {
	if code != http.StatusOK {
		ew.state = stPlain
		ew.w.WriteHeader(code)
		return
	}
	tag := ew.w.Header()["Etag"]
	if len(tag) > 0 {
		// The handler tagged its body itself: the fields it was not
		// shown are judged on that tag, now.
		ew.restore()
	}
	if len(tag) == 0 || ew.ranged != nil && len(ew.ranged.Header["Range"]) > 0 {
		// Hold the body: to tag it, or to answer the Range the handler
		// was not shown from it.
		if len(tag) > 0 {
			ew.own = tag[0]
		}
		ew.hold(http.StatusOK)
		return
	}
	ew.answer(tag[0])
}

// Unhold forgets what is held, a pending 412 and the handler's own tag
// with it (see holder.Unhold).
func (ew *etagWriter) Unhold() {
	ew.holder.Unhold()
	ew.failed, ew.own = false, ""
}

// answer sends the response for a 200 tagged tag: 304, a pending 412, or
// the 200 itself.
func (ew *etagWriter) answer(tag string) { _ = ew.send(ew.judge(tag)) }

// judge evaluates the request's preconditions (internal/cond, RFC 9110
// section 13.2.2) for a 200 tagged tag ("" for none). The dates are
// judged by the 200's Last-Modified when ETag took them from the handler
// (see strip), and left to the handler when it was shown them.
func (ew *etagWriter) judge(tag string) cond.Result {
	ew.restore()
	v := cond.Validators{ETag: tag}
	if lm := ew.w.Header()["Last-Modified"]; ew.ranged != nil && len(lm) > 0 {
		v.LastModified, _ = http.ParseTime(lm[0])
	}
	method := http.MethodGet
	if ew.head {
		method = http.MethodHead
	}
	return cond.Evaluate(ew.req, method, v)
}

// send sends the response res says for the 200, held or not: 304, a
// pending 412, or the 200 itself with what is held (a range of it is
// serveRange's). The error is the write's.
func (ew *etagWriter) send(res cond.Result) error {
	switch res {
	case cond.NotModified:
		ew.state = stDiscard
		notModified(ew.w)
		return nil
	case cond.Failed:
		// Returned by serve, for the router to render, when the handler
		// is done writing a body that is dropped.
		if ew.state == stNew {
			ew.hold(http.StatusPreconditionFailed)
		}
		if ew.state != stRefused {
			ew.state = stDiscard
		}
		ew.failed = true
		return nil
	}
	ew.status = http.StatusOK
	return ew.sendHeld()
}

// release gives up on tagging: it sends the held status and body. When
// the handler was not shown the request's conditional fields, they are
// judged now, on the handler's own tag or none (so an If-Match other
// than "*" fails) and its Last-Modified: the answer may be a 304 or a
// 412 instead, and the body is dropped. A Range is not served: the whole
// 200 is the answer (RFC 9110 section 14.2 lets a server ignore it).
func (ew *etagWriter) release(bool) error {
	if ew.ranged != nil {
		if res := ew.judge(ew.own); res == cond.NotModified || res == cond.Failed {
			ew.buf = ew.buf[:0]
			return ew.send(res)
		}
	}
	return ew.sendHeld()
}

// finish tags and sends a held body after the handler returned, or
// leaves a 412 for serve to return.
func (ew *etagWriter) finish() {
	if ew.state == stBuffering && ew.head && len(ew.buf) == 0 && ew.own == "" {
		// A HEAD handler that writes no body (http.ServeContent, for
		// one) says nothing of the GET body: no tag is better than
		// the empty body's.
		_ = ew.release(true)
	}
	if ew.state != stBuffering {
		return
	}
	h := ew.w.Header()
	tag := ew.own
	if tag == "" {
		tag = formatTag(crc64.Checksum(ew.buf, crcTable))
		vals := make([]string, 2) // one allocation for both header values
		vals[0] = tag
		h["Etag"] = vals[0:1:1]
		if _, ok := h["Content-Length"]; !ok {
			vals[1] = strconv.Itoa(len(ew.buf))
			h["Content-Length"] = vals[1:2:2]
		}
	}
	res := ew.judge(tag)
	if res == cond.Perform && ew.ranged != nil && len(ew.ranged.Header["Range"]) > 0 && acceptsRanges(h) {
		ew.serveRange(ew.buf)
		return
	}
	_ = ew.send(res) // a write error is the client gone
}

// acceptsRanges reports whether a 200 with header h says its handler
// serves byte ranges of it ("Accept-Ranges: bytes", as http.ServeContent
// sets, RFC 9110 section 14.3) of the identity body (no Content-Encoding:
// Compress, beneath, drops Accept-Ranges when it encodes). Only then does
// ETag answer a Range it kept from the handler; for any other handler a
// Range is ignored, as that handler would have, and the 200 is the answer.
func acceptsRanges(h http.Header) bool {
	ar := h["Accept-Ranges"]
	return len(ar) > 0 && ar[0] == "bytes" && len(h["Content-Encoding"]) == 0
}

// serveRange answers the Range of the request as the client sent it
// (ranged) from body, the whole held 200 tagged with the ETag field set,
// once its preconditions, If-Range included, said to (judge):
// http.ServeContent sends the 206 (one range, or multipart/byteranges),
// or its own 416, which ETag gives "Content-Range: bytes */size" where
// ServeContent does not (RFC 9110 section 15.5.17).
func (ew *etagWriter) serveRange(body []byte) {
	ew.state = stPlain
	r2 := *ew.ranged
	r2.Header = http.Header{"Range": ew.ranged.Header["Range"]}
	http.ServeContent(&rangeWriter{ew.w, len(body)}, &r2, "", time.Time{}, bytes.NewReader(body))
}

// rangeWriter is the writer serveRange gives http.ServeContent: it adds
// the Content-Range a 416 must carry when ServeContent left it out.
type rangeWriter struct {
	http.ResponseWriter
	size int
}

func (w *rangeWriter) WriteHeader(code int) {
	if h := w.Header(); code == http.StatusRequestedRangeNotSatisfiable && len(h["Content-Range"]) == 0 {
		h.Set("Content-Range", "bytes */"+strconv.Itoa(w.size))
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rangeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// crcTable is the table of the CRC-64 ETag tags bodies with: ECMA's.
var crcTable = crc64.MakeTable(crc64.ECMA)

// formatTag returns the strong entity tag of a body whose CRC-64 is sum:
// 16 hex digits, quoted.
func formatTag(sum uint64) string {
	var q [18]byte
	q[0], q[17] = '"', '"'
	const hex = "0123456789abcdef"
	for i := 16; i >= 1; i-- {
		q[i], sum = hex[sum&15], sum>>4
	}
	return string(q[:])
}

// ContentTag returns the entity tag ETag gives a body of content's bytes,
// for a handler that must know it before it answers (FileServer, which
// answers conditional and range requests through http.ServeContent), or
// "" when content is larger than MaxSize, which ETag leaves untagged.
// content is read to its end and seeked back to its start.
func (ew *etagWriter) ContentTag(content io.ReadSeeker) (string, error) {
	// The caller will set the tag and judge the request's conditional
	// fields itself: give them back.
	ew.restore()
	ew.ranged = nil
	size, err := content.Seek(0, io.SeekEnd)
	if err != nil {
		return "", err
	}
	if _, err := content.Seek(0, io.SeekStart); err != nil || size > int64(ew.limit) {
		return "", err
	}
	var buf [4096]byte
	var sum uint64
	for {
		n, err := content.Read(buf[:])
		sum = crc64.Update(sum, crcTable, buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	if _, err := content.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	return formatTag(sum), nil
}

// OwnTag tells ETag that the handler has set its answer's ETag field
// itself and judges the request's preconditions and Range on it
// (waltz.FileServer with its ETag option, a typed Download whose Out sets
// an ETag): ETag gives back the fields it took out of the request, and
// leaves the handler's 206, 304 and 412 as they are.
func (ew *etagWriter) OwnTag() {
	ew.restore()
	ew.ranged = nil
}

// strip takes conditionalFields out of the request's header, keeping
// them in ew.saved; restore puts them back. Neither allocates.
func (ew *etagWriter) strip() {
	h := ew.ranged.Header
	for i, k := range conditionalFields {
		ew.saved[i] = h[k]
		delete(h, k)
	}
	ew.stripped = true
}

// restore puts back what strip took, once.
func (ew *etagWriter) restore() {
	if !ew.stripped {
		return
	}
	h := ew.ranged.Header
	for i, k := range conditionalFields {
		if ew.saved[i] != nil {
			h[k] = ew.saved[i]
		}
		ew.saved[i] = nil
	}
	ew.stripped = false
}
