package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// ArchiveIn asks for an archive of the bookmarks tagged Tag.
type ArchiveIn struct {
	Tag string `query:"tag" required:"true"`
}

// ArchiveOut is the archive, made at once when it is small (200) or
// started as a job (202 Accepted) whose Location says where to look.
type ArchiveOut struct {
	Status   int    `enum:"200,202"`
	Location string `header:"Location"`
	Body     struct {
		State string `json:"state"`
	}
}

// Example_status lists the success statuses an operation may answer in
// its Out's Status field: the document lists each, and a handler that
// answers another gets a 500.
func Example_status() {
	r := waltz.New()
	api.Op(r, http.MethodPost, "/archives", func(c *waltz.Context, in *ArchiveIn) (*ArchiveOut, error) {
		out := &ArchiveOut{}
		if in.Tag == "all" {
			out.Status, out.Location = http.StatusAccepted, "/archives/1"
			out.Body.State = "running"
			return out, nil
		}
		out.Body.State = "done"
		return out, nil
	}, api.Operation{})

	for _, tag := range []string{"go", "all"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/archives?tag="+tag, nil))
		fmt.Println(w.Code, w.Header().Get("Location"), strings.TrimSpace(w.Body.String()))
	}
	doc := api.Describe(r, api.Info{Title: "archives", Version: "1"})
	for _, code := range []string{"200", "202"} {
		fmt.Println(code, doc.Paths["/archives"].Post.Responses[code].Description)
	}
	// Output:
	// 200  {"state":"done"}
	// 202 /archives/1 {"state":"running"}
	// 200 OK
	// 202 Accepted
}
