package header

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
