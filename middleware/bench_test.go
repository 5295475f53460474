package middleware

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// benchServe runs req through h b.N times with a writer that keeps one
// header map and drops the body, reporting allocations.
func benchServe(b *testing.B, h http.Handler, req *http.Request) {
	b.Helper()
	w := &nopWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

// benchRouter returns a router with mw on GET "/text" (a short text
// body), "/big" (4 KiB of JSON) and "/stream" (a body flushed twice);
// the handlers allocate nothing of their own but the text's header.
func benchRouter(mw ...waltz.Middleware) *waltz.Router {
	big := []byte(strings.Repeat(`{"name":"waltz","n":12345},`, 150))
	r := waltz.New()
	r.Use(mw...)
	r.Get("/text", func(c *waltz.Context) error { return c.Text(http.StatusOK, "hello, world") })
	r.Get("/big", func(c *waltz.Context) error { return c.Blob(http.StatusOK, "application/json", big) })
	r.Get("/stream", func(c *waltz.Context) error {
		c.Writer.Header().Set("Content-Type", "text/plain")
		for range 2 {
			if _, err := c.Writer.Write(big[:512]); err != nil {
				return err
			}
			http.NewResponseController(c.Writer).Flush()
		}
		return nil
	})
	return r
}

func BenchmarkETag(b *testing.B) {
	r := benchRouter(ETag(ETagOptions{}))
	under := benchRouter(Compress(CompressOptions{}), ETag(ETagOptions{}))
	tag := func(h http.Handler, path string) string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Header().Get("Etag")
	}
	for _, tc := range []struct {
		name, path, inm string
		h               http.Handler
	}{
		{"text", "/text", "", r},
		{"big", "/big", "", r},
		{"304", "/big", tag(r, "/big"), r},
		{"stream", "/stream", "", r},
		{"under-compress", "/big", "", under},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			if tc.inm != "" {
				req.Header.Set("If-None-Match", tc.inm)
			}
			benchServe(b, tc.h, req)
		})
	}
}

func BenchmarkCompress(b *testing.B) {
	r := benchRouter(Compress(CompressOptions{}))
	for _, tc := range []struct{ name, path, ae string }{
		{"gzip", "/big", "gzip"},
		{"small", "/text", "gzip"},
		{"identity", "/big", ""},
		{"stream", "/stream", "gzip"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, tc.path, nil)
			if tc.ae != "" {
				req.Header.Set("Accept-Encoding", tc.ae)
			}
			benchServe(b, r, req)
		})
	}
}
