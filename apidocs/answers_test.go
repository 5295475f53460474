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

type editNote struct {
	ID   int64 `path:"id" minimum:"1"`
	Body struct {
		Title string `json:"title" required:"true" example:"Groceries"`
	}
}

// conditionalAPI has a conditional PATCH (If-Match required, OpenAPI's
// header param of a string) and a read, each with problem details
// errors.
func conditionalAPI() *waltz.Router {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/notes/:id", func(c *waltz.Context, in *noteID) (*oneNote, error) { return &oneNote{}, nil },
		api.Operation{ID: "getNote", Errors: []int{http.StatusNotFound}})
	api.Op(r, http.MethodPatch, "/notes/:id", func(c *waltz.Context, in *editNote) (*oneNote, error) { return &oneNote{}, nil },
		api.Operation{ID: "editNote", Current: func(c *waltz.Context, in *editNote) (api.Validators, error) {
			return api.Validators{ETag: `"v1"`}, nil
		}})
	r.With(api.Hide).Handler(http.MethodGet, "/docs", apidocs.Handler(r, api.Info{Title: "Notes"}))
	return r
}

// TestConditionalCurl checks that the curl line of a conditional write
// sends If-Match as a shell variable the page asks the reader to set to
// the ETag a GET answered (RFC 9110 section 13.1.1), said in the list of
// variables and beside the line, never as an example string the server
// answers 412.
func TestConditionalCurl(t *testing.T) {
	page := get(t, conditionalAPI(), "/docs", http.StatusOK)
	for _, want := range []string{
		`-H &#34;If-Match: $ETAG&#34;`,
		`<li><code>$ETAG</code>: the ETag a GET of the resource answered, quotes included, such as ETAG=&#39;&#34;v7&#34;&#39;</li>`,
		`<p class="fill">Set <code>$ETAG</code> to the ETag a GET of this resource answered`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
	if strings.Contains(page, "If-Match: string") {
		t.Error("the curl line sends If-Match: string, which the server answers 412")
	}
	// The read's curl line needs no ETag, and has no such note.
	read := page[strings.Index(page, `id="op-getNote"`):strings.Index(page, `id="op-editNote"`)]
	if strings.Contains(read, "ETAG") {
		t.Errorf("the read's section speaks of $ETAG:\n%s", read)
	}
}

// TestErrorsAsText checks that an error answer that is problem details
// (application/problem+json) lists them alone, not the text/plain
// string the document lists beside them (RenderProblem's answer to a
// client that prefers text), which the page says once.
func TestErrorsAsText(t *testing.T) {
	r := conditionalAPI()
	page := get(t, r, "/docs", http.StatusOK)
	if !strings.Contains(string(api.OpenAPI(r, api.Info{})), `"text/plain"`) {
		t.Fatal("the document lists no text/plain: the test tests nothing")
	}
	if n := strings.Count(page, "<code>text/plain</code>"); n != 1 {
		t.Errorf("the page names text/plain %d times, want once", n)
	}
	for _, want := range []string{
		`<code>application/problem&#43;json</code>: <a href="#schema-Problem">Problem</a></p>`,
		`<aside class="note" id="errors-as-text">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
}

// accepted is an answer whose Status field's enum lists two successes.
type accepted struct {
	Status int `enum:"200,202"`
	Body   struct {
		State string `json:"state"`
	}
}

// TestAnswerStatuses checks that the page shows every success status
// the enum of Out's Status field lists, each as a success.
func TestAnswerStatuses(t *testing.T) {
	r := waltz.New()
	api.Op(r, http.MethodPost, "/jobs", func(c *waltz.Context, in *struct{}) (*accepted, error) { return &accepted{}, nil },
		api.Operation{ID: "startJob"})
	r.Handler(http.MethodGet, "/docs", apidocs.Handler(r, api.Info{Title: "Jobs"}))
	page := get(t, r, "/docs", http.StatusOK)
	for _, want := range []string{
		`<dt class="ok"><span class="status">200</span> OK</dt>`,
		`<dt class="ok"><span class="status">202</span> Accepted</dt>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
}
