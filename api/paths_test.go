package api

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/waltz-go/waltz"
)

// operations counts doc's operations.
func operations(r *waltz.Router, v string) (ops, paths int) {
	doc := Describe(r, Info{OpenAPI: v})
	for _, item := range doc.Paths {
		paths++
		for range item.Operations() {
			ops++
		}
	}
	return ops, paths
}

// TestNoOperationLost: routes of one shape on several leaves, a method
// coming twice, mounts beside them or on a route's very path: every route
// has its operation in the document, under as few paths as the leaves
// allow, each on a path of its own where one can be had.
func TestNoOperationLost(t *testing.T) {
	ok := func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }
	for _, tc := range []struct {
		name  string
		build func(r *waltz.Router)
		ops   int
		paths int
	}{
		{"a route on the mount's own path", func(r *waltz.Router) {
			r.Mount("/files", http.NotFoundHandler())
			r.Get("/files/:id<int>", ok)
			r.Get("/files/:path", ok) // GET twice: two paths, the mount's on the one of its own path
		}, 2, 2},
		{"a mount sorted after a route of its path", func(r *waltz.Router) {
			r.Mount("/u/:id<int>", http.NotFoundHandler())
			r.Get("/u/:id/:path", ok)
		}, 1, 1},
		{"two mounts of one path beside a route", func(r *waltz.Router) {
			r.Mount("/u/:id<int>", http.NotFoundHandler())
			r.Mount("/u/:id<uuid>", http.NotFoundHandler())
			r.Get("/u/:x/:y", ok)
		}, 1, 1},
		{"more leaves than the search takes: first fit", func(r *waltz.Router) {
			for i := range 10 {
				m := http.MethodGet
				if i%2 == 1 {
					m = http.MethodPut
				}
				r.Handle(m, fmt.Sprintf("/f/:p%d<x%d>", i, i), ok)
			}
		}, 10, 5},
		{"distinct paths to be had", func(r *waltz.Router) {
			r.Get("/m/:b<int>", ok)
			r.Put("/m/:d<int>", ok)
			r.Get("/m/:b<uuid>", ok)
			r.Put("/m/:c<uuid>", ok)
			r.Get("/m/:c", ok)
		}, 5, 3},
		{"fewer groups than first fit", func(r *waltz.Router) {
			r.Get("/m/:a<int>", ok)
			r.Put("/m/:b<uuid>", ok)
			r.Get("/m/:c<[a-z]+>", ok)
			r.Delete("/m/:c<[a-z]+>", ok)
			r.Put("/m/:d", ok)
			r.Delete("/m/:d", ok)
		}, 6, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			tc.build(r)
			for _, v := range []string{"3.1", "3.2"} {
				if ops, paths := operations(r, v); ops != tc.ops || paths != tc.paths {
					t.Errorf("%s: %d operations on %d paths, want %d on %d", v, ops, paths, tc.ops, tc.paths)
				}
			}
		})
	}
}

// TestRefusedByOthers: what the router answers a value a constraint
// refuses, where the other leaves of the shape are constrained too (they
// may refuse it as well: 404) or a mount takes the shape (its answer,
// none of the router's), is what the document lists.
func TestRefusedByOthers(t *testing.T) {
	get := func(c *waltz.Context, in *struct {
		ID int64 `path:"id"`
	}) (*struct{ Body string }, error) {
		return &struct{ Body string }{"one"}, nil
	}
	ok := func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }
	r := waltz.New()
	Op(r, http.MethodGet, "/m/:id<int>", get, Operation{})
	r.Delete("/m/:key<[a-z]+>", ok)
	Op(r, http.MethodGet, "/n/:id<int>", get, Operation{})
	r.Get("/n/:key<[a-z]+>", ok)
	r.Mount("/files", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(299) }))
	Op(r, http.MethodGet, "/files/:id<int>", get, Operation{})
	doc := Describe(r, Info{})
	for _, tc := range []struct {
		path, value string
		code        int  // the router's answer
		listed      bool // whether the document lists it
	}{
		{"/m", "AB", 404, true}, {"/m", "ab", 405, true},
		{"/n", "AB", 404, true}, {"/n", "ab", 204, false},
		{"/files", "abc", 299, false},
	} {
		if w := serve(t, r, http.MethodGet, tc.path+"/"+tc.value); w.Code != tc.code {
			t.Errorf("GET %s/%s: got %d, want %d", tc.path, tc.value, w.Code, tc.code)
		}
		var listed []string
		for c := range doc.Paths[tc.path+"/{id}"].Get.Responses {
			listed = append(listed, c)
		}
		if got := slices.Contains(listed, strconv.Itoa(tc.code)); got != tc.listed {
			t.Errorf("%s/{id} GET lists %v: %d listed %v, want %v", tc.path, listed, tc.code, got, tc.listed)
		}
		if tc.path == "/files" && slices.Contains(listed, "404") {
			t.Errorf("/files/{id} GET lists a 404, where the mount answers every value its constraint refuses")
		}
	}
}

// TestPaths: Paths gives each described route the path its operation is
// under, and leaves out what the 3.1 document has no operation of.
func TestPaths(t *testing.T) {
	ok := func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }
	r := waltz.New()
	r.Get("/items/:id<int>", ok)
	r.Delete("/items/:key", ok)
	r.Get("/z/:id", ok)
	r.Get("/z/:id<int>", ok) // its path holds a GET already
	r.With(Hide).Put("/items/:id", ok)
	r.Mount("/files", http.NotFoundHandler())
	r.Query("/items", ok)
	r.Handle("PROPFIND", "/items", ok)
	want := map[waltz.Route]string{
		{Method: "GET", Pattern: "/items/:id<int>"}: "/items/{id}",
		{Method: "DELETE", Pattern: "/items/:key"}:  "/items/{id}",
		{Method: "GET", Pattern: "/z/:id"}:          "/z/{id}",
	}
	if got := Paths(r); !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
