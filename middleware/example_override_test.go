package middleware_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

type formatKey struct{}

// stripFormat is standard middleware that takes a ".json" suffix off the
// path and puts the format in the context.
func stripFormat(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutSuffix(r.URL.Path, ".json"); ok {
			u := *r.URL
			u.Path, u.RawPath = p, ""
			r = r.WithContext(context.WithValue(r.Context(), formatKey{}, "json"))
			r.URL = &u
		}
		next.ServeHTTP(w, r)
	})
}

// ExampleMethodOverride runs an HTML form's method override and a format
// suffix before routing, so the route they name is the one that answers.
func ExampleMethodOverride() {
	r := waltz.New()
	r.Pre(middleware.MethodOverride(middleware.MethodOverrideOptions{}))
	r.Pre(waltz.WrapMiddleware(stripFormat)) // any func(http.Handler) http.Handler
	r.Delete("/notes/:id", func(c *waltz.Context) error {
		f, _ := c.Request.Context().Value(formatKey{}).(string)
		return c.Text(http.StatusOK, "deleted "+c.Param("id")+" as "+f)
	})

	form := httptest.NewRequest(http.MethodPost, "/notes/7.json", strings.NewReader("_method=DELETE"))
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, req := range []*http.Request{form, httptest.NewRequest(http.MethodPost, "/notes/7", nil)} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Printf("%d %s (Allow: %q)\n", w.Code, w.Body.String(), w.Header().Get("Allow"))
	}
	// Output:
	// 200 deleted 7 as json (Allow: "")
	// 405 Method Not Allowed (Allow: "DELETE, OPTIONS")
}
