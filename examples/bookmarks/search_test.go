package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/client"
	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

// fill saves the bookmarks of the search tests through the typed client,
// and returns the time before the first and after the second.
func fill(t *testing.T, c *client.Client) (before, between time.Time) {
	t.Helper()
	create := client.Op[bookmarks.CreateInput, bookmarks.CreateOutput](c, "POST /api/bookmarks")
	before = time.Now().Add(-time.Hour)
	for i, nb := range []bookmarks.NewBookmark{
		{URL: "https://go.dev/doc/", Title: "Go documentation", Tags: []string{"go", "docs"}},
		{URL: "https://go.dev/blog/", Title: "The Go Blog", Tags: []string{"go"}},
		{URL: "https://www.rfc-editor.org/rfc/rfc10008", Title: "The HTTP QUERY Method", Tags: []string{"http", "docs"}},
	} {
		if _, err := create(context.Background(), bookmarks.CreateInput{Body: nb}); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			between = time.Now().Add(time.Hour)
		}
	}
	return before, between
}

// TestClientSearch runs the QUERY search through the typed client: tags,
// text and a date range in a JSON body, its answer, and the same query
// revalidated with 304 until a bookmark changes.
func TestClientSearch(t *testing.T) {
	srv := serve(t)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client(), Header: http.Header{"Authorization": {"Bearer " + clientToken}}}
	before, between := fill(t, c)
	search := client.Op[bookmarks.SearchInput, searchAnswer](c, "QUERY /api/search")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		q    bookmarks.Search
		want string
	}{
		{"a tag", bookmarks.Search{Tags: []string{"docs"}}, "Go documentation|The HTTP QUERY Method"},
		{"two tags", bookmarks.Search{Tags: []string{"go", "docs"}}, "Go documentation"},
		{"text, any case", bookmarks.Search{Text: "BLOG"}, "The Go Blog"},
		{"text in the URL", bookmarks.Search{Text: "rfc10008"}, "The HTTP QUERY Method"},
		{"all of it", bookmarks.Search{Tags: []string{"go"}, Text: "go", From: &before, To: &between}, "Go documentation|The Go Blog"},
		{"a range of no time", bookmarks.Search{From: &between}, ""},
		{"a limit", bookmarks.Search{Limit: 1}, "Go documentation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := search(ctx, bookmarks.SearchInput{Body: tc.q})
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, b := range out.Body.Items {
				titles = append(titles, b.Title)
			}
			if got := strings.Join(titles, "|"); got != tc.want || out.Status != 200 {
				t.Errorf("got %d %q, want 200 %q", out.Status, got, tc.want)
			}
		})
	}

	// Section 2.6 of RFC 10008: the same query, conditional on the tag
	// its answer gave, is a 304 while no bookmark changes.
	q := bookmarks.SearchInput{Body: bookmarks.Search{Tags: []string{"go"}}}
	first, err := search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	cond := client.WithHeader(ctx, http.Header{"If-None-Match": {first.ETag}})
	again, err := search(cond, q)
	if err != nil || again.Status != http.StatusNotModified || again.ETag != first.ETag {
		t.Fatalf("the conditional QUERY: got %+v, %v; want a 304 with ETag %s", again, err, first.ETag)
	}
	other, err := search(cond, bookmarks.SearchInput{Body: bookmarks.Search{Tags: []string{"http"}}})
	if err != nil || other.Status != 200 || other.ETag == first.ETag {
		t.Errorf("another query with that tag: got %+v, %v; want a 200 with a tag of its own", other, err)
	}
	fill(t, c) // a change
	changed, err := search(cond, q)
	if err != nil || changed.Status != 200 || len(changed.Body.Items) != 4 {
		t.Errorf("after a change: got %+v, %v; want a 200 with 4 bookmarks", changed, err)
	}

	// A range that is none: 422, from Validate.
	_, err = search(ctx, bookmarks.SearchInput{Body: bookmarks.Search{From: &between, To: &before}})
	if he := httpError(t, err, 422); he != nil && (len(he.Errors) != 1 || he.Errors[0].Location != "body.to") {
		t.Errorf("a range backwards: got %+v", he.Errors)
	}
}

// searchAnswer is SearchOutput with a Status, to tell a 304 from a 200.
type searchAnswer struct {
	Status   int
	ETag     string    `header:"ETag"`
	Modified time.Time `header:"Last-Modified"`
	Body     bookmarks.Page
}

// TestSearchRequests sends the QUERY search as raw requests: what RFC
// 10008 asks of its media types and Accept-Query.
func TestSearchRequests(t *testing.T) {
	srv := serve(t)
	const accept = "application/json, application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name, method, ctype, body string
		code                      int
		allow                     string
	}{
		{"JSON", waltz.MethodQuery, "application/json", `{"text":"go"}`, 200, ""},
		{"a form", waltz.MethodQuery, "application/x-www-form-urlencoded", "text=go&tags=go", 200, ""},
		{"no Content-Type", waltz.MethodQuery, "", `{"text":"go"}`, 400, ""},
		{"CSV", waltz.MethodQuery, "text/csv", "text\ngo", 415, ""},
		{"malformed JSON", waltz.MethodQuery, "application/json", `{"text":`, 400, ""},
		{"OPTIONS", http.MethodOptions, "", "", 204, "OPTIONS, QUERY"},
		{"GET", http.MethodGet, "", "", 405, "OPTIONS, QUERY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+"/api/search", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.code {
				t.Errorf("status: got %d, want %d", res.StatusCode, tc.code)
			}
			// On a refusal, the OPTIONS and the 405; not on a success,
			// whose client sent a type the search takes.
			want := accept
			if tc.code == http.StatusOK {
				want = ""
			}
			if got := res.Header.Get("Accept-Query"); got != want {
				t.Errorf("Accept-Query: got %q, want %q", got, want)
			}
			if got := res.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow: got %q, want %q", got, tc.allow)
			}
		})
	}
}

// TestExportReadItemByItem reads the JSON Lines export one bookmark at a
// time as they come, stops halfway and leaves; the server, whose next
// write fails, stops too (api's TestLinesClientStops watches it do so),
// and goes on serving.
func TestExportReadItemByItem(t *testing.T) {
	store := bookmarks.NewStore()
	const n = 20000
	for i := range n {
		store.Create("https://example.com/"+strings.Repeat("x", i%50), "bookmark", []string{"bulk"}, false)
	}
	srv := serveStore(t, store)
	res, err := srv.Client().Get(srv.URL + "/api/export")
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != "application/jsonl" {
		t.Fatalf("got %d %q", res.StatusCode, ct)
	}
	sc := bufio.NewScanner(res.Body)
	for i := range n / 2 {
		if !sc.Scan() {
			t.Fatalf("item %d: %v", i, sc.Err())
		}
		var b bookmarks.Bookmark
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil || b.ID != int64(i+1) {
			t.Fatalf("item %d: %q (%v)", i, sc.Bytes(), err)
		}
	}
	res.Body.Close() // halfway
	res, err = srv.Client().Get(srv.URL + "/api/bookmarks/1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("after the export was left: got %d", res.StatusCode)
	}
}
