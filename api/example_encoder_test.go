package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

type NoteList struct{ Body []Note }

// An encoder of your own for a media type the operation lists: here CSV,
// picked when the request's Accept field prefers it.
func ExampleUseEncoder() {
	r := waltz.New()
	api.UseEncoder(r, "text/csv", func(v any) ([]byte, error) {
		var b bytes.Buffer
		for _, n := range *v.(*[]Note) {
			fmt.Fprintf(&b, "%d,%s\n", n.ID, n.Text)
		}
		return b.Bytes(), nil
	})
	api.Op(r, http.MethodGet, "/notes", func(c *waltz.Context, in *struct{}) (*NoteList, error) {
		fmt.Println("the handler answers in", api.MediaType(c))
		return &NoteList{[]Note{{ID: 1, Text: "hello"}, {ID: 2, Text: "world"}}}, nil
	}, api.Operation{Produces: []string{"application/json", "text/csv"}})

	for _, accept := range []string{"text/csv", ""} {
		req := httptest.NewRequest(http.MethodGet, "/notes", nil)
		req.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Printf("%d %s\n%s\n", w.Code, w.Header().Get("Content-Type"), strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// the handler answers in text/csv
	// 200 text/csv
	// 1,hello
	// 2,world
	// the handler answers in application/json
	// 200 application/json
	// [{"id":1,"text":"hello"},{"id":2,"text":"world"}]
}
