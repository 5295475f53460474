package contracttest_test

import (
	"testing"

	"github.com/waltz-go/waltz/contracttest"
	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

// TestBookmarks runs the contract self-test on the bookmarks example's
// router, the one its command serves, with the token its writes need. It
// lists no known disagreement: the server and its document agree on
// every request the run makes (the last one, a null for the omitempty
// tags that the decoder read as absent where the schema says "array",
// is a 422 now).
func TestBookmarks(t *testing.T) {
	const token = "t0ken-for-tests"
	contracttest.Run(t, bookmarks.New(bookmarks.NewStore(), token), contracttest.Options{
		Credentials: map[string]string{"bearerAuth": token},
	})
}
