package typed

import "unicode/utf8"

// AppendString appends s to b as encoding/json writes a string (RFC 8259
// section 7), byte for byte: quoted; '"' and '\\' escaped with a
// backslash, as are \b, \f, \n, \r and \t; the other control characters
// as \u00XX; invalid UTF-8 as \ufffd; U+2028 and U+2029 as \u2028 and
// \u2029, so the text is safe in JavaScript too. With html, '<', '>' and
// '&' are written as \u003c, \u003e and \u0026 as well, as json.Marshal
// writes them; without, as an Encoder with SetEscapeHTML(false) does.
// The typed answers' encoder and the router's problem documents both
// write their strings with it.
func AppendString(b []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a second look: most
		// text is plain ASCII.
		if i+8 <= len(s) && plain8(s[i:i+8], html) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			if r == utf8.RuneError {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plain8 reports whether the eight bytes of s are each printable ASCII
// other than '"' and '\\' (and, with html, '<', '>' and '&'), so that a
// JSON string holds them as they are. The bytes are read as one word
// (the compiler makes the shifts a single load) and tested together: a
// byte under 0x20 borrows when 0x20 is taken from it, a byte of a given
// value is a zero byte after an exclusive or with it, and a byte from
// 0x80 has its top bit set.
func plain8(s string, html bool) bool {
	_ = s[7]
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	m := x | zero(x^(ones*'"')) | zero(x^(ones*'\\')) | (x-ones*0x20)&^x
	if html {
		m |= zero(x^(ones*'<')) | zero(x^(ones*'>')) | zero(x^(ones*'&'))
	}
	return m&highs == 0
}
