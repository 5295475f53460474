package typed

import (
	"net/netip"
	"slices"
	"strings"
	"time"
)

// formats are the JSON Schema formats (JSON Schema Validation, section
// 7.3) that a format tag checks, each a function that reports whether a
// string is of that format, by the grammar of the standard it names and
// nothing looser: no leading or trailing space, ASCII digits only.
var formats = map[string]func(string) bool{
	"email":     isEmail,
	"uuid":      isUUID,
	"date-time": func(s string) bool { _, ok := readDateTime(s); return ok },
	"date":      func(s string) bool { _, _, _, ok := readDate(s); return ok },
	"time":      func(s string) bool { _, ok := readTime(s); return ok },
	"uri":       isURI,
	// RFC 2673 section 3.2's dotted-quad: four decimal octets, no leading
	// zeros, nothing else.
	"ipv4": func(s string) bool {
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4()
	},
	// RFC 4291 section 2.2, its three forms, without a zone or a prefix.
	"ipv6": isIPv6,
}

// annotationFormats are the formats a format tag may name that nothing
// checks: OpenAPI's annotations (its Format Registry), which say how a
// string is meant to be shown, not what it may hold. The document shows
// them, for a client's forms and docs pages; "password" is a secret a
// form hides as it is typed (OpenAPI 3.1 section 4.2).
var annotationFormats = map[string]bool{"password": true}

// dateTimeWords says what a date-time is, for messages.
const dateTimeWords = "a date-time as RFC 3339 writes it, such as 2006-01-02T15:04:05Z"

// formatWords says what a value of each format is, for messages.
var formatWords = map[string]string{
	"email":     "an email address such as name@example.com",
	"uuid":      "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
	"date-time": dateTimeWords,
	"date":      "a date such as 2006-01-02",
	"time":      "a time of day with its offset, such as 15:04:05Z or 15:04:05+01:00",
	"uri":       "an absolute URI such as https://example.com/a",
	"ipv4":      "an IPv4 address such as 192.0.2.1",
	"ipv6":      "an IPv6 address such as 2001:db8::1",
}

// isUUID reports whether s is RFC 9562 section 4's hex-and-dash form,
// either letter case, any version and variant.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if b != '-' {
				return false
			}
		case !isHex(b):
			return false
		}
	}
	return true
}

// digits returns the value of s, which must be n ASCII digits.
func digits(s string, n int) (int, bool) {
	if len(s) != n {
		return 0, false
	}
	v := 0
	for i := 0; i < n; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int(s[i]-'0')
	}
	return v, true
}

// readDate reads RFC 3339 section 5.6's full-date, YYYY-MM-DD, with the
// day in its month (section 5.7: February has 29 days in leap years).
func readDate(s string) (y, m, d int, ok bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, 0, 0, false
	}
	y, ok1 := digits(s[:4], 4)
	m, ok2 := digits(s[5:7], 2)
	d, ok3 := digits(s[8:], 2)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return 0, 0, 0, false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return y, m, d, d <= days
}

// clock is a full-time as RFC 3339 section 5.6 writes it: the local time,
// the fraction's digits, and the offset east of UTC in minutes.
type clock struct {
	h, m, sec int
	frac      string // the digits after the point, or ""
	offset    int
}

// readTime reads RFC 3339 section 5.6's full-time: hh:mm:ss, an optional
// fraction after a point, and Z or an offset ±hh:mm (either letter case
// for Z, as section 5.6's note allows). A second of 60 is a leap second,
// which section 5.7 allows only at the end of a UTC day: at 23:59 once
// the offset is taken off.
func readTime(s string) (clock, bool) {
	var c clock
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return c, false
	}
	h, ok1 := digits(s[:2], 2)
	m, ok2 := digits(s[3:5], 2)
	sec, ok3 := digits(s[6:8], 2)
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return c, false
	}
	c.h, c.m, c.sec = h, m, sec
	rest := s[8:]
	if rest != "" && rest[0] == '.' {
		n := 1
		for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
			n++
		}
		if n == 1 {
			return c, false
		}
		c.frac, rest = rest[1:n], rest[n:]
	}
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3], 2)
		om, ok2 := digits(rest[4:], 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return c, false
		}
		c.offset = oh*60 + om
		if rest[0] == '-' {
			c.offset = -c.offset
		}
	default:
		return c, false
	}
	if sec == 60 && ((h*60+m-c.offset)%1440+1440)%1440 != 23*60+59 {
		return c, false
	}
	return c, true
}

// readDateTime reads RFC 3339 section 5.6's date-time, full-date "T"
// full-time (either letter case for T), and returns it as a time.Time. A
// leap second, which time.Time cannot hold, is read as the instant just
// after it, the next day's 00:00:00 UTC.
func readDateTime(s string) (time.Time, bool) {
	if len(s) < 20 || s[10] != 'T' && s[10] != 't' {
		return time.Time{}, false
	}
	y, mo, d, ok := readDate(s[:10])
	if !ok {
		return time.Time{}, false
	}
	c, ok := readTime(s[11:])
	if !ok {
		return time.Time{}, false
	}
	ns := 0
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(c.frac) {
			ns += int(c.frac[i] - '0')
		}
	}
	loc := time.UTC
	if c.offset != 0 || s[len(s)-1] != 'Z' && s[len(s)-1] != 'z' {
		loc = time.FixedZone("", c.offset*60)
	}
	// time.Date carries a second of 60 into the next minute.
	return time.Date(y, time.Month(mo), d, c.h, c.m, c.sec, ns, loc), true
}

// isEmail reports whether s is RFC 5321 section 4.1.2's Mailbox:
// Local-part "@" ( Domain / address-literal ), where the local part is a
// dot-string of atoms (RFC 5322 section 3.2.3's atext) or a quoted
// string, and the domain is dot-separated labels of letters, digits and
// hyphens, or an address literal, [IPv4] or [IPv6:...].
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !localPart(local) {
		return false
	}
	if domain[0] == '[' {
		if domain[len(domain)-1] != ']' {
			return false
		}
		lit := domain[1 : len(domain)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return isIPv6(v6)
		}
		a, err := netip.ParseAddr(lit)
		return err == nil && a.Is4()
	}
	return hostname(domain)
}

// localPart reports whether s is RFC 5321's Dot-string or Quoted-string.
func localPart(s string) bool {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		q := s[1 : len(s)-1]
		for i := 0; i < len(q); i++ {
			switch b := q[i]; {
			case b == '\\':
				i++
				if i == len(q) || q[i] < 32 || q[i] > 126 {
					return false
				}
			case b == '"' || b < 32 || b > 126:
				return false
			}
		}
		return true
	}
	for atom := range strings.SplitSeq(s, ".") {
		if atom == "" {
			return false
		}
		for i := 0; i < len(atom); i++ {
			if !isAtext(atom[i]) {
				return false
			}
		}
	}
	return true
}

// isAtext reports whether b is RFC 5322 section 3.2.3's atext.
func isAtext(b byte) bool {
	return isAlnum(b) || strings.IndexByte("!#$%&'*+-/=?^_`{|}~", b) >= 0
}

func isAlnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}

// hostname reports whether s is dot-separated labels of letters, digits
// and inner hyphens, each at most 63 characters (RFC 1123 section 2.1).
func hostname(s string) bool {
	if len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if !isAlnum(label[i]) && label[i] != '-' {
				return false
			}
		}
	}
	return true
}

// isIPv6 reports whether s is an IPv6 address as RFC 4291 section 2.2
// writes it: without a zone, a prefix or brackets.
func isIPv6(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

// isURI reports whether s is RFC 3986 section 3's URI (an absolute one,
// with a scheme; a fragment allowed): every character one the grammar
// allows where it stands, so raw non-ASCII, spaces, and characters such
// as \ " < > { } ^ ` | are refused, and each % starts two hex digits.
func isURI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < colon; i++ {
		if b := s[i]; !isAlnum(b) && b != '+' && b != '-' && b != '.' {
			return false
		}
	}
	rest := s[colon+1:]
	rest, frag, hasFrag := strings.Cut(rest, "#")
	if hasFrag && !uriChars(frag, "/?:@") {
		return false
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery && !uriChars(query, "/?:@") {
		return false
	}
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		path := ""
		if i := strings.IndexByte(auth, '/'); i >= 0 {
			auth, path = auth[:i], auth[i:]
		}
		return authority(auth) && uriChars(path, "/:@")
	}
	return uriChars(rest, "/:@")
}

// authority reports whether s is RFC 3986 section 3.2's authority:
// [ userinfo "@" ] host [ ":" port ].
func authority(s string) bool {
	if at := strings.IndexByte(s, '@'); at >= 0 {
		if !uriChars(s[:at], ":") {
			return false
		}
		s = s[at+1:]
	}
	host, port := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return false
		}
		host, port = s[1:end], s[end+1:]
		if !ipLiteral(host) {
			return false
		}
		if port != "" {
			if port[0] != ':' {
				return false
			}
			port = port[1:]
		}
	} else {
		if i := strings.IndexByte(s, ':'); i >= 0 {
			host, port = s[:i], s[i+1:]
		}
		if !uriChars(host, "") {
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return false
		}
	}
	return true
}

// ipLiteral reports whether s, inside the brackets of a URI's host, is an
// IPv6 address or RFC 3986's IPvFuture, "v" hex "." and more.
func ipLiteral(s string) bool {
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		hex, rest, ok := strings.Cut(s[1:], ".")
		if !ok || hex == "" || rest == "" {
			return false
		}
		for i := 0; i < len(hex); i++ {
			if !isHex(hex[i]) {
				return false
			}
		}
		return uriChars(rest, ":") && !strings.Contains(rest, "%")
	}
	return isIPv6(s)
}

// uriChars reports whether s is made of RFC 3986's unreserved and
// sub-delims characters, percent-escapes, and the bytes of extra.
func uriChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case isAlnum(b) || strings.IndexByte("-._~!$&'()*+,;=", b) >= 0:
		case b == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case strings.IndexByte(extra, b) >= 0:
		default:
			return false
		}
	}
	return true
}

func isAlpha(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func formatNames() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
