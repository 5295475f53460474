package typed

import (
	"strings"
	"testing"
)

// TestNextPair holds the scanner to net/url's reading of a query, written
// with strings.Cut: pairs split at '&', empty pairs and pairs with a ';'
// skipped, each pair cut at its first '='.
func TestNextPair(t *testing.T) {
	long := strings.Repeat("x", 32)
	for _, q := range []string{
		"", "&", "&&", "a", "a=", "=b", "=", "a=b", "a=b&c=d", "a=b=c", "a&b", "&a=1&",
		"a;b=1&c=2", "a=1;&b=2", ";", "a=1&;&b", "limit=20&archived=true&sort=name",
		long, long + "=1", long[:32-1] + "=1", long[:32-2] + "=" + "&b=2",
		long + "&b=2", long[:32-1] + "&" + long, long + long + "=v&k=" + long,
		long + ";=1&b=2", long + "x=1;2&b", "k=" + long + long + "&k2=v2", long + "=" + long + "=x",
		"a=" + long[:32-2], "a=" + long[:32-3] + "&", "a=" + long[:32-2] + "&b",
	} {
		var got, want []string
		for k, v, rest, more := nextPair(q); more; k, v, rest, more = nextPair(rest) {
			got = append(got, k+"|"+v)
		}
		for rest := q; rest != ""; {
			var pair string
			pair, rest, _ = strings.Cut(rest, "&")
			if pair == "" || strings.Contains(pair, ";") {
				continue
			}
			k, v, _ := strings.Cut(pair, "=")
			want = append(want, k+"|"+v)
		}
		if strings.Join(got, "&") != strings.Join(want, "&") || len(got) != len(want) {
			t.Errorf("nextPair over %q: got %q, want %q", q, got, want)
		}
	}
}

// TestUnescapePlain checks the decoding of keys and values on both sides
// of 32: plain text is returned as it is, '+' and escapes decoded.
func TestUnescapePlain(t *testing.T) {
	long := strings.Repeat("y", 32)
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"abc", "abc"}, {"a+b", "a b"}, {"a%20b", "a b"}, {"%", ""},
		{long, long}, {long + "+", long + " "}, {long[:32-1] + "%41", long[:32-1] + "A"},
		{long + long + "%41", long + long + "A"}, {"+" + long, " " + long},
	} {
		var b binder
		b.in = Input{Fails: discard{}}
		got, ok := b.unescape("query.q", tc.in, tc.in)
		if tc.in == "%" {
			if ok || !b.broken {
				t.Errorf("unescape(%q): got ok %v, broken %v; want a failure", tc.in, ok, b.broken)
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("unescape(%q): got %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

type discard struct{}

func (discard) Fail(location, keyword, message string) {}

// TestEscapes checks escapes against strings.ContainsAny at every length
// up to past its word-at-a-time cases, with each byte near '%' and '+' in
// value (and with the high bit set) at every place.
func TestEscapes(t *testing.T) {
	for n := 0; n <= 40; n++ {
		base := []byte(strings.Repeat("a", n))
		for i := 0; i < n; i++ {
			for _, c := range []byte{'%', '+', '$', '&', '*', ',', '%' | 0x80, '+' | 0x80, 0, 0xff, '=', '5', 'K'} {
				s := append([]byte(nil), base...)
				s[i] = c
				if got, want := escapes(string(s)), strings.ContainsAny(string(s), "%+"); got != want {
					t.Errorf("escapes(%q): got %v, want %v", s, got, want)
				}
			}
		}
		if escapes(string(base)) {
			t.Errorf("escapes(%q): got true, want false", base)
		}
	}
}
