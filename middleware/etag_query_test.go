package middleware

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestETagQuery checks ETag on QUERY routes (RFC 10008): a QUERY is safe
// and answered as a GET is (section 2), so its 200 is tagged by its body
// and revalidated with 304 (section 2.6), as a GET's; Current, the tag of
// the target resource, is not the tag of a query's result, which depends
// on the content, and is not asked; and a QUERY the route must refuse
// (400 without a Content-Type, section 2.1) is refused whatever its
// preconditions (RFC 9110 section 13.2.1).
func TestETagQuery(t *testing.T) {
	current := func(c *waltz.Context) string { return `"v7"` }
	for _, o := range []ETagOptions{{}, {Current: current}} {
		r := waltz.New()
		r.Use(ETag(o))
		r.Get("/find", func(c *waltz.Context) error { return c.Text(http.StatusOK, "every name") })
		r.Query("/find", func(c *waltz.Context) error {
			var q struct {
				Prefix string `json:"prefix"`
			}
			if err := c.Bind(&q); err != nil {
				return err
			}
			return c.Text(http.StatusOK, "names with "+q.Prefix)
		}).Accepts("application/json")
		a, b := tagOf("names with a"), tagOf("names with b")
		for _, tc := range []struct {
			ctype, body, header, value string
			code                       int
			etag                       string
		}{
			{"application/json", `{"prefix":"a"}`, "", "", 200, a},
			{"application/json", `{"prefix":"a"}`, "If-None-Match", a, 304, a},
			{"application/json", `{"prefix":"b"}`, "If-None-Match", a, 200, b},      // another query, another result
			{"application/json", `{"prefix":"b"}`, "If-None-Match", `"v7"`, 200, b}, // the target's tag is not the result's
			{"application/json", `{"prefix":"b"}`, "If-Match", `"v7"`, 412, ""},
			{"application/json", `{"prefix":"b"}`, "If-Match", b, 200, b},
			{"", `{"prefix":"a"}`, "If-None-Match", a, 400, ""},      // section 2.1 before any precondition
			{"", `{"prefix":"a"}`, "If-None-Match", `"v7"`, 400, ""}, //
			{"", `{"prefix":"a"}`, "If-None-Match", "*", 400, ""},    //
			{"text/csv", "prefix\na", "If-None-Match", "*", 415, ""}, //
		} {
			t.Run(fmt.Sprintf("Current=%v ", o.Current != nil)+tc.ctype+" "+tc.body+" "+tc.header+" "+tc.value, func(t *testing.T) {
				req := httptest.NewRequest(waltz.MethodQuery, "/find", strings.NewReader(tc.body))
				if tc.ctype != "" {
					req.Header.Set("Content-Type", tc.ctype)
				}
				if tc.header != "" {
					req.Header.Set(tc.header, tc.value)
				}
				w := httptest.NewRecorder()
				r.ServeHTTP(w, req)
				if w.Code != tc.code {
					t.Errorf("status: got %d, want %d", w.Code, tc.code)
				}
				if got := w.Header().Get("Etag"); got != tc.etag {
					t.Errorf("ETag: got %q, want %q", got, tc.etag)
				}
			})
		}
	}
}
