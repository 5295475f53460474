package waltz

// Conditional and range requests for FileServer (RFC 9110 sections 13
// and 14): the ETag it must know first, the preconditions judged by
// internal/cond before http.ServeContent answers, and a Range field put
// in a shape whose answer is never larger than the file plus a bounded
// framing.

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/waltz-go/waltz/internal/cond"
	"github.com/waltz-go/waltz/internal/header"
)

// maxRangeParts is the most parts a multipart/byteranges answer has. Each
// part costs its own boundary and headers (about 100 bytes), so with this
// cap the framing stays under a few kilobytes whatever the client asks.
const maxRangeParts = 16

// byteRange is an inclusive range of byte offsets, first <= last.
type byteRange struct{ first, last int64 }

// rangeField returns the Range field ServeContent should see for a file of
// size bytes, given the request's field value v, and whether it differs
// from v:
//
//   - a unit other than "bytes" is ignored (section 14.1: the field is
//     then disregarded, and the whole file is the answer): "";
//   - a malformed set is left as it is for ServeContent's own answer;
//   - a set with no satisfiable range ("-0" and first positions past
//     the end, section 14.1.2) becomes "bytes=size-", which ServeContent
//     answers 416 with "Content-Range: bytes */size";
//   - otherwise the satisfiable ranges are sorted, and overlapping or
//     adjacent ones are merged (section 14.2 lets a server coalesce
//     them); more than maxRangeParts after that is ignored: "". The unit
//     is written "bytes" whatever its case (section 14.1: range units are
//     case-insensitive; ServeContent knows only the lower-case one).
func rangeField(v string, size int64) (string, bool) {
	unit, set, ok := strings.Cut(v, "=")
	if !ok || !header.EqualFold(unit, "bytes") {
		return "", true // no unit it knows (section 14.1.1 has no space before '='): ignored
	}
	rs, odd, ok := parseRangeSet(set, size)
	if !ok {
		return v, false
	}
	if len(rs) == 0 {
		none := "bytes=" + strconv.FormatInt(size, 10) + "-"
		return none, none != v
	}
	byFirst := func(a, b byteRange) int { return cmp.Compare(a.first, b.first) }
	inOrder := slices.IsSortedFunc(rs, byFirst)
	slices.SortFunc(rs, byFirst)
	merged := rs[:1]
	for _, r := range rs[1:] {
		if m := &merged[len(merged)-1]; r.first <= m.last+1 {
			m.last = max(m.last, r.last)
			continue
		}
		merged = append(merged, r)
	}
	switch {
	case len(merged) > maxRangeParts:
		return "", true
	case inOrder && len(merged) == len(rs) && unit == "bytes" && !odd:
		return v, false // nothing to merge, reorder or respell
	}
	b := make([]byte, 0, len("bytes=")+len(merged)*16)
	b = append(b, "bytes="...)
	for i, r := range merged {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, r.first, 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, r.last, 10)
	}
	return string(b), true
}

// parseRangeSet parses a byte-range-set (section 14.1.2) against a file of
// size bytes, keeping the satisfiable ranges, clipped to the file. ok is
// false when the set is malformed; odd is true when it has a spec that
// ServeContent would misread: a number past int64 (which it refuses) or
// a suffix of no byte (which it answers with an empty range).
func parseRangeSet(set string, size int64) (rs []byteRange, odd, ok bool) {
	specs := 0
	for spec := range strings.SplitSeq(set, ",") {
		spec = header.TrimOWS(spec)
		if spec == "" {
			continue // empty list elements are allowed (section 5.6.1)
		}
		specs++
		a, b, ok := strings.Cut(spec, "-")
		if !ok {
			return nil, false, false
		}
		if a == "" { // suffix range: the last b bytes
			n, ok := parsePos(b)
			if !ok {
				return nil, false, false
			}
			odd = odd || n == 0 || n == math.MaxInt64
			if n > 0 && size > 0 {
				rs = append(rs, byteRange{max(0, size-n), size - 1})
			}
			continue
		}
		first, ok := parsePos(a)
		if !ok {
			return nil, false, false
		}
		last := size - 1
		if b != "" {
			if last, ok = parsePos(b); !ok || last < first {
				return nil, false, false
			}
		}
		odd = odd || first == math.MaxInt64 || last == math.MaxInt64
		if first < size {
			rs = append(rs, byteRange{first, min(last, size-1)})
		}
	}
	return rs, odd, specs > 0 // a set of no range-spec is malformed (1#range-spec)
}

// parsePos parses a first-pos, last-pos or suffix-length (1*DIGIT,
// section 14.1.2). A value past what int64 holds is valid syntax, larger
// than any file: it saturates at math.MaxInt64.
func parsePos(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		if n > (math.MaxInt64-int64(d))/10 {
			n = math.MaxInt64
			continue
		}
		n = n*10 + int64(d)
	}
	return n, true
}

// errPreconditionFailed is FileServer's answer to a false If-Match or
// If-Unmodified-Since (RFC 9110 section 15.5.13), for the error handler to
// render as it renders every error answer, middleware.ETag's and typed
// operations' 412 alike. NOTE: shared; never modified.
var errPreconditionFailed = &HTTPError{Code: http.StatusPreconditionFailed}

// FileServer's answers to a Range it cannot serve (RFC 9110 section
// 15.5.17), rendered by the error handler as every error answer, with
// "Content-Range: bytes */size", which the error path keeps for a 416.
// NOTE: shared; never modified.
var (
	errRangePastEnd   = &HTTPError{Code: http.StatusRequestedRangeNotSatisfiable, Message: "no range of the Range field is within the content"}
	errRangeMalformed = &HTTPError{Code: http.StatusRequestedRangeNotSatisfiable, Message: "the Range field is malformed"}
)

// sendContent answers req with content, of size bytes modified at
// modtime (now, when that is in the future), whose 200's fields
// (Content-Type, ETag) are set in w's header; its Last-Modified is
// modtime only once modtime's second has ended (cond.Settled), else none:
// it judges the request's preconditions with internal/cond (RFC 9110
// section 13.2.2), as middleware.ETag and typed operations do, sends a
// 304 itself or returns the 412 (and the 416 that the fileWriter held
// back from ServeContent), and otherwise lets http.ServeContent
// send the file or the range step 5 leaves, in FileServer's shape
// (rangeField), on a request without the fields already judged, so that
// ServeContent judges none of them again. A 304 or a Range needs w to be
// a fileWriter (conditional). A HEAD is judged as its GET, a range's
// If-Range included: it is answered with its GET's fields (section
// 9.3.2), as ServeContent answers it.
func sendContent(w http.ResponseWriter, req *http.Request, name string, modtime time.Time, size int64, content io.ReadSeeker) error {
	now := time.Now()
	if modtime.After(now) {
		// RFC 9110 section 8.8.2.1: a modification time in the future
		// is taken as the message's date. Else a client would keep it,
		// and a file replaced before that date would get 304s.
		modtime = now
	}
	h := w.Header()
	v := cond.Validators{LastModified: lastModified(modtime)}
	sent := v.LastModified
	if !cond.Settled(sent, now) {
		// Section 8.8.2.2: a date names a second, and a file changed in
		// this one may change again within it, keeping its date. None
		// is sent until the second has ended, so that every date a
		// client holds names the file's last version of its second and
		// an If-Range or If-Unmodified-Since by it can be trusted (the
		// date is still judged: cond says unsure for this second).
		sent = time.Time{}
	}
	if et := h["Etag"]; len(et) > 0 {
		v.ETag = et[0]
		ownTag(w)
	}
	res := cond.Evaluate(req.Header, http.MethodGet, v)
	switch res {
	case cond.Failed:
		return errPreconditionFailed
	case cond.NotModified:
		// Section 15.4.5: the 200's validators, Last-Modified only
		// without an ETag, as ServeContent's 304 has them; the
		// fileWriter leaves the 200's Content-Type and Content-Length
		// for the writers beneath.
		if v.ETag == "" && !sent.IsZero() {
			h["Last-Modified"] = []string{sent.UTC().Format(http.TimeFormat)}
		}
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	whole := res == cond.Whole || res == cond.Perform && datedIfRange(req.Header) && encodedAbove(w, size)
	if fw, ok := w.(*fileWriter); ok && fw.coding != "" && !whole {
		// Ranges of a precompressed sibling: a multipart/byteranges of
		// them would carry its Content-Encoding, which the multipart
		// body is not, and a client decoding the answer by it fails.
		// Several are answered with the whole coded 200 (RFC 9110
		// section 14.2 lets a server ignore a Range); one is a 206.
		if v := req.Header.Get("Range"); v != "" {
			nv, _ := rangeField(v, size)
			whole = strings.IndexByte(nv, ',') >= 0
		}
	}
	_, nosniff := h["X-Content-Type-Options"]
	http.ServeContent(paced(w, req, size), contentRequest(req, size, whole), name, sent, content)
	if fw, ok := w.(*fileWriter); ok && fw.unsat {
		// The fields http.Error set for the page the error handler
		// replaces.
		delete(h, "Content-Type")
		if !nosniff {
			delete(h, "X-Content-Type-Options")
		}
		if fw.malformed {
			return errRangeMalformed
		}
		return errRangePastEnd
	}
	return nil
}

// lastModified returns modtime as the validator http.ServeContent's
// Last-Modified field carries: none (the zero time) for the zero time and
// the Unix epoch, which it takes for an unknown date.
func lastModified(modtime time.Time) time.Time {
	if modtime.Unix() == 0 {
		return time.Time{}
	}
	return modtime
}

// contentRequest returns the request http.ServeContent is to answer, once
// sendContent judged req's preconditions: req itself when it has none of
// them and its Range is in FileServer's shape; else a copy whose header
// holds the Range alone, reshaped by rangeField, or nothing when whole
// (If-Range was false) or the Range is to be ignored. ServeContent reads
// nothing else of the header.
func contentRequest(req *http.Request, size int64, whole bool) *http.Request {
	v := req.Header.Get("Range")
	nv := v
	if whole {
		nv = ""
	} else if v != "" {
		nv, _ = rangeField(v, size)
	}
	if nv == v && !preconditioned(req.Header) {
		return req
	}
	r2 := *req
	r2.Header = nil
	if nv != "" {
		r2.Header = http.Header{"Range": {nv}}
	}
	return &r2
}

// preconditioned reports whether h has a precondition field (RFC 9110
// section 13.1), which sendContent judges and http.ServeContent must not.
func preconditioned(h http.Header) bool {
	for _, k := range [...]string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range"} {
		if _, ok := h[k]; ok {
			return true
		}
	}
	return false
}

// conditional reports whether h has a field that can make FileServer
// answer 304, 412 or 416 (RFC 9110 sections 13.1 and 14.2), for which the
// answer needs a fileWriter.
func conditional(h http.Header) bool {
	for _, k := range [...]string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "Range"} {
		if _, ok := h[k]; ok {
			return true
		}
	}
	return false
}

// setTag sets the ETag field for content: FileServer's own with the ETag
// option; else, when a writer of the chain tags bodies and says how (the
// method ContentTag(io.ReadSeeker) (string, error), as middleware.ETag's
// has), the tag it would give this body, so that http.ServeContent
// answers If-Match, If-None-Match, If-Range and Range with the tag the
// 200 carries (RFC 9110 section 13.2.2); an ETag already set is kept.
func (s *fileServer) setTag(c *Context, h http.Header, name string, fi fs.FileInfo, content io.ReadSeeker) error {
	if s.etags != nil {
		tag, err := s.etags.tag(name, fi, content)
		if err != nil {
			return err
		}
		h.Set("Etag", tag)
		return nil
	}
	if len(h["Etag"]) > 0 {
		return nil
	}
	t, ok := chainWriter[interface {
		ContentTag(io.ReadSeeker) (string, error)
	}](c.Writer)
	if !ok {
		return nil
	}
	tag, err := t.ContentTag(content)
	if err != nil {
		return fmt.Errorf("waltz: FileServer: tagging %q: %w", name, err)
	}
	if tag != "" {
		h["Etag"] = []string{tag}
	}
	return nil
}

// datedIfRange reports whether h has a Range under an If-Range that is a
// date, not an entity tag (RFC 9110 section 13.1.5).
func datedIfRange(h http.Header) bool {
	ir := h["If-Range"]
	return len(h["Range"]) > 0 && len(ir) == 1 && !strings.HasPrefix(ir[0], `"`) && !strings.HasPrefix(ir[0], "W/")
}

// encodedAbove reports whether a writer of w's chain (the method
// Encodes(int64) bool, as middleware.Compress's has) would encode the 200
// of size bytes: the client's If-Range date then stands for the coded
// representation, of which a range of these bytes is none.
func encodedAbove(w http.ResponseWriter, size int64) bool {
	encoded := false
	eachWriter(w, func(e interface{ Encodes(int64) bool }) bool {
		encoded = e.Encodes(size)
		return !encoded
	})
	return encoded
}

// ownTag tells the writers of w's chain that take a request's
// conditional fields out for a tag of their own (the method OwnTag(), as
// middleware.ETag's writer has) that the answer's ETag is set, so that
// they give the fields back for sendContent to judge: else a Range and
// its If-Range would never reach http.ServeContent.
func ownTag(w http.ResponseWriter) {
	eachWriter(w, func(t interface{ OwnTag() }) bool { t.OwnTag(); return true })
}

// tellType tells the writers of the chain that ask (the method
// RepresentationType(string), as middleware.Compress's has) the file's
// Content-Type ctype, which http.ServeContent's multipart/byteranges 206,
// 416 and 304 do not carry, so that they get the Vary the 200 carries
// (RFC 9110 section 12.5.5).
func tellType(w http.ResponseWriter, ctype string) {
	if ctype != "" {
		eachWriter(w, func(t interface{ RepresentationType(string) }) bool { t.RepresentationType(ctype); return true })
	}
}

// eachWriter calls f with each writer of type T on w's Unwrap chain, w
// included, outermost first, until f returns false.
func eachWriter[T any](w http.ResponseWriter, f func(T) bool) {
	for w != nil {
		if t, ok := w.(T); ok && !f(t) {
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}

// chainWriter returns the first writer of type T on w's Unwrap chain, w
// included.
func chainWriter[T any](w http.ResponseWriter) (T, bool) {
	for w != nil {
		if t, ok := w.(T); ok {
			return t, true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	var zero T
	return zero, false
}
