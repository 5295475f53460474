package typed

import (
	"regexp"
	"strings"
	"testing"
)

// TestECMAPattern holds what ecmaPattern refuses, and that a pattern it
// takes matches as ECMA-262 reads it (the wants below are what node's
// RegExp, without flags, gives): '.' leaves out every line terminator,
// \s takes Unicode's spaces, \S leaves them out.
func TestECMAPattern(t *testing.T) {
	for _, tc := range []struct {
		expr    string
		match   []string
		noMatch []string
	}{
		{`^a.b$`, []string{"a-b", "aéb"}, []string{"a\nb", "a\rb", "a\u2028b", "a\u2029b"}},
		{`^[.]$`, []string{"."}, []string{"x"}},
		{`^a\.b$`, []string{"a.b"}, []string{"axb"}},
		{`^\S+$`, []string{"abc"}, []string{"a\u00a0b", "a\vb", "a\ufeffb", "a b"}},
		{`^\s$`, []string{" ", "\t", "\u00a0", "\u3000", "\u2028"}, []string{"x", "\u200b"}},
		{`^[\sx]+$`, []string{"x \u00a0x"}, []string{"y"}},
		{`^[\s-_]+$`, []string{"- _"}, []string{"A", "0"}},
		{`^(?:ab)+$`, []string{"abab"}, []string{"aba"}},
		{`^(?<year>\d{4})$`, []string{"2026"}, []string{"٢٠٢٦"}},
		{`^\w+$`, []string{"a_1"}, []string{"é"}},
	} {
		expr, err := ecmaPattern(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		re := regexp.MustCompile(expr)
		for _, s := range tc.match {
			if !re.MatchString(s) {
				t.Errorf("%s: %q does not match, want it to (as %s)", tc.expr, s, expr)
			}
		}
		for _, s := range tc.noMatch {
			if re.MatchString(s) {
				t.Errorf("%s: %q matches, want it not to (as %s)", tc.expr, s, expr)
			}
		}
	}
	for _, tc := range []struct{ expr, want string }{
		{`(?i)^abc$`, "flags"},
		{`^(?s:a.b)$`, "flags"},
		{`^(?P<n>a)$`, "named group"},
		{`^\pL+$`, `\p is RE2's`},
		{`^\p{Greek}$`, `\p is RE2's`},
		{`^a\z`, `\z is RE2's`},
		{`\Aa`, `\A is RE2's`},
		{`^\Q.\E$`, `\Q is RE2's`},
		{`^\x{41}$`, `\x{…}`},
		{`^[[:alpha:]]+$`, "POSIX class"},
		{`^[^\S]$`, `\S inside a class`},
		{`^[]a]$`, "begins with ']'"},
		{`^a(?=b)`, "lookaround"},
		{`^(?<!a)b`, "lookaround"},
		{`^\a$`, `\a is RE2's`},
		{`^(a)\1$`, "back reference"},
		{`^\012$`, "octal"},
	} {
		_, err := ecmaPattern(tc.expr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.expr, err, tc.want)
		}
	}
}

// TestECMAOf: a router's constraint, RE2, written as the ECMA-262 that
// matches the same: '.' leaves out \n alone, \s is RE2's five spaces.
func TestECMAOf(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`a.b`, `a[^\n]b`},
		{`\s+`, `[\t\n\f\r ]+`},
		{`[\s,]+`, `[\t\n\f\r ,]+`},
		{`\S+`, `[^\t\n\f\r ]+`},
		{`[a-z-]+`, `[a-z-]+`},
		{`[\s-_a-z]+`, `[\t\n\f\r \-_a-z]+`}, // no range of the spaces and '_'
		{`[\s-]`, `[\t\n\f\r -]`},
		// Escapes the u flag refuses, written bare; those it takes kept.
		{`\d+\-\d+`, `\d+-\d+`},
		{`a\_b\#c\ d`, `a_b#c d`},
		{`[\w\-.]`, `[\w\-.]`},
		{`a\.b\/c`, `a\.b\/c`},
	} {
		if got, ok := ECMAOf(tc.expr); !ok || got != tc.want {
			t.Errorf("%s: got %q %v, want %q", tc.expr, got, ok, tc.want)
		}
	}
	if _, ok := ECMAOf(`(?i)[a-z]+`); ok {
		t.Errorf("(?i)[a-z]+: written, want refused")
	}
}
