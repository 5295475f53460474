package waltz

import (
	"strconv"
	"unicode/utf8"
)

// appendProblem appends p as JSON to b, as encoding/json would write it
// with HTML escaping off, without reflection: an error answer costs
// little more than the success it replaces.
func appendProblem(b []byte, p *Problem) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, p.Type)
	b = append(b, `,"title":`...)
	b = appendJSONString(b, p.Title)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(p.Status), 10)
	if p.Detail != "" {
		b = append(b, `,"detail":`...)
		b = appendJSONString(b, p.Detail)
	}
	if p.Instance != "" {
		b = append(b, `,"instance":`...)
		b = appendJSONString(b, p.Instance)
	}
	if len(p.Errors) > 0 {
		b = append(b, `,"errors":[`...)
		for i, e := range p.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"location":`...)
			b = appendJSONString(b, e.Location)
			b = append(b, `,"keyword":`...)
			b = appendJSONString(b, e.Keyword)
			b = append(b, `,"message":`...)
			b = appendJSONString(b, e.Message)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// plain8 reports whether the eight bytes of s are each ASCII, printable
// and neither '"' nor '\\', so that a JSON string holds them as they are.
// The bytes are read as one word (the compiler makes the shifts a single
// load) and tested together: a byte under 0x20 borrows when 0x20 is taken
// from it, a '"' or '\\' is a zero byte after an exclusive or, and a
// byte from 0x80 has its top bit set.
func plain8(s string) bool {
	_ = s[7]
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return (x|zero(x^(ones*'"'))|zero(x^(ones*'\\'))|((x-ones*0x20)&^x))&highs == 0
}

// appendJSONString appends s as a JSON string (RFC 8259 section 7):
// quotes, backslashes and control characters escaped, invalid UTF-8 as
// U+FFFD, and U+2028 and U+2029 escaped as encoding/json escapes them, so
// the text is safe in JavaScript too.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a second look: most
		// of a problem's text is plain ASCII.
		if i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
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
