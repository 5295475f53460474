package apidocs_test

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/apidocs"
)

// SearchInput is the query of GET /search.
type SearchInput struct {
	Q     string `query:"q" required:"true" minLength:"3" doc:"words to look for"`
	Order string `query:"order" enum:"best,new" default:"best"`
}

// SearchOutput is the answer of GET /search.
type SearchOutput struct {
	Body []string
}

func ExampleHandler() {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/search", func(c *waltz.Context, in *SearchInput) (*SearchOutput, error) {
		return &SearchOutput{Body: []string{in.Q}}, nil
	}, api.Operation{ID: "search", Summary: "Find bookmarks"})
	r.With(api.Hide).Handler(http.MethodGet, "/docs", apidocs.Handler(r, api.Info{Title: "Bookmarks", Version: "1.0.0"}))

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/docs", nil))
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	fmt.Println(w.Header().Get("Content-Security-Policy"))
	page := w.Body.String()
	for _, m := range regexp.MustCompile(`<li>([^<]*)</li>`).FindAllStringSubmatch(page, -1) {
		fmt.Println("rule:", html.UnescapeString(m[1]))
	}
	curl := regexp.MustCompile(`(?s)<article id="op-search".*?<pre class="curl"><code>([^<]*)</code>`).FindStringSubmatch(page)
	fmt.Println(html.UnescapeString(curl[1]))
	// Output:
	// 200 text/html; charset=utf-8
	// default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'
	// rule: at least 3 characters
	// rule: one of: best, new
	// rule: default: best
	// curl -i "$API/search?q=string"
}
