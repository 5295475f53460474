package benchmarks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/klauspost/compress/gzhttp"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// The middleware benchmarks serve one route, GET /, through one middleware
// on its own router (waltz's on waltz, chi's and gzhttp's on chi, the
// baseline "none" on waltz), into a writer that counts the bytes that
// would go on the wire and clears its header map each request (Compress
// reads the headers, so a reused map would change what it does). Each
// sub-benchmark is named body=…/mw=…, so `benchstat -col /mw` lines the
// middleware up.

// wireWriter is a ResponseWriter that counts body bytes and keeps headers.
type wireWriter struct {
	h    http.Header
	code int
	n    int64
}

func (w *wireWriter) Header() http.Header { return w.h }
func (w *wireWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}
func (w *wireWriter) WriteString(s string) (int, error) {
	w.n += int64(len(s))
	return len(s), nil
}
func (w *wireWriter) WriteHeader(code int) { w.code = code }

// A body is a response the benchmarks serve.
type body struct {
	name, ctype string
	data        []byte
}

// benchBodies are a JSON API answer (100 records, about 16 KB), an HTML
// page (a 100-row table, about 12 KB), and a body under the 1 KB minimum
// that Compress and gzhttp leave alone.
var benchBodies = func() []body {
	type rec struct {
		ID      int      `json:"id"`
		Name    string   `json:"name"`
		Email   string   `json:"email"`
		Active  bool     `json:"active"`
		Tags    []string `json:"tags"`
		Created string   `json:"created_at"`
	}
	recs := make([]rec, 100)
	for i := range recs {
		recs[i] = rec{i, fmt.Sprintf("User %d", i), fmt.Sprintf("user%d@example.com", i), i%3 != 0,
			[]string{"alpha", "beta", fmt.Sprint("t", i%7)}, fmt.Sprintf("2026-%02d-%02dT10:%02d:00Z", i%12+1, i%28+1, i%60)}
	}
	js, _ := json.Marshal(recs)
	var html strings.Builder
	html.WriteString("<!DOCTYPE html><html><head><title>Users</title><link rel=stylesheet href=/app.css></head><body><table>\n")
	for i := range 100 {
		fmt.Fprintf(&html, "<tr class=\"row\"><td>%d</td><td><a href=\"/users/%d\">User %d</a></td><td>user%d@example.com</td><td>%v</td></tr>\n",
			i, i, i, i, i%3 != 0)
	}
	html.WriteString("</table></body></html>\n")
	return []body{
		{"json", "application/json", js},
		{"html", "text/html; charset=utf-8", []byte(html.String())},
		{"small", "application/json", []byte(`{"id":1,"name":"User 1"}`)},
	}
}()

// serveBody returns a net/http handler writing b, setting its type with a
// shared header value as all the handlers here do.
func serveBody(b body) http.HandlerFunc {
	ctype := []string{b.ctype}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = ctype
		w.Write(b.data)
	}
}

func waltzWith(b body, mw ...waltz.Middleware) http.Handler {
	r := waltz.New()
	r.Use(mw...)
	h := serveBody(b)
	r.Get("/", func(c *waltz.Context) error { h(c.Writer, c.Request); return nil })
	return r
}

func chiWith(b body, mw func(http.Handler) http.Handler) http.Handler {
	r := chi.NewRouter()
	r.Use(mw)
	r.Get("/", serveBody(b))
	return r
}

// A peerMW is one middleware under test, built for a body.
type peerMW struct {
	name  string
	build func(b body) http.Handler
}

// compressPeers all compress at level 6, the default of compress/flate.
var compressPeers = []peerMW{
	{"none", func(b body) http.Handler { return waltzWith(b) }},
	{"waltz", func(b body) http.Handler {
		return waltzWith(b, middleware.Compress(middleware.CompressOptions{Level: 6}))
	}},
	{"chi", func(b body) http.Handler { return chiWith(b, chimw.Compress(6)) }},
	{"gzhttp", func(b body) http.Handler {
		wrap, err := gzhttp.NewWrapper(gzhttp.CompressionLevel(6))
		if err != nil {
			panic(err)
		}
		return chiWith(b, func(h http.Handler) http.Handler { return wrap(h) })
	}},
}

// BenchmarkCompress reports ns/op, allocs/op, throughput over the
// uncompressed body (MB/s) and the bytes sent (wireB/op).
func BenchmarkCompress(b *testing.B) {
	for _, bd := range benchBodies {
		for _, p := range compressPeers {
			b.Run("body="+bd.name+"/mw="+p.name, func(b *testing.B) {
				h := p.build(bd)
				req := newRequest("GET", "/")
				req.Header.Set("Accept-Encoding", "gzip, deflate, br;q=0")
				w := &wireWriter{h: make(http.Header)}
				h.ServeHTTP(w, req)
				compressed := w.h.Get("Content-Encoding") == "gzip"
				// chi has no minimum size: it compresses the small body too.
				if want := p.name != "none" && (bd.name != "small" || p.name == "chi"); compressed != want {
					b.Fatalf("compressed: got %v, want %v", compressed, want)
				}
				b.SetBytes(int64(len(bd.data)))
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					w.n = 0
					h.ServeHTTP(w, req)
				}
				b.ReportMetric(float64(w.n), "wireB/op")
			})
		}
	}
}

// BenchmarkETag serves the bodies tagged by waltz's ETag, and answers a
// revalidation with 304 (case=304). chi, gin and echo ship no ETag
// middleware; "none" is the same route without it.
func BenchmarkETag(b *testing.B) {
	peers := []peerMW{
		{"none", func(b body) http.Handler { return waltzWith(b) }},
		{"waltz", func(b body) http.Handler { return waltzWith(b, middleware.ETag(middleware.ETagOptions{})) }},
	}
	for _, bd := range benchBodies[:2] {
		for _, cs := range []string{"200", "304"} {
			for _, p := range peers {
				b.Run("body="+bd.name+"/case="+cs+"/mw="+p.name, func(b *testing.B) {
					h := p.build(bd)
					req := newRequest("GET", "/")
					w := &wireWriter{h: make(http.Header)}
					h.ServeHTTP(w, req)
					if cs == "304" {
						req.Header.Set("If-None-Match", w.h.Get("Etag"))
					}
					b.SetBytes(int64(len(bd.data)))
					b.ReportAllocs()
					for b.Loop() {
						clear(w.h)
						w.n = 0
						h.ServeHTTP(w, req)
					}
					if p.name == "waltz" && cs == "304" && w.code != http.StatusNotModified {
						b.Fatalf("got status %d, want 304", w.code)
					}
					b.ReportMetric(float64(w.n), "wireB/op")
				})
			}
		}
	}
}
