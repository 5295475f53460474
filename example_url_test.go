package waltz_test

import (
	"fmt"
	"net/http"

	"github.com/waltz-go/waltz"
)

// Naming routes and building their URLs: a bookmarks collection in its
// group, whose POST answers 201 with the new bookmark's Location.
func ExampleRouter_URL() {
	r := waltz.New()
	bookmarks := r.Group("/bookmarks")
	bookmarks.Get("", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "all bookmarks")
	}).Name("bookmarks")
	bookmarks.Get("/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "bookmark "+c.Param("id"))
	}).Name("bookmark")
	bookmarks.Post("", func(c *waltz.Context) error {
		loc, err := r.URL("bookmark", "id", "go dev/blog") // the new bookmark's ID
		if err != nil {
			return err
		}
		c.Writer.Header().Set("Location", loc)
		return c.NoContent(http.StatusCreated)
	})

	fmt.Println(r.URL("bookmarks"))
	fmt.Println(r.URL("bookmark", "id", "42"))
	fmt.Println(r.URL("bookmark"))
	get(r, http.MethodGet, "/bookmarks")
	get(r, http.MethodPost, "/bookmarks", "Location")
	get(r, http.MethodGet, "/bookmarks/go%20dev%2Fblog")
	// Output:
	// /bookmarks <nil>
	// /bookmarks/42 <nil>
	//  waltz: URL for route "bookmark" (GET "/bookmarks/:id"): param "id" is missing
	// 200 all bookmarks
	// 201 Location="/bookmarks/go%20dev%2Fblog"
	// 200 bookmark go dev/blog
}
