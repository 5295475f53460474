package reliability

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// secret is the content of a file just outside the file server's root: no
// answer may ever contain it.
const secret = "reliability-secret-outside-the-root"

// hostileApp serves a few routes, redirects to them, a Bind route, and
// dir/public three ways: http.FileServerFS mounted at /static, and
// waltz.FileServer at /assets/*name over os.DirFS and at /rooted/*name
// over an os.Root. dir/secret.txt is outside that root, and
// public/link.txt is a symbolic link to it.
func hostileApp(tb testing.TB) *waltz.Router {
	tb.Helper()
	dir := tb.TempDir()
	pub := filepath.Join(dir, "public")
	must(tb, os.MkdirAll(filepath.Join(pub, "sub"), 0o755))
	must(tb, os.WriteFile(filepath.Join(pub, "hello.txt"), []byte("hello from the root\n"), 0o644))
	must(tb, os.WriteFile(filepath.Join(pub, "sub", "index.html"), []byte("<p>sub</p>\n"), 0o644))
	must(tb, os.WriteFile(filepath.Join(dir, "secret.txt"), []byte(secret+"\n"), 0o644))
	must(tb, os.Symlink(filepath.Join("..", "secret.txt"), filepath.Join(pub, "link.txt")))
	root, err := os.OpenRoot(pub)
	must(tb, err)
	tb.Cleanup(func() { root.Close() })

	r := newApp()
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "home") })
	r.Get("/users/:id", func(c *waltz.Context) error { return c.JSON(http.StatusOK, map[string]string{"id": c.Param("id")}) })
	r.Get("/evil.com", func(c *waltz.Context) error { return c.Text(http.StatusOK, "a route named like a host") })
	r.Get("/docs/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "docs") })
	r.Post("/bind", func(c *waltz.Context) error {
		var v struct{ Name string }
		if err := c.Bind(&v); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, v)
	})
	r.Mount("/static", http.FileServerFS(os.DirFS(pub)))
	r.Get("/assets/*name", waltz.FileServer(os.DirFS(pub), waltz.FileServerOptions{}))
	r.Get("/rooted/*name", waltz.FileServer(root.FS(), waltz.FileServerOptions{}))
	return r
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// req is a request head for path with the given method and extra header
// lines (each ending in CRLF).
func req(method, path, extra string) string {
	return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n"
}

func get(path string) string { return req(http.MethodGet, path, "") }

// deep is JSON nested n arrays deep.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestReliabilityHostileInput sends hostile requests over raw TCP. Every
// answer must be of the status class its row wants (a 4xx, mostly; a 3xx
// for a redirect; net/http's own 431 or 501 where it answers first), never
// a 500 produced by waltz, never the content of a file outside the file
// server's root, and never a Location off the host; afterwards the server
// still serves and goroutines and heap are back to the baseline.
func TestReliabilityHostileInput(t *testing.T) {
	s := startServer(t, hostileApp(t), serverLimits())
	base := measure()
	for _, row := range slices.Concat(pathRows(), traversalRows(), redirectRows(), methodHeaderRows(), bodyRows()) {
		t.Run(row.name, func(t *testing.T) {
			status, loc, body, err := exchange(s.addr, row.head, row.body, row.stream, row.chunked)
			if err != nil {
				t.Fatalf("got no answer: %v", err)
			}
			t.Logf("answered %d, Location %q", status, loc)
			if !statusIn(status, row.want) {
				t.Errorf("status: got %d, want %s", status, row.want)
			}
			if strings.Contains(body, secret) {
				t.Errorf("body: got the content of a file outside the root")
			}
			if loc != "" && !onHost(loc) {
				t.Errorf("Location: got %q, want a reference that stays on the host", loc)
			}
		})
	}
	if status, _, body, err := exchange(s.addr, get("/"), "", 0, false); err != nil || status != http.StatusOK || body != "home" {
		t.Errorf("GET / after the hostile input: got %d %q (%v), want 200 \"home\"", status, body, err)
	}
	after := settle(t, base, 5*time.Second)
	t.Logf("baseline %v; after %v", base, after)
}

// pathRows are the control rows (the routes and file servers answer at
// all) and hostile paths: long, many segments, bad bytes and escapes.
func pathRows() []hostileRow {
	return []hostileRow{
		// Control rows: the routes and the mount answer at all.
		{name: "home", head: get("/"), want: "2xx"},
		{name: "a file in the root", head: get("/static/hello.txt"), want: "2xx"},
		{name: "a file in the root, by waltz.FileServer", head: get("/assets/hello.txt"), want: "2xx"},
		{name: "a file in the os.Root", head: get("/rooted/hello.txt"), want: "2xx"},
		{name: "bind", head: req(http.MethodPost, "/bind", "Content-Type: application/json\r\nContent-Length: 15\r\n"), body: `{"Name":"ada"}` + "\n", want: "2xx"},

		{name: "8 KB path", head: get("/" + strings.Repeat("a", 8<<10)), want: "404"},
		{name: "1 MB path", head: get("/" + strings.Repeat("a", 1<<20)), want: "404"}, // within net/http's limit, 1 MB + 4 KB
		{name: "2 MB path", head: get("/" + strings.Repeat("a", 2<<20)), want: "431"}, // net/http's, RFC 6585 section 5
		{name: "10000 segments", head: get(strings.Repeat("/a", 10000)), want: "404"},
		{name: "10000 param segments", head: get("/users" + strings.Repeat("/1", 10000)), want: "404"},
		{name: "10000 empty segments", head: get(strings.Repeat("/", 10000) + "users/1"), want: "3xx"}, // to /users/1
		{name: "NUL byte", head: get("/a\x00b"), want: "400"},
		{name: "control bytes", head: get("/a\x01\x1b\x7fb"), want: "400"},
		{name: "raw invalid UTF-8", head: get("/\xff\xfe\xfd"), want: "404"},
		{name: "escaped invalid UTF-8 in a param", head: get("/users/%ff%fe"), want: "2xx"},
		{name: "escaped invalid UTF-8", head: get("/%ff%fe/%c0%af"), want: "404"},
		{name: "malformed escape", head: get("/%zz"), want: "400"},
		{name: "truncated escape", head: get("/users/%"), want: "400"},
		{name: "half an escape", head: get("/users/%2"), want: "400"},
		{name: "escaped NUL", head: get("/users/%00"), want: "2xx"},
	}
}

// redirectRows try to make the router's redirects, or a file server's,
// send the client to another host: a Location must stay on the host.
func redirectRows() []hostileRow {
	return []hostileRow{
		{name: "//evil.com", head: get("//evil.com"), want: "3xx|4xx"},
		{name: "//evil.com/", head: get("//evil.com/"), want: "3xx|4xx"},
		{name: `/\evil.com`, head: get(`/\evil.com`), want: "3xx|4xx"},
		{name: `/\evil.com/`, head: get(`/\evil.com/`), want: "3xx|4xx"},
		{name: "/%2F%2Fevil.com", head: get("/%2F%2Fevil.com"), want: "3xx|4xx"},
		{name: "/%2F%2Fevil.com/", head: get("/%2F%2Fevil.com/"), want: "3xx|4xx"},
		{name: "/%5Cevil.com/", head: get("/%5Cevil.com/"), want: "3xx|4xx"},
		{name: "///evil.com/", head: get("///evil.com/"), want: "3xx|4xx"},
		{name: "/./evil.com/", head: get("/./evil.com/"), want: "3xx|4xx"},
		{name: "/docs/..//evil.com", head: get("/docs/..//evil.com"), want: "3xx|4xx"},
		{name: "//evil.com/docs", head: get("//evil.com/docs"), want: "3xx|4xx"},
		{name: "/static//evil.com/", head: get("/static//evil.com/"), want: "3xx|4xx"},
		{name: "/static/sub/index.html", head: get("/static/sub/index.html"), want: "3xx"},
		{name: "/static//evil.com/sub/index.html", head: get("/static//evil.com/sub/index.html"), want: "3xx|4xx"},
	}
}

// methodHeaderRows are absurd methods and headers.
func methodHeaderRows() []hostileRow {
	return []hostileRow{
		{name: "unknown method", head: req("FROBNICATE", "/", ""), want: "405"},
		{name: "lower-case method", head: req("get", "/", ""), want: "405"},
		{name: "NUL in method", head: req("GE\x00T", "/", ""), want: "400"},
		{name: "1 MB method", head: req(strings.Repeat("M", 1<<20), "/", ""), want: "405"},
		{name: "2 MB method", head: req(strings.Repeat("M", 2<<20), "/", ""), want: "431"},
		{name: "CONNECT to a path", head: req(http.MethodConnect, "/", ""), want: "4xx"},
		{name: "TRACE", head: req(http.MethodTrace, "/", ""), want: "405"},

		// Headers.
		{name: "10000 short headers", head: req(http.MethodGet, "/", headers(10000, 8)), want: "2xx"}, // 170 KB: under net/http's 1 MB
		{name: "10000 long headers", head: req(http.MethodGet, "/", headers(10000, 128)), want: "431"},
		{name: "no Host", head: "GET / HTTP/1.1\r\n\r\n", want: "400"},
		{name: "two Content-Lengths", head: req(http.MethodPost, "/bind", "Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n"), body: "{}", want: "400"},
		{name: "unknown Transfer-Encoding", head: req(http.MethodPost, "/bind", "Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n"), want: "501"}, // net/http's, RFC 9112 section 6.1

	}
}

// bodyRows are huge and deeply nested bodies. The streamed ones open a
// JSON string, so that Bind reads on to its limit.
func bodyRows() []hostileRow {
	const mb100 = 100 << 20 // bytes
	return []hostileRow{
		{name: "100 MB with Content-Length to Bind", head: req(http.MethodPost, "/bind", fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", 1+mb100)), body: `"`, stream: mb100, want: "413"},
		{name: "100 MB chunked to Bind", head: req(http.MethodPost, "/bind", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"), body: "1\r\n\"\r\n", stream: mb100, chunked: true, want: "413"},
		{name: "100 MB to a 404", head: req(http.MethodPost, "/nowhere", fmt.Sprintf("Content-Length: %d\r\n", mb100)), stream: mb100, want: "404"},
		// 10000 levels are JSON the decoder reads (its limit, as
		// encoding/json's), of another type than /bind's struct: 422;
		// one level more is refused as it is read: 400.
		{name: "JSON nested 10000 deep", head: req(http.MethodPost, "/bind", fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", 2*10000)), body: deep(10000), want: "422"},
		{name: "JSON nested 10001 deep", head: req(http.MethodPost, "/bind", fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", 2*10001)), body: deep(10001), want: "400"},
		{name: "JSON nested 100000 deep", head: req(http.MethodPost, "/bind", fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", 2*100000)), body: deep(100000), want: "400"},
		{name: "JSON objects nested 10000 deep", head: req(http.MethodPost, "/bind", fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", 6*10000)), body: strings.Repeat(`{"a":`, 10000) + strings.Repeat("}", 10000), want: "400"},
	}
}

// hostileRow is a request to send over raw TCP and the status classes of
// the answers that are right.
type hostileRow struct {
	name    string
	head    string
	body    string // sent after head
	stream  int64  // then this many more body bytes, as they are read, stopping at the first error
	chunked bool   // stream them as chunks
	want    string // status classes, such as "4xx" or "3xx|4xx", or exact codes
}

// traversalRows tries to reach secret.txt, outside the root, through each
// of the three file servers of hostileApp, with dot segments (RFC 3986
// section 5.2.4) raw and escaped, backslashes, and the absolute form.
func traversalRows() []hostileRow {
	var rows []hostileRow
	for _, prefix := range []string{"/static", "/assets", "/rooted"} {
		for _, tr := range []struct{ name, path, want string }{
			{"..", "/../secret.txt", "4xx"},
			{"%2e%2e", "/%2e%2e/secret.txt", "4xx"},
			{"..%2f", "/..%2fsecret.txt", "4xx"},
			{"%2e%2e%2f", "/%2e%2e%2fsecret.txt", "4xx"},
			{"..%5c", "/..%5csecret.txt", "4xx"},
			{`..\`, `/..\secret.txt`, "4xx"},
			{"//..", "//../secret.txt", "3xx|4xx"},
			{"./..", "/./../secret.txt", "4xx"},
			{"double-escaped", "/%252e%252e/secret.txt", "4xx"},
			{"deep", "/sub/../../secret.txt", "4xx"},
			{"escaped deep", "/sub/%2e%2e%2f%2e%2e%2fsecret.txt", "4xx"},
			{"absolute path", "//etc/passwd", "3xx|4xx"},
			{"escaped absolute path", "/%2fetc%2fpasswd", "3xx|4xx"},
			{"NUL", "/hello.txt%00.png", "4xx"},
		} {
			want := tr.want
			if prefix == "/static" && tr.name == "NUL" {
				// http.FileServerFS hands the NUL to os.DirFS, whose open(2)
				// fails with EINVAL, which net/http answers 500: its answer,
				// not waltz's. waltz.FileServer answers 400.
				want = "500"
			}
			rows = append(rows, hostileRow{name: "traversal " + prefix + " " + tr.name, head: get(prefix + tr.path), want: want})
		}
		rows = append(rows, hostileRow{name: "traversal " + prefix + " absolute-form", head: get("http://127.0.0.1" + prefix + "/../secret.txt"), want: "4xx"})
	}
	// A symbolic link out of the root: os.Root refuses to follow it.
	return append(rows, hostileRow{name: "symlink out of an os.Root", head: get("/rooted/link.txt"), want: "4xx"})
}

// headers returns n header lines with values of the given length.
func headers(n, length int) string {
	var b strings.Builder
	v := strings.Repeat("v", length)
	for i := range n {
		fmt.Fprintf(&b, "X-H-%d: %s\r\n", i, v)
	}
	return b.String()
}

// exchange sends head and body on a new connection to addr, then streams
// stream more bytes as the server reads them, and returns the status,
// Location and (up to 1 MiB of) body of the answer. The writing stops at
// the first error, such as the server closing the connection after
// answering; everything is bounded by a 30 s deadline.
func exchange(addr, head, body string, stream int64, chunked bool) (status int, loc, text string, err error) {
	conn, err := dialRaw(addr, 30*time.Second)
	if err != nil {
		return 0, "", "", err
	}
	defer conn.Close()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		w := bufio.NewWriterSize(conn, 64<<10)
		w.WriteString(head)
		w.WriteString(body)
		chunk := strings.Repeat("x", 64<<10)
		for sent := int64(0); sent < stream; sent += int64(len(chunk)) {
			if chunked {
				fmt.Fprintf(w, "%x\r\n%s\r\n", len(chunk), chunk)
			} else {
				w.WriteString(chunk)
			}
			if w.Flush() != nil {
				return
			}
		}
		if chunked {
			w.WriteString("0\r\n\r\n")
		}
		w.Flush()
	}()
	resp, b, _ := readResponse(conn, http.MethodGet, 1<<20)
	conn.Close() // stops the writer, if the server answered before reading it all
	<-wrote
	if resp == nil {
		return 0, "", "", io.ErrUnexpectedEOF
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(b), nil
}

// statusIn reports whether code matches want: "|"-separated exact codes
// ("404") or classes ("4xx").
func statusIn(code int, want string) bool {
	for w := range strings.SplitSeq(want, "|") {
		if w == fmt.Sprint(code) || (strings.HasSuffix(w, "xx") && w[0] == byte('0'+code/100)) {
			return true
		}
	}
	return false
}

// onHost reports whether the Location loc, resolved as a browser would
// against a page of http://127.0.0.1 (a backslash read as a slash, per the
// WHATWG URL standard for special schemes), stays on that host.
func onHost(loc string) bool {
	ref, err := url.Parse(strings.ReplaceAll(loc, `\`, "/"))
	if err != nil {
		return false
	}
	base := &url.URL{Scheme: "http", Host: "127.0.0.1", Path: "/static/a/b"}
	return base.ResolveReference(ref).Host == "127.0.0.1"
}
