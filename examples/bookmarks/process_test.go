package main

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/waltz-go/waltz/client"
	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
	"github.com/waltz-go/waltz/internal/proctest"
)

// TestMain runs main itself when the test binary is started as the
// command by TestProcess.
func TestMain(m *testing.M) { proctest.Main(m, main) }

// TestProcess runs the command as a user does: it says "listening" only
// once the address is bound, serves the API and its document (and the
// typed client's calls from this process), and exits 0
// on Ctrl-C (SIGINT); a busy address exits 1 without claiming to listen.
func TestProcess(t *testing.T) {
	proctest.Process(t, func(t *testing.T, addr string) {
		if code, body := proctest.Get(t, "http://"+addr+"/api/bookmarks"); code != 200 || !strings.HasPrefix(body, `{"items":[]`) {
			t.Errorf("GET /api/bookmarks: got %d %q, want 200 and an empty page", code, body)
		}
		if code, body := proctest.Get(t, "http://"+addr+"/openapi.json"); code != 200 || !strings.Contains(body, `"openapi": "3.1.`) {
			t.Errorf("GET /openapi.json: got %d %.80q, want 200 and an OpenAPI 3.1 document", code, body)
		}
		// The typed client, in this process, against the command in
		// another: the shared types and the routes are all it has.
		bc := newBookmarksClient(&client.Client{URL: "http://" + addr,
			Header: http.Header{"Authorization": {"Bearer dev-token"}}})
		made, err := bc.create(context.Background(), bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "https://go.dev/", Title: "Go"}})
		if err != nil {
			t.Fatalf("create through the client: %v", err)
		}
		got, err := bc.get(context.Background(), bookmarks.IDInput{ID: made.Body.ID})
		if err != nil || !reflect.DeepEqual(got.Body, made.Body) {
			t.Errorf("get through the client: got %+v, %v; want %+v", got, err, made.Body)
		}
	})
}
