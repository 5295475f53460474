package waltz

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/waltz-go/waltz/internal/typed"
)

// TestAppendProblem holds the hand-written encoder to what encoding/json
// writes (with HTML escaping off) for the same document.
func TestAppendProblem(t *testing.T) {
	for _, p := range []Problem{
		{Type: "about:blank", Title: "Not Found", Status: 404},
		{Type: "https://example.com/p?a=1&b=<2>", Title: "Unprocessable Entity", Status: 422, Detail: `quote " backslash \ tab 	 nl
 ctl ` + "\x00\x01\b\f\x1f\x7f", Instance: "/a/%2F/ü",
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

// FuzzAppendJSONString holds a problem document's strings to the bytes
// an encoding/json Encoder writes with HTML escaping off.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `"\`, "\x00\xff\u2028é🎉", "\b\f<&> plain text ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		got := append(typed.AppendString(nil, s, false), '\n')
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%q: got %s, want %s", s, got, want.Bytes())
		}
	})
}
