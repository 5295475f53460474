package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The browser test drives headless Chromium against the app on two
// loopback origins, and against a third origin the test serves itself, the
// attacker's: http://localhost:<port>, another site than 127.0.0.1. Each
// page's script writes what it saw into <pre id="results"> as JSON and sets
// data-done="true"; chromium --dump-dom prints the DOM once the page is
// idle, and the test reads the results from it. No driver library is needed.
//
// It runs only when WALTZ_E2E is set; e2e.sh installs Chromium when missing
// and sets it. CHROMIUM names the browser binary (default "chromium").

const (
	// browserBudget is the virtual time a page gets, in milliseconds:
	// Chromium stops the page's clock while network requests are pending, so
	// this bounds timers, not the requests themselves.
	browserBudget = 10000
	// browserTimeout bounds one Chromium run in wall-clock time.
	browserTimeout = 45 * time.Second
)

func TestBrowser(t *testing.T) {
	if os.Getenv("WALTZ_E2E") == "" {
		t.Skip("set WALTZ_E2E=1 to drive headless Chromium (examples/app/e2e.sh does)")
	}
	chrome := os.Getenv("CHROMIUM")
	if chrome == "" {
		chrome = "chromium"
	}
	if _, err := exec.LookPath(chrome); err != nil {
		t.Fatalf("WALTZ_E2E is set but there is no browser: %v (run examples/app/e2e.sh, which installs it)", err)
	}
	e := startE2E(t)

	t.Run("front end on origin A calls the API on origin B", func(t *testing.T) {
		res := e.page(t, chrome, e.front+"/")
		for _, tc := range []struct{ key, want string }{
			{"css", `"rgb(17, 85, 204)"`}, // app.css loaded and applied to #title
			{"session", `204`},            // POST with credentials and X-Client: preflight passed, cookie set
			{"me", `{"body":{"client":"waltz-app","session":true},"status":200}`}, // the cookie came back, and the custom header
			{"note", `201`},       // a cross-origin write from a trusted origin passes CSRF
			{"events", `[1,2,3]`}, // three server-sent events through Compress
			{"error", ``},
		} {
			if got := jsonString(t, res[tc.key]); got != tc.want {
				t.Errorf("%s: got %s, want %s", tc.key, got, tc.want)
			}
		}
		// Fetch "CORS protocol": a request with credentials and a custom
		// header is preceded by a preflight, answered 204.
		for _, want := range []string{"OPTIONS /api/session 204", "OPTIONS /api/me 204", "POST /api/session 204", "GET /api/me 200"} {
			if !e.logged(want) {
				t.Errorf("log: no request %q in\n%s", want, e.logs.String())
			}
		}
		// The page read the X-Request-ID header, which CORS exposes, and
		// the log line of the request has the same ID.
		if id, _ := e.requestID("GET /api/me 200"); id == "" || jsonString(t, res["requestID"]) != `"`+id+`"` {
			t.Errorf("request ID: the page read %s, the log has %q", res["requestID"], id)
		}
		if got, want := e.encoding("GET /events"), "gzip"; got != want {
			t.Errorf("/events Content-Encoding: got %q, want %q", got, want)
		}
	})

	t.Run("a page on another site is refused by the browser", func(t *testing.T) {
		res := e.page(t, chrome, e.evil+"/cors.html")
		for _, tc := range []struct{ key, want string }{
			{"credentialed", `"refused: TypeError"`}, // the preflight got no CORS headers
			{"simple", `"refused: TypeError"`},       // sent, but the answer has no Access-Control-Allow-Origin
			{"events", `"refused: error event"`},     // EventSource is under CORS too
		} {
			if got := jsonString(t, res[tc.key]); got != tc.want {
				t.Errorf("%s: got %s, want %s", tc.key, got, tc.want)
			}
		}
	})

	t.Run("a form on another site cannot post to the API", func(t *testing.T) {
		dom := e.dumpDOM(t, chrome, e.evil+"/form.html")
		if strings.Contains(dom, forgedTitle) || !strings.Contains(dom, "cross-origin request") {
			t.Errorf("the browser shows:\n%s\nwant the CSRF middleware's 403 page", dom)
		}
		if !e.logged("POST /api/notes 403") {
			t.Errorf("log: no 403 for the forged POST in\n%s", e.logs.String())
		}
		if strings.Contains(e.get(t, "/api/notes"), forgedTitle) {
			t.Error("the forged note is in the store")
		}
	})
}

// forgedTitle is the title the attacker's form posts.
const forgedTitle = "forged by another site"

// e2e is the app and the attacker's site, served on loopback.
type e2e struct {
	front, api, evil string // origins
	logs             *syncBuffer
	mu               sync.Mutex
	enc              map[string]string // "GET /events" -> Content-Encoding sent
}

// startE2E serves the app's two origins and the attacker's pages, each on
// its own loopback port, until the test ends.
func startE2E(t *testing.T) *e2e {
	t.Helper()
	lnA, lnB, lnC := listenLoopback(t), listenLoopback(t), listenLoopback(t)
	e := &e2e{
		front: "http://" + lnA.Addr().String(),
		api:   "http://" + lnB.Addr().String(),
		evil:  "http://localhost:" + port(lnC),
		logs:  &syncBuffer{},
		enc:   map[string]string{},
	}
	front, api := NewApp(Config{
		FrontOrigin: e.front, APIOrigin: e.api, AdminToken: testAdminToken,
		Log: slog.New(slog.NewJSONHandler(e.logs, nil)),
	})
	serve(t, lnA, front)
	serve(t, lnB, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.ServeHTTP(w, r)
		e.mu.Lock()
		e.enc[r.Method+" "+r.URL.Path] = w.Header().Get("Content-Encoding")
		e.mu.Unlock()
	}))
	serve(t, lnC, evilPages(e.api))
	return e
}

func (e *e2e) encoding(req string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enc[req]
}

// logged reports whether the app logged a request line "METHOD path status".
func (e *e2e) logged(want string) bool {
	_, ok := e.requestID(want)
	return ok
}

// requestID returns the request ID logged with the first request line
// "METHOD path status", and whether there is one.
func (e *e2e) requestID(want string) (string, bool) {
	for line := range strings.Lines(e.logs.String()) {
		var rec struct {
			Method, Path string
			Status       int
			ID           string `json:"request_id"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && fmt.Sprintf("%s %s %d", rec.Method, rec.Path, rec.Status) == want {
			return rec.ID, true
		}
	}
	return "", false
}

// get returns the body of GET path from the API, asked from Go.
func (e *e2e) get(t testing.TB, path string) string {
	t.Helper()
	res, err := http.Get(e.api + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(res.Body); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var resultsRE = regexp.MustCompile(`(?s)<pre id="results" data-done="(true|false)">(.*?)</pre>`)

// page loads url in Chromium and returns the results its script wrote,
// failing the test unless the script finished.
func (e *e2e) page(t testing.TB, chrome, url string) map[string]json.RawMessage {
	t.Helper()
	dom := e.dumpDOM(t, chrome, url)
	m := resultsRE.FindStringSubmatch(dom)
	if m == nil || m[1] != "true" {
		t.Fatalf("%s: the page's script did not finish; DOM:\n%s\napp log:\n%s", url, dom, e.logs.String())
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal([]byte(html.UnescapeString(m[2])), &res); err != nil {
		t.Fatalf("%s: results are not JSON: %v\n%s", url, err, m[2])
	}
	return res
}

// dumpDOM loads url in a fresh headless Chromium profile and returns the
// DOM once the page is idle or its virtual time budget is spent.
func (e *e2e) dumpDOM(t testing.TB, chrome, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, chrome,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-proxy-server", "--user-data-dir="+t.TempDir(),
		fmt.Sprintf("--virtual-time-budget=%d", browserBudget),
		"--dump-dom", url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v (timeout %v)\nstderr:\n%s", chrome, url, err, browserTimeout, tail(stderr.String(), 2000))
	}
	return stdout.String()
}

// jsonString returns v compacted, object keys sorted, or "" for a missing
// value.
func jsonString(t testing.TB, v json.RawMessage) string {
	t.Helper()
	if v == nil {
		return ""
	}
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		t.Fatalf("bad JSON %s: %v", v, err)
	}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// evilPages serves the attacker's pages, which target the API at api.
func evilPages(api string) http.Handler {
	mux := http.NewServeMux()
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html>\n<html><head><meta charset=\"utf-8\"></head><body>\n%s\n</body></html>\n",
				strings.ReplaceAll(body, "API", api))
		}
	}
	mux.HandleFunc("GET /cors.html", page(evilCORS))
	mux.HandleFunc("GET /form.html", page(evilForm))
	return mux
}

// evilCORS tries to read the API from another site three ways: with
// credentials and a custom header (preflighted), as a simple GET, and as an
// event stream. The browser must refuse all three: the API sends no CORS
// headers to this origin.
const evilCORS = `<pre id="results" data-done="false"></pre>
<script>
"use strict";
const results = {};
async function attempt(name, init) {
	try {
		const res = await fetch("API/api/me", init);
		results[name] = "read " + res.status + ": " + await res.text();
	} catch (e) {
		results[name] = "refused: " + e.name;
	}
}
function stream() {
	return new Promise((resolve) => {
		const es = new EventSource("API/events");
		es.addEventListener("tick", (e) => { es.close(); resolve("read " + e.data); });
		es.onerror = () => { es.close(); resolve("refused: error event"); };
	});
}
(async () => {
	await attempt("credentialed", {credentials: "include", headers: {"X-Client": "evil"}});
	await attempt("simple", {});
	results.events = await stream();
	const pre = document.getElementById("results");
	pre.textContent = JSON.stringify(results);
	pre.dataset.done = "true";
})();
</script>`

// evilForm posts a form to the API from another site, as a CSRF attack
// does: no script reads the answer, the browser navigates to it.
const evilForm = `<form id="f" method="post" action="API/api/notes">
<input name="title" value="` + forgedTitle + `">
</form>
<script>document.getElementById("f").submit();</script>`

// syncBuffer is a bytes.Buffer safe for concurrent use, for logs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func listenLoopback(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func port(ln net.Listener) string {
	_, p, _ := net.SplitHostPort(ln.Addr().String())
	return p
}

// serve serves h on ln until the test ends.
func serve(t testing.TB, ln net.Listener, h http.Handler) {
	t.Helper()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
