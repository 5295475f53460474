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
// place, which the router takes, to one path of the document (OpenAPI
// 3.1 section 4.8.8: such templates MUST NOT be two paths): the first
// path of the shape, each other route's params renamed its names and
// saying their own; a route whose method the first path has already
// keeps a path of its own.
func TestSamePath(t *testing.T) {
	type keyIn struct {
		Key string `path:"key" maxLength:"8"`
	}
	type out struct{ Body string }
	r := waltz.New()
	ok := func(c *waltz.Context) error { return nil }
	r.Get("/items/:id", ok)
	Op(r, http.MethodDelete, "/items/:key", func(c *waltz.Context, in *keyIn) (*out, error) { return &out{in.Key}, nil }, Operation{ID: "deleteItem"})
	r.Put("/items/:name/tags/*rest", ok)
	r.Get("/items/:id/tags/*path", ok)
	r.Get("/items/:n<int>", ok) // a second GET of the shape
	for _, v := range []string{"3.1", "3.2"} {
		doc := Describe(r, Info{OpenAPI: v})
		// Routes in order: /items/:id, /items/:id/tags/*path, /items/:key,
		// /items/:n<int>, /items/:name/tags/*rest.
		want := []string{"/items/{id}", "/items/{id}/tags/{path}", "/items/{n}"}
		if got := slices.Sorted(maps.Keys(doc.Paths)); !slices.Equal(got, want) {
			t.Fatalf("%s: got the paths %q, want %q", v, got, want)
		}
		del := doc.Paths["/items/{id}"].Delete
		if del == nil || del.OperationID != "deleteItem" {
			t.Fatalf("%s: /items/{id} has no deleteItem: %+v", v, doc.Paths["/items/{id}"])
		}
		p := del.Parameters[0]
		if p.Name != "id" || p.In != "path" || !strings.Contains(p.Description, "The route names it key.") || p.Schema.MaxLength == nil {
			t.Errorf("%s: deleteItem's param: got %q in %s, %q, want id in path, saying key, with its maxLength", v, p.Name, p.In, p.Description)
		}
		put := doc.Paths["/items/{id}/tags/{path}"].Put
		if put == nil || len(put.Parameters) != 2 || put.Parameters[0].Name != "id" || put.Parameters[1].Name != "path" ||
			!strings.Contains(put.Parameters[1].Description, "A catch-all") || !strings.HasSuffix(put.Parameters[1].Description, "The route names it rest.") {
			t.Errorf("%s: the PUT of tags: got %+v, want params id and path, the catch-all's saying so and its own name", v, put)
		}
		if doc.Paths["/items/{n}"].Get == nil {
			t.Errorf("%s: the GET of :n<int> is not on a path of its own", v)
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
