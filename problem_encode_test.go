package waltz

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAppendProblem holds the hand-written encoder to what encoding/json
// writes (with HTML escaping off) for the same document.
func TestAppendProblem(t *testing.T) {
	for _, p := range []Problem{
		{Type: "about:blank", Title: "Not Found", Status: 404},
		{Type: "https://example.com/p?a=1&b=<2>", Title: "Unprocessable Entity", Status: 422, Detail: `quote " backslash \ tab 	 nl
 ctl ` + "\x00\x01\x1f\x7f", Instance: "/a/%2F/ü",
			Errors: []FieldError{
				{Location: "query.limit", Keyword: "maximum", Message: `must be at most 100, got "500"`},
				{Location: "body.tags[1]", Keyword: "maxLength", Message: "bad utf-8 \xff\xfe end, line sep \u2028 para \u2029, emoji 🎉"},
			}},
		{Type: "", Title: "", Status: 0, Errors: []FieldError{{}}},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
		got := append(appendProblem(nil, &p), '\n')
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("got  %s\nwant %s", got, want.Bytes())
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `"\`, "\x00\xff\u2028é🎉"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		b, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(b, &want)
		if got != want {
			t.Errorf("%q: decodes to %q, want %q as encoding/json's", s, got, want)
		}
	})
}

// TestPlain8 holds the word test against the byte test: every byte value
// at every place among plain ones, and beside each other byte value.
func TestPlain8(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for c := range 256 {
		for at := range 8 {
			for _, other := range []byte{'a', 0x1f, 0x20, '"', '\\', 0x7f, 0x80, 0xff} {
				b := []byte("abcdefgh")
				b[at] = byte(c)
				b[(at+3)%8] = other
				want := plain(byte(c)) && plain(other)
				if got := plain8(string(b)); got != want {
					t.Fatalf("%q: got %v, want %v", b, got, want)
				}
			}
		}
	}
}
