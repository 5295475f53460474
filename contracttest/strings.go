package contracttest

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// letters is what a plain string is made of: safe in a path segment, a
// query, a header and a cookie without escaping.
const letters = "abcdefghijklmnopqrstuvwxyz0123456789"

// str returns a string of s of exactly n characters, or when n < 0 of a
// length within s's bounds and those of its pattern (read first: a
// pattern may fix a length, ^97[89][0-9]{10}$ thirteen): one that
// matches its pattern or is of its format. In text mode a string is never
// empty, as an empty param reads as an absent one to many servers.
//
// The string is one the run has not made before, where a few draws find
// one: a server may hold what it was sent (a username, an email) and
// refuse it a second time, which says nothing of the request that
// repeats it.
func (g *gen) str(s *base.Schema, m mode, n int) (string, error) {
	if g.made == nil {
		g.made = map[string]bool{}
	}
	var v string
	for range freshTries {
		var err error
		if v, err = g.draw(s, m, n); err != nil {
			return "", err
		}
		if !g.made[v] {
			break
		}
	}
	g.made[v] = true
	return v, nil
}

// freshTries is how many strings str draws to find one not made before.
const freshTries = 8

// draw returns a string of s as str does, whether made before or not.
func (g *gen) draw(s *base.Schema, m mode, n int) (string, error) {
	lo, hi := lengths(s.MinLength, s.MaxLength)
	if m == asText {
		lo = max(lo, 1)
	}
	if hi >= 0 && lo > hi {
		return "", unsupported("minLength above maxLength")
	}
	if pt, ok := parsePattern(s.Pattern); ok && s.Pattern != "" && n < 0 {
		plo, phi := pt.lengths()
		lo = max(lo, plo)
		if phi >= 0 && (hi < 0 || phi < hi) {
			hi = phi
		}
		if hi >= 0 && lo > hi {
			return "", unsupported(fmt.Sprintf("pattern %q within the length bounds", s.Pattern))
		}
	}
	if n < 0 {
		top := lo + 12
		if hi >= 0 {
			top = min(top, hi)
		}
		n = lo + g.rnd.IntN(top-lo+1)
		if s.Pattern == "" && s.Format != "" {
			// A format has its own length; pad only up to the bounds.
			return g.formatted(s.Format, lo, hi, -1)
		}
	}
	switch {
	case s.Pattern != "" && s.Format != "":
		return "", unsupported("pattern and format together")
	case s.Pattern != "":
		return g.matching(s.Pattern, n)
	case s.Format != "":
		return g.formatted(s.Format, n, n, n)
	}
	return g.letters(n), nil
}

func (g *gen) letters(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[g.rnd.IntN(len(letters))]
	}
	return string(b)
}

// formatted returns a string of the format f (JSON Schema Validation
// section 7.3) whose length is within lo and hi (-1: no limit), exactly n
// when n >= 0. Only the formats a URI or an email address can be padded
// to a length; the others have the length they have. A format the
// generator does not know is an annotation only: any string is one.
func (g *gen) formatted(f string, lo, hi, n int) (string, error) {
	v, pad := g.formatValue(f)
	want := max(lo, len(v))
	if n >= 0 {
		want = n
	}
	switch {
	case len(v) == want:
	case len(v) < want && pad:
		v = padFormat(f, v, want)
	case !knownFormat(f):
		v = g.letters(want)
	default:
		return "", unsupported(fmt.Sprintf("format %s with a length of %d", f, want))
	}
	if hi >= 0 && len(v) > hi {
		return "", unsupported(fmt.Sprintf("format %s within maxLength %d", f, hi))
	}
	return v, nil
}

// formatValue returns a short string of format f, and reports whether it
// can be padded.
func (g *gen) formatValue(f string) (string, bool) {
	r := g.rnd
	switch f {
	case "date-time":
		return time.Date(2000+r.IntN(30), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), 0, time.UTC).Format(time.RFC3339), false
	case "date":
		return time.Date(2000+r.IntN(30), time.Month(1+r.IntN(12)), 1+r.IntN(28), 0, 0, 0, 0, time.UTC).Format(time.DateOnly), false
	case "time":
		return fmt.Sprintf("%02d:%02d:%02dZ", r.IntN(24), r.IntN(60), r.IntN(60)), false
	case "email":
		return g.letters(1+r.IntN(8)) + "@example.com", true
	case "uuid":
		return fmt.Sprintf("%08x-%04x-4%03x-%x%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), 8+r.IntN(4), r.IntN(1<<12), r.Uint64()&(1<<48-1)), false
	case "uri":
		return "https://example.com/" + g.letters(1+r.IntN(8)), true
	case "hostname":
		return g.letters(1+r.IntN(8)) + ".example.com", false
	case "ipv4":
		return fmt.Sprintf("192.0.2.%d", 1+r.IntN(254)), false
	case "ipv6":
		return fmt.Sprintf("2001:db8::%x", 1+r.IntN(1<<16-1)), false
	case "byte":
		b := make([]byte, 3*(1+r.IntN(4)))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return base64.StdEncoding.EncodeToString(b), false
	}
	return g.letters(1 + r.IntN(12)), true
}

// knownFormat reports whether the generator makes values of format f
// itself, rather than taking any string.
func knownFormat(f string) bool {
	switch f {
	case "date-time", "date", "time", "email", "uuid", "uri", "hostname", "ipv4", "ipv6", "byte":
		return true
	}
	return false
}

// padFormat returns v, of format f, lengthened to n characters.
func padFormat(f, v string, n int) string {
	extra := strings.Repeat("a", n-len(v))
	switch f {
	case "email":
		local, domain, _ := strings.Cut(v, "@")
		if len(local)+len(extra) > 64 {
			// RFC 5321 section 4.5.3.1.1: a local part is at most 64
			// octets; the rest goes to the domain's labels.
			return v + "." + strings.Repeat("a", n-len(v)-1)
		}
		return local + extra + "@" + domain
	}
	return v + extra
}

// notFormat returns a string that is not of format f, or "" when any
// string is.
func notFormat(f string) string {
	switch f {
	case "date-time", "date", "time", "email", "uuid", "uri", "hostname", "ipv4", "ipv6":
		return "not-a-" + f
	case "byte":
		return "not*base64"
	}
	return ""
}

// breakPattern returns a string of a length within lo and hi (-1: no
// limit) that does not match pattern, close to v (which does), or "".
func breakPattern(pattern string, v string, lo, hi int) string {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return ""
	}
	var cands []string
	for i := range len(v) {
		for _, c := range []string{"!", "~", "A", "a", "0", "-"} {
			cands = append(cands, v[:i]+c+v[i+1:])
		}
	}
	cands = append(cands, "!"+v, v+"!", "!", strings.Repeat("!", max(lo, 1)))
	for _, c := range cands {
		if len(c) >= max(lo, 1) && (hi < 0 || len(c) <= hi) && !re.MatchString(c) {
			return c
		}
	}
	return ""
}
