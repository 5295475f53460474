package api

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/openapi"
)

// TestSamePath holds routes that differ only in a param's name at one
// place, which the router takes, to one path of the document when it
// can hold them all (OpenAPI 3.1 section 4.8.8: such templates MUST NOT
// be two paths): the first's, each other route's params renamed its
// names and saying their own, each keeping its own schema (a constraint,
// a catch-all). Where a method comes twice, which one path cannot hold,
// as few paths as the router's leaves allow, and no operation is lost.
func TestSamePath(t *testing.T) {
	type keyIn struct {
		Key string `path:"key" maxLength:"8"`
	}
	type out struct{ Body string }
	r := waltz.New()
	ok := func(c *waltz.Context) error { return nil }
	// Merged: one leaf, no method twice.
	r.Get("/items/:id", ok)
	Op(r, http.MethodDelete, "/items/:key", func(c *waltz.Context, in *keyIn) (*out, error) { return &out{in.Key}, nil }, Operation{ID: "deleteItem"})
	r.Put("/items/:name/tags/*rest", ok)
	r.Get("/items/:id/tags/*path", ok)
	// Not merged: GET twice (a constrained leaf beside a plain one).
	r.Get("/x/:id<int>", ok)
	r.Get("/x/:key", ok)
	r.Delete("/x/:key", ok)
	// Merged: another constraint, each operation's own, no method twice.
	r.Get("/y/:id<int>", ok)
	r.Delete("/y/:key", ok)
	// Merged: a catch-all beside a param.
	r.Patch("/w/*rest", ok)
	r.Put("/w/:id", ok)
	// DELETE twice, one of them under the first's very path: two paths,
	// one a leaf, the constrained leaf taking the path it alone has.
	r.Get("/z/:id", ok)
	r.Delete("/z/:id2", ok)
	r.Delete("/z/:id<int>", ok)
	// GET twice: as few paths as the leaves allow, each leaf's routes on
	// one.
	r.Get("/m/:a", ok)
	r.Get("/m/:b<int>", ok)
	r.Put("/m/:c", ok)
	r.Patch("/m/:d<int>", ok)
	// A mount beside a route of its shape: one path, which says so.
	r.Mount("/files", http.NotFoundHandler())
	r.Get("/files/:id", ok)
	r.Mount("/blobs", http.NotFoundHandler()) // alone: its own path
	for _, v := range []string{"3.1", "3.2"} {
		doc := Describe(r, Info{OpenAPI: v})
		want := []string{"/blobs/{path}", "/files/{id}", "/items/{id}", "/items/{id}/tags/{path}", "/m/{a}", "/m/{b}", "/w/{rest}", "/x/{id}", "/x/{key}", "/y/{id}", "/z/{id2}", "/z/{id}"}
		if got := slices.Sorted(maps.Keys(doc.Paths)); !slices.Equal(got, want) {
			t.Fatalf("%s: got the paths %q, want %q", v, got, want)
		}
		methods := map[string]string{}
		for path, item := range doc.Paths {
			var ms []string
			for m := range item.Operations() {
				ms = append(ms, m)
			}
			methods[path] = strings.Join(ms, " ")
		}
		for path, want := range map[string]string{"/items/{id}": "GET DELETE", "/items/{id}/tags/{path}": "GET PUT",
			"/x/{id}": "GET", "/x/{key}": "GET DELETE", "/y/{id}": "GET DELETE", "/w/{rest}": "PUT PATCH",
			"/z/{id}": "DELETE", "/z/{id2}": "GET DELETE", "/m/{a}": "GET PUT", "/m/{b}": "GET PATCH"} {
			if methods[path] != want {
				t.Errorf("%s: %s has %q, want %q", v, path, methods[path], want)
			}
		}
		del := doc.Paths["/items/{id}"].Delete
		if p := del.Parameters[0]; del.OperationID != "deleteItem" || p.Name != "id" || p.In != "path" ||
			!strings.HasSuffix(p.Description, "The route names it key.") || p.Schema.MaxLength == nil {
			t.Errorf("%s: deleteItem's param: got %q in %s, %q, want id in path, saying key, with its maxLength", v, p.Name, p.In, p.Description)
		}
		if d := doc.Paths["/files/{id}"].Description; !strings.Contains(d, "Every other request under /files/ is handed to a mounted handler.") {
			t.Errorf("%s: /files/{id}: got the description %q, want it to name the mount", v, d)
		}
		y := doc.Paths["/y/{id}"]
		if g, d := y.Get.Parameters[0], y.Delete.Parameters[0]; g.Name != "id" || g.Schema.Type != "integer" ||
			d.Name != "id" || d.Schema.Type != "string" || !strings.HasSuffix(d.Description, "The route names it key.") {
			t.Errorf("%s: /y/{id}: got GET's %q %v and DELETE's %q %v %q, want both id, an integer and a string named key",
				v, g.Name, g.Schema.Type, d.Name, d.Schema.Type, d.Description)
		}
		if p := doc.Paths["/w/{rest}"].Put.Parameters[0]; p.Name != "rest" || strings.Contains(p.Description, "catch-all") {
			t.Errorf("%s: /w/{rest}'s PUT: got %q %q, want rest, no catch-all", v, p.Name, p.Description)
		}
		put := doc.Paths["/items/{id}/tags/{path}"].Put
		if len(put.Parameters) != 2 || put.Parameters[0].Name != "id" || put.Parameters[1].Name != "path" ||
			!strings.Contains(put.Parameters[1].Description, "A catch-all") || !strings.HasSuffix(put.Parameters[1].Description, "same value. The route names it rest.") {
			t.Errorf("%s: the PUT of tags: got %+v, want params id and path, the catch-all's saying so and its own name", v, put.Parameters)
		}
	}
}

// TestTemplateShape holds a template's shape and names.
func TestTemplateShape(t *testing.T) {
	for path, want := range map[string]string{
		"/":              "/ []",
		"/items":         "/items []",
		"/items/{id}":    "/items/{} [id]",
		"/a/{x}/b/{y}/c": "/a/{}/b/{}/c [x y]",
		"/a/{x}{y}":      "/a/{}{} [x y]",
		"/a/{x":          "/a/{x []",
	} {
		shape, names := templateShape(path)
		if got := shape + " [" + strings.Join(names, " ") + "]"; got != want {
			t.Errorf("templateShape(%q): got %q, want %q", path, got, want)
		}
	}
}

// TestAcceptQueryByLeaf: the document gives a GET the Accept-Query of a
// QUERY of its leaf of the router, typed or plain (Accepts), which the
// router sends on its answers (RFC 10008 appendix A.3), and not of a
// QUERY of another leaf under the same path of the document (another
// constraint), whose answers do not carry it.
func TestAcceptQueryByLeaf(t *testing.T) {
	type find struct {
		Body struct {
			Q string `json:"q"`
		}
	}
	type out struct{ Body string }
	query := func(c *waltz.Context, in *find) (*out, error) { return &out{in.Body.Q}, nil }
	get := func(c *waltz.Context, _ *struct{}) (*out, error) { return &out{"one"}, nil }
	r := waltz.New()
	Op(r, waltz.MethodQuery, "/same/:id<int>", query, Operation{})
	Op(r, http.MethodGet, "/same/:n<int>", get, Operation{})
	Op(r, waltz.MethodQuery, "/other/:id<int>", query, Operation{})
	Op(r, http.MethodGet, "/other/:key", get, Operation{})
	r.Query("/plain/:id", func(c *waltz.Context) error { return nil }).Accepts("application/json")
	Op(r, http.MethodGet, "/plain/:id", get, Operation{})
	r.Query("/both/:id", func(c *waltz.Context) error { return nil }).Accepts("application/json")
	r.Get("/both/:id", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
	// The other leaf's GET serves /other/1 too, without the field.
	for target, want := range map[string]bool{"/same/1": true, "/other/1": false, "/other/x": false, "/plain/1": true, "/both/1": true} {
		if got := serve(t, r, http.MethodGet, target).Header().Get("Accept-Query") != ""; got != want {
			t.Errorf("GET %s: Accept-Query sent: %v, want %v", target, got, want)
		}
	}
	doc := Describe(r, Info{OpenAPI: "3.2"})
	for path, want := range map[string]bool{"/same/{id}": true, "/other/{id}": false, "/plain/{id}": true} {
		item := doc.Paths[path]
		if item == nil || item.Get == nil || item.Query == nil {
			t.Fatalf("%s: want one path with the GET and the QUERY, got %+v", path, item)
		}
		if got := item.Get.Responses["200"].Headers["Accept-Query"] != nil; got != want {
			t.Errorf("%s: the GET's Accept-Query documented: %v, want %v", path, got, want)
		}
	}
	for _, op := range []*openapi.Operation{doc.Paths["/both/{id}"].Get, doc.Paths["/both/{id}"].Query} {
		if op.Responses["default"].Headers["Accept-Query"] == nil {
			t.Errorf("/both/{id}: a plain %s's answer does not list the plain QUERY's Accept-Query", op.Summary)
		}
	}
	// The QUERY's own answers: its refusals carry the field, its
	// success does not (the client sent a type it takes), in the
	// document as on the wire.
	q := doc.Paths["/same/{id}"].Query
	for _, tc := range []struct {
		code, ctype, body string
		field             bool
	}{
		{"200", "application/json", `{"q":"a"}`, false},
		{"400", "", `{"q":"a"}`, true},
		{"415", "text/csv", "a", true},
		{"422", "application/json", `{"q":1}`, true},
	} {
		req := httptest.NewRequest(waltz.MethodQuery, "/same/1", strings.NewReader(tc.body))
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if strconv.Itoa(w.Code) != tc.code || (w.Header().Get("Accept-Query") != "") != tc.field {
			t.Errorf("QUERY /same/1 of %q: got %d with Accept-Query %q; want %s, the field sent: %v", tc.ctype, w.Code, w.Header().Get("Accept-Query"), tc.code, tc.field)
		}
		resp := q.Responses[tc.code]
		if resp == nil || (resp.Headers["Accept-Query"] != nil) != tc.field {
			t.Errorf("/same/{id}: the QUERY's %s in the document: %+v; want the field listed: %v", tc.code, resp, tc.field)
		}
	}
}

// TestRefusedValue: a typed operation with a constrained param lists the
// answer the router gives a value the constraint refuses, as the router
// gives it: a 404 where no route of its shape takes the value, a 405
// where one takes it for other methods only (a hidden one too), none
// where one takes it for this method; without the Accept-Query of the
// leaf's QUERY, which no route sends with it.
func TestRefusedValue(t *testing.T) {
	type find struct {
		ID   int64 `path:"id"`
		Body struct {
			Q string `json:"q"`
		}
	}
	type out struct{ Body string }
	get := func(c *waltz.Context, in *struct {
		ID int64 `path:"id"`
	}) (*out, error) {
		return &out{"one"}, nil
	}
	ok := func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }
	r := waltz.New()
	Op(r, http.MethodGet, "/alone/:id<int>", get, Operation{})
	Op(r, http.MethodGet, "/other/:id<int>", get, Operation{})
	r.Delete("/other/:key", ok)
	Op(r, http.MethodGet, "/hidden/:id<int>", get, Operation{})
	r.With(Hide).Delete("/hidden/:key", ok)
	Op(r, http.MethodGet, "/taken/:id<int>", get, Operation{})
	r.Get("/taken/:key", ok)
	Op(r, http.MethodGet, "/q/:id<int>", get, Operation{})
	Op(r, waltz.MethodQuery, "/q/:id<int>", func(c *waltz.Context, in *find) (*out, error) { return &out{in.Body.Q}, nil }, Operation{})
	r.Delete("/q/:key", ok)
	doc := Describe(r, Info{OpenAPI: "3.2"})
	for _, tc := range []struct {
		path string
		code int // the router's answer to GET path with "x", 0 for another route's
	}{{"/alone", 404}, {"/other", 405}, {"/hidden", 405}, {"/taken", 0}, {"/q", 405}} {
		w := serve(t, r, http.MethodGet, tc.path+"/x")
		if tc.code != 0 && w.Code != tc.code || tc.code == 0 && w.Code != http.StatusNoContent {
			t.Errorf("GET %s/x: got %d, want %d", tc.path, w.Code, tc.code)
		}
		op := doc.Paths[tc.path+"/{id}"].Get
		var listed []string
		for _, c := range []string{"404", "405"} {
			if resp := op.Responses[c]; resp != nil {
				listed = append(listed, c)
				if resp.Headers["Accept-Query"] != nil {
					t.Errorf("%s: the router's %s carries Accept-Query in the document, which no route sends with it", tc.path, c)
				}
			}
		}
		want := []string{}
		if tc.code != 0 {
			want = []string{strconv.Itoa(tc.code)}
		}
		if !slices.Equal(listed, want) && !(len(listed) == 0 && len(want) == 0) {
			t.Errorf("%s/{id} GET lists %q of 404 and 405, want %q", tc.path, listed, want)
		}
	}
	if doc.Paths["/q/{id}"].Get.Responses["200"].Headers["Accept-Query"] == nil {
		t.Error("/q/{id}: the GET's 200 does not list the leaf's Accept-Query")
	}
}

// TestSameMethodSamePath: two routes of one method whose templates are
// one path (/z/:id<int> and /z/:id): the first's operation (in Routes'
// order) keeps the place, in 3.1 as in 3.2, and names the other route;
// it is not replaced by the second.
func TestSameMethodSamePath(t *testing.T) {
	type out struct{ Body string }
	r := waltz.New()
	Op(r, http.MethodGet, "/z/:id<int>", func(c *waltz.Context, in *struct {
		ID int64 `path:"id"`
	}) (*out, error) {
		return &out{"int"}, nil
	}, Operation{ID: "getInt"})
	Op(r, http.MethodGet, "/z/:id", func(c *waltz.Context, in *struct {
		ID string `path:"id"`
	}) (*out, error) {
		return &out{"any"}, nil
	}, Operation{ID: "getAny"})
	for _, v := range []string{"3.1", "3.2"} {
		get := Describe(r, Info{OpenAPI: v}).Paths["/z/{id}"].Get
		if get == nil || get.OperationID != "getAny" || !strings.Contains(get.Description, "Another route, GET /z/:id<int>, serves") {
			t.Errorf("%s: /z/{id} GET: got %+v, want getAny (first in Routes' order), naming the route GET /z/:id<int>", v, get)
		}
	}
	// Many: the first five named, the rest counted, in one sentence.
	for i := range 7 {
		r.Get(fmt.Sprintf("/z/:id<x%d>", i), func(c *waltz.Context) error { return nil })
	}
	get := Describe(r, Info{}).Paths["/z/{id}"].Get
	if !strings.HasPrefix(get.Description, "Other routes, GET /z/:id<int>, ") || !strings.Contains(get.Description, " and 3 more, serve") ||
		strings.Count(get.Description, "serve") != 1 {
		t.Errorf("with eight others: got the description %q", get.Description)
	}
}
