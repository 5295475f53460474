package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/waltz-go/waltz"
)

const testToken = "t0ken"

// call sends one request to the server at base and returns the status, the
// body with its trailing newline trimmed, and the headers. ctype and auth
// are sent when non-empty.
func call(t testing.TB, client *http.Client, base, method, path, ctype, auth, body string) (int, string, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, strings.TrimSuffix(string(b), "\n"), res.Header
}

// TestNotes drives the app over real HTTP through a note's life, and the
// errors on the way. The steps run in order: each sees the store the ones
// before it left.
func TestNotes(t *testing.T) {
	srv := httptest.NewServer(newApp(NewStore(), testToken, &waltz.Server{}))
	defer srv.Close()
	const (
		js   = "application/json"
		auth = "Bearer " + testToken
	)
	big := `{"title":"big","body":"` + strings.Repeat("x", 20<<10) + `"}`
	for _, tc := range []struct {
		name                            string
		method, path, ctype, auth, body string
		code                            int
		want                            string
		header, value                   string // a response header to check
	}{
		{"empty list", "GET", "/api/notes", "", "", "", 200, `[]`, "Content-Type", js},
		{"create without token", "POST", "/api/notes", js, "", `{"title":"a"}`, 401,
			`{"error":"writes need a bearer token"}`, "WWW-Authenticate", `Bearer realm="notes"`},
		{"create with a wrong token", "POST", "/api/notes", js, "Bearer nope", `{"title":"a"}`, 401,
			`{"error":"writes need a bearer token"}`, "", ""},
		{"create", "POST", "/api/notes", js, auth, `{"title":"first","body":"hello"}`, 201,
			`{"id":"1","title":"first","body":"hello"}`, "Location", "/api/notes/1"},
		{"create another", "POST", "/api/notes", js + "; charset=utf-8", auth, `{"title":"second"}`, 201,
			`{"id":"2","title":"second","body":""}`, "Location", "/api/notes/2"},
		{"read", "GET", "/api/notes/1", "", "", "", 200, `{"id":"1","title":"first","body":"hello"}`, "", ""},
		{"list", "GET", "/api/notes", "", "", "", 200,
			`[{"id":"1","title":"first","body":"hello"},{"id":"2","title":"second","body":""}]`, "", ""},
		{"update", "PUT", "/api/notes/1", js, auth, `{"title":"first!","body":"edited"}`, 200,
			`{"id":"1","title":"first!","body":"edited"}`, "", ""},
		{"read the update", "GET", "/api/notes/1", "", "", "", 200, `{"id":"1","title":"first!","body":"edited"}`, "", ""},
		{"update without token", "PUT", "/api/notes/1", js, "", `{"title":"x"}`, 401,
			`{"error":"writes need a bearer token"}`, "", ""},
		{"verb the resource lacks", "PATCH", "/api/notes/1", js, auth, `{"title":"x"}`, 405,
			`{"error":"Method Not Allowed"}`, "Allow", "DELETE, GET, HEAD, OPTIONS, PUT"},
		{"verb the collection lacks", "DELETE", "/api/notes", "", auth, "", 405,
			`{"error":"Method Not Allowed"}`, "Allow", "GET, HEAD, OPTIONS, POST"},
		{"options", "OPTIONS", "/api/notes/1", "", "", "", 204, ``, "Allow", "DELETE, GET, HEAD, OPTIONS, PUT"},
		{"not JSON", "POST", "/api/notes", "text/plain", auth, `title=x`, 415,
			`{"error":"Content-Type must be application/json, got \"text/plain\""}`, "", ""},
		{"too large", "POST", "/api/notes", js, auth, big, 413,
			`{"error":"the body may be at most 16384 bytes"}`, "", ""},
		{"malformed", "POST", "/api/notes", js, auth, `{"title":"x",}`, 400,
			`{"error":"malformed JSON at byte offset 13: want a string, an object member's key"}`, "", ""},
		{"wrong type", "POST", "/api/notes", js, auth, `{"title":7}`, 422,
			`{"error":"the JSON body holds values that do not fit","errors":[{"location":"body.title","keyword":"type","message":"must be a string, got a number"}]}`, "", ""},
		{"unknown field", "POST", "/api/notes", js, auth, `{"title":"x","tags":[]}`, 422,
			`{"error":"the JSON body holds values that do not fit","errors":[{"location":"body","keyword":"additionalProperties","message":"has an unknown member \"tags\""}]}`, "", ""},
		{"a key in another letter case", "POST", "/api/notes", js, auth, `{"Title":"x"}`, 422,
			`{"error":"the JSON body holds values that do not fit","errors":[{"location":"body","keyword":"additionalProperties","message":"has an unknown member \"Title\""}]}`, "", ""},
		{"no title", "POST", "/api/notes", js, auth, `{"body":"x"}`, 422,
			`{"error":"a note needs a title"}`, "", ""},
		{"delete", "DELETE", "/api/notes/1", "", auth, "", 204, ``, "", ""},
		{"read the deleted", "GET", "/api/notes/1", "", "", "", 404, `{"error":"no note with id 1"}`, "", ""},
		{"delete again", "DELETE", "/api/notes/1", "", auth, "", 404, `{"error":"no note with id 1"}`, "", ""},
		{"update a missing note", "PUT", "/api/notes/9", js, auth, `{"title":"x"}`, 404, `{"error":"no note with id 9"}`, "", ""},
		{"no such route", "GET", "/api/nope", "", "", "", 404, `{"error":"Not Found"}`, "", ""},
		{"list after", "GET", "/api/notes", "", "", "", 200, `[{"id":"2","title":"second","body":""}]`, "", ""},
	} {
		code, body, h := call(t, srv.Client(), srv.URL, tc.method, tc.path, tc.ctype, tc.auth, tc.body)
		if code != tc.code || body != tc.want {
			t.Errorf("%s: %s %s: got %d %s, want %d %s", tc.name, tc.method, tc.path, code, body, tc.code, tc.want)
		}
		if tc.header != "" {
			if got := h.Get(tc.header); got != tc.value {
				t.Errorf("%s: %s %s: got %s %q, want %q", tc.name, tc.method, tc.path, tc.header, got, tc.value)
			}
		}
	}
}

// TestNotesConcurrent creates notes from many clients at once: each gets
// its own ID and every note is kept. Run it with -race.
func TestNotesConcurrent(t *testing.T) {
	srv := httptest.NewServer(newApp(NewStore(), testToken, &waltz.Server{}))
	defer srv.Close()
	const n = 50
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = call(t, srv.Client(), srv.URL, "POST", "/api/notes", "application/json",
				"Bearer "+testToken, fmt.Sprintf(`{"title":"note %d"}`, i))
		}()
	}
	wg.Wait()
	for i, code := range codes {
		if code != http.StatusCreated {
			t.Errorf("POST %d: got %d, want 201", i, code)
		}
	}
	_, body, _ := call(t, srv.Client(), srv.URL, "GET", "/api/notes", "", "", "")
	var notes []Note
	if err := json.Unmarshal([]byte(body), &notes); err != nil {
		t.Fatal(err)
	}
	ids := make(map[string]bool)
	for _, note := range notes {
		ids[note.ID] = true
	}
	if len(notes) != n || len(ids) != n {
		t.Errorf("got %d notes with %d distinct IDs, want %d of each", len(notes), len(ids), n)
	}
}

// TestProbes: the readiness and liveness probes the platform asks answer
// 200 while the server serves.
func TestProbes(t *testing.T) {
	srv := httptest.NewServer(newApp(NewStore(), testToken, &waltz.Server{}))
	defer srv.Close()
	for _, path := range []string{"/readyz", "/livez"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: got %d, want 200", path, res.StatusCode)
		}
	}
}
