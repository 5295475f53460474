package main

import (
	"bufio"
	"bytes"
	"context"
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

// TestReadmeRangeAndFeed checks the picture's range and the feed that the
// guide docs/media.md shows ("In the bookmarks example"): after its
// create, the range curl gets the status line and fields shown (the
// Last-Modified value aside), and the feed curl the event shown (the
// bookmark's creation time and the log's tag in its id aside).
func TestReadmeRangeAndFeed(t *testing.T) {
	guide, err := os.ReadFile("../../docs/media.md")
	if err != nil {
		t.Fatal(err)
	}
	create := regexp.MustCompile("(?s)curl -H 'Authorization: Bearer (\\w+)' -H 'Content-Type: application/json' \\\\\n\\s*-d '([^']*)' localhost:3000(/\\S*)\n```").FindSubmatch(guide)
	ranged := regexp.MustCompile("(?s)curl -i -H 'Range: ([^']+)' localhost:3000(/\\S*)\n```\n\n```\n(HTTP/1.1 [^`]*?)\n```").FindSubmatch(guide)
	feed := regexp.MustCompile("(?s)curl -N -H 'Last-Event-ID: (\\d+)' localhost:3000(/\\S*)\n```\n\n```\n([^`]*?)\n```").FindSubmatch(guide)
	if create == nil || ranged == nil || feed == nil {
		t.Fatal("docs/media.md has no create, range curl and feed curl with their answers in the expected shape")
	}
	token := string(create[1])
	srv := httptest.NewServer(bookmarks.New(bookmarks.NewStore(), token))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+string(create[3]), strings.NewReader(string(create[2])))
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

	req, _ = http.NewRequest(http.MethodGet, srv.URL+string(ranged[2]), nil)
	req.Header.Set("Range", string(ranged[1]))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var got bytes.Buffer
	fmt.Fprintf(&got, "HTTP/1.1 %s\n", res.Status)
	res.Header.Del("Date")
	res.Header.Write(&got)
	varying := func(s string) string {
		s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
		return regexp.MustCompile(`(?m)^(Last-Modified): .*$`).ReplaceAllString(s, "$1: …")
	}
	if g, w := varying(got.String()), varying(string(ranged[3])); g != w {
		t.Errorf("range:\n got %s\nwant %s (the guide's)", g, w)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+string(feed[2]), nil)
	req.Header.Set("Last-Event-ID", string(feed[1]))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	want := strings.Split(string(feed[3]), "\n")
	br := bufio.NewReader(io.LimitReader(res.Body, 1<<20))
	created := regexp.MustCompile(`"created":"[^"]*"`)
	tag := regexp.MustCompile(`^(id: \d+)-[0-9a-f]{8}$`) // the memory log's own, new at each start
	varies := func(line string) string {
		return tag.ReplaceAllString(created.ReplaceAllString(line, `"created":"…"`), "$1-…")
	}
	for i, w := range want {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("feed line %d: %v", i+1, err)
		}
		if g, w := varies(strings.TrimSuffix(line, "\n")), varies(w); g != w {
			t.Errorf("feed line %d: got %q, want the guide's %q", i+1, g, w)
		}
	}
}
