package waltz_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
)

// A plain QUERY route (RFC 10008): a safe, idempotent request whose
// content is the query. The router holds it to the method's rules: a
// QUERY without a Content-Type is a 400, one of a type the route does
// not take a 415, and its refusals, the GET and HEAD beside it, its
// OPTIONS and its 405 say what it takes in Accept-Query.
func ExampleRouter_Query() {
	r := waltz.New()
	r.Get("/contacts", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "every contact")
	})
	r.Query("/contacts", func(c *waltz.Context) error {
		var q struct {
			Surname string `json:"surname"`
		}
		if err := c.Bind(&q); err != nil {
			return err
		}
		return c.Text(http.StatusOK, "contacts named "+q.Surname)
	}).Accepts("application/json")

	send(r, "QUERY", "/contacts", "application/json", `{"surname":"Smith"}`)
	send(r, "QUERY", "/contacts", "", `{"surname":"Smith"}`)
	send(r, "QUERY", "/contacts", "text/csv", "surname\nSmith")
	send(r, "GET", "/contacts", "", "")
	send(r, "OPTIONS", "/contacts", "", "")
	send(r, "DELETE", "/contacts", "", "")
	// Output:
	// 200 contacts named Smith
	// 400 Accept-Query="application/json" a QUERY request must say what its content is in Content-Type (RFC 10008 section 2.1)
	// 415 Accept-Query="application/json" a QUERY of "text/csv" is not taken here: it takes application/json
	// 200 Accept-Query="application/json" every contact
	// 204 Accept-Query="application/json" Allow="GET, HEAD, OPTIONS, QUERY"
	// 405 Accept-Query="application/json" Allow="GET, HEAD, OPTIONS, QUERY" Method Not Allowed
}

// send serves a request with a body of the media type ctype ("" for
// none) and prints its status, its Accept-Query and Allow fields, and its
// body.
func send(h http.Handler, method, target, ctype, body string) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	fmt.Print(w.Code)
	for _, k := range []string{"Accept-Query", "Allow"} {
		if v := w.Header().Get(k); v != "" {
			fmt.Printf(" %s=%q", k, v)
		}
	}
	if b := bytes.TrimSuffix(w.Body.Bytes(), []byte("\n")); len(b) > 0 {
		fmt.Printf(" %s", b)
	}
	fmt.Println()
}
