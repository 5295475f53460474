package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

// TestReadmeEdit checks the edit and the lost update that the guide
// docs/media.md shows ("In the bookmarks example"): after a create, its
// two PATCH curls, sent in order with the same token, fields and body,
// give the answers it shows: status line, every field and body (the
// values of Date and Last-Modified and the bookmark's creation time
// aside, which differ from run to run).
func TestReadmeEdit(t *testing.T) {
	guide, err := os.ReadFile("../../docs/media.md")
	if err != nil {
		t.Fatal(err)
	}
	patches := regexp.MustCompile("(?s)curl -i -X PATCH -H 'Authorization: Bearer (\\w+)' -H 'Content-Type: ([^']+)' \\\\\n\\s*"+
		"-H 'If-Match: ([^']+)' -d '([^']*)' localhost:3000(/\\S*)\n```\n\n```\n(HTTP/1.1 [^`]*?)\n```").FindAllSubmatch(guide, -1)
	if len(patches) != 2 {
		t.Fatalf("docs/media.md has %d PATCH curls with their answers in the expected shape, want 2 (the edit and the lost update)", len(patches))
	}
	token := string(patches[0][1])
	srv := httptest.NewServer(bookmarks.New(bookmarks.NewStore(), token))
	defer srv.Close()
	send := func(method, path, ctype, ifMatch, body string) *http.Response {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", ctype)
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := send(http.MethodPost, "/api/bookmarks", "application/json", "", `{"url":"https://go.dev/","title":"Go"}`); res.StatusCode != http.StatusCreated {
		t.Fatalf("create: got %s, want 201 Created", res.Status)
	}
	varying := func(s string) string {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = regexp.MustCompile(`(?m)^Date: .*\n`).ReplaceAllString(s, "")
		s = regexp.MustCompile(`(?m)^(Last-Modified): .*$`).ReplaceAllString(s, "$1: …")
		return sortedFields(regexp.MustCompile(`"created":"[^"]*"`).ReplaceAllString(s, `"created":"…"`))
	}
	for i, p := range patches {
		res := send(http.MethodPatch, string(p[5]), string(p[2]), string(p[3]), string(p[4]))
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var got bytes.Buffer
		fmt.Fprintf(&got, "HTTP/1.1 %s\n", res.Status)
		res.Header.Write(&got)
		got.WriteString("\n" + strings.TrimSuffix(string(body), "\n"))
		if g, w := varying(got.String()), varying(string(p[6])); g != w {
			t.Errorf("PATCH %d:\n got %s\nwant %s (the guide's)", i+1, g, w)
		}
	}
}
