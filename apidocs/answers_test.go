package apidocs_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/apidocs"
)

// TestAnswerHeaderRequired checks that a response header the document
// marks required (OpenAPI 3.1 section 4.8.21) carries the badge a
// required param carries, and one it does not mark carries none.
func TestAnswerHeaderRequired(t *testing.T) {
	pass := func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }
	r := waltz.New()
	g := r.With(api.Sets(pass,
		api.HeaderParam{Name: "X-Request-Id", Required: true, Description: "the request's ID"},
		api.HeaderParam{Name: "X-Served-By", Description: "the server's name"}))
	api.Op(g, http.MethodGet, "/notes/:id", func(c *waltz.Context, in *noteID) (*oneNote, error) { return &oneNote{}, nil },
		api.Operation{ID: "getNote"})
	r.Handler(http.MethodGet, "/docs", apidocs.Handler(r, api.Info{Title: "Notes"}))
	page := get(t, r, "/docs", http.StatusOK)
	for _, want := range []string{
		`<li><code>X-Request-Id</code> <span class="badge required">required</span>: string`,
		`<li><code>X-Served-By</code>: string`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
}
