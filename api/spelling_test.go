package api

import (
	"net/http"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestHeaderSpelling: the document writes a header field whose
// registered name is not Go's canonical form as registered ("ETag", not
// "Etag"; "Last-Event-ID"), and one a typed operation's tag spells
// otherwise ("X-Request-ID", "x-trace") as the tag does, as a parameter
// and as an answer's field; the others as they are.
func TestHeaderSpelling(t *testing.T) {
	type in struct {
		Last  string `header:"Last-Event-ID"`
		Trace string `header:"x-trace"`
		ID    string `header:"X-Request-ID"`
	}
	type out struct {
		ETag string `header:"ETag"`
		Auth string `header:"WWW-Authenticate"`
		Next string `header:"X-Next-ID"`
		Body string
	}
	r := waltz.New()
	Op(r, http.MethodGet, "/a", func(c *waltz.Context, _ *in) (*out, error) { return &out{ETag: `"1"`, Body: "a"}, nil }, Operation{})
	op := Describe(r, Info{}).Paths["/a"].Get
	var names []string
	for _, p := range op.Parameters {
		if p.In == "header" {
			names = append(names, p.Name)
		}
	}
	for _, want := range []string{"Last-Event-ID", "x-trace", "X-Request-ID", "If-None-Match"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("header parameters %q: no %q", names, want)
		}
	}
	for _, k := range []string{"ETag", "WWW-Authenticate", "X-Next-ID"} {
		if op.Responses["200"].Headers[k] == nil {
			t.Errorf("the 200's fields %v: no %q", op.Responses["200"].Headers, k)
		}
	}
	if op.Responses["304"].Headers["ETag"] == nil {
		t.Errorf("the 304's fields: no ETag")
	}
}
