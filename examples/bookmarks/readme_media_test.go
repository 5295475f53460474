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
	"time"

	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

// TestReadmeXMLAnswer checks the XML read that the guide docs/media.md
// shows ("In the bookmarks example"): its create is sent to a fresh
// example, then its GET with Accept: application/xml, and the answer must
// be the guide's: status line, every field and body (the values of Date
// and Last-Modified and the bookmark's creation time aside, which differ
// from run to run).
func TestReadmeXMLAnswer(t *testing.T) {
	readme, err := os.ReadFile("../../docs/media.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)curl -H 'Authorization: Bearer (\\w+)' -H 'Content-Type: application/json' \\\\\n\\s*-d '([^']*)' localhost:3000(/\\S*)\n```\n\n" +
		"```sh\ncurl -i -H 'Accept: application/xml' localhost:3000(/\\S*)\n```\n\n```\n(HTTP/1.1 [^`]*?)\n```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("docs/media.md has no create followed by an XML read, with its answer, in the expected shape")
	}
	token, create, createPath, readPath, shown := string(m[1]), string(m[2]), string(m[3]), string(m[4]), string(m[5])
	srv := httptest.NewServer(bookmarks.New(bookmarks.NewStore(), token))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+createPath, strings.NewReader(create))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("the guide's create: got %s, want 201 Created", res.Status)
	}
	// A Last-Modified is sent once its second has ended (RFC 9110
	// section 8.8.2.2), as it has when a person types the next curl.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 100*time.Millisecond))) // past the second and its margin (cond.SettleMargin)
	req, _ = http.NewRequest(http.MethodGet, srv.URL+readPath, nil)
	req.Header.Set("Accept", "application/xml")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var got bytes.Buffer
	fmt.Fprintf(&got, "HTTP/1.1 %s\n", res.Status)
	res.Header.Write(&got)
	got.WriteString("\n" + strings.TrimSuffix(string(body), "\n"))
	varying := func(s string) string {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = regexp.MustCompile(`(?m)^Date: .*\n`).ReplaceAllString(s, "")
		s = regexp.MustCompile(`(?m)^(Last-Modified): .*$`).ReplaceAllString(s, "$1: …")
		return sortedFields(regexp.MustCompile(`<created>[^<]*</created>`).ReplaceAllString(s, "<created>…</created>"))
	}
	if g, w := varying(got.String()), varying(shown); g != w {
		t.Errorf("answer:\n got %s\nwant %s (the guide's)", g, w)
	}
}
