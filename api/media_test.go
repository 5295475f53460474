package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestTypedMediaTypes checks the answers of an operation to a body in a
// media type it does not take: 415, a problem naming the types it takes,
// and the field that lists them for the method (Accept-Post, Accept-Patch
// per RFC 5789 section 3.1); none for a method without such a field.
func TestTypedMediaTypes(t *testing.T) {
	type jsonIn struct {
		Body struct {
			A int `json:"a"`
		}
	}
	type bothIn struct {
		Body struct {
			A int `json:"a"`
		} `consumes:"json,form"`
	}
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	Op(r, http.MethodPost, "/json", opFn[jsonIn, noOut], Operation{})
	Op(r, http.MethodPatch, "/json", opFn[jsonIn, noOut], Operation{})
	Op(r, http.MethodPut, "/json", opFn[jsonIn, noOut], Operation{})
	Op(r, http.MethodPost, "/both", opFn[bothIn, noOut], Operation{})
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		method, target, ctype, body string
		code                        int
		field, list                 string // the field naming what is taken, and its value
	}{
		{http.MethodPost, "/json", form, "a=1", 415, "Accept-Post", "application/json"},
		{http.MethodPatch, "/json", form, "a=1", 415, "Accept-Patch", "application/json"},
		{http.MethodPut, "/json", "text/plain", "a=1", 415, "", ""},
		{http.MethodPost, "/json", "application/json", `{"a":1}`, 204, "", ""},
		{http.MethodPost, "/both", form, "a=1", 204, "", ""},
		{http.MethodPost, "/both", "text/csv", "a\n1", 415, "Accept-Post", "application/json, " + form},
	} {
		t.Run(tc.method+" "+tc.target+" "+tc.ctype, func(t *testing.T) {
			w, p := serveTyped(t, r, tc.method, tc.target, tc.ctype, tc.body)
			if w.Code != tc.code {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tc.code)
			}
			for _, f := range []string{"Accept-Post", "Accept-Patch"} {
				want := ""
				if f == tc.field {
					want = tc.list
				}
				if got := w.Header().Get(f); got != want {
					t.Errorf("%s: got %q, want %q", f, got, want)
				}
			}
			if tc.code == 415 && p == nil {
				t.Fatalf("no problem document: %s", w.Body)
			}
		})
	}
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(r, Info{}), &doc); err != nil {
		t.Fatal(err)
	}
	// The document's 415 lists the field the answer carries, naming the
	// same types; a PUT's lists none.
	for _, tc := range []struct{ op, field, list string }{
		{"paths/~1json/post", "Accept-Post", "application/json"},
		{"paths/~1json/patch", "Accept-Patch", "application/json"},
		{"paths/~1json/put", "", ""},
		{"paths/~1both/post", "Accept-Post", "application/json, " + form},
	} {
		hs, _ := lookup(doc, tc.op+"/responses/415/headers")
		fields, _ := hs.(map[string]any)
		for _, f := range []string{"Accept-Post", "Accept-Patch"} {
			h, ok := fields[f].(map[string]any)
			if ok != (f == tc.field) {
				t.Errorf("%s 415: %s listed %v, want %v", tc.op, f, ok, f == tc.field)
				continue
			}
			if d, _ := h["description"].(string); ok && !strings.HasSuffix(d, ": "+tc.list+".") {
				t.Errorf("%s 415 %s: description %q does not name %s", tc.op, f, d, tc.list)
			}
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"paths/~1json/post/requestBody/content/application~1json/schema/type", `"object"`},
		{"paths/~1json/post/requestBody/content/application~1x-www-form-urlencoded", ""},
		{"paths/~1both/post/requestBody/content/application~1x-www-form-urlencoded/schema/type", `"object"`},
	} {
		got := "" // absent
		if v, ok := lookup(doc, tc.path); ok {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
}

// TestOpenAPIProblemName checks that a user's type named Problem cannot
// take waltz's Problem component: the error responses' $ref stays
// waltz's problem details, and the user's type gets another name.
func TestOpenAPIProblemName(t *testing.T) {
	type Problem struct {
		Code string `json:"code"`
	}
	type in struct{ Body Problem }
	type out struct{ Body Problem }
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	Op(r, http.MethodPost, "/p", func(c *waltz.Context, i *in) (*out, error) { return &out{i.Body}, nil }, Operation{})
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(r, Info{}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"paths/~1p/post/responses/422/content/application~1problem+json/schema/$ref", `"#/components/schemas/Problem"`},
		{"components/schemas/Problem/required", `["type","title","status"]`},
		{"paths/~1p/post/requestBody/content/application~1json/schema/$ref", `"#/components/schemas/Problem2"`},
		{"components/schemas/Problem2/properties/code/type", `"string"`},
	} {
		got := ""
		if v, ok := lookup(doc, tc.path); ok {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
}

// TestAcceptOnOptions checks that the automatic OPTIONS of a path lists
// what its typed PATCH and POST take, in Accept-Patch (RFC 5789 section
// 3.1) and Accept-Post (W3C LDP section 7.1), beside a QUERY's
// Accept-Query: the route a request of the method would reach, a param's
// behind a static piece's; nothing for a plain route or an operation
// without a Body, nor on a 405; and at no allocation but the Allow
// field's.
func TestAcceptOnOptions(t *testing.T) {
	type patchIn struct {
		ID   string `path:"id"`
		Body struct {
			Note Optional[string] `json:"note"`
		}
	}
	type formIn struct {
		Body struct {
			A int `json:"a"`
		} `consumes:"json,form"`
	}
	type upIn struct {
		Body struct {
			F File `json:"f"`
		}
	}
	type queryIn struct {
		Body struct {
			A int `json:"a"`
		}
	}
	r := waltz.New()
	Op(r, http.MethodPatch, "/notes/:id", opFn[patchIn, noOut], Operation{})
	r.Get("/notes/new", func(c *waltz.Context) error { return c.NoContent(http.StatusOK) })
	Op(r, http.MethodPost, "/notes", opFn[formIn, noOut], Operation{})
	Op(r, waltz.MethodQuery, "/notes", opFn[queryIn, noOut], Operation{})
	Op(r, http.MethodPost, "/up", opFn[upIn, noOut], Operation{})
	Op(r, http.MethodPost, "/empty", opFn[struct{}, noOut], Operation{})
	r.Patch("/plain", func(c *waltz.Context) error { return nil })
	const mp, form = "application/merge-patch+json", "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		method, path            string
		code                    int
		patch, post, queryTypes string
	}{
		{http.MethodOptions, "/notes/1", 204, mp, "", ""},
		{http.MethodOptions, "/notes/new", 204, mp, "", ""},
		{http.MethodOptions, "/notes", 204, "", "application/json, " + form, "application/json"},
		{http.MethodOptions, "/up", 204, "", "multipart/form-data", ""},
		{http.MethodOptions, "/empty", 204, "", "", ""},
		{http.MethodOptions, "/plain", 204, "", "", ""},
		{http.MethodPut, "/notes/1", 405, "", "", ""},
		{http.MethodPut, "/notes", 405, "", "", "application/json"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
			if w.Code != tc.code {
				t.Fatalf("got %d, want %d", w.Code, tc.code)
			}
			for _, f := range []struct{ name, want string }{{"Accept-Patch", tc.patch}, {"Accept-Post", tc.post}, {"Accept-Query", tc.queryTypes}} {
				if got := w.Header().Get(f.name); got != f.want {
					t.Errorf("%s: got %q, want %q", f.name, got, f.want)
				}
			}
		})
	}
	if raceEnabled {
		return
	}
	w := newNopWriter()
	for _, path := range []string{"/notes/1", "/notes"} {
		req := httptest.NewRequest(http.MethodOptions, path, nil)
		if n := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); n != 1 {
			t.Errorf("OPTIONS %s: got %v allocs, want 1 (the Allow field's)", path, n)
		}
	}
}
