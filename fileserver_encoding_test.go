package waltz

import (
	"fmt"
	"strings"
	"testing"
)

func TestFileServerPrecompressed(t *testing.T) {
	r := fileRouter(t, testFS(), FileServerOptions{Precompressed: true, ETag: true})
	for _, tc := range []struct {
		target, accept string
		headers        []string
		code           int
		body, encoding string
	}{
		{"/static/assets/app.js", "br, gzip", nil, 200, "BR", "br"},
		{"/static/assets/app.js", "gzip", nil, 200, "GZIP", "gzip"},
		{"/static/assets/app.js", "x-gzip", nil, 200, "GZIP", "gzip"}, // RFC 9110 section 8.4.1.3
		{"/static/assets/app.js", "gzip, br;q=0.5", nil, 200, "GZIP", "gzip"},
		{"/static/assets/app.js", "*", nil, 200, "BR", "br"},
		{"/static/assets/app.js", "br;q=0, *", nil, 200, "GZIP", "gzip"},
		{"/static/assets/app.js", "", nil, 200, "console.log('plain')", ""},
		{"/static/assets/app.js", "deflate", nil, 200, "console.log('plain')", ""},
		{"/static/assets/app.js", "br;q=0, gzip;q=0", nil, 200, "console.log('plain')", ""},
		{"/static/assets/only.css", "br, gzip", nil, 200, "GZ-CSS", "gzip"}, // no .br sibling
		{"/static/assets/blob", "gzip", nil, 200, "\x00\x01binary", ""},     // unknown type: no sibling
		{"/static/hello.txt", "gzip, br", nil, 200, "hello", ""},
		{"/static/assets/app.js", "br", []string{"Range: bytes=0-0"}, 206, "B", "br"},
		{"/static/assets/app.js", "br", []string{"Range: bytes=7-"}, 416, "", ""},
		// Several ranges of a coded sibling: the whole of it, not a
		// multipart/byteranges that is not gzip itself.
		{"/static/assets/app.js", "gzip", []string{"Range: bytes=0-0,2-3"}, 200, "GZIP", "gzip"},
		{"/static/hello.txt", "", []string{"Range: bytes=0-0,2-3"}, 206, "", ""},
	} {
		t.Run(tc.target+" "+tc.accept, func(t *testing.T) {
			hs := append([]string{"Accept-Encoding: " + tc.accept}, tc.headers...)
			if tc.accept == "" {
				hs = tc.headers
			}
			w := fserve(t, r, "GET", tc.target, hs...)
			if w.Code != tc.code {
				t.Fatalf("status: got %d, want %d", w.Code, tc.code)
			}
			if tc.body != "" && w.Body.String() != tc.body {
				t.Errorf("body: got %q, want %q", w.Body, tc.body)
			}
			if got := w.Header().Get("Content-Encoding"); got != tc.encoding {
				t.Errorf("Content-Encoding: got %q, want %q", got, tc.encoding)
			}
			if tc.encoding != "" && w.Header().Get("Content-Length") != fmt.Sprint(w.Body.Len()) {
				t.Errorf("Content-Length: got %q, want %d", w.Header().Get("Content-Length"), w.Body.Len())
			}
			if tc.target == "/static/assets/app.js" && w.Code == 200 {
				if got := w.Header().Get("Vary"); got != "Accept-Encoding" {
					t.Errorf("Vary: got %q, want %q", got, "Accept-Encoding")
				}
				if got, want := w.Header().Get("Content-Type"), "text/javascript; charset=utf-8"; got != want {
					t.Errorf("Content-Type: got %q, want %q", got, want)
				}
			}
		})
	}
	// Each representation has its own tag; a 304 carries no Content-Encoding.
	br := fserve(t, r, "GET", "/static/assets/app.js", "Accept-Encoding: br")
	gz := fserve(t, r, "GET", "/static/assets/app.js", "Accept-Encoding: gzip")
	if br.Header().Get("Etag") == gz.Header().Get("Etag") {
		t.Errorf("br and gzip Etag: both %q, want different", br.Header().Get("Etag"))
	}
	w := fserve(t, r, "GET", "/static/assets/app.js", "Accept-Encoding: br", "If-None-Match: "+br.Header().Get("Etag"))
	if w.Code != 304 || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("got %d Content-Encoding=%q, want 304 and none", w.Code, w.Header().Get("Content-Encoding"))
	}
}

// TestEncoding: RFC 9110 section 12.5.3, q-values (section 12.4.2).
func TestEncoding(t *testing.T) {
	for _, tc := range []struct {
		accept string
		want   string
	}{
		{"", ""},
		{"br", "br"},
		{"BR", "br"},
		{"gzip", "gzip"},
		{"gzip, br", "br"},
		{"gzip;q=1, br;q=0.999", "gzip"},
		{"gzip;q=0.5, br;q=0.5", "br"},
		{"br;q=0", ""},
		{"br;q=0.000", ""},
		{"*", "br"},
		{"*;q=0", ""},
		{"*;q=0.1, br;q=0", "gzip"},
		{"gzip;q=0.5, identity", ""},
		{"gzip;q=0.5, identity;q=0.4", "gzip"},
		{"identity;q=0, br;q=0.1", "br"},
		{"gzip ; q=0.8 , br ; Q=0.7", "gzip"},
		// An element with a hostile or malformed weight is skipped.
		{"br;q=2", ""},
		{"br;q=1.5", ""},
		{"br;q=0.1234", ""},
		{"br;q=-1", ""},
		{"br;q=", ""},
		{"br;q=.5", ""},
		{"br;q=0x1", ""},
		{"br;q=1.", "br"},
		{",,, ;;;, =, br", "br"},
		{"br;q=abc, gzip;q=0.1", "gzip"},
		{"gzip;q=0.1, identity;q=oops", "gzip"},
		// A coding listed twice takes its lowest weight, as in Compress.
		{"br, br;q=0", ""},
		{"br;q=0.9, gzip;q=0.5, br;q=0.1", "gzip"},
		{"gzip;foo=bar;q=0.3, br;q=0.2", "gzip"},
		{strings.Repeat("x,", 5000) + "gzip", "gzip"},
		{"\x00br", ""},
	} {
		t.Run(tc.accept[:min(len(tc.accept), 40)], func(t *testing.T) {
			var values []string
			if tc.accept != "" {
				values = []string{tc.accept}
			}
			got := ""
			if i := bestCoding(codings(values)); i >= 0 {
				got = encodingSuffixes[i].coding
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
