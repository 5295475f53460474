package main

import (
	"bufio"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// testAdminToken is the admin API token the tests configure.
const testAdminToken = "t0ken"

// Origins the tests use: the front end's, and another site's.
const (
	testFront = "http://127.0.0.1:8081"
	testEvil  = "http://localhost:9999"
)

// newTestApp serves the app's two routers with httptest; the front end's
// origin is testFront whatever port it got, as a proxy would present it.
func newTestApp(t testing.TB) (front, api *httptest.Server) {
	t.Helper()
	f, a := NewApp(Config{
		FrontOrigin: testFront, APIOrigin: "http://127.0.0.1:8082", AdminToken: testAdminToken,
		Log: slog.New(slog.DiscardHandler),
	})
	front, api = httptest.NewServer(f), httptest.NewServer(a)
	t.Cleanup(front.Close)
	t.Cleanup(api.Close)
	return front, api
}

// do sends method path to base with the headers h ("Name: value" lines)
// and body, and returns the response with its body read.
func do(t testing.TB, base, method, path, h, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(h) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		req.Header.Add(k, strings.TrimSpace(v))
	}
	// No transparent gzip: the tests look at what the server sent.
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// TestFront checks the front end's static files and its config.
func TestFront(t *testing.T) {
	front, _ := newTestApp(t)
	for _, tc := range []struct {
		path  string
		code  int
		ctype string
		body  string // a part of the body
	}{
		{"/", 200, "text/html; charset=utf-8", `<link rel="stylesheet" href="/app.css">`},
		{"/app.css", 200, "text/css; charset=utf-8", "rgb(17, 85, 204)"},
		{"/app.js", 200, "text/javascript; charset=utf-8", "new EventSource"},
		{"/config.json", 200, "application/json", `{"api":"http://127.0.0.1:8082"}`},
		{"/nope.txt", 404, "", ""},
		{"/..%2fmain.go", 404, "", ""}, // hostile: traversal out of the static root
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, body := do(t, front.URL, http.MethodGet, tc.path, "", "")
			if res.StatusCode != tc.code {
				t.Fatalf("got %d, want %d", res.StatusCode, tc.code)
			}
			if got := res.Header.Get("Content-Type"); tc.ctype != "" && got != tc.ctype {
				t.Errorf("Content-Type: got %q, want %q", got, tc.ctype)
			}
			if !strings.Contains(body, tc.body) {
				t.Errorf("body: got %q, want it to contain %q", body, tc.body)
			}
		})
	}
}

// TestAPI drives the API as a browser on the front end's origin would, and
// as other sites and clients would.
func TestAPI(t *testing.T) {
	_, api := newTestApp(t)
	res, _ := do(t, api.URL, http.MethodPost, "/api/session", "Origin: "+testFront+"\nSec-Fetch-Site: same-site", "")
	var cookie string
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie {
			cookie = "Cookie: " + c.Name + "=" + c.Value
		}
	}
	if res.StatusCode != 204 || cookie == "" {
		t.Fatalf("POST /api/session: got %d, cookie %q; want 204 and a %q cookie", res.StatusCode, cookie, sessionCookie)
	}
	const js = "\nContent-Type: application/json"
	for _, tc := range []struct {
		name, method, path, h, body string
		code                        int
		want                        string // "Name: value" lines the response must have; "Name:" for none
		part                        string // a part of the body
	}{
		{"me with the session cookie", "GET", "/api/me", cookie + "\nX-Client: test", "",
			200, "", `"client":"test"`},
		{"me without one", "GET", "/api/me", "", "",
			401, "", "no session"},
		{"me with a forged cookie", "GET", "/api/me", "Cookie: session=forged", "",
			401, "", "no session"},
		{"a note as JSON", "POST", "/api/notes", "Origin: " + testFront + "\nSec-Fetch-Site: same-site" + js, `{"title":"hi"}`,
			201, "", `"title":"hi"`},
		{"a note from a form", "POST", "/api/notes", "Content-Type: application/x-www-form-urlencoded", "title=form",
			201, "", `"title":"form"`},
		{"a note without a title", "POST", "/api/notes", js[1:], `{}`,
			400, "", "title"},
		{"a note as text", "POST", "/api/notes", "Content-Type: text/plain", `hi`,
			415, "", ""},
		{"the notes", "GET", "/api/notes", "", "",
			200, "", `[{"id":1,"title":"hi"},{"id":2,"title":"form"}]`},
		{"the admin stats", "GET", "/api/admin/stats", "Authorization: Bearer " + testAdminToken, "",
			200, "", `{"notes":2,"sessions":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := do(t, api.URL, tc.method, tc.path, tc.h, tc.body)
			if res.StatusCode != tc.code {
				t.Fatalf("got %d %q, want %d", res.StatusCode, body, tc.code)
			}
			checkHeaders(t, res.Header, tc.want)
			if !strings.Contains(body, tc.part) {
				t.Errorf("body: got %q, want it to contain %q", body, tc.part)
			}
		})
	}
}

// checkHeaders checks h against want, "Name: value" lines; "Name:" wants
// no such header.
func checkHeaders(t testing.TB, h http.Header, want string) {
	t.Helper()
	for line := range strings.Lines(want) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		v = strings.TrimSpace(v)
		if got := strings.Join(h.Values(k), ", "); got != v {
			t.Errorf("%s: got %q, want %q", k, got, v)
		}
	}
}

// TestEvents reads the event stream, gzip-compressed, event by event.
func TestEvents(t *testing.T) {
	_, api := newTestApp(t)
	req, err := http.NewRequest(http.MethodGet, api.URL+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got, want := res.Header.Get("Content-Type"), "text/event-stream"; got != want {
		t.Errorf("Content-Type: got %q, want %q", got, want)
	}
	var body io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		body = zr
	}
	var got []string
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			got = append(got, d)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events: got %q, want %q", got, want)
	}
}
