package typed

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
)

// query binds the params ps from the raw query q without parsing it into
// a map: each pair is looked up among ps by its name; a value is decoded
// only when it holds an escape. A name that is no param is ignored, or
// refused when strict. A ';' outside an escape makes the query
// unreadable, as url.ParseQuery reports it: one failure, and the pairs
// with one are skipped. in names where the pairs are, "query" or "body"
// (a form), for the locations of failures that belong to no param.
func (b *binder) query(in string, ps []*param, q string, strict bool) {
	if strings.IndexByte(q, ';') >= 0 {
		b.broken = true
		b.fail(in, "syntax", "holds a ';', which separates no pairs: separate them with '&', and escape a ';' in a value as %3B")
	}
	for raw, val, q, more := nextPair(q); more; raw, val, q, more = nextPair(q) {
		key, ok := b.unescape(in, raw, raw)
		if !ok {
			continue
		}
		pr := findParam(ps, key)
		if pr == nil {
			if strict {
				b.fail(in+"."+Clip(printable(key)), "unknown", "is no parameter of this operation")
			}
			continue
		}
		if pr.multi {
			switch {
			case !b.mark(pr):
				b.multi(pr, key, val, q)
			case pr.comma && b.repeated(pr):
				b.fail(pr.loc, "type", "must be given once, its items separated by commas")
			}
			continue
		}
		if b.seen[pr.index/64]&(1<<(pr.index%64)) != 0 {
			if b.repeated(pr) {
				b.fail(pr.loc, "type", "must be given once")
			}
			continue
		}
		// An empty value is a value: of a type other than string, one
		// that fails its type, as the document (no allowEmptyValue) says.
		if val, ok = b.unescape(pr.loc, val, val); ok {
			b.one(pr, val)
		} else {
			b.mark(pr) // present, if unreadable: not also "required"
		}
	}
}

func findParam(ps []*param, name string) *param {
	for _, pr := range ps {
		if pr.name == name {
			return pr
		}
	}
	return nil
}

// unescape decodes s, a query key or value, which allocates only when s
// holds an escape; a malformed escape is a failure at loc.
func (b *binder) unescape(loc, s, show string) (string, bool) {
	// Only a '%' or a '+' needs decoding. A text of up to 16 bytes, as
	// most keys and values are, is looked at 8 bytes (or 4) at a time, in
	// words that may overlap, which costs less than the two calls to
	// strings.IndexByte that a longer one gets; written here, not called.
	var esc bool
	switch n := len(s); {
	case n > 16:
		esc = strings.IndexByte(s, '%') >= 0 || strings.IndexByte(s, '+') >= 0
	case n >= 8:
		esc = escapes8(word8(s)) || escapes8(word8(s[n-8:]))
	case n >= 4:
		esc = escapes8(uint64(word4(s))<<32 | uint64(word4(s[n-4:])))
	default:
		for i := 0; i < n; i++ {
			if c := s[i]; c == '%' || c == '+' {
				esc = true
			}
		}
	}
	if !esc {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	if err != nil {
		b.broken = true
		b.fail(loc, "escape", "holds a malformed percent-escape: "+Quote(show))
		return "", false
	}
	return u, true
}

// multi binds the repeated query param pr, named key in the request,
// whose first value is first and whose other values are in rest, the
// query after it; for a param with explode:"false", the items of first,
// separated by commas (none when it is empty), each comma one the client
// left unescaped. More values than pr's cap are refused, before any is
// parsed, so a request cannot make the handler hold a huge slice.
func (b *binder) multi(pr *param, key, first, rest string) {
	var n int
	switch {
	case pr.comma && first == "":
	case pr.comma:
		n = 1 + strings.Count(first, ",")
	default:
		n = 1 + countKey(rest, key, pr.maxItems)
	}
	if n > pr.maxItems {
		b.fail(pr.loc, "maxItems", "must have at most "+items(pr.maxItems)+", got more")
		return
	}
	et := pr.codec.typ
	if pr.itemPtr {
		et = reflect.PointerTo(et)
	}
	sv := reflect.MakeSlice(reflect.SliceOf(et), n, n)
	data, size := sv.UnsafePointer(), et.Size()
	var vals []scalar
	if pr.rules != nil && pr.rules.uniqueItems {
		vals = make([]scalar, 0, n)
	}
	i, ok := 0, true
	// An item's location is written out only for a failure: a slice of
	// good values costs the slice alone.
	loc := func() string { return pr.loc + "[" + strconv.Itoa(i) + "]" }
	each := func(raw string) {
		s, good := raw, true
		if strings.IndexByte(raw, '%') >= 0 || strings.IndexByte(raw, '+') >= 0 {
			s, good = b.unescape(loc(), raw, raw)
		}
		if good {
			v, kw, want := pr.codec.parse(s)
			switch {
			case kw != "":
				b.fail(loc(), kw, got(want, s))
				good = false
			case pr.rules != nil && len(pr.rules.check(v, nil)) > 0:
				b.check(loc(), pr.rules, v)
				good = false
			default:
				ip := itemAt(data, i, size)
				if pr.itemPtr {
					ip = setNew(ip, pr.codec.typ)
				}
				if err := pr.codec.store(ip, v); err != nil {
					b.fail(loc(), "format", "is not valid: "+Clip(err.Error()))
					good = false
				}
				if vals != nil {
					vals = append(vals, v)
				}
			}
		}
		ok = ok && good
		i++
	}
	switch {
	case pr.comma:
		for item := range strings.SplitSeq(first, ",") {
			if n > 0 {
				each(item)
			}
		}
	default:
		each(first)
		eachKey(rest, key, each)
	}
	if pr.rules != nil {
		var buf [2]failure
		fs := pr.rules.checkItems(n, func() bool { return pr.rules.distinctScalars(vals) }, buf[:0])
		for _, f := range fs {
			b.fail(pr.loc, f.keyword, f.message)
		}
		ok = ok && len(fs) == 0
	}
	if ok {
		reflect.NewAt(sv.Type(), fieldAt(b.base, pr.off)).Elem().Set(sv)
	}
}

// nextPair returns the raw key and value of the first pair of the query
// q, and the query after it; more is false when q has no pair left. Empty
// pairs and pairs with a ';' are skipped, as net/url skips them. It is
// the one scanner of query strings and form bodies.
func nextPair(q string) (key, val, rest string, more bool) {
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if pair == "" || strings.IndexByte(pair, ';') >= 0 {
			continue
		}
		key, val, _ = strings.Cut(pair, "=")
		return key, val, q, true
	}
	return "", "", "", false
}

// escapes8 reports whether one of the 8 bytes of x is '%' or '+': a byte
// equal to either makes its byte of x^'%%%%%%%%' or x^'++++++++' zero,
// which the classic test for a zero byte finds, exactly.
func escapes8(x uint64) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	p, q := x^('%'*lo), x^('+'*lo)
	return ((p-lo)&^p|(q-lo)&^q)&hi != 0
}

// word8 and word4 load the first 8 and 4 bytes of s, little-endian, in
// one load each; s is long enough.
func word8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func word4(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// isKey reports whether the raw key k decodes to key.
func isKey(k, key string) bool {
	if k == key {
		return true
	}
	if strings.IndexByte(k, '%') < 0 && strings.IndexByte(k, '+') < 0 {
		return false
	}
	u, err := url.QueryUnescape(k)
	return err == nil && u == key
}

// countKey counts the pairs of q whose key is key, stopping once the
// count passes limit.
func countKey(q, key string, limit int) int {
	n := 0
	for k, _, q, more := nextPair(q); more && n <= limit; k, _, q, more = nextPair(q) {
		if isKey(k, key) {
			n++
		}
	}
	return n
}

// eachKey calls f with the raw value of each pair of q whose key,
// decoded, is key.
func eachKey(q, key string, f func(raw string)) {
	for k, v, q, more := nextPair(q); more; k, v, q, more = nextPair(q) {
		if isKey(k, key) {
			f(v)
		}
	}
}

// cookie returns the value of the first cookie called name in the Cookie
// header lines hs (RFC 6265 section 5.4), without its quotes, and whether
// there is one.
func cookie(hs []string, name string) (string, bool) {
	for _, h := range hs {
		for h != "" {
			var part string
			part, h, _ = strings.Cut(h, ";")
			part = header.TrimOWS(part) // space and tab: no proxy trims U+00A0
			k, v, ok := strings.Cut(part, "=")
			if !ok || k != name {
				continue
			}
			if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			return v, true
		}
	}
	return "", false
}
