package waltz

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRegisterAfterServing(t *testing.T) {
	// Routes registered after requests were served, which add children,
	// split nodes and reorder siblings, must be found, and so must the
	// earlier ones. Every other route goes in first, the rest after a
	// round of requests.
	routes := loadRoutes(t, "testdata/github.tsv")
	r := New()
	served := func(c *Context) error { return c.Text(http.StatusOK, c.Pattern()) }
	check := func(rs []Route) {
		t.Helper()
		for _, rt := range rs {
			path := strings.NewReplacer(":", "v", "*", "v").Replace(rt.Pattern)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(rt.Method, path, nil))
			if w.Code != http.StatusOK || w.Body.String() != rt.Pattern {
				t.Errorf("%s %s: got %d %q, want 200 %q", rt.Method, path, w.Code, w.Body.String(), rt.Pattern)
			}
		}
	}
	var first, second []Route
	for i, rt := range routes {
		if i%2 == 0 {
			first = append(first, rt)
		} else {
			second = append(second, rt)
		}
	}
	for _, rt := range first {
		r.Handle(rt.Method, rt.Pattern, served)
	}
	check(first)
	for _, rt := range second {
		r.Handle(rt.Method, rt.Pattern, served)
	}
	check(routes)
}
