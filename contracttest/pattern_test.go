package contracttest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

type BookIn struct {
	ISBN string `path:"isbn" pattern:"^97[89][0-9]{10}$"`
	Body struct {
		Code string `json:"code" required:"true" pattern:"^[A-Z]{2}-[0-9]{12}$"`
		Ref  string `json:"ref,omitempty" pattern:"^r[0-9]{20,24}$" maxLength:"24"`
	}
}

type BookOut struct {
	Body struct {
		ISBN string `json:"isbn"`
	}
}

// TestPatternLength: a string whose pattern fixes a length past the
// generator's usual range (13 digits, with no minLength) is made from the
// pattern, so its operation is tested, each rule of it too.
func TestPatternLength(t *testing.T) {
	sent := map[string]bool{}
	traceCase = func(name string, valid bool, w *wire, code int) { sent[name] = true }
	defer func() { traceCase = nil }()
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	api.Op(r, http.MethodPut, "/books/:isbn", func(c *waltz.Context, in *BookIn) (*BookOut, error) {
		out := &BookOut{}
		out.Body.ISBN = in.ISBN
		return out, nil
	}, api.Operation{ID: "putBook"})
	rec := record(t, r, Options{})
	for _, e := range rec.errs {
		t.Errorf("a failure: %s", e)
	}
	for _, l := range rec.logs {
		if strings.Contains(l, "not tested") {
			t.Errorf("got %q, want every value made", l)
		}
	}
	for _, name := range []string{
		"putBook valid", "putBook valid #20", "putBook path.isbn against pattern",
		"putBook body.code against pattern", "putBook body.ref at maxLength", "putBook body.ref over maxLength", "putBook body.ref against pattern",
	} {
		if !sent[name] {
			t.Errorf("no case %q was sent", name)
		}
	}
}

// TestPatternLengths: the lengths a pattern's strings can have.
func TestPatternLengths(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		lo, hi  int // hi -1: no limit
	}{
		{"^97[89][0-9]{10}$", 13, 13},
		{"^[a-z]+$", 1, -1},
		{"^a{2,5}b?$", 2, 6},
		{"^ab", 2, -1},
		{"x{3}$", 3, -1}, // unanchored at the start: anything may come first
		{"^$", 0, 0},
	} {
		pt, ok := parsePattern(tc.pattern)
		if !ok {
			t.Fatalf("%s: not parsed", tc.pattern)
		}
		if lo, hi := pt.lengths(); lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: got lengths %d to %d, want %d to %d", tc.pattern, lo, hi, tc.lo, tc.hi)
		}
	}
}
