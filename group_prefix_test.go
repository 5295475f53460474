package waltz

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestGroupOwnPath: a group's route "" is its prefix itself, so a REST
// collection lives in its group: Group("/bookmarks").Get("", h) serves
// /bookmarks, and /bookmarks/ redirects there.
func TestGroupOwnPath(t *testing.T) {
	r := New()
	show := func(c *Context) error { return c.Text(http.StatusOK, c.Pattern()+" "+c.Param("id")) }
	bm := r.Group("/bookmarks")
	bm.Get("", show)
	bm.Post("", show)
	bm.Get("/:id", show)
	r.Group("/users/:id").Group("/notes").Get("", show)
	r.Group("/notes").Resource(&groupNotes{})
	for _, tc := range []struct {
		method, target string
		code           int
		body, location string
	}{
		{"GET", "/bookmarks", 200, "/bookmarks ", ""},
		{"POST", "/bookmarks", 200, "/bookmarks ", ""},
		{"GET", "/bookmarks/7", 200, "/bookmarks/:id 7", ""},
		{"GET", "/bookmarks/", 301, "", "/bookmarks"},
		{"GET", "/users/3/notes", 200, "/users/:id/notes 3", ""},
		{"GET", "/notes", 200, "/notes", ""},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			w := serve(t, r, tc.method, tc.target)
			if w.Code != tc.code || tc.body != "" && w.Body.String() != tc.body || w.Header().Get("Location") != tc.location {
				t.Errorf("got %d %q Location %q, want %d %q Location %q",
					w.Code, w.Body.String(), w.Header().Get("Location"), tc.code, tc.body, tc.location)
			}
		})
	}
	var pats []string
	for _, rt := range r.Routes() {
		pats = append(pats, rt.Method+" "+rt.Pattern)
	}
	want := []string{"GET /bookmarks", "POST /bookmarks", "GET /bookmarks/:id", "GET /notes", "GET /users/:id/notes"}
	if !slices.Equal(pats, want) {
		t.Errorf("got routes %q, want %q", pats, want)
	}
}

// groupNotes is a resource registered in a group at the group's own path.
type groupNotes struct{}

func (*groupNotes) Paths() []string { return []string{""} }
func (*groupNotes) Get(c *Context) error {
	return c.Text(http.StatusOK, c.Pattern())
}

// TestGroupOwnPathErrors: "" is a path only where there is a prefix, and
// the group's own path conflicts with the same route on the parent.
func TestGroupOwnPathErrors(t *testing.T) {
	h := func(c *Context) error { return nil }
	for _, tc := range []struct {
		name string
		reg  func(r *Router)
		want string
	}{
		{"router", func(r *Router) { r.Get("", h) }, "pattern must start with '/'"},
		{"group without prefix", func(r *Router) { r.With().Get("", h) }, "pattern must start with '/'"},
		{"same route on the parent", func(r *Router) {
			r.Get("/bookmarks", h)
			r.Group("/bookmarks").Get("", h)
		}, "conflicts with"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var re *RouteError
			func() {
				defer func() {
					err, _ := recover().(error)
					errors.As(err, &re)
				}()
				r := New()
				tc.reg(r)
			}()
			if re == nil || !strings.Contains(re.Error(), tc.want) {
				t.Errorf("got %v, want a RouteError that says %q", re, tc.want)
			}
		})
	}
}
