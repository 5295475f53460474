package typed

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestPlain8 holds the word test against the byte test, in both modes:
// every byte value at every place among plain ones, and beside each
// other byte value of interest.
func TestPlain8(t *testing.T) {
	for _, html := range []bool{false, true} {
		plain := func(c byte) bool {
			return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && (!html || c != '<' && c != '>' && c != '&')
		}
		for c := range 256 {
			for at := range 8 {
				for _, other := range []byte{'a', 0x1f, 0x20, '"', '\\', '<', '>', '&', 0x7f, 0x80, 0xff} {
					b := []byte("abcdefgh")
					b[at] = byte(c)
					b[(at+3)%8] = other
					want := plain(byte(c)) && plain(other)
					if got := plain8(string(b), html); got != want {
						t.Fatalf("html %v, %q: got %v, want %v", html, b, got, want)
					}
				}
			}
		}
	}
}

// FuzzAppendString holds AppendString to encoding/json's bytes, with and
// without HTML escaping.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain text, long enough", "\b\f\n\r\t\x00\x1f\x7f", "<a href=\"x\">&amp;</a>", "\xff\xfe\u2028\u2029é🎉"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(html)
			_ = enc.Encode(s)
			got := append(AppendString(nil, s, html), '\n')
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("html %v, %q: got %s, want %s", html, s, got, want.Bytes())
			}
		}
	})
}
