package header

import "strings"

// tchar has bit c set for every byte c that may stand in a token
// (RFC 9110 section 5.6.2): visible ASCII but the delimiters
// DQUOTE and "(),/:;<=>?@[\]{}".
var tchar = func() (t [4]uint64) {
	for c := 0x21; c < 0x7f; c++ {
		switch c {
		case '"', '(', ')', ',', '/', ':', ';', '<', '=', '>', '?', '@', '[', '\\', ']', '{', '}':
			continue
		}
		t[c>>6] |= 1 << (c & 63)
	}
	return t
}()

// IsTokenByte reports whether c may stand in a token (RFC 9110 section
// 5.6.2).
func IsTokenByte(c byte) bool {
	return tchar[c>>6]&(1<<(c&63)) != 0
}

// IsToken reports whether s is a token: one or more token bytes (RFC 9110
// section 5.6.2). Methods (section 9.1), field names (section 5.1) and
// content codings (section 8.4.1) are tokens.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTokenByte(s[i]) {
			return false
		}
	}
	return true
}

// EqualFold reports whether s and t are the same under ASCII case
// folding, as the case-insensitive parts of a field value compare: a
// media type (RFC 9110 section 8.3.1), a content coding (section 8.4.1),
// an auth scheme (section 11.1), a range unit (section 14.1). Unlike
// strings.EqualFold it folds no other letter, so "application/jſon"
// (U+017F, which Unicode folds to 's') is not "application/json", and
// a body a proxy would not take for JSON is not taken for JSON here.
func EqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], t[i]
		if a == b {
			continue
		}
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// MediaType returns the media type of the Content-Type value v, as
// "type/subtype" in lower case without its parameters, and whether v
// starts with one: a type and a subtype that are tokens (RFC 9110
// section 8.3.1), with optional white space (space and tab, section
// 5.6.3) around them. The parameters are not read. Unlike
// mime.ParseMediaType it judges the type before lowering it, and lowers
// ASCII letters alone: "applİcation/json" (U+0130, which Unicode lowers
// to 'i') and "application/json\u00a0" are no media type, where a proxy
// would not read one either.
func MediaType(v string) (string, bool) {
	mt, _, _ := strings.Cut(v, ";")
	mt = TrimOWS(mt)
	typ, sub, ok := strings.Cut(mt, "/")
	if !ok || !IsToken(typ) || !IsToken(sub) {
		return "", false
	}
	return strings.ToLower(mt), true // tokens are ASCII
}

// ValidParams reports whether what follows the first ';' of the field
// value v (a media type's or a Content-Disposition's parameters) is a
// list of parameters as RFC 9110 section 5.6.6 writes them: each a token,
// '=', and a token or a quoted string (section 5.6.4), between optional
// white space (space and tab) and ';'; an empty one is allowed. A name
// in RFC 2231's extended form ("boundary*", "name*0", with a '*') is
// refused: HTTP gives it no meaning, and mime.ParseMediaType lets it
// override the plain parameter (a boundary* of B over a boundary of A),
// so a proxy and the reader would split a body or name a part
// differently. v without a ';' has none, and is valid.
func ValidParams(v string) bool {
	_, rest, _ := Cut(v, ';')
	for rest != "" {
		var p string
		p, rest, _ = Cut(rest, ';')
		if p = TrimOWS(p); p == "" {
			continue
		}
		name, value, ok := strings.Cut(p, "=")
		if !ok || !IsToken(name) || strings.IndexByte(name, '*') >= 0 {
			return false
		}
		if value == "" || value[0] != '"' {
			if !IsToken(value) {
				return false
			}
			continue
		}
		// A quoted string: '"', then qdtext or quoted-pairs, then the
		// closing '"' as the last byte.
		closed := false
		for i := 1; i < len(value); i++ {
			switch c := value[i]; {
			case c == '\\' && i+1 < len(value):
				i++
			case c == '"':
				closed = i == len(value)-1
				i = len(value)
			case c < ' ' && c != '\t' || c == 0x7f:
				return false
			}
		}
		if !closed {
			return false
		}
	}
	return true
}
