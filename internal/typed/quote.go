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
