package waltz

// Conditional and range requests for FileServer (RFC 9110 sections 13
// and 14), which http.ServeContent answers: the ETag it must know first,
// and a Range field put in a shape whose answer is never larger than the
// file plus a bounded framing.

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
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
//   - a malformed set, or one with no satisfiable range, is left as it is
//     for ServeContent's own answer (416 for the latter);
//   - otherwise the satisfiable ranges are sorted, and overlapping or
//     adjacent ones are merged (section 14.2 lets a server coalesce
//     them); more than maxRangeParts after that is ignored: "".
func rangeField(v string, size int64) (string, bool) {
	unit, set, ok := strings.Cut(v, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return "", true
	}
	rs, ok := parseRangeSet(set, size)
	if !ok || len(rs) == 0 {
		return v, false
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
	case inOrder && len(merged) == len(rs):
		return v, false // nothing to merge or reorder
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
// false when the set is malformed.
func parseRangeSet(set string, size int64) (rs []byteRange, ok bool) {
	for spec := range strings.SplitSeq(set, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue // empty list elements are allowed (section 5.6.1)
		}
		a, b, ok := strings.Cut(spec, "-")
		if !ok {
			return nil, false
		}
		if a == "" { // suffix range: the last b bytes
			n, err := strconv.ParseInt(b, 10, 64)
			if err != nil || n < 0 || b[0] == '+' {
				return nil, false
			}
			if n > 0 && size > 0 {
				rs = append(rs, byteRange{max(0, size-n), size - 1})
			}
			continue
		}
		first, err := strconv.ParseInt(a, 10, 64)
		if err != nil || first < 0 || a[0] == '+' {
			return nil, false
		}
		last := size - 1
		if b != "" {
			if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first || b[0] == '+' {
				return nil, false
			}
		}
		if first < size {
			rs = append(rs, byteRange{first, min(last, size-1)})
		}
	}
	return rs, true
}

// withRange returns req, or a copy whose Range field is v ("" drops it),
// when the field must change for ServeContent.
func withRange(req *http.Request, size int64) *http.Request {
	v := req.Header.Get("Range")
	if v == "" {
		return req
	}
	nv, changed := rangeField(v, size)
	if !changed {
		return req
	}
	r2 := *req
	r2.Header = req.Header.Clone()
	if nv == "" {
		delete(r2.Header, "Range")
	} else {
		r2.Header["Range"] = []string{nv}
	}
	return &r2
}

// conditional reports whether h has a field that can make ServeContent
// answer 304, 412 or 416 (RFC 9110 sections 13.1 and 14.2), for which the
// answer needs a fileWriter.
func conditional(h http.Header) bool {
	for _, k := range [...]string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "Range"} {
		if len(h[k]) > 0 {
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
	for w := c.Writer; w != nil; {
		if t, ok := w.(interface {
			ContentTag(io.ReadSeeker) (string, error)
		}); ok {
			tag, err := t.ContentTag(content)
			if err != nil {
				return fmt.Errorf("waltz: FileServer: tagging %q: %w", name, err)
			}
			if tag != "" {
				h["Etag"] = []string{tag}
			}
			return nil
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}
