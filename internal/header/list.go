package header

// Cut slices s around the first sep that is outside a quoted string
// (RFC 9110 section 5.6.4: a quoted string runs from '"' to the next '"'
// that is not escaped by a backslash), and reports whether there was one;
// when there is none, before is s and after is "". An unterminated quoted
// string runs to the end of s.
func Cut(s string, sep byte) (before, after string, found bool) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && quoted:
			i++ // a quoted-pair: the next byte is literal
		case c == '"':
			quoted = !quoted
		case c == sep && !quoted:
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// Next returns the first element of the comma-separated list s, with the
// optional white space around it (spaces and tabs, section 5.6.3)
// trimmed, and the rest of the list after its comma. A comma inside a
// quoted string does not end an element. An element may be empty
// ("a,,b", " , "): the list rule (section 5.6.1) has recipients ignore
// those, and callers skip them. Loop until rest is "":
//
//	for rest := line; rest != ""; {
//		var elem string
//		elem, rest = header.Next(rest)
//		...
//	}
func Next(s string) (elem, rest string) {
	elem, rest, _ = Cut(s, ',')
	return TrimOWS(elem), rest
}

// TrimOWS returns s without leading and trailing spaces and tabs, the
// optional white space of RFC 9110 section 5.6.3.
func TrimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
