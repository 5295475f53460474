package bookmarks

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

// TestEdit drives an edit's life: a GET gives the ETag, a PATCH (a JSON
// Merge Patch) must name it in If-Match, a stale one is refused (the lost
// update), and a GET revalidates to 304. The steps run in order.
func TestEdit(t *testing.T) {
	srv := httptest.NewServer(New(NewStore(), testToken))
	defer srv.Close()
	if a := call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/","title":"Go","tags":["go"]}`); a.code != 201 {
		t.Fatalf("create: got %d %s", a.code, a.body)
	}
	const mp = "application/merge-patch+json"
	for _, tc := range []struct {
		name, method, target, ctype, body string
		header                            []string
		code                              int
		etag                              string // the answer's ETag
		want                              string // a substring of the body
	}{
		{"get", "GET", "/api/bookmarks/1", "", "", nil, 200, `"v1"`, `"title":"Go"`},
		{"revalidate", "GET", "/api/bookmarks/1", "", "", []string{"If-None-Match", `"v1"`}, 304, `"v1"`, ""},
		{"edit without If-Match", "PATCH", "/api/bookmarks/1", mp, `{"title":"Go!"}`, nil, 428, "", "must be conditional"},
		{"edit as application/json", "PATCH", "/api/bookmarks/1", "application/json", `{"title":"Go!"}`, []string{"If-Match", `"v1"`}, 415, "", "merge-patch"},
		{"edit with a weak tag", "PATCH", "/api/bookmarks/1", mp, `{"title":"Go!"}`, []string{"If-Match", `W/"v1"`}, 412, "", ""},
		{"edit with a malformed If-Match", "PATCH", "/api/bookmarks/1", mp, `{"title":"Go!"}`, []string{"If-Match", `v1`}, 412, "", ""},
		{"edit a missing one with If-Match *", "PATCH", "/api/bookmarks/9", mp, `{"title":"Go!"}`, []string{"If-Match", `*`}, 404, "", ""},
		{"a null patch", "PATCH", "/api/bookmarks/1", mp, `null`, []string{"If-Match", `"v1"`}, 422, "", ""},
		{"an empty title", "PATCH", "/api/bookmarks/1", mp, `{"title":""}`, []string{"If-Match", `"v1"`}, 422, "", "body.title"},
		{"too many tags", "PATCH", "/api/bookmarks/1", mp, `{"tags":["a","b","c","d","e","f","g","h","i"]}`, []string{"If-Match", `"v1"`}, 422, "", "body.tags"},
		{"edit", "PATCH", "/api/bookmarks/1", mp, `{"title":"Go!"}`, []string{"If-Match", `"v1"`}, 200, `"v2"`, `"title":"Go!","tags":["go"]`},
		{"the lost update", "PATCH", "/api/bookmarks/1", mp, `{"title":"Golang"}`, []string{"If-Match", `"v1"`}, 412, "", ""},
		{"remove the tags", "PATCH", "/api/bookmarks/1", mp, `{"tags":null}`, []string{"If-Match", `"v2"`}, 200, `"v3"`, `"title":"Go!","tags":[]`},
		{"stale revalidation", "GET", "/api/bookmarks/1", "", "", []string{"If-None-Match", `"v1"`}, 200, `"v3"`, `"title":"Go!"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rd io.Reader
			if tc.body != "" {
				rd = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, srv.URL+tc.target, rd)
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			req.Header.Set("Authorization", "Bearer "+testToken)
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Set(tc.header[i], tc.header[i+1])
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.code {
				t.Fatalf("got %d, want %d; body %s", res.StatusCode, tc.code, b)
			}
			if got := res.Header.Get("ETag"); got != tc.etag {
				t.Errorf("ETag: got %q, want %q", got, tc.etag)
			}
			if !strings.Contains(string(b), tc.want) {
				t.Errorf("body: got %s, want it to contain %s", b, tc.want)
			}
		})
	}
}
