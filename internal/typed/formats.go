package typed

import (
	"net/mail"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// formats are the JSON Schema formats (JSON Schema Validation, section
// 7.3) that a format tag checks, each a function that reports whether a
// string is of that format.
var formats = map[string]func(string) bool{
	// RFC 5321 section 4.1.2's addr-spec, as net/mail reads it, and nothing
	// else: no display name, no angle brackets.
	"email": func(s string) bool {
		a, err := mail.ParseAddress(s)
		return err == nil && a.Name == "" && a.Address == s
	},
	// RFC 9562 section 4's hex-and-dash form, either letter case.
	"uuid": func(s string) bool {
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
	},
	// RFC 3339 section 5.6.
	"date-time": func(s string) bool {
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	},
	"date": func(s string) bool {
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	},
	// An absolute URI (RFC 3986 section 4.3): a scheme and what follows.
	"uri": func(s string) bool {
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && !strings.ContainsAny(s, " \t\r\n")
	},
	// Dotted decimal, RFC 2673 section 3.2; no leading zeros.
	"ipv4": func(s string) bool {
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is4()
	},
	// RFC 4291 section 2.2, without a zone.
	"ipv6": func(s string) bool {
		a, err := netip.ParseAddr(s)
		return err == nil && a.Is6() && a.Zone() == ""
	},
}

// formatWords says what a value of each format is, for messages.
var formatWords = map[string]string{
	"email":     "an email address such as name@example.com",
	"uuid":      "a UUID such as 123e4567-e89b-12d3-a456-426614174000",
	"date-time": "a date-time as RFC 3339 writes it, such as 2006-01-02T15:04:05Z",
	"date":      "a date such as 2006-01-02",
	"uri":       "an absolute URI such as https://example.com/a",
	"ipv4":      "an IPv4 address such as 192.0.2.1",
	"ipv6":      "an IPv6 address such as 2001:db8::1",
}

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
