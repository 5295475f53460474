package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// Middleware of your own declares, for the document, the statuses it
// refuses requests with and how it authenticates them; every operation
// inside it lists them.
func ExampleAuthenticates() {
	requireKey := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			if c.Request.Header.Get("X-API-Key") != "k3y" {
				return &waltz.HTTPError{Code: http.StatusUnauthorized}
			}
			return next(c)
		}
	}
	quota := func(next waltz.HandlerFunc) waltz.HandlerFunc { return next } // a stand-in for a quota check

	r := waltz.New()
	g := r.Group("/v1",
		api.Authenticates(requireKey, api.SecurityScheme{Name: "apiKey", Type: "apiKey", In: "header", Param: "X-API-Key"}),
		api.Responds(quota, http.StatusTooManyRequests))
	api.Op(g, http.MethodGet, "/reports", func(c *waltz.Context, in *struct{}) (*struct{ Body []string }, error) {
		return &struct{ Body []string }{[]string{"q1"}}, nil
	}, api.Operation{ID: "listReports"})

	var doc struct {
		Paths map[string]map[string]struct {
			Security  []map[string][]string `json:"security"`
			Responses map[string]any        `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(r, api.Info{Title: "Reports"}), &doc); err != nil {
		fmt.Println(err)
		return
	}
	op := doc.Paths["/v1/reports"]["get"]
	var codes []string
	for code := range op.Responses {
		codes = append(codes, code)
	}
	slices.Sort(codes)
	fmt.Println(op.Security)
	fmt.Println(codes)
	// Output:
	// [map[apiKey:[]]]
	// [200 401 429]
}

// A middleware that reads a credential when one is sent, and serves a
// request without one too, declares its scheme Optional: the operations
// inside list the empty requirement beside it.
func ExampleAuthenticates_optional() {
	maybeKey := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			if k, sent := c.Request.Header["X-Api-Key"]; sent && (len(k) != 1 || k[0] != "k3y") {
				return &waltz.HTTPError{Code: http.StatusUnauthorized} // sent, and wrong
			}
			return next(c) // the key's user, or nobody
		}
	}
	r := waltz.New()
	g := r.With(api.Authenticates(maybeKey, api.SecurityScheme{Name: "apiKey", Type: "apiKey", In: "header", Param: "X-API-Key", Optional: true}))
	api.Op(g, http.MethodGet, "/articles", func(c *waltz.Context, in *struct{}) (*struct{ Body []string }, error) {
		return &struct{ Body []string }{[]string{"hello"}}, nil
	}, api.Operation{ID: "listArticles"})

	security, _ := json.Marshal(api.Describe(r, api.Info{}).Paths["/articles"].Get.Security)
	fmt.Println(string(security))
	// Output:
	// [{"apiKey":[]},{}]
}
