package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

// TestReadmeAnswer checks that the validation failure the guide
// docs/typed-operations.md shows for this example is the answer the
// example gives: the guide's curl is sent again (same token, body and
// path) and the status line, Content-Type, Content-Length and body must
// be the guide's, byte for byte.
func TestReadmeAnswer(t *testing.T) {
	readme, err := os.ReadFile("../../docs/typed-operations.md")
	if err != nil {
		t.Fatal(err)
	}
	curl := regexp.MustCompile(`(?s)curl -i -H 'Authorization: Bearer (\w+)' -H 'Content-Type: application/json' \\\n\s*-d '([^']*)' localhost:3000(/\S*)`).FindSubmatch(readme)
	answer := regexp.MustCompile("(?s)```\n(HTTP/1.1 (\\d+) [^\n]*)\nContent-Type: ([^\n]*)\nDate: [^\n]*\nContent-Length: (\\d+)\n\n([^\n]*)\n```").FindSubmatch(readme)
	if curl == nil || answer == nil {
		t.Fatal("docs/typed-operations.md has no bookmarks curl and answer in the expected shape")
	}
	srv := httptest.NewServer(bookmarks.New(bookmarks.NewStore(), string(curl[1])))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL+string(curl[3]), strings.NewReader(string(curl[2])))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+string(curl[1]))
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := "HTTP/1.1 "+res.Status, string(answer[1]); got != want {
		t.Errorf("status: got %q, want the guide's %q", got, want)
	}
	if got, want := res.Header.Get("Content-Type"), string(answer[3]); got != want {
		t.Errorf("Content-Type: got %q, want the guide's %q", got, want)
	}
	if got, want := res.Header.Get("Content-Length"), string(answer[4]); got != want {
		t.Errorf("Content-Length: got %s, want the guide's %s", got, want)
	}
	if got, want := strings.TrimSuffix(string(body), "\n"), string(answer[5]); got != want {
		t.Errorf("body:\n got %s\nwant %s (the guide's)", got, want)
	}
	if code, _ := strconv.Atoi(string(answer[2])); code != http.StatusUnprocessableEntity {
		t.Errorf("the guide shows a %d, want a validation failure (422)", code)
	}
}

// TestReadmeReplay checks the guide's retried create: its curl, with the
// same token, key, body and path, sent twice to the example gives the two
// answers the guide shows, status line and fields as shown (Date and the
// bookmark's creation time aside, which differ from run to run), and the
// second marked as a replay of the first.
func TestReadmeReplay(t *testing.T) {
	readme, err := os.ReadFile("../../docs/typed-operations.md")
	if err != nil {
		t.Fatal(err)
	}
	curl := regexp.MustCompile(`(?s)curl -i -H 'Authorization: Bearer (\w+)' -H 'Content-Type: application/json' \\\n\s*-H 'Idempotency-Key: ("[^"]*")' \\\n\s*-d '([^']*)' localhost:3000(/\S*)`).FindSubmatch(readme)
	if curl == nil {
		t.Fatal("docs/typed-operations.md has no retried create in the expected shape")
	}
	rest := readme[bytes.Index(readme, curl[0]):]
	answers := regexp.MustCompile("(?s)```\n(HTTP/1.1 [^`]*?)\n```").FindAllSubmatch(rest, 2)
	if len(answers) != 2 {
		t.Fatalf("got %d answers after the retried create, want 2", len(answers))
	}
	srv := httptest.NewServer(bookmarks.New(bookmarks.NewStore(), string(curl[1])))
	defer srv.Close()
	created := regexp.MustCompile(`"created":"[^"]*"`)
	for i, want := range answers {
		req, err := http.NewRequest(http.MethodPost, srv.URL+string(curl[4]), strings.NewReader(string(curl[3])))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+string(curl[1]))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", string(curl[2]))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		res.Header.Del("Date")
		fmt.Fprintf(&got, "HTTP/1.1 %s\n", res.Status)
		res.Header.Write(&got)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got.WriteString("\n" + strings.TrimSuffix(string(body), "\n"))
		shown := regexp.MustCompile(`(?m)^Date: .*\n`).ReplaceAllString(string(want[1]), "")
		g, w := sortedFields(created.ReplaceAllString(strings.ReplaceAll(got.String(), "\r\n", "\n"), `"created":"…"`)),
			sortedFields(created.ReplaceAllString(shown, `"created":"…"`))
		if g != w {
			t.Errorf("answer %d:\n got %s\nwant %s (the guide's)", i+1, g, w)
		}
	}
}

// sortedFields returns an answer (status line, fields, blank line, body)
// with its fields in sorted order, as http.Header.Write gives them.
func sortedFields(answer string) string {
	head, body, _ := strings.Cut(answer, "\n\n")
	lines := strings.Split(head, "\n")
	slices.Sort(lines[1:])
	return strings.Join(lines, "\n") + "\n\n" + body
}
