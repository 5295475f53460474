package waltz

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// Param constraints: ":id<int>" matches a segment only when its value is
// an integer, ":slug<[a-z-]+>" only when the whole value matches the
// regular expression. A constraint is compiled when its route is
// registered; at a lookup, a named one is a loop over the value's bytes,
// and only a regular expression runs the regexp package.
//
// Two constraints at the same place in the tree conflict unless no value
// matches both, and that is decided, not guessed: each constraint is a
// regular language (the named ones are written as regular expressions in
// constraintKinds), and two languages meet exactly when the product of
// their automata reaches a state where both accept (overlaps). The only
// approximations make the check stricter, never looser: the range of
// int and uint is left out of their expressions, and assertions (\b, ^, $
// inside the expression) are taken to hold everywhere.

// The constraint kinds, as the first byte of the key a constrained param
// node is found by (see constraint.key). The named kinds need nothing
// else; a regular expression's key goes on with its text.
const (
	consInt byte = 1 + iota
	consUint
	consUUID
	consAlpha
	consAlnum
	consRegexp
)

// constraintKinds are the named constraints: what each accepts, as a
// regular expression for the overlap check and the OpenAPI document, and
// its JSON Schema type and format. The checks themselves are written out
// (accepts), and TestConstraintKinds holds them to these expressions.
var constraintKinds = []struct {
	name   string
	kind   byte
	expr   string
	typ    string // JSON Schema type
	format string // JSON Schema format, or ""
}{
	{"int", consInt, `-?[0-9]+`, "integer", "int64"},
	{"uint", consUint, `[0-9]+`, "integer", ""},
	{"uuid", consUUID, `[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}`, "string", "uuid"},
	{"alpha", consAlpha, `[A-Za-z]+`, "string", ""},
	{"alnum", consAlnum, `[A-Za-z0-9]+`, "string", ""},
}

// constraint is one param's constraint, compiled.
type constraint struct {
	src  string         // as written between '<' and '>'
	key  string         // the kind's byte, then src for a regular expression; the param node's text
	re   *regexp.Regexp // for a regular expression: src anchored at both ends
	prog *syntax.Prog   // the language accepted, for overlaps
}

// maxOverlapWork bounds the product automaton overlaps explores: two
// constraints whose programs are larger than that together are taken to
// overlap.
const maxOverlapWork = 1 << 20

// parseConstraint compiles the constraint written src, as in ":id<src>".
// A name of letters alone is one of constraintKinds; anything else is a
// regular expression (Go's syntax, RE2), which must match the whole value.
func parseConstraint(src string) (*constraint, error) {
	if src == "" {
		return nil, fmt.Errorf("empty constraint <>: name one (%s) or write a regular expression", kindNames())
	}
	k := &constraint{src: src}
	if isLetters(src) {
		for _, ck := range constraintKinds {
			if ck.name == src {
				k.key = string(ck.kind)
				prog, err := compileProg(ck.expr)
				if err != nil {
					panic("waltz: constraint kind " + ck.name + ": " + err.Error()) // a bug in constraintKinds
				}
				k.prog = prog
				return k, nil
			}
		}
		return nil, fmt.Errorf("unknown constraint <%s>: the named ones are %s; a regular expression of letters alone would match only itself, so write it as static text",
			src, kindNames())
	}
	// Parsed alone first: wrapped before it is known to be whole, a
	// pattern such as 0)0|( would close the group and leave the anchors
	// to one side of its alternation.
	if _, err := syntax.Parse(src, syntax.Perl); err != nil {
		return nil, fmt.Errorf("constraint <%s> is not a regular expression: %v", src, err)
	}
	re, err := regexp.Compile(`^(?:` + src + `)$`)
	if err != nil {
		return nil, fmt.Errorf("constraint <%s> is not a regular expression: %v", src, err)
	}
	prog, err := compileProg(src)
	if err != nil {
		return nil, fmt.Errorf("constraint <%s> is not a regular expression: %v", src, err)
	}
	k.key, k.re, k.prog = string(consRegexp)+src, re, prog
	return k, nil
}

// compileProg compiles the regular expression expr, anchored at both
// ends, into the program overlaps walks.
func compileProg(expr string) (*syntax.Prog, error) {
	re, err := syntax.Parse(`^(?:`+expr+`)$`, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return syntax.Compile(re.Simplify())
}

func kindNames() string {
	names := make([]string, len(constraintKinds))
	for i, ck := range constraintKinds {
		names[i] = ck.name
	}
	return strings.Join(names, ", ")
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// meets reports whether the decoded value v meets k.
func (k *constraint) meets(v string) bool {
	if k.re != nil {
		return k.re.MatchString(v)
	}
	var t tree // a named kind needs nothing of a tree
	return t.accepts(k.key, v, false)
}

// longDecimal is accepts for an int or uint (as k says) of more than 8
// digits: digits only, within the type's range.
func longDecimal(k byte, v string) bool {
	switch {
	case k == consUint:
		return fitsDecimal(v, "18446744073709551615")
	case v[0] == '-':
		return fitsDecimal(v[1:], "9223372036854775808")
	}
	return fitsDecimal(v, "9223372036854775807")
}

// fitsDecimal reports whether d is one or more decimal digits whose value
// is at most max, a decimal number without leading zeros.
func fitsDecimal(d, max string) bool {
	if !allDigits(d) {
		return false
	}
	if len(d) < len(max) {
		return d != "" // shorter than max: it fits; the common case
	}
	for len(d) > 1 && d[0] == '0' {
		d = d[1:]
	}
	return len(d) < len(max) || len(d) == len(max) && d <= max
}

// allDigits reports whether every byte of d is a decimal digit (true for
// ""). From 4 bytes on it tests 4 or 8 at a time, the last group
// overlapping the one before: a value's bytes are read in whole words,
// which costs a third of a byte-by-byte loop on the lengths of ids.
func allDigits(d string) bool {
	n := len(d)
	switch {
	case n >= 8:
		for i := 0; i+8 < n; i += 8 {
			if !digits8(load8(d[i:])) {
				return false
			}
		}
		return digits8(load8(d[n-8:]))
	case n >= 4:
		return digits4(load4(d)) && digits4(load4(d[n-4:]))
	}
	for i := 0; i < n; i++ {
		if d[i]-'0' > 9 {
			return false
		}
	}
	return true
}

// digits4 reports whether each byte of x is '0' to '9': its high nibble is
// 3, and adding 6 to its low nibble carries nothing into the high one,
// which a low nibble of 10 to 15 would. No byte carries into the next, as
// none is above 0x3F before the 6 is added.
func digits4(x uint32) bool {
	return x&0xF0F0F0F0 == 0x30303030 && (x+0x06060606)&0xF0F0F0F0 == 0x30303030
}

// digits8 is digits4 for 8 bytes.
func digits8(x uint64) bool {
	return x&0xF0F0F0F0F0F0F0F0 == 0x3030303030303030 && (x+0x0606060606060606)&0xF0F0F0F0F0F0F0F0 == 0x3030303030303030
}

// isUUID reports whether v is a UUID in its string form (RFC 9562 section
// 4): 32 hex digits, either case, in groups of 8-4-4-4-12.
func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := v[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f') {
			return false
		}
	}
	return true
}

// isAlnum reports whether v is one or more ASCII letters, or letters and
// digits when digits is set.
func isAlnum(v string, digits bool) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c|0x20 && c|0x20 <= 'z' || digits && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// overlaps reports whether some value meets both a and b: whether the
// product of their programs, walked pair of states by pair of states,
// reaches a pair where both match. Empty-width assertions count as always
// true, which can only find more overlaps. Programs too large to compare
// are taken to overlap.
func overlaps(a, b *constraint) bool {
	if a.key == b.key {
		return true
	}
	pa, pb := a.prog, b.prog
	if len(pa.Inst)*len(pb.Inst) > maxOverlapWork {
		return true
	}
	type pair struct{ p, q uint32 }
	seen := make(map[pair]bool)
	stack := []pair{{uint32(pa.Start), uint32(pb.Start)}}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		ia, ib := &pa.Inst[x.p], &pb.Inst[x.q]
		if next, ok := epsilon(ia); ok {
			for _, n := range next {
				stack = append(stack, pair{n, x.q})
			}
			continue
		}
		if next, ok := epsilon(ib); ok {
			for _, n := range next {
				stack = append(stack, pair{x.p, n})
			}
			continue
		}
		switch {
		case ia.Op == syntax.InstMatch && ib.Op == syntax.InstMatch:
			return true
		case ia.Op == syntax.InstMatch || ib.Op == syntax.InstMatch:
		case meet(runeRanges(ia), runeRanges(ib)):
			stack = append(stack, pair{ia.Out, ib.Out})
		}
	}
	return false
}

// epsilon returns the instructions i moves to without reading a rune, and
// whether it is such an instruction. InstFail moves nowhere.
func epsilon(i *syntax.Inst) ([]uint32, bool) {
	switch i.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		return []uint32{i.Out, i.Arg}, true
	case syntax.InstCapture, syntax.InstEmptyWidth, syntax.InstNop:
		return []uint32{i.Out}, true
	case syntax.InstFail:
		return nil, true
	}
	return nil, false
}

// runeRanges returns the runes the rune-reading instruction i accepts, as
// pairs of inclusive bounds.
func runeRanges(i *syntax.Inst) []rune {
	switch i.Op {
	case syntax.InstRuneAny:
		return []rune{0, unicode.MaxRune}
	case syntax.InstRuneAnyNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}
	case syntax.InstRune1:
		return []rune{i.Rune[0], i.Rune[0]}
	}
	if len(i.Rune) == 1 {
		// One rune, and its other cases when the instruction folds case.
		r0 := i.Rune[0]
		rs := []rune{r0, r0}
		if syntax.Flags(i.Arg)&syntax.FoldCase != 0 {
			for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
				rs = append(rs, r, r)
			}
		}
		return rs
	}
	return i.Rune
}

// meet reports whether two lists of rune ranges share a rune.
func meet(a, b []rune) bool {
	for i := 0; i+1 < len(a); i += 2 {
		for j := 0; j+1 < len(b); j += 2 {
			if a[i] <= b[j+1] && b[j] <= a[i+1] {
				return true
			}
		}
	}
	return false
}
