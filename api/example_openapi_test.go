package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// The document says what the types say: here the query parameters of
// GET /bookmarks, each with the rules of its tags.
func ExampleOpenAPI() {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/bookmarks", func(c *waltz.Context, in *ListBookmarks) (*BookmarkList, error) {
		return &BookmarkList{}, nil
	}, api.Operation{ID: "listBookmarks", Summary: "List bookmarks"})

	var doc struct {
		Paths map[string]map[string]struct {
			Parameters json.RawMessage `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(r, api.Info{Title: "Bookmarks", Version: "1.0.0"}), &doc); err != nil {
		fmt.Println(err)
		return
	}
	var b bytes.Buffer
	json.Compact(&b, doc.Paths["/bookmarks"]["get"].Parameters)
	fmt.Println(b.String())
	// Output:
	// [{"name":"tag","in":"query","schema":{"type":"string","maxLength":20}},{"name":"limit","in":"query","schema":{"type":"integer","format":"int64","minimum":1,"maximum":100,"default":20}},{"name":"sort","in":"query","schema":{"type":"string","enum":["new","old"],"default":"new"}}]
}
