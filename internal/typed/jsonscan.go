package typed

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The decoder's scanner: RFC 8259's tokens, strings (UTF-8 checked), numbers.

func (d *decoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// lit reads the literal w, which the next byte starts.
func (d *decoder) lit(w string) bool {
	if len(d.s)-d.i >= len(w) && string(d.s[d.i:d.i+len(w)]) == w {
		d.i += len(w)
		return true
	}
	d.syntax("want " + w)
	return false
}

// enter steps into an object or array, one level deeper.
func (d *decoder) enter() bool {
	if d.depth++; d.depth > maxDepth {
		d.syntax(fmt.Sprintf("objects and arrays nest deeper than %d levels", maxDepth))
		return false
	}
	d.i++
	return true
}

// nextKey reads the next member's key and its ':', after the object's
// '{' (first) or a member's value; it reports false at the object's '}'
// or when the body is no JSON. The key is valid until the next string.
func (d *decoder) nextKey(first bool) ([]byte, bool) {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return nil, false
	}
	c := d.s[d.i]
	if c == '}' {
		d.i++
		return nil, false
	}
	if !first {
		if c != ',' {
			d.syntax("want , or } after an object member")
			return nil, false
		}
		d.i++
		d.ws()
		if d.i >= len(d.s) {
			d.eof()
			return nil, false
		}
		c = d.s[d.i]
	}
	if c != '"' {
		d.syntax("want a string, an object member's key")
		return nil, false
	}
	key := d.str()
	d.ws()
	if d.err != "" || d.i >= len(d.s) || d.s[d.i] != ':' {
		d.syntax("want : after an object member's key")
		return nil, false
	}
	d.i++
	return key, true
}

// nextItem steps to an array's next item, after its '[' (first) or an
// item; it reports false at the array's ']' or when the body is no JSON.
func (d *decoder) nextItem(first bool) bool {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return false
	}
	switch c := d.s[d.i]; {
	case c == ']':
		d.i++
		return false
	case first:
		return true
	case c == ',':
		d.i++
		return true
	}
	d.syntax("want , or ] after an array item")
	return false
}

// str reads a string, its quotes included, and returns its text,
// unescaped: a part of the body, or of d.scratch until the next string.
func (d *decoder) str() []byte {
	d.i++ // '"'
	start := d.i
	d.lone = false
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return d.s[start : d.i-1]
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			d.syntax("a control character inside a string")
			return nil
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRune(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				d.syntax("invalid UTF-8 inside a string (RFC 8259 section 8.1)")
				return nil
			}
			d.i += size
		}
	}
	d.eof()
	return nil
}

// escaped reads the rest of a string that has an escape at d.i, whose
// text began at start.
func (d *decoder) escaped(start int) []byte {
	out := append(d.scratch[:0], d.s[start:d.i]...)
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			d.scratch = out
			return out
		case c == '\\':
			if d.i+1 >= len(d.s) {
				d.eof()
				return nil
			}
			switch e := d.s[d.i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.s, d.i+2)
				if !ok {
					d.syntax("want four hex digits after \\u")
					return nil
				}
				d.i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(d.s, d.i+2); ok && r < 0xdc00 && d.s[d.i] == '\\' && d.s[d.i+1] == 'u' && 0xdc00 <= r2 && r2 < 0xe000 {
						r = utf16.DecodeRune(r, r2)
						d.i += 6
					} else {
						d.lone, r = true, utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				d.syntax("an invalid escape inside a string")
				return nil
			}
			d.i += 2
		case c < 0x20:
			d.syntax("a control character inside a string")
			return nil
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				d.syntax("invalid UTF-8 inside a string (RFC 8259 section 8.1)")
				return nil
			}
			out = append(out, d.s[d.i:d.i+size]...)
			d.i += size
		}
	}
	d.eof()
	return nil
}

// hex4 reads the four hex digits at s[i:], or reports false.
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number, as RFC 8259 section 6 writes one, and returns
// its text.
func (d *decoder) number() []byte {
	s, i := d.s, d.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		d.i = i
		d.syntax("want a digit in a number")
		return nil
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			d.syntax("want a digit after a number's point")
			return nil
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			d.syntax("want a digit in a number's exponent")
			return nil
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	d.i = i
	return s[start:i]
}

// skip reads one value, checking that it is JSON, and drops it.
func (d *decoder) skip() {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return
	}
	switch c := d.s[d.i]; {
	case c == '{':
		if !d.enter() {
			return
		}
		for first := true; ; first = false {
			if _, ok := d.nextKey(first); !ok {
				break
			}
			d.skip()
		}
		d.depth--
	case c == '[':
		if !d.enter() {
			return
		}
		for first := true; d.nextItem(first); first = false {
			d.skip()
		}
		d.depth--
	case c == '"':
		d.str()
	case c == 't':
		d.lit("true")
	case c == 'f':
		d.lit("false")
	case c == 'n':
		d.lit("null")
	case c == '-' || '0' <= c && c <= '9':
		d.number()
	case c == 0xEF && d.i == 0 && len(d.s) >= 3 && string(d.s[:3]) == "\xEF\xBB\xBF":
		d.syntax("want a JSON value, got a byte order mark, which no JSON text sent over a network begins with (RFC 8259 section 8.1)")
	case c >= utf8.RuneSelf:
		d.syntax("want a JSON value, got the byte " + fmt.Sprintf("0x%02X", c))
	default:
		d.syntax("want a JSON value, got " + strconv.QuoteRune(rune(c)))
	}
}

// syntax notes that the body is no JSON, and ends the decoding.
func (d *decoder) syntax(msg string) {
	if d.err == "" {
		d.err, d.errAt = msg, d.i
	}
	d.i = len(d.s)
}

// eof notes a body that ends inside a value.
func (d *decoder) eof() { d.syntax("the body ends inside a value") }
