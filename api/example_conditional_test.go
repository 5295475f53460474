package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// note is the example's one stored note and its version.
type note struct {
	text    string
	version int
}

func (n *note) etag() string { return fmt.Sprintf(`"v%d"`, n.version) }

// NoteOut is a note as GET and PUT answer it, with its entity tag.
type NoteOut struct {
	ETag string `header:"ETag"`
	Body struct {
		Text string `json:"text"`
	}
}

// EditNote is the input of PUT /notes/:id.
type EditNote struct {
	ID   int `path:"id"`
	Body struct {
		Text string `json:"text" required:"true"`
	}
}

// Example_conditional revalidates a GET (304) and refuses a lost update:
// a PUT without If-Match (428), with a stale tag (412), with the current
// one (200, and the new tag).
func Example_conditional() {
	n := &note{text: "first", version: 1}
	r := waltz.New()
	api.Op(r, http.MethodGet, "/notes/1", func(c *waltz.Context, _ *struct{}) (*NoteOut, error) {
		out := &NoteOut{ETag: n.etag()}
		out.Body.Text = n.text
		return out, nil
	}, api.Operation{})
	api.Op(r, http.MethodPut, "/notes/:id", func(c *waltz.Context, in *EditNote) (*NoteOut, error) {
		n.text, n.version = in.Body.Text, n.version+1
		out := &NoteOut{ETag: n.etag()}
		out.Body.Text = n.text
		return out, nil
	}, api.Operation{
		// Current makes the write conditional: it reads the validators
		// of the note the request changes, before the handler runs.
		Current: func(c *waltz.Context, in *EditNote) (api.Validators, error) {
			if in.ID != 1 {
				return api.Validators{}, &waltz.HTTPError{Code: http.StatusNotFound}
			}
			return api.Validators{ETag: n.etag()}, nil
		},
	})

	send := func(method, target, field, tag, body string) {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if field != "" {
			req.Header.Set(field, tag)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if field == "" {
			field = "(no precondition)"
		}
		fmt.Println(strings.TrimSpace(fmt.Sprint(method, " ", field, " ", tag, " -> ", w.Code, " ", w.Header().Get("ETag"))))
	}
	send(http.MethodGet, "/notes/1", "If-None-Match", `"v1"`, "")
	send(http.MethodPut, "/notes/1", "", "", `{"text":"second"}`)
	send(http.MethodPut, "/notes/1", "If-Match", `"v0"`, `{"text":"second"}`)
	send(http.MethodPut, "/notes/1", "If-Match", `"v1"`, `{"text":"second"}`)
	send(http.MethodGet, "/notes/1", "If-None-Match", `"v1"`, "")
	// Output:
	// GET If-None-Match "v1" -> 304 "v1"
	// PUT (no precondition)  -> 428
	// PUT If-Match "v0" -> 412
	// PUT If-Match "v1" -> 200 "v2"
	// GET If-None-Match "v1" -> 200 "v2"
}
