package api

import (
	"net/http"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestHeaderSpelling: the document writes a header field whose
// registered name is not Go's canonical form as registered ("ETag", not
// "Etag"; "Last-Event-ID"), as a parameter and as an answer's field,
// and leaves the others as they are.
func TestHeaderSpelling(t *testing.T) {
	type in struct {
		Last  string `header:"Last-Event-ID"`
		Trace string `header:"x-trace"`
	}
	type out struct {
		ETag string `header:"ETag"`
		Auth string `header:"WWW-Authenticate"`
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
	for _, want := range []string{"Last-Event-ID", "X-Trace", "If-None-Match"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("header parameters %q: no %q", names, want)
		}
	}
	for _, k := range []string{"ETag", "WWW-Authenticate"} {
		if op.Responses["200"].Headers[k] == nil {
			t.Errorf("the 200's fields %v: no %q", op.Responses["200"].Headers, k)
		}
	}
	if op.Responses["304"].Headers["ETag"] == nil {
		t.Errorf("the 304's fields: no ETag")
	}
}
