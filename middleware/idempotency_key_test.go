package middleware

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzIdempotencyKey: parsing a field never panics; a key it accepts is
// printable ASCII within the length limit, and quoted again as an
// sf-string it parses to itself.
func FuzzIdempotencyKey(f *testing.F) {
	for _, s := range []string{`"abc"`, `abc`, `"a\"b\\c"`, `"a\nb"`, "\"a\r\nb\"", `""`, `"abc`, `"a";p=1`, ` "x" `, "8e03978e-40d5"} {
		f.Add(s)
	}
	id := newIdempotency(IdempotencyOptions{MaxKeyLength: 64})
	f.Fuzz(func(t *testing.T, field string) {
		key, err := id.parseKey(field)
		if err != nil {
			return
		}
		if key == "" || len(key) > 64 {
			t.Fatalf("%q: got key %q, of length %d", field, key, len(key))
		}
		for i := 0; i < len(key); i++ {
			if key[i] < 0x20 || key[i] > 0x7e {
				t.Fatalf("%q: got key %q with byte %#x", field, key, key[i])
			}
		}
		quoted := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
		if again, err := id.parseKey(quoted); err != nil || again != key {
			t.Fatalf("%q: key %q quoted as %s parses to %q, %v", field, key, quoted, again, err)
		}
	})
}

// TestIdempotencyKeyPattern holds the pattern the document gives the key's
// field to the keys parseKey takes: each value is taken by both or by
// neither.
func TestIdempotencyKeyPattern(t *testing.T) {
	re := regexp.MustCompile(keyPattern)
	id := newIdempotency(IdempotencyOptions{})
	for _, v := range []string{
		`"abc"`, `"8e03978e-40d5-43e8-bc93-6894a57f9324"`, `"a b"`, `"a\"b"`, `"a\\b"`, `""`, `"a\b"`, `"a`, `a"`,
		`"a"b"`, "\"a\x7fb\"", "\"a\tb\"", "\"é\"", `abc`, `a:b/c`, `a b`, `a,b`, `(a)`, "a`b", `"~!#[]"`,
	} {
		_, err := id.parseKey(v)
		if got, want := re.MatchString(v), err == nil; got != want {
			t.Errorf("%q: the pattern matches: %v, parseKey takes it: %v", v, got, want)
		}
	}
}
