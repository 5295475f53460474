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
	"time"

	"github.com/waltz-go/waltz/middleware"
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
// edit, if not nil, changes the Config first.
func newTestApp(t testing.TB, edit func(*Config)) (front, api *httptest.Server) {
	t.Helper()
	cfg := Config{
		FrontOrigin: testFront, APIOrigin: "http://127.0.0.1:8082", AdminToken: testAdminToken,
		Log: slog.New(slog.DiscardHandler),
	}
	if edit != nil {
		edit(&cfg)
	}
	f, a := NewApp(cfg)
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
	front, _ := newTestApp(t, nil)
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
		{"/..%2fmain.go", 400, "", ""}, // hostile: traversal out of the static root
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
	_, api := newTestApp(t, nil)
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
			200, "X-Content-Type-Options: nosniff\nX-Frame-Options: DENY", `"client":"test"`},
		{"me without one", "GET", "/api/me", "", "",
			401, "", "no session"},
		{"me with a forged cookie", "GET", "/api/me", "Cookie: session=forged", "",
			401, "", "no session"},
		{"a safe request ID is kept", "GET", "/api/notes", "X-Request-ID: abc-123", "",
			200, "X-Request-Id: abc-123", ""},
		{"a hostile request ID is replaced", "GET", "/api/notes", "X-Request-ID: " + strings.Repeat("x", 10<<10), "",
			200, "", ""},

		// Fetch "CORS protocol": the front end's origin is allowed with
		// credentials and X-Client, named, never "*"; other origins get no
		// CORS headers at all.
		{"preflight from the front end", "OPTIONS", "/api/me", "Origin: " + testFront + "\nAccess-Control-Request-Method: GET\nAccess-Control-Request-Headers: x-client", "",
			204, "Access-Control-Allow-Origin: " + testFront + "\nAccess-Control-Allow-Credentials: true\nAccess-Control-Max-Age: 600", ""},
		{"preflight from another site", "OPTIONS", "/api/me", "Origin: " + testEvil + "\nAccess-Control-Request-Method: GET\nAccess-Control-Request-Headers: x-client", "",
			204, "Access-Control-Allow-Origin:\nAccess-Control-Allow-Credentials:", ""},
		{"preflight from a suffix trick", "OPTIONS", "/api/me", "Origin: " + testFront + ".evil.io\nAccess-Control-Request-Method: GET", "",
			204, "Access-Control-Allow-Origin:", ""},
		{"preflight from null", "OPTIONS", "/api/me", "Origin: null\nAccess-Control-Request-Method: GET", "",
			204, "Access-Control-Allow-Origin:", ""},
		{"a read from another site", "GET", "/api/notes", "Origin: " + testEvil, "",
			200, "Access-Control-Allow-Origin:", ""},

		// CSRF: browsers' writes from another origin are refused, but the
		// front end's; clients that are no browser send neither header.
		{"a note as JSON", "POST", "/api/notes", "Origin: " + testFront + "\nSec-Fetch-Site: same-site" + js, `{"title":"hi"}`,
			201, "Access-Control-Allow-Origin: " + testFront, `"title":"hi"`},
		{"a form from another site", "POST", "/api/notes", "Origin: " + testEvil + "\nSec-Fetch-Site: cross-site\nContent-Type: application/x-www-form-urlencoded", "title=forged",
			403, "", "cross-origin request"},
		{"a form from an old browser on another site", "POST", "/api/notes", "Origin: " + testEvil + "\nContent-Type: application/x-www-form-urlencoded", "title=forged",
			403, "", "cross-origin request"},
		{"a form from no browser", "POST", "/api/notes", "Content-Type: application/x-www-form-urlencoded", "title=form",
			201, "", `"title":"form"`},
		{"a note without a title", "POST", "/api/notes", js[1:], `{}`,
			400, "", "title"},
		{"a note as text", "POST", "/api/notes", "Content-Type: text/plain", `hi`,
			415, "", ""},
		{"a body over the limit", "POST", "/api/notes", js[1:], `{"title":"` + strings.Repeat("x", 64<<10) + `"}`,
			413, "", ""},
		{"the notes", "GET", "/api/notes", "", "",
			200, "", `[{"id":1,"title":"hi"},{"id":2,"title":"form"}]`},

		// RFC 6750: the admin group wants the bearer token.
		{"the admin stats", "GET", "/api/admin/stats", "Authorization: Bearer " + testAdminToken, "",
			200, "", `{"notes":2,"sessions":1}`},
		{"the admin stats without a token", "GET", "/api/admin/stats", "", "",
			401, `WWW-Authenticate: Bearer realm="admin"`, ""},
		{"the admin stats with a wrong token", "GET", "/api/admin/stats", "Authorization: Bearer " + testAdminToken + "x", "",
			401, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := do(t, api.URL, tc.method, tc.path, tc.h, tc.body)
			if res.StatusCode != tc.code {
				t.Fatalf("got %d %q, want %d", res.StatusCode, body, tc.code)
			}
			checkHeaders(t, res.Header, tc.want)
			if id := res.Header.Get("X-Request-Id"); id == "" || len(id) > 64 {
				t.Errorf("X-Request-Id: got %q, want 1 to 64 bytes", id)
			}
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

// TestEvents reads the event stream, gzip-compressed. The /api group's
// deadline is shorter than the stream, which is not in the group.
func TestEvents(t *testing.T) {
	_, api := newTestApp(t, func(cfg *Config) { cfg.Timeout = eventGap / 5 })
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
	if res.StatusCode != http.StatusOK {
		t.Fatalf("got %d, want 200", res.StatusCode)
	}
	if got, want := res.Header.Get("Content-Type"), "text/event-stream"; got != want {
		t.Errorf("Content-Type: got %q, want %q", got, want)
	}
	if got, want := res.Header.Get("Content-Encoding"), "gzip"; got != want {
		t.Fatalf("Content-Encoding: got %q, want %q", got, want)
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	sc := bufio.NewScanner(zr)
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

// TestRateLimit spends a client's bucket: RFC 6585 section 4, 429 with
// Retry-After (RFC 9110 section 10.2.3). The event stream is not limited.
func TestRateLimit(t *testing.T) {
	_, api := newTestApp(t, func(cfg *Config) {
		cfg.RateLimit = middleware.RatePolicy{Requests: 2, Window: time.Minute}
	})
	for i, want := range []int{200, 200, 429, 429} {
		res, _ := do(t, api.URL, http.MethodGet, "/api/notes", "", "")
		if res.StatusCode != want {
			t.Errorf("request %d: got %d, want %d", i+1, res.StatusCode, want)
		}
		if ra := res.Header.Get("Retry-After"); (want == 429) != (ra != "") {
			t.Errorf("request %d: Retry-After %q with status %d", i+1, ra, res.StatusCode)
		}
	}
	if res, _ := do(t, api.URL, http.MethodGet, "/events", "", ""); res.StatusCode != 200 {
		t.Errorf("/events: got %d, want 200", res.StatusCode)
	}
}

// TestTimeout gives the /api group a deadline that has passed before its
// handlers answer: RFC 9110 section 15.6.4, 503. The event stream, outside
// the group, is not cut.
func TestTimeout(t *testing.T) {
	_, api := newTestApp(t, func(cfg *Config) { cfg.Timeout = time.Nanosecond })
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/api/notes", 503},
		{"/events", 200},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if res, body := do(t, api.URL, http.MethodGet, tc.path, "", ""); res.StatusCode != tc.code {
				t.Errorf("got %d %q, want %d", res.StatusCode, body, tc.code)
			}
		})
	}
}

// TestCompressAndETag checks the representation middleware on both
// origins: RFC 9110 section 12.5.3 (Accept-Encoding), 8.8.3 (ETag) and
// 13.1.2 (If-None-Match, weak comparison, 304).
func TestCompressAndETag(t *testing.T) {
	front, api := newTestApp(t, nil)
	for _, tc := range []struct {
		name, base, path, h string
		code                int
		want                string
	}{
		{"app.js gzipped", front.URL, "/app.js", "Accept-Encoding: gzip", 200,
			"Content-Encoding: gzip\nVary: Accept-Encoding"},
		{"app.js deflated", front.URL, "/app.js", "Accept-Encoding: deflate, gzip;q=0.5", 200,
			"Content-Encoding: deflate"},
		{"app.js, gzip refused", front.URL, "/app.js", "Accept-Encoding: gzip;q=0", 200,
			"Content-Encoding:"},
		{"app.js as it is", front.URL, "/app.js", "", 200,
			"Content-Encoding:"},
		{"app.js revalidated", front.URL, "/app.js", "If-None-Match: " + etagOf(t, front.URL, "/app.js"), 304,
			"Content-Encoding:"},
		{"the notes revalidated", api.URL, "/api/notes", "If-None-Match: " + etagOf(t, api.URL, "/api/notes"), 304,
			""},
		{"the notes revalidated, gzip accepted", api.URL, "/api/notes", "Accept-Encoding: gzip\nIf-None-Match: " + etagOf(t, api.URL, "/api/notes"), 304,
			""},
		{"the notes with a stale tag", api.URL, "/api/notes", `If-None-Match: "stale"`, 200,
			""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := do(t, tc.base, http.MethodGet, tc.path, tc.h, "")
			if res.StatusCode != tc.code {
				t.Fatalf("got %d %q, want %d", res.StatusCode, body, tc.code)
			}
			checkHeaders(t, res.Header, tc.want)
		})
	}
}

// etagOf returns the ETag of GET base+path.
func etagOf(t testing.TB, base, path string) string {
	t.Helper()
	res, _ := do(t, base, http.MethodGet, path, "", "")
	tag := res.Header.Get("ETag")
	if tag == "" {
		t.Fatalf("GET %s: no ETag", path)
	}
	return tag
}
