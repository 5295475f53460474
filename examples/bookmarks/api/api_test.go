package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

const testToken = "t0ken"

// answer is a response as the tests read it.
type answer struct {
	code   int
	header http.Header
	body   string
}

// call sends one request to the server at base: auth, when set, as a
// bearer token; a body as application/json.
func call(t testing.TB, base, method, target, auth, body string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+target, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, string(b)}
}

// problem is the part of an RFC 9457 problem document the tests read.
type problem struct {
	Status int    `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Errors []struct {
		Location string `json:"location"`
		Keyword  string `json:"keyword"`
	} `json:"errors"`
}

// readProblem decodes a problem+json answer and returns its errors'
// locations, sorted.
func readProblem(t testing.TB, a answer) (problem, []string) {
	t.Helper()
	if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("Content-Type: got %q, want application/problem+json; body %s", ct, a.body)
	}
	var p problem
	if err := json.Unmarshal([]byte(a.body), &p); err != nil {
		t.Fatalf("problem %s: %v", a.body, err)
	}
	if p.Status != a.code {
		t.Errorf("problem status: got %d, want the response's %d", p.Status, a.code)
	}
	var where []string
	for _, e := range p.Errors {
		where = append(where, e.Location)
	}
	slices.Sort(where)
	return p, where
}

// TestBookmarks drives the API over real HTTP through a bookmark's life.
// The steps run in order: each sees the store the ones before it left.
func TestBookmarks(t *testing.T) {
	srv := httptest.NewServer(New(NewStore(), testToken))
	defer srv.Close()
	for _, tc := range []struct {
		name                 string
		method, target, auth string
		body                 string
		code                 int
		want                 string // a substring of the body, for a success
		where                string // the problem's error locations, sorted, for a failure
	}{
		{"empty list", "GET", "/api/bookmarks", "", "", 200, `{"items":[],"total":0}`, ""},
		{"create go", "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/doc/","title":"Go","tags":["go","docs"]}`, 201, `"id":1,`, ""},
		{"create rfc", "POST", "/api/bookmarks", testToken, `{"url":"https://www.rfc-editor.org/rfc/rfc9457","title":"RFC 9457","tags":["http","docs"]}`, 201, `"id":2,`, ""},
		{"create blog", "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/blog/","title":"Blog","tags":["go"]}`, 201, `"id":3,`, ""},
		{"list by tag", "GET", "/api/bookmarks?tag=docs", "", "", 200, `"total":2}`, ""},
		{"list by two tags", "GET", "/api/bookmarks?tag=docs&tag=go", "", "", 200, `"title":"Go"`, ""},
		{"list page", "GET", "/api/bookmarks?limit=1&offset=2", "", "", 200, `"title":"Blog"`, ""},
		{"get", "GET", "/api/bookmarks/2", "", "", 200, `"title":"RFC 9457"`, ""},
		{"delete", "DELETE", "/api/bookmarks/2", testToken, "", 204, "", ""},
		{"get deleted", "GET", "/api/bookmarks/2", "", "", 404, "", ""},
		{"delete deleted", "DELETE", "/api/bookmarks/2", testToken, "", 404, "", ""},
		{"delete without token", "DELETE", "/api/bookmarks/1", "", "", 401, "", ""},
		{"create with a wrong token", "POST", "/api/bookmarks", "nope", `{"url":"https://go.dev/","title":"Go"}`, 401, "", ""},
		{"create breaking three rules", "POST", "/api/bookmarks", testToken, `{"url":"not a url","title":"","tags":["go","go"]}`, 422, "", "body.tags,body.title,body.url"},
		{"create as the README shows", "POST", "/api/bookmarks", testToken, `{"url":"go.dev","title":"","tags":["go","go"]}`, 422, "", "body.tags,body.title,body.url"},
		{"create without fields", "POST", "/api/bookmarks", testToken, `{}`, 422, "", "body.title,body.url"},
		{"list with a bad limit and offset", "GET", "/api/bookmarks?limit=0&offset=-1", "", "", 422, "", "query.limit,query.offset"},
		{"get by a word", "GET", "/api/bookmarks/abc", "", "", 422, "", "path.id"},
		{"get by id 0", "GET", "/api/bookmarks/0", "", "", 422, "", "path.id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := call(t, srv.URL, tc.method, tc.target, tc.auth, tc.body)
			if a.code != tc.code {
				t.Fatalf("got %d, want %d; body %s", a.code, tc.code, a.body)
			}
			if tc.code < 300 {
				if !strings.Contains(a.body, tc.want) {
					t.Errorf("body: got %s, want it to contain %s", a.body, tc.want)
				}
				return
			}
			if _, where := readProblem(t, a); strings.Join(where, ",") != tc.where {
				t.Errorf("error locations: got %q, want %q; body %s", where, tc.where, a.body)
			}
		})
	}
}

// TestCreateLocation checks that a create answers where the new bookmark
// lives (RFC 9110 section 15.3.2), and that the address serves it.
func TestCreateLocation(t *testing.T) {
	srv := httptest.NewServer(New(NewStore(), testToken))
	defer srv.Close()
	a := call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/","title":"Go"}`)
	loc := a.header.Get("Location")
	if a.code != 201 || loc != "/api/bookmarks/1" {
		t.Fatalf("got %d Location %q, want 201 /api/bookmarks/1; body %s", a.code, loc, a.body)
	}
	if b := call(t, srv.URL, "GET", loc, "", ""); b.code != 200 || !strings.Contains(b.body, `"url":"https://go.dev/"`) {
		t.Errorf("GET %s: got %d %s, want 200 and the bookmark", loc, b.code, b.body)
	}
}
