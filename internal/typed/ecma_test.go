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
		{`^(?<1a>x)$`, "begins with a letter"},
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
		// A literal '{', '}' or ']' outside a class, which the u flag
		// refuses bare, escaped; quantifiers and classes kept.
		{`a{2}b{1,}c{1,3}`, `a{2}b{1,}c{1,3}`},
		{`a{b}`, `a\{b\}`},
		{`x{,3}]`, `x\{,3\}\]`},
		{`[}{]`, `[}{]`},
		// A count with a leading zero is text to RE2, a count to
		// ECMA-262: escaped, as any '{' that is no quantifier.
		{`a{01}`, `a\{01\}`},
		{`x{1,02}y{0,1}`, `x\{1,02\}y{0,1}`},
		// An assertion RE2 repeats, which node's RegExp refuses bare
		// ("Nothing to repeat"), in a group it repeats.
		{`^*a`, `(?:^)*a`},
		{`\b+a$?`, `(?:\b)+a(?:$)?`},
		{`^{2}\B{1,}[$^]`, `(?:^){2}(?:\B){1,}[$^]`},
	} {
		if got, ok := ECMAOf(tc.expr); !ok || got != tc.want {
			t.Errorf("%s: got %q %v, want %q", tc.expr, got, ok, tc.want)
		}
	}
	if _, ok := ECMAOf(`(?i)[a-z]+`); ok {
		t.Errorf("(?i)[a-z]+: written, want refused")
	}
}

type docPatterns struct {
	A string `json:"a" pattern:"^[0-9]+\\-[0-9]+$"`
	B string `json:"b" pattern:"^[a-z\\_]+\\#?$"`
	C string `json:"c" pattern:"^[\\w\\-.]+\\/x{2}$"`
	D string `json:"d" pattern:"^a{b}]$"`
}

// TestDocPattern checks that a pattern tag is written into the document
// in the syntax ECMA-262 takes with the u flag (node's RegExp with "u"
// throws on the tags of a, b and d, and takes each want), and that the pattern
// written matches what the tag matches, which the server checks.
func TestDocPattern(t *testing.T) {
	g := NewSchemas(false)
	g.Of(reflectType[docPatterns]())
	props := g.Defs()["docPatterns"].Properties
	for i, tc := range []struct {
		want    string
		samples []string
	}{
		{`^[0-9]+-[0-9]+$`, []string{"1-2", "12", "1\\-2", "-"}},
		{`^[a-z_]+#?$`, []string{"a_b#", "ab", "a\\_b", "#"}},
		{`^[\w\-.]+\/x{2}$`, []string{"a-b./xx", "a/x", "a/xxx"}},
		{`^a\{b\}\]$`, []string{"a{b}]", "ab]", "a{b}"}},
	} {
		got := props[i].Schema.Pattern
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", props[i].Name, got, tc.want)
			continue
		}
		tag, _ := reflectType[docPatterns]().Field(i).Tag.Lookup("pattern")
		before, err1 := ecmaPattern(tag)
		after, err2 := ecmaPattern(got)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", props[i].Name, err1, err2)
		}
		b, a := regexp.MustCompile(before), regexp.MustCompile(after)
		for _, s := range tc.samples {
			if b.MatchString(s) != a.MatchString(s) {
				t.Errorf("%s: %q matches %s %v and %s %v", props[i].Name, s, tag, b.MatchString(s), got, a.MatchString(s))
			}
		}
	}
}
