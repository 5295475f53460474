package typed

import (
	"errors"
	"strings"
)

// A pattern tag is written into the OpenAPI document as it is, where JSON
// Schema reads it as an ECMA-262 regular expression (2020-12 Validation
// section 6.3.3, Core section 6.4), and compiled here by Go's regexp
// (RE2). The two read most patterns alike; ecmaPattern refuses the
// syntax only one of them has, and rewrites '.', \s and \S, which they
// read differently, so that the server checks what the document says.
// A router's constraint goes the other way: ECMAOf writes its RE2 as
// the ECMA-262 that matches the same.

// ecmaSpace is ECMA-262's white space and line terminators, which \s
// matches there (RE2's \s is [\t\n\f\r ] alone).
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ecmaDot is what '.' matches in ECMA-262 without the s flag: any
// character but a line terminator (RE2's '.' leaves out \n alone).
const ecmaDot = `[^\n\r\x{2028}\x{2029}]`

// ecmaPattern returns expr, a regular expression in the syntax both
// ECMA-262 and RE2 read, as RE2 to match what ECMA-262 matches: '.'
// outside a class, \s and \S made ECMA-262's. It refuses, with the
// reason, what only one of them reads, or reads otherwise: flags
// ((?i)), named groups spelt (?P<n>) or named from a digit, \p and \P, \A, \z, \Q…\E, \C,
// \a, \1 to \9, \x{…}, POSIX classes ([[:alpha:]]), \S inside a class,
// and lookarounds.
func ecmaPattern(expr string) (string, error) {
	return rewrite(expr, ecmaDot, ecmaSpace)
}

// ECMAOf returns expr, a regular expression in RE2's syntax (a router's
// constraint), as ECMA-262 to match what RE2 matches: '.' as [^\n], \s
// and \S as RE2's [\t\n\f\r ], for a document's pattern; ok is false
// when expr has syntax only one of them reads (see ecmaPattern).
func ECMAOf(expr string) (string, bool) {
	e, err := rewrite(expr, `[^\n]`, `\t\n\f\r `)
	return docPattern(e), err == nil
}

// docPattern returns expr, a pattern ECMA-262 and RE2 read alike (a
// pattern tag ecmaPattern took, or a router constraint rewritten), as a
// document writes it: the same pattern in the syntax ECMA-262 takes
// with the u flag too, which validators that compile patterns with it
// (Ajv) use, and which refuses what the pattern leaves to Annex B (B.1.2):
// an escaped punctuation character that is no syntax character (\-
// outside a class, \_, \#) is written bare, and a '{', '}' or ']'
// outside a class that is no quantifier or class of its own is escaped
// (a count with a leading zero, {01}, is no quantifier to RE2), and an
// assertion RE2 repeats (^*, \b+) is put in a group, (?:^)*, which
// ECMA-262 repeats with or without the flag. With the u flag the
// pattern matches what RE2 matches (ECMA-262 section 22.2.1,
// IdentityEscape[+UnicodeMode]); without it, alike but for characters
// beyond the Basic Multilingual Plane, which ECMA-262 then reads as two
// UTF-16 halves (an emoji in a class, or matched by '.').
func docPattern(expr string) string {
	var b strings.Builder
	class := false // inside [...]
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			e := expr[i+1]
			switch {
			case bareable(e, class):
				b.WriteByte(e)
			case !class && (e == 'b' || e == 'B') && quantified(expr[i+2:]):
				b.WriteString("(?:" + expr[i:i+2] + ")")
			default:
				b.WriteString(expr[i : i+2])
			}
			i++
			continue
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '{':
			if n := repetition(expr[i:]); n > 0 {
				b.WriteString(expr[i : i+n])
				i += n - 1
				continue
			}
			b.WriteByte('\\')
		case c == '}' || c == ']':
			b.WriteByte('\\')
		case (c == '^' || c == '$') && quantified(expr[i+1:]):
			b.WriteString("(?:" + string(c) + ")")
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// repetition returns the length of the quantifier {n}, {n,} or {n,m} at
// the start of s, or 0 when s starts with none: a '{' RE2 and ECMA-262
// without the u flag take as itself.
func repetition(s string) int {
	i := 1
	// digits reads a count, -1 for one RE2 takes as no count: with a
	// leading zero ({01} is the text "{01}" to RE2, a count to ECMA-262).
	digits := func() int {
		j := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i-j > 1 && s[j] == '0' {
			return -1
		}
		return i - j
	}
	if digits() <= 0 {
		return 0
	}
	if i < len(s) && s[i] == ',' {
		i++
		if digits() < 0 {
			return 0
		}
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}

// quantified reports whether s, what follows an atom, begins with a
// quantifier: RE2 repeats an assertion (^*, \b+), which ECMA-262 refuses
// bare (section 22.2.1, Term: an Assertion takes no Quantifier) and takes
// in a group, (?:^)*, which matches the same.
func quantified(s string) bool {
	return s != "" && (strings.IndexByte("*+?", s[0]) >= 0 || s[0] == '{' && repetition(s) > 0)
}

// rewrite returns expr with '.' outside a class written as dot, and \s
// and \S as the class of space (its members inside a class), or the
// reason it refuses expr: the syntax ECMA-262 and RE2 do not share.
func rewrite(expr, dot, space string) (string, error) {
	var b strings.Builder
	class := false // inside [...]
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			e := expr[i+1]
			switch {
			case strings.IndexByte("pPAzQECa", e) >= 0:
				return "", errors.New(`\` + string(e) + ` is RE2's, not ECMA-262's, which JSON Schema reads a pattern as`)
			case '1' <= e && e <= '9', e == '0' && i+2 < len(expr) && '0' <= expr[i+2] && expr[i+2] <= '9':
				return "", errors.New(`\` + string(e) + ` is an octal escape to RE2 and a back reference to ECMA-262: write \xHH`)
			case e == 'x' && i+2 < len(expr) && expr[i+2] == '{':
				return "", errors.New(`\x{…} is RE2's, not ECMA-262's: write \xHH, or the character itself`)
			case e == 's' && class:
				b.WriteString(space)
				if i+3 < len(expr) && expr[i+2] == '-' && expr[i+3] != ']' {
					// A '-' after a class escape is a member; after the
					// spaces written out, it would make a range of them.
					b.WriteString(`\-`)
					i++
				}
			case e == 's':
				b.WriteString("[" + space + "]")
			case e == 'S' && class:
				return "", errors.New(`\S inside a class reads otherwise in ECMA-262 and RE2: list the characters`)
			case e == 'S':
				b.WriteString("[^" + space + "]")
			default:
				b.WriteByte(c)
				b.WriteByte(e)
			}
			i++
		case class:
			if c == '[' && i+1 < len(expr) && expr[i+1] == ':' {
				return "", errors.New("a POSIX class ([[:alpha:]]) is RE2's, not ECMA-262's: list the characters")
			}
			if c == ']' {
				class = false
			}
			b.WriteByte(c)
		case c == '[':
			class = true
			b.WriteByte(c)
			// A ']' first in the class (or after '^') is a member in
			// RE2, an empty class in ECMA-262.
			j := i + 1
			if j < len(expr) && expr[j] == '^' {
				j++
			}
			if j < len(expr) && expr[j] == ']' {
				return "", errors.New("a class that begins with ']' reads otherwise in ECMA-262 and RE2: escape it as \\]")
			}
		case c == '(' && i+1 < len(expr) && expr[i+1] == '?':
			rest := expr[i+2:]
			switch {
			case len(rest) > 1 && rest[0] == '<' && '0' <= rest[1] && rest[1] <= '9':
				return "", errors.New("a group's name begins with a letter or '_' in ECMA-262 (a digit first is RE2's alone)")
			case strings.HasPrefix(rest, ":"), strings.HasPrefix(rest, "<") && !strings.HasPrefix(rest, "<=") && !strings.HasPrefix(rest, "<!"):
				b.WriteString("(?")
				i++
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "<"):
				return "", errors.New("a lookaround is ECMA-262's, which Go's regexp cannot check")
			default:
				return "", errors.New("(?" + firstOf(rest) + " is RE2's, not ECMA-262's: a pattern takes no flags, and a named group is spelt (?<name>…)")
			}
		case c == '.':
			b.WriteString(dot)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// bareable reports whether the escaped byte e is ASCII punctuation that
// ECMA-262 with the u flag takes no escape for, there (in a class or not):
// its syntax characters and '/' may be escaped anywhere, '-' in a class.
func bareable(e byte, class bool) bool {
	switch {
	case e >= 0x80 || 'a' <= e && e <= 'z' || 'A' <= e && e <= 'Z' || '0' <= e && e <= '9':
		return false
	case strings.IndexByte(`^$\.*+?()[]{}|/`, e) >= 0:
		return false
	}
	return !(class && e == '-')
}

// firstOf returns the first byte of s as a string, or "".
func firstOf(s string) string {
	if s == "" {
		return ""
	}
	return s[:1]
}
