package waltz_test

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing/fstest"

	"github.com/waltz-go/waltz"
)

// FileServer serves the route's catch-all value as a file name; hostile
// names are answered 400 or 404, never with a file outside the root.
func ExampleFileServer() {
	site := fstest.MapFS{
		"index.html":      {Data: []byte("<h1>home</h1>")},
		"css/site.css":    {Data: []byte("body{}")},
		"docs/index.html": {Data: []byte("<h1>docs</h1>")},
		".env":            {Data: []byte("SECRET=1")},
	}
	r := waltz.New()
	r.Get("/static/*path", waltz.FileServer(site, waltz.FileServerOptions{CacheControl: "max-age=60"}))

	get(r, "GET", "/static/css/site.css", "Content-Type", "Cache-Control")
	get(r, "GET", "/static/")
	get(r, "GET", "/static/docs", "Location")
	get(r, "GET", "/static/docs/")
	get(r, "GET", "/static/.env")
	get(r, "GET", "/static/..%2F..%2Fetc%2Fpasswd")
	get(r, "POST", "/static/css/site.css", "Allow")
	// Output:
	// 200 Content-Type="text/css; charset=utf-8" Cache-Control="max-age=60" body{}
	// 200 <h1>home</h1>
	// 301 Location="./docs/"
	// 200 <h1>docs</h1>
	// 404 Not Found
	// 400 invalid file name
	// 405 Allow="GET, HEAD, OPTIONS" Method Not Allowed
}

// To serve a directory, open it as an os.Root: no name, ".." or symbolic
// link leads out of it (os.DirFS follows symbolic links wherever they go).
func ExampleFileServer_root() {
	dir, _ := os.MkdirTemp("", "waltz-example")
	defer os.RemoveAll(dir)
	_ = os.Mkdir(filepath.Join(dir, "public"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "public", "hello.txt"), []byte("hello"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret"), 0o644)
	_ = os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(dir, "public", "link.txt"))

	root, err := os.OpenRoot(filepath.Join(dir, "public"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer root.Close()
	r := waltz.New()
	r.Get("/files/*path", waltz.FileServer(root.FS(), waltz.FileServerOptions{}))

	get(r, "GET", "/files/hello.txt")
	get(r, "GET", "/files/link.txt")
	get(r, "GET", "/files/..%2Fsecret.txt")
	// Output:
	// 200 hello
	// 404 Not Found
	// 400 invalid file name
}

// A single-page application: page routes that name no file get the app's
// index.html; missing assets still get 404.
func ExampleFileServerOptions_fallback() {
	app := fstest.MapFS{
		"index.html": {Data: []byte("<div id=app></div>")},
		"app.js":     {Data: []byte("start()")},
	}
	r := waltz.New()
	r.Get("/*path", waltz.FileServer(app, waltz.FileServerOptions{Fallback: "index.html"}))

	get(r, "GET", "/users/42", "Cache-Control")
	get(r, "GET", "/app.js")
	get(r, "GET", "/missing.js")
	// Output:
	// 200 Cache-Control="no-cache" <div id=app></div>
	// 200 start()
	// 404 Not Found
}

func ExampleContext_EventStream() {
	r := waltz.New()
	r.Get("/clock", func(c *waltz.Context) error {
		es, err := c.EventStream()
		if err != nil {
			return err
		}
		for i, t := range []string{"12:00", "12:01"} {
			err := es.Send(waltz.Event{ID: fmt.Sprint(i + 1), Event: "tick", Data: t})
			if err != nil {
				return nil // the client has gone
			}
		}
		return es.Send(waltz.Event{Data: "bye\nfor now"})
	})
	srv := httptest.NewServer(r)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/clock")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp.Header.Get("Content-Type"))
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		fmt.Printf("%q\n", sc.Text())
	}
	// Output:
	// text/event-stream
	// "id: 1"
	// "event: tick"
	// "data: 12:00"
	// ""
	// "id: 2"
	// "event: tick"
	// "data: 12:01"
	// ""
	// "data: bye"
	// "data: for now"
	// ""
}
