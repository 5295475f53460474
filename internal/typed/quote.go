package typed

import (
	"strconv"
	"unicode/utf8"
)

// maxQuoted is how much of a value from the client a message repeats, in
// bytes: enough to recognise it, too little to turn a 400 into an echo of
// a huge input.
const maxQuoted = 64

// Clip returns s, from the client, cut to at most 64 bytes at a UTF-8
// boundary, with "…" after it when it was cut.
func Clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	i := maxQuoted
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Quote returns s from the client, clipped, as a Go-quoted string.
func Quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(Clip(s))
}

// got returns msg followed by ", got" and s, from the client, clipped and
// quoted, in one allocation.
func got(msg, s string) string {
	s = Clip(s)
	b := make([]byte, 0, len(msg)+len(", got ")+len(s)+8)
	b = append(b, msg...)
	b = append(b, ", got "...)
	b = strconv.AppendQuote(b, s)
	return bytesString(b)
}

// printable returns s, from the client, with each control character (C0,
// DEL, C1) and each byte of invalid UTF-8 written as %XX, so that a
// location made of a client's key never carries a line break or a
// terminal's escape; s itself when it has none.
func printable(s string) string {
	i := 0
	for i < len(s) && !unprintable(s[i:]) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789ABCDEF"
	out := []byte(s[:i])
	for i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		if unprintable(s[i:]) {
			for _, c := range []byte(s[i : i+size]) {
				out = append(out, '%', hex[c>>4], hex[c&15])
			}
		} else {
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return string(out)
}

// unprintable reports whether the character s starts with is a control
// character or a byte of invalid UTF-8.
func unprintable(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError && size == 1
}
