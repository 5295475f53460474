package waltz

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// Benchmarks. Names carry key=value parts so benchstat can put routers side
// by side:
//
//	go test -run '^$' -bench . -benchmem -count 6 > new.txt
//	benchstat -col /router new.txt

// The hello app twice: raw net/http (one handler comparing the path, as the
// Polka benchmark's native app does) and waltz. Both write the same bytes the
// same way: a Content-Type value set without an allocation and the body in
// two writes, so the difference measured is routing and the Context.

// rawTextPlain is the raw app's Content-Type value, which only it uses.
var rawTextPlain = []string{"text/plain; charset=utf-8"}

func rawHello(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == "/":
		w.Header()["Content-Type"] = rawTextPlain
		io.WriteString(w, "Hello")
	case strings.HasPrefix(p, "/user/"):
		w.Header()["Content-Type"] = rawTextPlain
		io.WriteString(w, "Hello user ")
		io.WriteString(w, p[len("/user/"):])
	default:
		http.NotFound(w, r)
	}
}

func waltzHello() *Router {
	r := New()
	r.Get("/", func(c *Context) error {
		return c.Text(http.StatusOK, "Hello")
	})
	r.Get("/user/:id", func(c *Context) error {
		if err := c.Text(http.StatusOK, "Hello user "); err != nil {
			return err
		}
		_, err := io.WriteString(c.Writer, c.Param("id"))
		return err
	})
	return r
}

// benchHello runs bench for each route of the hello app on each of raw
// net/http and waltz, as sub-benchmarks route=NAME/router=NAME.
func benchHello(b *testing.B, bench func(b *testing.B, h http.Handler, path string)) {
	routes := []struct{ name, path string }{{"root", "/"}, {"user", "/user/123"}}
	routers := []struct {
		name string
		h    http.Handler
	}{{"raw", http.HandlerFunc(rawHello)}, {"waltz", waltzHello()}}
	for _, rt := range routes {
		for _, rr := range routers {
			b.Run("route="+rt.name+"/router="+rr.name, func(b *testing.B) { bench(b, rr.h, rt.path) })
		}
	}
}

// BenchmarkHello calls ServeHTTP directly with a reused request.
func BenchmarkHello(b *testing.B) {
	benchHello(b, func(b *testing.B, h http.Handler, path string) {
		benchServe(b, h, httptest.NewRequest(http.MethodGet, path, nil))
	})
}

// BenchmarkHelloTCP serves the hello app over loopback TCP and requests it
// from parallel keep-alive clients: the whole net/http stack, as a load
// generator sees it. One op is one request and its response.
func BenchmarkHelloTCP(b *testing.B) {
	benchHello(b, benchTCP)
}

func benchTCP(b *testing.B, h http.Handler, path string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 4 * runtime.GOMAXPROCS(0), DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := srv.URL + path
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := client.Get(url)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Errorf("status %d", res.StatusCode)
				return
			}
		}
	})
}

// BenchmarkRouting is the standard micro set, each request on a router that
// holds just the route it needs (GitHub: the whole GitHub API set).
func BenchmarkRouting(b *testing.B) {
	p5 := "/:a/:b/:c/:d/:e"
	p20, path20 := "", ""
	for c := 'a'; c < 'a'+20; c++ {
		p20 += "/:" + string(c)
		path20 += "/" + string(c)
	}
	for _, bc := range []struct {
		name, method, pattern, path string
	}{
		{"static", "GET", "/user/repos", "/user/repos"},
		{"param1", "GET", "/user/:name", "/user/gordon"},
		{"param5", "GET", p5, "/test/test/test/test/test"},
		{"param20", "GET", p20, path20},
		{"catchall", "GET", "/static/*path", "/static/css/site/main.css"},
		{"notfound", "GET", "/user/:name", "/nothing/here"},
		{"405", "POST", "/user/:name", "/user/gordon"},
	} {
		b.Run("case="+bc.name, func(b *testing.B) {
			r := New()
			r.Get(bc.pattern, nopHandler)
			benchServe(b, r, httptest.NewRequest(bc.method, bc.path, nil))
		})
	}
	gh := loadRoutes(b, "testdata/github.tsv")
	r := New()
	for _, rt := range gh {
		r.Handle(rt.Method, rt.Pattern, nopHandler)
	}
	b.Run("case=github_static", func(b *testing.B) {
		benchServe(b, r, httptest.NewRequest("GET", "/user/repos", nil))
	})
	b.Run("case=github_param2", func(b *testing.B) {
		benchServe(b, r, httptest.NewRequest("GET", "/repos/julienschmidt/httprouter/stargazers", nil))
	})
	b.Run("case=github_all", func(b *testing.B) {
		reqs := make([]*http.Request, len(gh))
		for i, rt := range gh {
			reqs[i] = httptest.NewRequest(rt.Method, rt.Pattern, nil)
		}
		w := newNopWriter()
		b.ReportAllocs()
		for b.Loop() {
			for _, req := range reqs {
				r.ServeHTTP(w, req)
			}
		}
	})
}

// BenchmarkRegister measures building a router with the GitHub API set; one
// op is the whole set.
func BenchmarkRegister(b *testing.B) {
	gh := loadRoutes(b, "testdata/github.tsv")
	b.ReportAllocs()
	for b.Loop() {
		r := New()
		for _, rt := range gh {
			r.Handle(rt.Method, rt.Pattern, nopHandler)
		}
	}
}
