package contracttest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Patterns the generator can match: an optional ^, a sequence of atoms,
// an optional $. An atom is a literal character (escaped or not), ., \d,
// \w, or a class such as [a-z0-9_-] or [^,], each with an optional ?, *,
// +, {n}, {n,} or {n,m}. Groups, alternation, \s, \b and lookarounds are
// not handled: a pattern with them is skipped and named in the run's
// report. Within this subset ECMA-262 regular expressions (which JSON
// Schema's pattern uses) and Go's RE2 agree, and every string made is
// checked with Go's regexp before it is sent.

// atom is one character position of a pattern: the bytes it may be, and
// how many times it repeats.
type atom struct {
	set      []byte
	min, max int // max -1: no limit
}

// pattern is a parsed pattern.
type pattern struct {
	atoms      []atom
	startFixed bool // starts with ^: nothing may come before
	endFixed   bool // ends with $: nothing may follow
}

// parsePattern returns the pattern p, or false when p is outside the
// subset above.
func parsePattern(p string) (pattern, bool) {
	var pt pattern
	p, pt.startFixed = strings.CutPrefix(p, "^")
	if strings.HasSuffix(p, "$") && !strings.HasSuffix(p, `\$`) {
		p, pt.endFixed = p[:len(p)-1], true
	}
	for i := 0; i < len(p); {
		set, n, ok := parseAtom(p[i:])
		if !ok {
			return pt, false
		}
		i += n
		a := atom{set: set, min: 1, max: 1}
		if a.min, a.max, n, ok = parseQuantifier(p[i:]); !ok {
			return pt, false
		}
		i += n
		pt.atoms = append(pt.atoms, a)
	}
	return pt, true
}

// lengths returns the lengths of the strings that match pt: lo, and hi
// or -1 for no limit (an atom that repeats without one, or a side not
// anchored, where anything may come).
func (pt pattern) lengths() (lo, hi int) {
	for _, a := range pt.atoms {
		lo += a.min
		if hi >= 0 && a.max >= 0 {
			hi += a.max
		} else {
			hi = -1
		}
	}
	if !pt.startFixed || !pt.endFixed {
		hi = -1
	}
	return lo, hi
}

// printable is every byte an atom may stand for: printable ASCII.
func printable(keep func(byte) bool) []byte {
	var b []byte
	for c := byte(' '); c <= '~'; c++ {
		if keep(c) {
			b = append(b, c)
		}
	}
	return b
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWord(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// parseAtom returns the bytes of the atom at the start of p and its
// length in p.
func parseAtom(p string) ([]byte, int, bool) {
	switch c := p[0]; c {
	case '.':
		return printable(func(c byte) bool { return c != ' ' }), 1, true
	case '[':
		return parseClass(p)
	case '\\':
		if len(p) < 2 {
			return nil, 0, false
		}
		set, ok := escape(p[1])
		return set, 2, ok
	case '(', ')', '|', '*', '+', '?', '{', '}', '^', '$', ']':
		return nil, 0, false
	default:
		return []byte{c}, 1, c >= ' ' && c <= '~'
	}
}

// escape returns the bytes of \c.
func escape(c byte) ([]byte, bool) {
	switch {
	case c == 'd':
		return printable(isDigit), true
	case c == 'w':
		return printable(isWord), true
	case isWord(c):
		return nil, false // \s, \b, \D, \W, \n, \u...: not handled
	}
	return []byte{c}, c >= ' ' && c <= '~'
}

// parseClass reads a class such as [a-z0-9_-] or [^,].
func parseClass(p string) ([]byte, int, bool) {
	neg := strings.HasPrefix(p, "[^")
	i := 1
	if neg {
		i = 2
	}
	var in [256]bool
	for ; i < len(p) && p[i] != ']'; i++ {
		c := p[i]
		if c == '\\' {
			if i+1 >= len(p) {
				return nil, 0, false
			}
			set, ok := escape(p[i+1])
			if !ok {
				return nil, 0, false
			}
			for _, b := range set {
				in[b] = true
			}
			i++
			continue
		}
		if c == '[' {
			return nil, 0, false
		}
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' && p[i+2] != '\\' {
			for b := int(c); b <= int(p[i+2]); b++ {
				in[b] = true
			}
			i += 2
			continue
		}
		in[c] = true
	}
	if i >= len(p) {
		return nil, 0, false
	}
	set := printable(func(c byte) bool { return in[c] != neg && (c != ' ' || !neg) })
	return set, i + 1, len(set) > 0
}

// parseQuantifier reads an optional quantifier.
func parseQuantifier(p string) (lo, hi, n int, ok bool) {
	if p == "" {
		return 1, 1, 0, true
	}
	switch p[0] {
	case '?':
		return 0, 1, 1, true
	case '*':
		return 0, -1, 1, true
	case '+':
		return 1, -1, 1, true
	case '{':
		end := strings.IndexByte(p, '}')
		if end < 0 {
			return 0, 0, 0, false
		}
		a, b, comma := strings.Cut(p[1:end], ",")
		lo, err := strconv.Atoi(a)
		if err != nil {
			return 0, 0, 0, false
		}
		hi = lo
		if comma {
			hi = -1
			if b != "" {
				if hi, err = strconv.Atoi(b); err != nil || hi < lo {
					return 0, 0, 0, false
				}
			}
		}
		return lo, hi, end + 1, true
	}
	return 1, 1, 0, true
}

// matching returns a string of n characters that matches the pattern p.
func (g *gen) matching(p string, n int) (string, error) {
	pt, ok := parsePattern(p)
	if !ok {
		return "", unsupported(fmt.Sprintf("pattern %q", p))
	}
	counts := make([]int, len(pt.atoms))
	total := 0
	for i, a := range pt.atoms {
		counts[i] = a.min
		total += a.min
	}
	// Lengthen atoms that may repeat, at random, until the length is n.
	for total < n {
		var open []int
		for i, a := range pt.atoms {
			if a.max < 0 || counts[i] < a.max {
				open = append(open, i)
			}
		}
		if len(open) == 0 {
			break
		}
		counts[open[g.rnd.IntN(len(open))]]++
		total++
	}
	var b strings.Builder
	for i, a := range pt.atoms {
		pick := a.set
		if alnum := filter(a.set, func(c byte) bool { return isWord(c) && c != '_' }); len(alnum) > 0 {
			pick = alnum
		}
		for range counts[i] {
			b.WriteByte(pick[g.rnd.IntN(len(pick))])
		}
	}
	s := b.String()
	// What the atoms cannot make up goes where the pattern lets anything
	// come: after it, or before it.
	switch {
	case total >= n:
	case !pt.endFixed:
		s += g.letters(n - total)
	case !pt.startFixed:
		s = g.letters(n-total) + s
	}
	re, err := regexp.Compile(p)
	if err != nil || len(s) != n || !re.MatchString(s) {
		return "", unsupported(fmt.Sprintf("pattern %q with a length of %d", p, n))
	}
	return s, nil
}

func filter(set []byte, keep func(byte) bool) []byte {
	var out []byte
	for _, c := range set {
		if keep(c) {
			out = append(out, c)
		}
	}
	return out
}
