package middleware

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/waltz-go/waltz"
)

// The tests in this file hold that conditional, range and HEAD requests
// get the ETag, Vary and other fields of the 200 they stand for, under
// ETag and Compress, from FileServer (http.ServeContent) and from handlers
// (RFC 9110 sections 9.3.2, 13.2.2, 15.3.7, 15.4.5).

var condModTime = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func condFS() fstest.MapFS {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s), ModTime: condModTime} }
	return fstest.MapFS{
		"page.txt":  file(strings.Repeat("a compressible line of text\n", 120)),
		"small.txt": file("short"),
		"img.png":   file("\x89PNG\r\n\x1a\n" + strings.Repeat("\x00\x01", 2000)),
		"NOTES":     file(strings.Repeat("a text file with no extension\n", 120)),
	}
}

// condRouter serves condFS at /f/*path with o, and bigText at /text, under mw.
func condRouter(o waltz.FileServerOptions, mw ...waltz.Middleware) *waltz.Router {
	r := waltz.New()
	r.Use(mw...)
	r.Get("/f/*path", waltz.FileServer(condFS(), o))
	r.Get("/text", func(c *waltz.Context) error { return c.Text(http.StatusOK, bigText) })
	r.Get("/png", func(c *waltz.Context) error { return c.Blob(http.StatusOK, "image/png", []byte(bigText)) })
	return r
}

// do sends one request through h with the given "Key: value" fields.
func do(h http.Handler, method, target string, fields ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for _, kv := range fields {
		k, v, _ := strings.Cut(kv, ": ")
		req.Header.Add(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestETagOverServeContent: under ETag, a FileServer without its own ETag
// option answers every precondition with the tag its 200 carries.
func TestETagOverServeContent(t *testing.T) {
	r := condRouter(waltz.FileServerOptions{}, ETag(ETagOptions{}))
	ok := do(r, "GET", "/f/page.txt")
	tag := ok.Header().Get("Etag")
	if ok.Code != 200 || tag == "" {
		t.Fatalf("GET: got %d with ETag %q, want 200 with a tag", ok.Code, tag)
	}
	for _, tc := range []struct {
		name   string
		fields []string
		code   int
	}{
		{"If-Match the tag", []string{"If-Match: " + tag}, 200},
		{"If-Match the tag, Range", []string{"If-Match: " + tag, "Range: bytes=0-9"}, 206},
		{"If-Match another tag", []string{`If-Match: "other"`}, 412},
		{"Range, If-None-Match the tag", []string{"If-None-Match: " + tag, "Range: bytes=0-9"}, 304},
		{"If-None-Match the tag", []string{"If-None-Match: " + tag}, 304},
		{"If-Range the tag", []string{"If-Range: " + tag, "Range: bytes=0-9"}, 206},
		{"If-Range another tag", []string{`If-Range: "other"`, "Range: bytes=0-9"}, 200},
		{"Range", []string{"Range: bytes=0-9"}, 206},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, method := range []string{"GET", "HEAD"} {
				w := do(r, method, "/f/page.txt", tc.fields...)
				if w.Code != tc.code {
					t.Errorf("%s: got %d, want %d", method, w.Code, tc.code)
				}
				if got := w.Header().Get("Etag"); w.Code != 412 && got != tag {
					t.Errorf("%s: got ETag %q, want the 200's %q", method, got, tag)
				}
			}
		})
	}
}

// TestETagOverOwnTag: under ETag (and Compress, either side of it), a
// FileServer with its own ETag option is given back the conditional
// fields ETag takes out of the request, and answers them itself: a Range
// under a matching If-Range of a file past ETag's MaxSize is a 206, many
// ranges get FileServer's 200 rather than ServeContent's multipart of
// them all, a 304 carries the 200's tag, and a 412 none of the file's
// Cache-Control.
func TestETagOverOwnTag(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 8<<10) // 128 KiB, past MaxSize
	// A page whose gzip sibling is past Compress's MinSize too.
	var page strings.Builder
	for i := range 3000 {
		page.WriteString(strconv.Itoa(i*7919%10007) + " ")
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(page.String()))
	_ = zw.Close()
	fsys := fstest.MapFS{
		"big.bin":     {Data: []byte(big), ModTime: condModTime},
		"page.txt":    {Data: []byte(page.String()), ModTime: condModTime},
		"page.txt.gz": {Data: gz.Bytes(), ModTime: condModTime},
	}
	o := waltz.FileServerOptions{ETag: true, CacheControl: "public, max-age=60", Precompressed: true}
	etag, compress := ETag(ETagOptions{}), Compress(CompressOptions{})
	var many strings.Builder
	many.WriteString("Range: bytes=")
	for i := range 40 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(strconv.Itoa(i*100) + "-" + strconv.Itoa(i*100+49))
	}
	for _, st := range []struct {
		name string
		mw   []waltz.Middleware
	}{
		{"ETag", []waltz.Middleware{etag}},
		{"Compress, ETag", []waltz.Middleware{compress, etag}},
		{"ETag, Compress", []waltz.Middleware{etag, compress}},
	} {
		r := waltz.New()
		r.Use(st.mw...)
		r.Get("/f/*path", waltz.FileServer(fsys, o))
		for _, file := range []string{"/f/big.bin", "/f/page.txt"} {
			ok := do(r, "GET", file, "Accept-Encoding: gzip")
			tag := ok.Header().Get("Etag")
			if ok.Code != 200 || tag == "" {
				t.Fatalf("%s %s: GET got %d with ETag %q, want 200 with a tag", st.name, file, ok.Code, tag)
			}
			for _, tc := range []struct {
				name   string
				fields []string
				code   int
			}{
				{"If-Range the tag", []string{"If-Range: " + opaque(tag), "Range: bytes=0-9", "Accept-Encoding: gzip"}, 206},
				{"If-Range another tag", []string{`If-Range: "other"`, "Range: bytes=0-9"}, 200},
				{"forty ranges", []string{"If-Range: " + opaque(tag), many.String()}, 200},
				{"If-None-Match the tag", []string{"If-None-Match: " + tag, "Accept-Encoding: gzip"}, 304},
				{"If-Match another tag", []string{`If-Match: "nope"`}, 412},
			} {
				w := do(r, "GET", file, tc.fields...)
				name := st.name + " " + file + " " + tc.name
				if w.Code != tc.code {
					t.Errorf("%s: got %d (%d bytes), want %d", name, w.Code, w.Body.Len(), tc.code)
				}
				switch w.Code {
				case 206:
					name := strings.TrimPrefix(file, "/f/")
					if w.Header().Get("Content-Encoding") == "gzip" {
						name += ".gz"
					}
					if want := string(fsys[name].Data[:10]); w.Body.String() != want {
						t.Errorf("%s: got %q, want the first 10 bytes", name, w.Body.String())
					}
				case 304:
					if got := w.Header().Get("Etag"); got != tag {
						t.Errorf("%s: got ETag %q, want the 200's %q", name, got, tag)
					}
				case 412:
					if cc := w.Header().Get("Cache-Control"); cc != "" {
						t.Errorf("%s: got Cache-Control %q, want the file's kept from the error", name, cc)
					}
				}
			}
		}
	}
}

// TestCompressIfRangeDate: under Compress, a Range whose If-Range is the
// file's date gets a 206 of the identity bytes only when the 200 for the
// same request would not be encoded: a client that holds the first bytes
// of the gzip 200 gets the whole gzip 200, not identity bytes to splice
// onto them (RFC 9110 section 13.1.5).
func TestCompressIfRangeDate(t *testing.T) {
	r := condRouter(waltz.FileServerOptions{}, Compress(CompressOptions{}))
	date := condModTime.Format(http.TimeFormat)
	for _, tc := range []struct {
		name, target string
		fields       []string
		code         int
		coding       string
	}{
		{"gzip accepted", "/f/page.txt", []string{"Accept-Encoding: gzip"}, 200, "gzip"},
		{"no coding accepted", "/f/page.txt", nil, 206, ""},
		{"an image, gzip accepted", "/f/img.png", []string{"Accept-Encoding: gzip"}, 206, ""},
		{"a small file, gzip accepted", "/f/small.txt", []string{"Accept-Encoding: gzip"}, 206, ""},
	} {
		fields := append([]string{"Range: bytes=0-1", "If-Range: " + date}, tc.fields...)
		w := do(r, "GET", tc.target, fields...)
		if w.Code != tc.code || w.Header().Get("Content-Encoding") != tc.coding {
			t.Errorf("%s: got %d %q, want %d %q", tc.name, w.Code, w.Header().Get("Content-Encoding"), tc.code, tc.coding)
		}
	}
}

// opaque returns an entity tag without its weakness prefix.
func opaque(tag string) string { return strings.TrimPrefix(tag, "W/") }

// TestCompressConditional: under Compress (and ETag), a 304 carries the
// ETag and Vary of the 200 for the same request, a 206 (multipart too)
// the 200's Vary and a tag that matches it weakly, a 416 the 200's Vary,
// and a HEAD the GET's fields.
func TestCompressConditional(t *testing.T) {
	compress := Compress(CompressOptions{})
	etag := ETag(ETagOptions{})
	for _, tc := range []struct {
		name, path string
		r          *waltz.Router
	}{
		{"ETag over FileServer", "/f/page.txt", condRouter(waltz.FileServerOptions{}, compress, etag)},
		{"FileServer's own ETag", "/f/page.txt", condRouter(waltz.FileServerOptions{ETag: true}, compress)},
		{"ETag over a small file", "/f/small.txt", condRouter(waltz.FileServerOptions{}, compress, etag)},
		{"ETag over an image", "/f/img.png", condRouter(waltz.FileServerOptions{}, compress, etag)},
		{"ETag over a sniffed type", "/f/NOTES", condRouter(waltz.FileServerOptions{}, compress, etag)},
		{"FileServer's own ETag, an image", "/f/img.png", condRouter(waltz.FileServerOptions{ETag: true}, compress)},
		{"ETag over a handler", "/text", condRouter(waltz.FileServerOptions{}, compress, etag)},
		{"ETag over a handler's image", "/png", condRouter(waltz.FileServerOptions{}, compress, etag)},
		{"ETag outside Compress", "/text", condRouter(waltz.FileServerOptions{}, etag, compress)},
		{"ETag outside Compress, FileServer", "/f/page.txt", condRouter(waltz.FileServerOptions{}, etag, compress)},
	} {
		for _, ae := range []string{"gzip", ""} {
			t.Run(tc.name+"/"+ae, func(t *testing.T) {
				get := do(tc.r, "GET", tc.path, "Accept-Encoding: "+ae)
				h := get.Header()
				tag, vary := h.Get("Etag"), strings.Join(h.Values("Vary"), ", ")
				if get.Code != 200 || tag == "" {
					t.Fatalf("GET: got %d with ETag %q, want 200 with a tag", get.Code, tag)
				}
				nm := do(tc.r, "GET", tc.path, "Accept-Encoding: "+ae, "If-None-Match: "+tag)
				if got, gv := nm.Header().Get("Etag"), strings.Join(nm.Header().Values("Vary"), ", "); nm.Code != 304 || got != tag || gv != vary {
					t.Errorf("304: got %d ETag %q Vary %q, want 304 %q %q", nm.Code, got, gv, tag, vary)
				}
				for _, rg := range []string{"bytes=0-3", "bytes=0-10,100-110"} {
					rg := do(tc.r, "GET", tc.path, "Accept-Encoding: "+ae, "Range: "+rg)
					if got, gv := rg.Header().Get("Etag"), strings.Join(rg.Header().Values("Vary"), ", "); rg.Code == 206 && (opaque(got) != opaque(tag) || gv != vary) {
						t.Errorf("206 %s: got ETag %q Vary %q, want %q (weakly) and %q", rg.Header().Get("Content-Type"), got, gv, tag, vary)
					}
				}
				// A 416 says nothing of the body, but varies as the 200.
				if nr := do(tc.r, "GET", tc.path, "Accept-Encoding: "+ae, "Range: bytes=90000-"); nr.Code == 416 {
					if gv := strings.Join(nr.Header().Values("Vary"), ", "); gv != vary {
						t.Errorf("416: got Vary %q, want the 200's %q", gv, vary)
					}
				}
				head := do(tc.r, "HEAD", tc.path, "Accept-Encoding: "+ae)
				for _, k := range []string{"Etag", "Vary", "Content-Encoding", "Content-Type", "Last-Modified"} {
					if got, want := strings.Join(head.Header().Values(k), ", "), strings.Join(h.Values(k), ", "); got != want {
						t.Errorf("HEAD %s: got %q, want the GET's %q", k, got, want)
					}
				}
				if got, want := head.Header().Get("Content-Length"), h.Get("Content-Length"); got != "" && got != want {
					t.Errorf("HEAD Content-Length: got %q, want the GET's %q or none", got, want)
				}
			})
		}
	}
}

// TestETagCurrentUnderCompress: a 304 that ETagOptions.Current answers
// before the handler runs carries the ETag and Vary of the 200 when
// Current sets the Content-Type (and Content-Length, for a body that may
// be under MinSize) the handler would, as Current's doc asks; without
// them it carries Current's tag as it is and no Vary.
func TestETagCurrentUnderCompress(t *testing.T) {
	text := strings.Repeat("a line of the current text\n", 200) // 5,400 bytes
	for _, tc := range []struct {
		name  string
		ctype string // what Current sets, "" for nothing
		clen  string // the Content-Length Current sets, "" for none
		body  func(c *waltz.Context) error
	}{
		{"text", "text/plain; charset=utf-8", "", func(c *waltz.Context) error { return c.Text(200, text) }},
		{"small text", "text/plain; charset=utf-8", "5", func(c *waltz.Context) error { return c.Text(200, "short") }},
		{"image", "image/png", "", func(c *waltz.Context) error { return c.Blob(200, "image/png", []byte(text)) }},
		{"text, nothing set", "", "", func(c *waltz.Context) error { return c.Text(200, text) }},
	} {
		current := func(c *waltz.Context) string {
			if tc.ctype != "" {
				c.Writer.Header().Set("Content-Type", tc.ctype)
			}
			if tc.clen != "" {
				c.Writer.Header().Set("Content-Length", tc.clen)
			}
			return `"cur"`
		}
		r := waltz.New()
		r.Use(Compress(CompressOptions{}), ETag(ETagOptions{Current: current}))
		r.Get("/", tc.body)
		for _, ae := range []string{"gzip", ""} {
			t.Run(tc.name+"/"+ae, func(t *testing.T) {
				get := do(r, "GET", "/", "Accept-Encoding: "+ae)
				tag, vary := get.Header().Get("Etag"), strings.Join(get.Header().Values("Vary"), ", ")
				if get.Code != 200 || opaque(tag) != `"cur"` {
					t.Fatalf("GET: got %d with ETag %q, want 200 with Current's tag", get.Code, tag)
				}
				nm := do(r, "GET", "/", "Accept-Encoding: "+ae, "If-None-Match: "+tag)
				wantTag, wantVary := tag, vary
				if tc.ctype == "" {
					wantTag, wantVary = `"cur"`, ""
				}
				got, gv := nm.Header().Get("Etag"), strings.Join(nm.Header().Values("Vary"), ", ")
				if nm.Code != 304 || got != wantTag || gv != wantVary {
					t.Errorf("304: got %d ETag %q Vary %q, want 304 %q %q", nm.Code, got, gv, wantTag, wantVary)
				}
				for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding"} {
					if v := nm.Header().Get(k); v != "" {
						t.Errorf("304 %s: got %q, want none", k, v)
					}
				}
				// The fields set for the 200 do not describe a 412's body.
				pf := do(r, "GET", "/", "Accept-Encoding: "+ae, `If-Match: "other"`)
				if cl := pf.Header().Get("Content-Length"); pf.Code != 412 || cl != "" && cl != strconv.Itoa(pf.Body.Len()) {
					t.Errorf("412: got %d with Content-Length %q and %d bytes, want 412 with its own length", pf.Code, cl, pf.Body.Len())
				}
			})
		}
	}
}
