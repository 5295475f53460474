package header

import "strings"

// MatchETag reports whether the field lines of an If-Match or
// If-None-Match field list tag, or are "*" (RFC 9110 sections 13.1.1 and
// 13.1.2). tag is quoted as an ETag field gives it (`"v7"` or `W/"v7"`).
// strong asks for the strong comparison (section 8.8.3.2: both tags strong
// and their opaque parts equal), which If-Match uses, so a weak tag on
// either side never matches; otherwise the weak comparison (the opaque
// parts equal), which If-None-Match uses. A malformed list (an element
// that is neither "*" nor a quoted entity tag, anywhere in it) matches
// nothing: a write guarded by If-Match never goes ahead on a field it
// cannot read whole.
func MatchETag(lines []string, tag string, strong bool) bool {
	tagWeak := strings.HasPrefix(tag, "W/")
	opaque := strings.TrimPrefix(tag, "W/")
	matched := false
	for _, s := range lines {
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			if s[0] == '*' {
				matched, s = true, s[1:]
				if s != "" && s[0] != ',' && s[0] != ' ' && s[0] != '\t' {
					return false
				}
				continue
			}
			weak := strings.HasPrefix(s, "W/")
			if weak {
				s = s[2:]
			}
			if s == "" || s[0] != '"' {
				return false
			}
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return false
			}
			if s[:end+2] == opaque && (!strong || !weak && !tagWeak) {
				matched = true
			}
			s = s[end+2:]
			if s != "" && s[0] != ',' && s[0] != ' ' && s[0] != '\t' {
				return false // something glued to the tag
			}
		}
	}
	return matched
}
