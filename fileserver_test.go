package waltz

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

var modTime = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// testFS is a small site: files, an index, a directory without one,
// precompressed siblings, dotfiles.
func testFS() fstest.MapFS {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), ModTime: modTime} }
	return fstest.MapFS{
		"hello.txt":                 file("hello"),
		"index.html":                file("<h1>home</h1>"),
		"docs/index.html":           file("docs"),
		"docs/a b.txt":              file("a b"),
		"assets/app.js":             file("console.log('plain')"),
		"assets/app.js.br":          file("BR"),
		"assets/app.js.gz":          file("GZIP"),
		"assets/only.css":           file("body{}"),
		"assets/only.css.gz":        file("GZ-CSS"),
		"assets/blob":               file("\x00\x01binary"),
		"assets/blob.gz":            file("GZ-BLOB"),
		"assets/<x>&\"y\".txt":      file("odd"),
		"assets/.hidden":            file("hidden"),
		".env":                      file("SECRET=1"),
		".git/config":               file("SECRET"),
		".well-known/security.txt":  file("Contact: me"),
		"nested/deep/page/file.txt": file("deep"),
	}
}

// fileRouter serves fsys at /static/*path.
func fileRouter(tb testing.TB, fsys fs.FS, o FileServerOptions) *Router {
	tb.Helper()
	r := New()
	r.Get("/static/*path", FileServer(fsys, o))
	return r
}

// fserve sends one request through h with the given headers ("Key: value").
func fserve(tb testing.TB, h http.Handler, method, target string, headers ...string) *httptest.ResponseRecorder {
	tb.Helper()
	req := httptest.NewRequest(method, target, nil)
	for _, kv := range headers {
		k, v, _ := strings.Cut(kv, ": ")
		req.Header.Add(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestFileServer(t *testing.T) {
	r := fileRouter(t, testFS(), FileServerOptions{})
	lastMod := modTime.Format(http.TimeFormat)
	for _, tc := range []struct {
		method, target string
		headers        []string
		code           int
		body           string            // "" means do not check
		want           map[string]string // response headers; "" means absent
	}{
		{"GET", "/static/hello.txt", nil, 200, "hello", map[string]string{
			"Content-Type": "text/plain; charset=utf-8", "Last-Modified": lastMod, "Accept-Ranges": "bytes",
			"Content-Length": "5", "Cache-Control": "", "Vary": ""}},
		// RFC 9110 section 9.3.2: HEAD sends GET's headers, no body.
		{"HEAD", "/static/hello.txt", nil, 200, "", map[string]string{"Content-Length": "5"}},
		{"GET", "/static/", nil, 200, "<h1>home</h1>", map[string]string{"Content-Type": "text/html; charset=utf-8"}},
		{"GET", "/static/index.html", nil, 200, "<h1>home</h1>", nil},
		{"GET", "/static/docs", nil, 301, "", map[string]string{"Location": "./docs/"}},
		{"GET", "/static/docs?x=1&y", nil, 301, "", map[string]string{"Location": "./docs/?x=1&y"}},
		{"GET", "/static/docs/", nil, 200, "docs", nil},
		// A slash that came escaped is no slash of the URL's.
		{"GET", "/static/docs%2F", nil, 301, "", map[string]string{"Location": "./docs/"}},
		{"GET", "/static/docs%2f%2F?q", nil, 301, "", map[string]string{"Location": "./docs/?q"}},
		{"GET", "/static/nested%2Fdeep%2F", nil, 301, "", map[string]string{"Location": "./nested%2Fdeep/"}},
		{"GET", "/static/docs/%2F", nil, 301, "", map[string]string{"Location": "./"}},
		{"GET", "/static/docs/a%20b.txt", nil, 200, "a b", nil},
		{"GET", "/static/docs//a%20b.txt", nil, 200, "a b", nil},
		{"GET", "/static/docs/./a%20b.txt", nil, 200, "a b", nil},
		{"GET", "/static/nested/deep", nil, 301, "", map[string]string{"Location": "./deep/"}},
		{"GET", "/static/nested/deep/", nil, 404, "", nil}, // no index, no Browse
		{"GET", "/static/hello.txt/", nil, 404, "", nil},
		{"GET", "/static/missing.txt", nil, 404, "Not Found", nil},
		{"GET", "/static/missing", nil, 404, "Not Found", nil}, // no Fallback
		{"GET", "/static/hello.txt/x", nil, 404, "", nil},
		// RFC 9110 section 14.2: one range, 206.
		{"GET", "/static/hello.txt", []string{"Range: bytes=1-2"}, 206, "el", map[string]string{"Content-Range": "bytes 1-2/5"}},
		// Section 15.5.17: no overlap, 416.
		{"GET", "/static/hello.txt", []string{"Range: bytes=9-"}, 416, "", nil},
		// Section 13.1.3: not modified since.
		{"GET", "/static/hello.txt", []string{"If-Modified-Since: " + lastMod}, 304, "", nil},
		{"GET", "/static/hello.txt", []string{"If-Modified-Since: " + modTime.Add(-time.Hour).Format(http.TimeFormat)}, 200, "hello", nil},
		// Without ETag no tag is sent, and If-None-Match never matches.
		{"GET", "/static/hello.txt", []string{`If-None-Match: "x"`}, 200, "hello", map[string]string{"Etag": ""}},
		// Dotfiles are hidden, except .well-known (RFC 8615).
		{"GET", "/static/.env", nil, 404, "Not Found", nil},
		{"GET", "/static/.git/config", nil, 404, "", nil},
		{"GET", "/static/assets/.hidden", nil, 404, "", nil},
		{"GET", "/static/.well-known/security.txt", nil, 200, "Contact: me", nil},
		// The router answers other methods (RFC 9110 section 15.5.6).
		{"POST", "/static/hello.txt", nil, 405, "", map[string]string{"Allow": "GET, HEAD, OPTIONS"}},
	} {
		t.Run(tc.method+" "+tc.target+" "+strings.Join(tc.headers, ","), func(t *testing.T) {
			w := fserve(t, r, tc.method, tc.target, tc.headers...)
			if w.Code != tc.code {
				t.Fatalf("status: got %d, want %d (body %q)", w.Code, tc.code, w.Body)
			}
			if tc.body != "" && strings.TrimSpace(w.Body.String()) != tc.body {
				t.Errorf("body: got %q, want %q", w.Body, tc.body)
			}
			for k, v := range tc.want {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s: got %q, want %q", k, got, v)
				}
			}
		})
	}
}

// TestFileServerMethod: registered for another method, the handler itself
// answers 405 with Allow (RFC 9110 section 15.5.6).
func TestFileServerMethod(t *testing.T) {
	r := New()
	r.Post("/static/*path", FileServer(testFS(), FileServerOptions{}))
	w := fserve(t, r, "POST", "/static/hello.txt")
	if w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("got %d Allow=%q, want 405 Allow=%q", w.Code, w.Header().Get("Allow"), "GET, HEAD")
	}
}

func TestFileServerOptions(t *testing.T) {
	for _, tc := range []struct {
		name           string
		o              FileServerOptions
		target         string
		headers        []string
		code           int
		body           string
		want           map[string]string
		bodyNotContain string
	}{
		{"cache control", FileServerOptions{CacheControl: "public, max-age=60"}, "/static/hello.txt", nil, 200, "hello",
			map[string]string{"Cache-Control": "public, max-age=60"}, ""},
		{"cache control dropped on 416", FileServerOptions{CacheControl: "public, max-age=60"}, "/static/hello.txt",
			[]string{"Range: bytes=9-"}, 416, "", map[string]string{"Cache-Control": ""}, ""},
		{"index option", FileServerOptions{Index: "a b.txt"}, "/static/docs/", nil, 200, "a b", nil, ""},
		{"browse", FileServerOptions{Browse: true}, "/static/assets/", nil, 200, "",
			map[string]string{"Content-Type": "text/html; charset=utf-8"}, ".hidden"},
		{"browse keeps index", FileServerOptions{Browse: true}, "/static/docs/", nil, 200, "docs", nil, ""},
		{"fallback page", FileServerOptions{Fallback: "index.html", CacheControl: "max-age=9"}, "/static/users/42", nil, 200, "<h1>home</h1>",
			map[string]string{"Cache-Control": "no-cache", "Content-Type": "text/html; charset=utf-8"}, ""},
		{"fallback page slash", FileServerOptions{Fallback: "index.html"}, "/static/users/", nil, 200, "<h1>home</h1>", nil, ""},
		{"fallback not for assets", FileServerOptions{Fallback: "index.html"}, "/static/missing.js", nil, 404, "", nil, ""},
		{"fallback not for bad names", FileServerOptions{Fallback: "index.html"}, "/static/..%2Fx", nil, 400, "", nil, ""},
		{"fallback not for dotfiles", FileServerOptions{Fallback: "index.html"}, "/static/.env", nil, 404, "", nil, ""},
		{"fallback missing", FileServerOptions{Fallback: "nope.html"}, "/static/users", nil, 404, "", nil, ""},
		{"existing file beats fallback", FileServerOptions{Fallback: "index.html"}, "/static/hello.txt", nil, 200, "hello", nil, ""},
		{"dotfiles", FileServerOptions{Dotfiles: true}, "/static/.env", nil, 200, "SECRET=1", nil, ""},
		{"dotfiles listed", FileServerOptions{Dotfiles: true, Browse: true}, "/static/assets/", nil, 200, "", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := fserve(t, fileRouter(t, testFS(), tc.o), "GET", tc.target, tc.headers...)
			if w.Code != tc.code {
				t.Fatalf("status: got %d, want %d (body %q)", w.Code, tc.code, w.Body)
			}
			if tc.body != "" && strings.TrimSpace(w.Body.String()) != tc.body {
				t.Errorf("body: got %q, want %q", w.Body, tc.body)
			}
			for k, v := range tc.want {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s: got %q, want %q", k, got, v)
				}
			}
			if tc.bodyNotContain != "" && strings.Contains(w.Body.String(), tc.bodyNotContain) {
				t.Errorf("body: got %q, want no %q", w.Body, tc.bodyNotContain)
			}
		})
	}
}

// TestFileServerListing: names are escaped in text and link, directories
// end in '/', links are relative.
func TestFileServerListing(t *testing.T) {
	fsys := testFS()
	delete(fsys, "index.html")
	w := fserve(t, fileRouter(t, fsys, FileServerOptions{Browse: true}), "GET", "/static/")
	body := w.Body.String()
	for _, want := range []string{
		`<a href="./assets/">assets/</a>`,
		`<a href="./hello.txt">hello.txt</a>`,
		`<a href="./.well-known/">.well-known/</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("listing: got %q, want it to hold %q", body, want)
		}
	}
	w = fserve(t, fileRouter(t, testFS(), FileServerOptions{Browse: true}), "GET", "/static/assets/")
	if want := `<a href="./%3Cx%3E&amp;%22y%22.txt">&lt;x&gt;&amp;&#34;y&#34;.txt</a>`; !strings.Contains(w.Body.String(), want) {
		t.Errorf("listing: got %q, want it to hold %q", w.Body, want)
	}
	for _, hidden := range []string{".env", ".git", ".hidden"} {
		if strings.Contains(body+w.Body.String(), hidden) {
			t.Errorf("listing: got %q, want no %q", body, hidden)
		}
	}
}

// reversedFS is an fs.FS whose directories list their entries in reverse
// order, as a file system's own order may be any.
type reversedFS struct{ fstest.MapFS }

func (r reversedFS) Open(name string) (fs.File, error) {
	f, err := r.MapFS.Open(name)
	if d, ok := f.(fs.ReadDirFile); ok && err == nil {
		return reversedDir{d}, nil
	}
	return f, err
}

type reversedDir struct{ fs.ReadDirFile }

func (d reversedDir) ReadDir(n int) ([]fs.DirEntry, error) {
	es, err := d.ReadDirFile.ReadDir(n)
	slices.Reverse(es)
	return es, err
}

// TestFileServerListingOrder: a listing is sorted by name whatever order
// the file system gives, and leaves out a name FileServer would refuse
// (a control byte), which would link to a 400.
func TestFileServerListingOrder(t *testing.T) {
	file := &fstest.MapFile{Data: []byte("x")}
	fsys := reversedFS{fstest.MapFS{"d/b.txt": file, "d/a.txt": file, "d/c.txt": file, "d/tab\tname": file}}
	w := fserve(t, fileRouter(t, fsys, FileServerOptions{Browse: true}), "GET", "/static/d/")
	body := w.Body.String()
	a, b, c := strings.Index(body, "a.txt"), strings.Index(body, "b.txt"), strings.Index(body, "c.txt")
	if w.Code != 200 || a < 0 || !(a < b && b < c) {
		t.Errorf("listing: got %d %q, want a.txt, b.txt and c.txt in order", w.Code, body)
	}
	if strings.Contains(body, "tab") {
		t.Errorf("listing: got %q, want no link to the name with a tab", body)
	}
}

func TestFileServerETag(t *testing.T) {
	fsys := testFS()
	for _, f := range fsys {
		f.ModTime = time.Time{} // as embed.FS
	}
	r := fileRouter(t, fsys, FileServerOptions{ETag: true})
	w := fserve(t, r, "GET", "/static/hello.txt")
	tag := w.Header().Get("Etag")
	if w.Code != 200 || len(tag) < 3 || tag[0] != '"' || strings.HasPrefix(tag, "W/") {
		t.Fatalf("got %d Etag=%q, want 200 and a strong tag", w.Code, tag)
	}
	if lm := w.Header().Get("Last-Modified"); lm != "" {
		t.Errorf("Last-Modified: got %q, want none for a zero ModTime", lm)
	}
	for _, tc := range []struct {
		header string
		code   int
	}{
		{"If-None-Match: " + tag, 304},                     // RFC 9110 section 13.1.2
		{"If-None-Match: W/" + tag, 304},                   // weak comparison
		{`If-None-Match: "other", ` + tag, 304},            // a list
		{`If-None-Match: "other"`, 200},                    //
		{"If-Match: " + tag, 200},                          // section 13.1.1
		{`If-Match: "other"`, 412},                         //
		{"Range: bytes=0-0", 206},                          //
		{"If-None-Match: *", 304},                          //
		{"If-None-Match: " + tag[:len(tag)-2] + `x"`, 200}, // hostile: a near miss
		{"If-None-Match: \"\x00\"", 200},                   // hostile
		{"If-None-Match: " + strings.Repeat(tag+",", 1000), 304},
	} {
		t.Run(tc.header[:min(len(tc.header), 60)], func(t *testing.T) {
			k, v, _ := strings.Cut(tc.header, ": ")
			w := fserve(t, r, "GET", "/static/hello.txt", k+": "+v)
			if w.Code != tc.code {
				t.Errorf("got %d, want %d", w.Code, tc.code)
			}
		})
	}
	// Another file has another tag; the same file keeps its tag.
	if other := fserve(t, r, "GET", "/static/index.html").Header().Get("Etag"); other == tag || other == "" {
		t.Errorf("index.html Etag: got %q, want a tag other than %q", other, tag)
	}
	if again := fserve(t, r, "GET", "/static/hello.txt").Header().Get("Etag"); again != tag {
		t.Errorf("second Etag: got %q, want %q", again, tag)
	}
	// A changed file gets a new tag.
	fsys["hello.txt"].Data = []byte("hello, world")
	if changed := fserve(t, r, "GET", "/static/hello.txt").Header().Get("Etag"); changed == tag {
		t.Errorf("changed file Etag: got %q, want a new one", changed)
	}
}

func TestETagCacheBounded(t *testing.T) {
	ec := &etagCache{m: make(map[string]etagEntry)}
	fsys := fstest.MapFS{"f": {Data: []byte("x")}}
	fi, _ := fs.Stat(fsys, "f")
	for i := range maxCachedETags + 10 {
		f, _ := fsys.Open("f")
		if _, err := ec.tag(fmt.Sprint("name", i), fi, f.(io.ReadSeeker)); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if got := len(ec.m); got != maxCachedETags {
		t.Errorf("entries: got %d, want %d", got, maxCachedETags)
	}
}

// noSeekFS hands out files that cannot seek, as a zip.Reader does.
type noSeekFS struct{ fs.FS }

func (n noSeekFS) Open(name string) (fs.File, error) {
	f, err := n.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return struct{ fs.File }{f}, nil
}

func TestFileServerNoSeek(t *testing.T) {
	r := fileRouter(t, noSeekFS{testFS()}, FileServerOptions{ETag: true})
	for _, tc := range []struct {
		rng  string
		code int
		body string
	}{
		{"", 200, "hello"},
		{"bytes=1-2", 206, "el"},
		{"bytes=0-0,2-2", 206, ""},
	} {
		t.Run(tc.rng, func(t *testing.T) {
			var hs []string
			if tc.rng != "" {
				hs = []string{"Range: " + tc.rng}
			}
			w := fserve(t, r, "GET", "/static/hello.txt", hs...)
			if w.Code != tc.code || (tc.body != "" && w.Body.String() != tc.body) {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body, tc.code, tc.body)
			}
		})
	}
}

func TestFileServerPanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fsys  fs.FS
		o     FileServerOptions
		field string
	}{
		{"nil fs", nil, FileServerOptions{}, "fsys"},
		{"index with slash", testFS(), FileServerOptions{Index: "a/index.html"}, "Index"},
		{"index dot", testFS(), FileServerOptions{Index: "."}, "Index"},
		{"index dotdot", testFS(), FileServerOptions{Index: ".."}, "Index"},
		{"fallback absolute", testFS(), FileServerOptions{Fallback: "/index.html"}, "Fallback"},
		{"fallback dotdot", testFS(), FileServerOptions{Fallback: "../index.html"}, "Fallback"},
		{"cache control CRLF", testFS(), FileServerOptions{CacheControl: "max-age=1\r\nSet-Cookie: a=b"}, "CacheControl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.field) {
					t.Errorf("panic: got %q, want a waltz: message naming %s", msg, tc.field)
				}
			}()
			FileServer(tc.fsys, tc.o)
		})
	}
}

// rootSite makes dir/public with hello.txt and, outside it, dir/secret.txt,
// plus symbolic links inside public that lead out, and returns the fs.FS
// of an os.Root on public.
func rootSite(tb testing.TB) fs.FS {
	tb.Helper()
	dir := tb.TempDir()
	pub := filepath.Join(dir, "public")
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(pub, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("SECRET"), 0o644))
	must(os.WriteFile(filepath.Join(pub, "hello.txt"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(pub, "sub", "in.txt"), []byte("inside"), 0o644))
	if err := os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(pub, "link.txt")); err != nil {
		tb.Skipf("no symbolic links here: %v", err)
	}
	must(os.Symlink("..", filepath.Join(pub, "up")))
	must(os.Symlink(dir, filepath.Join(pub, "abs")))
	must(os.Symlink("sub/in.txt", filepath.Join(pub, "inlink.txt")))
	root, err := os.OpenRoot(pub)
	must(err)
	tb.Cleanup(func() { root.Close() })
	return root.FS()
}

// TestFileServerHostile sends hostile request targets over a real
// connection, byte for byte as written, to a FileServer on an os.Root.
// None may reach secret.txt, outside the root, and none may get a 500
// (net/http's own file server answers 500 to several of them).
func TestFileServerHostile(t *testing.T) {
	srv := httptest.NewServer(fileRouter(t, rootSite(t), FileServerOptions{}))
	defer srv.Close()
	long := strings.Repeat("a", 8<<10)
	for _, tc := range []struct {
		target string
		code   int
	}{
		{"/static/hello.txt", 200},
		{"/static/inlink.txt", 200}, // a link that stays inside
		{"/static/../secret.txt", 400},
		{"/static/sub/../../secret.txt", 400},
		{"/static/..%2Fsecret.txt", 400},
		{"/static/..%2F..%2Fsecret.txt", 400},
		{"/static/%2E%2E/secret.txt", 400},
		{"/static/%2e%2e%2fsecret.txt", 400},
		{"/static/.%2E/secret.txt", 400},
		{"/static/..%5Csecret.txt", 400},
		{"/static/%5C..%5Csecret.txt", 400},
		{`/static/..\secret.txt`, 400},
		{"/static/sub%5C..%5C..%5Csecret.txt", 400},
		{"/static/%00", 400},
		{"/static/hello.txt%00.html", 400},
		{"/static/hello.txt%00", 400},
		{"/static/%0d%0aSet-Cookie:%20a=b", 400},
		{"/static/%c0%ae%c0%ae/secret.txt", 400}, // overlong UTF-8 for '.'
		{"/static/%c0%afsecret.txt", 400},        // overlong UTF-8 for '/'
		{"/static/%ff", 400},
		{"/static/" + long, 400},
		{"/static/" + strings.Repeat("a", 256), 400},
		{"/static/" + strings.Repeat("a/", 513), 400},
		{"/static/....//secret.txt", 404},
		{"/static/...", 404},
		{"/static/link.txt", 404},       // symlink out of the root
		{"/static/up/secret.txt", 404},  // relative dir symlink out
		{"/static/abs/secret.txt", 404}, // absolute dir symlink out
		{"/static/up", 404},
		{"/static/hello.txt/..", 400},
		{"/static/hello.txt/x", 404}, // ENOTDIR
		{"/static//secret.txt", 301}, // the router's fixed-path redirect
		{"/static/%2Fsecret.txt", 404},
		{"/static/%2F%2Fsecret.txt", 404},
		{"/static/C:%5Csecret.txt", 400},
	} {
		name := tc.target
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			code, body := rawGet(t, srv.Listener.Addr().String(), tc.target)
			if code != tc.code {
				t.Errorf("status: got %d, want %d (body %q)", code, tc.code, body)
			}
			if strings.Contains(body, "SECRET") {
				t.Errorf("body: got %q, a file outside the root", body)
			}
		})
	}
}

// rawGet sends "GET target HTTP/1.1" as is on a new connection and returns
// the status and body.
func rawGet(tb testing.TB, addr, target string) (int, string) {
	tb.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target); err != nil {
		tb.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(b)
}

// TestFileServerPermission: an unreadable file is 403, not 500.
func TestFileServerPermission(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "locked.txt")
	if err := os.WriteFile(p, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	w := fserve(t, fileRouter(t, root.FS(), FileServerOptions{}), "GET", "/static/locked.txt")
	if w.Code != 403 {
		t.Errorf("got %d, want 403", w.Code)
	}
}

func TestFileName(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		name  string
		slash bool
		ok    bool
	}{
		{"", ".", true, true},
		{"a.txt", "a.txt", false, true},
		{"a/b/", "a/b", true, true},
		{"a//b", "a/b", false, true},
		{"./a", "a", false, true},
		{"a/.", "a", false, true},
		{".", ".", false, true},
		{"...", "...", false, true},
		{"..", "", false, false},
		{"a/..", "", false, false},
		{"../a", "", false, false},
		{`a\b`, "", false, false},
		{"a\x00", "", false, false},
		{"a\tb", "", false, false},
		{"a\x7fb", "", false, false},
		{"\xc0\xae", "", false, false},
		{strings.Repeat("a", maxFileElement), strings.Repeat("a", maxFileElement), false, true},
		{strings.Repeat("a", maxFileElement+1), "", false, false},
		{strings.Repeat("a/", maxFileName/2+1), "", false, false},
		{"日本/語.txt", "日本/語.txt", false, true},
	} {
		t.Run(tc.raw[:min(len(tc.raw), 40)], func(t *testing.T) {
			name, slash, ok := fileName(tc.raw)
			if ok != tc.ok || (ok && (name != tc.name || slash != tc.slash)) {
				t.Errorf("got %q %v %v, want %q %v %v", name, slash, ok, tc.name, tc.slash, tc.ok)
			}
		})
	}
}

// TestFileServerAllocs holds the per-request allocation budget of serving
// a small file from an fstest.MapFS; most are http.ServeContent's.
func TestFileServerAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	for _, tc := range []struct {
		name   string
		o      FileServerOptions
		header string
		allocs float64
	}{
		{"plain", FileServerOptions{}, "", 8},
		{"etag cached", FileServerOptions{ETag: true}, "", 9},
		{"precompressed", FileServerOptions{Precompressed: true}, "br", 13},
		{"304", FileServerOptions{ETag: true}, "If-None-Match: {tag}", 6}, // judged before http.ServeContent, which is not called
		{"206", FileServerOptions{}, "Range: bytes=0-3", 13},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := fileRouter(t, testFS(), tc.o)
			req := httptest.NewRequest("GET", "/static/assets/app.js", nil)
			if k, v, ok := strings.Cut(tc.header, ": "); ok {
				if v == "{tag}" {
					v = fserve(t, r, http.MethodGet, "/static/assets/app.js").Header().Get("Etag")
				}
				req.Header.Set(k, v)
			} else if tc.header != "" {
				req.Header.Set("Accept-Encoding", tc.header)
			}
			w := newNopWriter()
			got := testing.AllocsPerRun(100, func() {
				clear(w.H)
				r.ServeHTTP(w, req)
			})
			t.Logf("allocations: %v", got)
			if got > tc.allocs {
				t.Errorf("allocations: got %v, want at most %v", got, tc.allocs)
			}
		})
	}
}
