package contracttest

import (
	"net/http"
	"sync"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// TestSharedURL runs the API with a static path beside a param route of
// other methods at the same place (GET /items/latest, PUT /items/:id),
// as RealWorld has GET /articles/feed beside PUT /articles/{slug}. The
// router serves PUT /items/latest by the param route, which the document
// allows: the probes of /items/latest do not send PUT, and take an Allow
// that names it.
func TestSharedURL(t *testing.T) {
	type replace struct {
		ID   int64 `path:"id" minimum:"1"`
		Body NewItem
	}
	probed := map[string]bool{}
	traceCase = func(name string, valid bool, w *wire, code int) { probed[name] = true }
	defer func() { traceCase = nil }()
	r := itemsAPI(func(r *waltz.Router) []waltz.Middleware {
		api.Op(r, http.MethodGet, "/items/latest", func(c *waltz.Context, _ *struct{}) (*ItemOut, error) {
			return &ItemOut{sample(1)}, nil
		}, api.Operation{ID: "latestItem"})
		api.Op(r, http.MethodPut, "/items/:id", func(c *waltz.Context, in *replace) (*ItemOut, error) {
			return &ItemOut{sample(in.ID)}, nil
		}, api.Operation{ID: "replaceItem"})
		return nil
	})
	for _, e := range record(t, r, Options{}).errs {
		t.Errorf("a failure: %s", e)
	}
	if !probed["POST /items/latest"] || !probed["DELETE /items/latest"] {
		t.Error("the methods no path of /items/latest declares were not probed")
	}
	if probed["PUT /items/latest"] {
		t.Error("PUT /items/latest, which /items/{id} declares, was probed")
	}
}

// TestTemplateMatches checks which paths a template of the document
// matches.
func TestTemplateMatches(t *testing.T) {
	for _, c := range []struct {
		tmpl, path string
		want       bool
	}{
		{"/articles/{slug}", "/articles/feed", true},
		{"/articles/{slug}", "/articles/a%2Fb", true}, // one segment, escaped
		{"/articles/{slug}", "/articles/", false},     // a param holds one character or more
		{"/articles/{slug}", "/articles/feed/x", false},
		{"/articles/{slug}/comments", "/articles/feed/comments", true},
		{"/articles/feed", "/articles/feed", true},
		{"/articles/feed", "/articles/food", false},
		{"/files/{name}.{ext}", "/files/a.txt", true},
		{"/files/{name}.{ext}", "/files/atxt", false},
		{"/a.b/{x}", "/axb/1", false}, // the literal is not a regular expression
		{"/articles/{slug}", "/articles/%zz", false},
	} {
		if got := templateMatches(c.tmpl, c.path); got != c.want {
			t.Errorf("templateMatches(%q, %q) = %v, want %v", c.tmpl, c.path, got, c.want)
		}
	}
}

// TestRepeatRefused runs an API that refuses an email or a name it holds
// already with a 422, as RealWorld's registration does: each valid case
// sends values of its own beside its change, and the random ones draw
// strings not sent before (short names too), so none is refused for
// repeating an earlier one.
func TestRepeatRefused(t *testing.T) {
	type signup struct {
		Body struct {
			Email string `json:"email" required:"true" format:"email"`
			Name  string `json:"name" required:"true" minLength:"1" maxLength:"20"`
			Bio   string `json:"bio,omitempty" maxLength:"40"`
		}
	}
	type user struct {
		Body struct {
			Email string `json:"email"`
		}
	}
	var mu sync.Mutex
	taken := map[string]bool{}
	r := waltz.New()
	api.Op(r, http.MethodPost, "/users", func(c *waltz.Context, in *signup) (*user, error) {
		mu.Lock()
		defer mu.Unlock()
		if taken[in.Body.Email] || taken["name:"+in.Body.Name] {
			return nil, &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "already taken"}
		}
		taken[in.Body.Email], taken["name:"+in.Body.Name] = true, true
		out := &user{}
		out.Body.Email = in.Body.Email
		return out, nil
	}, api.Operation{ID: "signUp", Status: http.StatusCreated})
	sent := map[string]bool{}
	traceCase = func(name string, valid bool, w *wire, code int) { sent[name] = true }
	defer func() { traceCase = nil }()
	for _, e := range record(t, r, Options{Count: 60}).errs {
		t.Errorf("a failure: %s", e)
	}
	for _, name := range []string{"signUp body.name at maxLength", "signUp body.bio left out", "signUp valid #60"} {
		if !sent[name] {
			t.Errorf("no case %q was sent", name)
		}
	}
}
