package waltz

import (
	"errors"
	"path"
	"strings"
)

// Paths reach the tree in one of two forms.
//
// The common request has no RawPath: its escaped form is the default
// encoding of URL.Path, so URL.Path holds no encoded '/' and is matched as
// it is, and param values are substrings of it with nothing to decode.
//
// A request whose escaped path differs from the default encoding (it has
// %2F, or escapes a character that needs none) carries URL.RawPath. That
// path is brought into canonical form: every escape is decoded except those
// of '/' and '%', which are written as "%2F" and "%25". In this form a '/'
// is always a separator, static text compares as decoded text (patterns hold
// no '%'), and a bound value is decoded by undoing just those two escapes.

var errBadEscape = errors.New("waltz: malformed percent-escape in path")

// canonicalPath returns the canonical form of the escaped path p. A '%' not
// followed by two hex digits is an error.
func canonicalPath(p string) (string, error) {
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return "", errBadEscape
		}
		switch d := unhex(p[i+1])<<4 | unhex(p[i+2]); d {
		case '/':
			b.WriteString("%2F")
		case '%':
			b.WriteString("%25")
		default:
			b.WriteByte(d)
		}
		i += 2
	}
	return b.String(), nil
}

// valueUnescaper undoes the two escapes a canonical path keeps, in one
// left-to-right pass, so "%252F" becomes "%2F" and is not decoded again.
var valueUnescaper = strings.NewReplacer("%2F", "/", "%25", "%")

// unescapeValue decodes a value cut from a canonical path.
func unescapeValue(v string) string {
	if strings.IndexByte(v, '%') < 0 {
		return v
	}
	return valueUnescaper.Replace(v)
}

// encodes reports whether the canonical path canon decodes to path, without
// allocating: its only escapes are "%2F" for '/' and "%25" for '%'.
func encodes(canon, path string) bool {
	j := 0
	for i := 0; i < len(canon); i++ {
		c := canon[i]
		if c == '%' && i+2 < len(canon) {
			switch canon[i+1 : i+3] {
			case "2F":
				c = '/'
			case "25":
				c = '%'
			}
			i += 2
		}
		if j >= len(path) || path[j] != c {
			return false
		}
		j++
	}
	return j == len(path)
}

// canonicalPlain returns the canonical form of a URL.Path that came without
// a RawPath: only a literal '%' needs escaping.
func canonicalPlain(p string) string {
	return strings.ReplaceAll(p, "%", "%25")
}

// cleanPath returns the canonical path p with "//", "/./" and "/../"
// resolved, as path.Clean does, keeping a trailing slash. It works on the
// canonical form, so "..%2F" is one ordinary segment and never climbs.
func cleanPath(p string) string {
	if p != "" && p[0] == '/' && !strings.Contains(p, "//") && !strings.Contains(p, "/.") {
		// No empty, "." or ".." element: path.Clean would give p back
		// (with a trailing slash removed, which this function keeps).
		return p
	}
	np := path.Clean(p)
	if strings.HasSuffix(p, "/") && np != "/" {
		if len(np)+1 == len(p) && strings.HasPrefix(p, np) {
			return p // clean already: no new string, so a 405 allocates nothing
		}
		np += "/"
	}
	return np
}

// escapeLocation returns the canonical path p escaped for a Location header:
// each byte outside RFC 3986's unreserved, sub-delims, ':', '@' and '/' is
// percent-encoded; the "%2F" and "%25" escapes of the canonical form are kept,
// so nothing is escaped twice.
func escapeLocation(p string) string {
	return escapeIn(p, false)
}

// escapeQuery returns the raw query q with each byte RFC 3986 does not
// allow in a query (section 3.4: those of a path, and '?') percent-encoded:
// a space, '<', a byte past ASCII, and a '%' that does not begin a %XX
// escape ("100%"), whose others are kept. q itself when it has none.
func escapeQuery(q string) string {
	for i := 0; i < len(q); i++ {
		if c := q[i]; c == '%' && !isEscape(q, i) || c != '%' && c != '?' && !isPathByte(c) {
			return escapeIn(q, true)
		}
	}
	return q
}

// isEscape reports whether s[i], a '%', begins a %XX escape.
func isEscape(s string, i int) bool {
	return i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])
}

// escapeIn percent-encodes the bytes of s that a path may not hold, and
// for a query ('?' allowed too, and a '%' kept only where it begins a
// %XX escape); a path's '%' is kept.
func escapeIn(p string, query bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '%' && (!query || isEscape(p, i)) || c != '%' && (isPathByte(c) || query && c == '?') {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// isPathByte reports whether c may stand unescaped in a path (RFC 3986
// section 3.3: unreserved, sub-delims, ':', '@', and the '/' separator).
func isPathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// load4 and load8 read the first 4 or 8 bytes of s, a path or a piece of
// one, as a little-endian word; the compiler makes each one load. The
// static table compares paths with them, a constraint checks digits.
func load4(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
