package contracttest

import (
	"strings"
	"testing"

	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

// TestBookmarksCases: the cases TestBookmarks sends include every
// operation of the example, its image upload too (a file of each type
// the document lists and of one it does not, the alt text's rules), and
// the run leaves out no operation or body.
func TestBookmarksCases(t *testing.T) {
	r := bookmarks.New(bookmarks.NewStore(), "token")
	rec := &recorder{TB: t}
	run := newRunner(rec, r, api.Describe(r, api.Info{}), Options{Credentials: map[string]string{"bearerAuth": "token"}})
	made := map[string]bool{}
	for _, path := range []string{"/api/bookmarks", "/api/bookmarks/{id}", "/api/bookmarks/{id}/image", "/api/changes"} {
		item := run.doc.Paths[path]
		for method, op := range item.Operations() {
			o, err := run.readOperation(path, method, item, op)
			if err != nil {
				t.Errorf("%s %s: %v", method, path, err)
				continue
			}
			for _, c := range run.cases(o) {
				made[c.name] = true
			}
		}
	}
	for _, name := range []string{
		"listBookmarks valid", "createBookmark valid", "getBookmark valid", "editBookmark valid",
		"deleteBookmark valid", "getBookmarkImage valid", "listChanges valid",
		"putBookmarkImage valid", "putBookmarkImage valid #20",
		"putBookmarkImage body.image a file of image/jpeg", "putBookmarkImage body.image a file of image/gif",
		"putBookmarkImage body.image a file of image/webp",
		"putBookmarkImage body.image a file of text/plain, which it does not list",
		"putBookmarkImage body.image left out", "putBookmarkImage body.alt over maxLength",
		"putBookmarkImage body as text/plain", "putBookmarkImage body left out",
	} {
		if !made[name] {
			t.Errorf("no case %q", name)
		}
	}
	for _, n := range run.notes {
		if !strings.Contains(n, "Idempotency-Key") { // a pattern with groups, which the generator does not match
			t.Errorf("not tested: %s", n)
		}
	}
}
