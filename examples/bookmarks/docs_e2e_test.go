package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestDocsBrowser renders the example's docs page (GET /docs) in headless
// Chromium: the command runs as a user runs it, on a loopback port, behind
// a proxy in this test that adds the policy the page must work under,
//
//	Content-Security-Policy: default-src 'self'; report-uri /csp-report
//
// to every answer, beside the page's own stricter one, and records each
// request the browser makes and each violation report it sends. The
// rendered DOM (chromium --dump-dom) must hold every operation of the
// document, nothing that loads from elsewhere and no script; the
// browser's console (--enable-logging=stderr) must hold no Content
// Security Policy message and the proxy no report; the stylesheet must
// have been fetched. A screenshot of the page goes to $WALTZ_ARTIFACTS
// (a temporary directory when unset). Then the same check runs on the
// page with violations planted in it, and must find each of them.
//
// It runs only when WALTZ_E2E is set; e2e.sh installs Chromium when missing
// and sets it. CHROMIUM names the browser binary (default "chromium").
func TestDocsBrowser(t *testing.T) {
	if os.Getenv("WALTZ_E2E") == "" {
		t.Skip("set WALTZ_E2E=1 to render the docs page in headless Chromium (examples/bookmarks/e2e.sh does)")
	}
	chrome := cmp.Or(os.Getenv("CHROMIUM"), "chromium")
	if _, err := exec.LookPath(chrome); err != nil {
		t.Fatalf("WALTZ_E2E is set but there is no browser: %v (run examples/bookmarks/e2e.sh, which installs it)", err)
	}
	addr := startCommand(t)
	// The 3.2 document, which the page is made from: it holds the QUERY
	// search, which 3.1 has no field for.
	ops := documentOperations(t, "http://"+addr+"/openapi-3.2.json")
	if len(ops) < 4 {
		t.Fatalf("the document has %d operations, want the example's 4 and more: %q", len(ops), ops)
	}

	t.Run("the page", func(t *testing.T) {
		p := startProxy(t, addr, false)
		run := render(t, chrome, p.url+"/docs", "--dump-dom")
		dom := run.stdout
		for _, op := range ops {
			article := regexp.MustCompile(`(?s)<article id="` + regexp.QuoteMeta(op.anchor()) + `" class="op">(.*?)</article>`).FindStringSubmatch(dom)
			heading := `<span class="method ` + strings.ToLower(op.method) + `">` + op.method + `</span> <code class="path">` + html.EscapeString(op.path) + `</code>`
			if article == nil || !strings.Contains(article[1], heading) {
				t.Errorf("%s %s (%s): not in the rendered page as an article with heading %s", op.method, op.path, op.id, heading)
			}
		}
		for _, bad := range externalLoads(dom) {
			t.Errorf("rendered page: %s", bad)
		}
		if v := p.violations(run.stderr); len(v) > 0 {
			t.Errorf("the page breaks the Content-Security-Policy:\n%s", strings.Join(v, "\n"))
		}
		reqs := p.requests()
		if !slices.Contains(reqs, "GET /docs?css 200") {
			t.Errorf("the browser did not load the stylesheet; its requests: %q", reqs)
		}
		for _, r := range reqs {
			if !strings.HasPrefix(r, "GET /docs ") && !strings.HasPrefix(r, "GET /docs?css ") && !strings.HasPrefix(r, "GET /favicon.ico ") {
				t.Errorf("the page made a request for something else: %s", r)
			}
		}

		dir := os.Getenv("WALTZ_ARTIFACTS")
		if dir == "" {
			dir = t.TempDir()
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(dir, "bookmarks-docs.png")
		os.Remove(shot)
		run = render(t, chrome, p.url+"/docs", "--screenshot="+shot, "--window-size=1280,5600", "--hide-scrollbars")
		if v := p.violations(run.stderr); len(v) > 0 {
			t.Errorf("screenshot run: the page breaks the Content-Security-Policy:\n%s", strings.Join(v, "\n"))
		}
		png, err := os.ReadFile(shot)
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 20<<10 {
			t.Fatalf("screenshot %s: %d bytes, %v; want a PNG of the page\nchromium: %s", shot, len(png), err, tail(run.stderr, 2000))
		}
		t.Logf("screenshot: %s (%d KiB)", shot, len(png)>>10)
	})

	// The check above must fail when the page breaks the policy: the proxy
	// plants an inline style element, a style attribute, an inline script
	// and an image from another origin (localhost, where the page is on
	// 127.0.0.1, both loopback) into the page, and each must be reported.
	t.Run("violations planted in the page are caught", func(t *testing.T) {
		p := startProxy(t, addr, true)
		run := render(t, chrome, p.url+"/docs", "--dump-dom")
		console := p.violations(run.stderr)
		if len(console) == 0 {
			t.Fatalf("no violation found in a page with four; chromium stderr:\n%s", tail(run.stderr, 3000))
		}
		for _, directive := range []string{"style-src-elem", "style-src-attr", "script-src-elem", "img-src"} {
			if !slices.ContainsFunc(console, func(v string) bool { return strings.Contains(v, `"`+directive+`"`) }) {
				t.Errorf("the planted %s violation is not reported; found:\n%s", directive, strings.Join(console, "\n"))
			}
		}
		if !slices.ContainsFunc(console, func(v string) bool { return strings.HasPrefix(v, "console: ") }) {
			t.Errorf("the console shows no violation; found:\n%s", strings.Join(console, "\n"))
		}
		bad := externalLoads(run.stdout)
		if len(bad) == 0 {
			t.Error("the rendered page with a planted script and image passes the DOM check")
		}
		var caught []string
		for _, v := range append(console, bad...) {
			caught = append(caught, v[:min(len(v), 160)])
		}
		t.Logf("caught:\n%s", strings.Join(caught, "\n"))
	})
}

const browserRunTimeout = 90 * time.Second

type browserRun struct{ stdout, stderr string }

// render runs headless Chromium once on url with a fresh profile and no
// network but what the page asks for, its console logged to stderr.
func render(t testing.TB, chrome, url string, args ...string) browserRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserRunTimeout)
	defer cancel()
	all := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--no-proxy-server",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, chrome, append(all, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", chrome, url, err, tail(stderr.String(), 2000))
	}
	return browserRun{stdout.String(), stderr.String()}
}

// startCommand runs the example's command as a user does, on a free
// loopback port, until the test ends, and returns the address it
// listens on.
func startCommand(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WALTZ_EXAMPLE_MAIN=1", "WALTZ_EXAMPLE_ARGS=-addr 127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatal("the command said nothing")
	}
	m := regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("the command said %q, want ... listening on 127.0.0.1:port", lines.Text())
	}
	go io.Copy(io.Discard, stderr)
	return m[1]
}

type docOp struct{ method, path, id string }

// anchor is the operation's place on the page: its ID with what is not
// a letter, digit, '-', '_' or '.' turned into '-'.
func (o docOp) anchor() string {
	return "op-" + regexp.MustCompile(`[^A-Za-z0-9._-]`).ReplaceAllString(o.id, "-")
}

// documentOperations reads the operations of the OpenAPI document at url.
func documentOperations(t testing.TB, url string) []docOp {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&d); err != nil {
		t.Fatal(err)
	}
	var ops []docOp
	for path, item := range d.Paths {
		for method, raw := range item {
			if !slices.Contains([]string{"get", "put", "post", "delete", "options", "head", "patch", "trace", "query"}, method) {
				continue
			}
			var op struct {
				ID string `json:"operationId"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			ops = append(ops, docOp{strings.ToUpper(method), path, op.ID})
		}
	}
	return ops
}

var (
	elementRE = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*/?>`)
	attrRE    = regexp.MustCompile(`\s+([^\s=>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?`)
)

// externalLoads returns what in dom would load or run something: script
// and other embedding elements, inline handlers and styles, and any src,
// or href that is not a place on the page or its stylesheet.
func externalLoads(dom string) []string {
	var bad []string
	for _, el := range elementRE.FindAllStringSubmatch(dom, -1) {
		name := strings.ToLower(el[1])
		switch name {
		case "script", "style", "iframe", "img", "object", "embed", "frame", "base", "form", "svg", "video", "audio", "source":
			bad = append(bad, "a <"+name+"> element")
		}
		for _, a := range attrRE.FindAllStringSubmatch(el[2], -1) {
			attr, val := strings.ToLower(a[1]), html.UnescapeString(strings.Trim(a[2], `"'`))
			switch {
			case strings.HasPrefix(attr, "on"), attr == "style":
				bad = append(bad, fmt.Sprintf("<%s %s=%q>", name, attr, val))
			case attr == "href" && !strings.HasPrefix(val, "#") && !(name == "link" && val == "?css"):
				bad = append(bad, fmt.Sprintf("<%s href=%q>", name, val))
			case slices.Contains([]string{"src", "srcset", "action", "formaction", "poster", "data", "ping", "background"}, attr):
				bad = append(bad, fmt.Sprintf("<%s %s=%q>", name, attr, val))
			}
		}
	}
	return bad
}

// proxy stands between the browser and the command: it adds the policy
// the page must load under and keeps what the browser asked and reported.
type proxy struct {
	url     string
	mu      sync.Mutex
	log     []string
	reports []string
}

const testPolicy = "default-src 'self'; report-uri /csp-report"

// startProxy serves a proxy to the command at addr on a loopback port
// until the test ends. With plant, it puts four violations of the policy
// into the page.
func startProxy(t *testing.T, addr string, plant bool) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{url: "http://" + ln.Addr().String()}
	_, port, _ := net.SplitHostPort(addr)
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: addr})
	rp.ModifyResponse = func(res *http.Response) error {
		res.Header.Add("Content-Security-Policy", testPolicy)
		if plant && res.Request.URL.Path == "/docs" && res.Request.URL.RawQuery == "" {
			body, err := io.ReadAll(res.Body)
			if err != nil {
				return err
			}
			res.Body.Close()
			planted := `<style>h1 { color: red }</style><p style="color: red">planted</p>` +
				`<script>document.title = "planted"</script><img src="http://localhost:` + port + `/docs?css" alt="">`
			body = bytes.Replace(body, []byte("<main>"), []byte("<main>"+planted), 1)
			res.Body = io.NopCloser(bytes.NewReader(body))
			res.ContentLength = int64(len(body))
			res.Header.Del("Content-Length")
			res.Header.Del("ETag")
		}
		return nil
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/csp-report" {
			b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
			p.mu.Lock()
			p.reports = append(p.reports, string(b))
			p.mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		rp.ServeHTTP(rec, r)
		p.mu.Lock()
		p.log = append(p.log, fmt.Sprintf("%s %s %d", r.Method, r.URL.RequestURI(), rec.code))
		p.mu.Unlock()
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

func (p *proxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.log)
}

var cspConsoleRE = regexp.MustCompile(`(?i)[^\n]*content security policy[^\n]*`)

// violations returns each policy violation the browser showed: the
// console's messages in stderr (as "console: ..."), and the reports it
// sent, each as its violated directive (`report: "img-src" ...`). The
// browser has exited when this is called; it waits a moment for the
// proxy to finish taking a report sent just before.
func (p *proxy) violations(stderr string) []string {
	var vs []string
	for _, m := range cspConsoleRE.FindAllString(stderr, -1) {
		vs = append(vs, "console: "+strings.TrimSpace(m))
	}
	time.Sleep(300 * time.Millisecond)
	p.mu.Lock()
	reports := slices.Clone(p.reports)
	p.reports = nil
	p.mu.Unlock()
	for _, r := range reports {
		var rep struct {
			Report struct {
				Directive string `json:"effective-directive"`
				Blocked   string `json:"blocked-uri"`
			} `json:"csp-report"`
		}
		json.Unmarshal([]byte(r), &rep)
		vs = append(vs, fmt.Sprintf("report: %q blocked %q", rep.Report.Directive, rep.Report.Blocked))
	}
	return vs
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (s *statusRecorder) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
