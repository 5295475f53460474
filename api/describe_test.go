package api

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestSamePath holds routes that differ only in a param's name at one
// place, which the router takes, to one path of the document when it
// can hold them all (OpenAPI 3.1 section 4.8.8: such templates MUST NOT
// be two paths): the first's, each other route's params renamed its
// names and saying their own. Where a method comes twice, or a param's
// constraint differs (another leaf of the router), each keeps its own,
// and no operation is lost.
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
	// Not merged: another constraint, though no method comes twice.
	r.Get("/y/:id<int>", ok)
	r.Delete("/y/:key", ok)
	// Not merged: DELETE twice, one of them under the first's very path.
	r.Get("/z/:id", ok)
	r.Delete("/z/:id2", ok)
	r.Delete("/z/:id<int>", ok)
	for _, v := range []string{"3.1", "3.2"} {
		doc := Describe(r, Info{OpenAPI: v})
		want := []string{"/items/{id}", "/items/{id}/tags/{path}", "/x/{id}", "/x/{key}", "/y/{id}", "/y/{key}", "/z/{id2}", "/z/{id}"}
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
			"/x/{id}": "GET", "/x/{key}": "GET DELETE", "/y/{id}": "GET", "/y/{key}": "DELETE", "/z/{id}": "GET DELETE", "/z/{id2}": "DELETE"} {
			if methods[path] != want {
				t.Errorf("%s: %s has %q, want %q", v, path, methods[path], want)
			}
		}
		del := doc.Paths["/items/{id}"].Delete
		if p := del.Parameters[0]; del.OperationID != "deleteItem" || p.Name != "id" || p.In != "path" ||
			!strings.HasSuffix(p.Description, "The route names it key.") || p.Schema.MaxLength == nil {
			t.Errorf("%s: deleteItem's param: got %q in %s, %q, want id in path, saying key, with its maxLength", v, p.Name, p.In, p.Description)
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
