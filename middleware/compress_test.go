package middleware

import (
	"bufio"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

func TestNegotiateEncoding(t *testing.T) {
	for _, tc := range []struct {
		name string
		ae   []string // Accept-Encoding field lines; nil: no field
		want encoding
	}{
		{"no field", nil, encIdentity},                           // §12.5.3: any is acceptable, we send identity
		{"empty field", []string{""}, encIdentity},               // §12.5.3: no coding wanted
		{"gzip", []string{"gzip"}, encGzip},                      // §12.5.3
		{"deflate", []string{"deflate"}, encDeflate},             // §12.5.3
		{"tie prefers gzip", []string{"deflate, gzip"}, encGzip}, // equal q: the server chooses
		{"gzip;q=0", []string{"gzip;q=0"}, encIdentity},          // §12.4.2: q=0 is not acceptable
		{"gzip;q=0 deflate", []string{"gzip;q=0, deflate"}, encDeflate},
		{"higher q wins", []string{"deflate;q=0.5, gzip;q=0.4"}, encDeflate},
		{"star", []string{"*"}, encGzip},                               // §12.5.3: * matches any coding not listed
		{"star q=0", []string{"*;q=0"}, encIdentity},                   // nothing acceptable: identity, not 406
		{"identity;q=0 alone", []string{"identity;q=0"}, encIdentity},  // §12.1: the server may disregard the field
		{"identity;q=0 gzip", []string{"identity;q=0, gzip"}, encGzip}, // §12.5.3
		{"explicit identity wins", []string{"identity, gzip;q=0.5"}, encIdentity},
		{"implicit identity least", []string{"gzip;q=0.5"}, encGzip},
		{"star q=0 gzip listed", []string{"*;q=0, gzip"}, encGzip}, // a listed coding beats *
		{"star q=0 over listed deflate", []string{"*;q=0, deflate;q=0.2"}, encDeflate},
		{"unknown only", []string{"br, zstd"}, encIdentity},
		{"case", []string{"GZIP"}, encGzip},                         // §8.4.1: codings are case-insensitive
		{"x-gzip", []string{"x-gzip"}, encGzip},                     // §8.4.1.3
		{"Q upper", []string{"gzip;Q=0"}, encIdentity},              // §12.4.2: "q" is case-insensitive
		{"OWS", []string{" gzip ; q=0.8 , deflate;q=0.7"}, encGzip}, // §12.4.2: OWS around ";"
		{"q above 1", []string{"gzip;q=1.5"}, encIdentity},          // malformed weight: element ignored
		{"q four decimals", []string{"gzip;q=0.0001"}, encIdentity}, // §12.4.2: at most three
		{"q=1.000", []string{"gzip;q=1.000"}, encGzip},
		{"q=1.001", []string{"gzip;q=1.001"}, encIdentity},
		{"q empty", []string{"gzip;q="}, encIdentity},
		{"q negative", []string{"gzip;q=-1"}, encIdentity},
		{"listed twice lowest", []string{"gzip, gzip;q=0"}, encIdentity},
		{"two lines", []string{"deflate;q=0.1", "gzip"}, encGzip}, // §5.3: lines combine as one list
		{"empty elements", []string{",,, gzip ,,"}, encGzip},      // §5.6.1: empty elements are ignored
		{"long list", []string{strings.Repeat("x,", 10000) + "gzip"}, encGzip},
		{"other param", []string{"gzip;level=9;q=0"}, encIdentity},
		{"malformed identity weight skipped", []string{"identity;q=x, gzip;q=0.1"}, encGzip},
		{"quoted comma", []string{`gzip;x="a, deflate", deflate;q=0.1`}, encGzip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := negotiateEncoding(tc.ae); got != tc.want {
				t.Errorf("Accept-Encoding %q: got %d, want %d", tc.ae, got, tc.want)
			}
		})
	}
}

// bigText is a compressible body over the default MinSize.
var bigText = strings.Repeat("waltz compresses this line of text. ", 100)

// compressRouter serves the routes the Compress tests ask for.
func compressRouter(tb testing.TB, o CompressOptions) *waltz.Router {
	tb.Helper()
	r := waltz.New()
	r.Use(Compress(o))
	withHeader := func(code int, body string, kv ...string) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			for i := 0; i < len(kv); i += 2 {
				c.Writer.Header().Set(kv[i], kv[i+1])
			}
			c.Writer.WriteHeader(code)
			if body == "" {
				return nil
			}
			_, err := io.WriteString(c.Writer, body)
			return err
		}
	}
	r.Get("/big", func(c *waltz.Context) error { return c.Text(http.StatusOK, bigText) })
	r.Get("/small", func(c *waltz.Context) error { return c.Text(http.StatusOK, "hi") })
	r.Get("/exact", func(c *waltz.Context) error { return c.Text(http.StatusOK, bigText[:1024]) })
	r.Get("/below", func(c *waltz.Context) error { return c.Text(http.StatusOK, bigText[:1023]) })
	r.Get("/png", withHeader(200, bigText, "Content-Type", "image/png"))
	r.Get("/json", withHeader(200, bigText, "Content-Type", "application/problem+json; charset=utf-8"))
	r.Get("/sniff", withHeader(200, "<!DOCTYPE html><html>"+bigText))
	r.Get("/notype", func(c *waltz.Context) error {
		c.Writer.Header()["Content-Type"] = nil // net/http: no type, no sniffing
		_, err := io.WriteString(c.Writer, bigText)
		return err
	})
	r.Get("/encoded", withHeader(200, bigText, "Content-Type", "text/plain", "Content-Encoding", "br"))
	r.Get("/range", withHeader(206, bigText, "Content-Type", "text/plain", "Content-Range", "bytes 0-3599/9000"))
	r.Get("/range200", withHeader(200, bigText, "Content-Type", "text/plain", "Content-Range", "bytes 0-3599/3600"))
	r.Get("/nocontent", withHeader(204, "", "Content-Type", "text/plain"))
	r.Get("/notmod", withHeader(304, "", "Etag", `"v1"`))
	r.Get("/notmodtext", withHeader(304, "", "Etag", `"v1"`, "Content-Type", "text/plain"))
	r.Get("/notmodpng", withHeader(304, "", "Etag", `"v1"`, "Content-Type", "image/png"))
	r.Get("/etag", withHeader(200, bigText, "Content-Type", "text/plain", "Etag", `"v1"`))
	r.Get("/weaketag", withHeader(200, bigText, "Content-Type", "text/plain", "Etag", `W/"v1"`))
	r.Get("/notransform", withHeader(200, bigText, "Content-Type", "text/plain", "Cache-Control", "public, No-Transform"))
	r.Get("/length", withHeader(200, bigText, "Content-Type", "text/plain", "Content-Length", fmt.Sprint(len(bigText)), "Accept-Ranges", "bytes"))
	r.Get("/vary", withHeader(200, bigText, "Content-Type", "text/plain", "Vary", "Origin"))
	r.Get("/varystar", withHeader(200, bigText, "Content-Type", "text/plain", "Vary", "*"))
	r.Get("/error", func(c *waltz.Context) error {
		return &waltz.HTTPError{Code: http.StatusNotFound, Message: bigText}
	})
	r.Get("/late", func(c *waltz.Context) error {
		c.Text(http.StatusOK, "hi")
		return &waltz.HTTPError{Code: http.StatusInternalServerError, Message: bigText}
	})
	r.Get("/chunks", func(c *waltz.Context) error {
		c.Writer.Header().Set("Content-Type", "text/plain")
		for i := 0; i < len(bigText); i += 7 {
			if _, err := io.WriteString(c.Writer, bigText[i:min(i+7, len(bigText))]); err != nil {
				return err
			}
		}
		return nil
	})
	r.Get("/readfrom", func(c *waltz.Context) error {
		c.Writer.Header().Set("Content-Type", c.Query("type"))
		_, err := io.Copy(c.Writer, strings.NewReader(bigText))
		return err
	})
	return r
}

// decoded returns w's body, decoded by its Content-Encoding.
func decoded(tb testing.TB, w *httptest.ResponseRecorder) string {
	tb.Helper()
	var r io.Reader = w.Body
	var err error
	switch enc := w.Header().Get("Content-Encoding"); enc {
	case "gzip":
		r, err = gzip.NewReader(w.Body)
	case "deflate":
		r, err = zlib.NewReader(w.Body)
	case "", "br":
	default:
		tb.Fatalf("unexpected Content-Encoding %q", enc)
	}
	if err != nil {
		tb.Fatalf("decoding: %v", err)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		tb.Fatalf("decoding: %v", err)
	}
	return string(b)
}

func TestCompress(t *testing.T) {
	r := compressRouter(t, CompressOptions{})
	for _, tc := range []struct {
		method, path, ae string
		code             int
		enc, vary        string
		body             string // the decoded body
	}{
		{"GET", "/big", "gzip", 200, "gzip", "Accept-Encoding", bigText},
		{"GET", "/big", "deflate", 200, "deflate", "Accept-Encoding", bigText},    // RFC 9110 §8.4.1.2: zlib format
		{"GET", "/big", "gzip;q=0", 200, "", "Accept-Encoding", bigText},          // §12.4.2: q=0 is "not acceptable"
		{"GET", "/big", "identity;q=0", 200, "", "Accept-Encoding", bigText},      // §12.1: disregarded, no 406
		{"GET", "/big", "", 200, "", "Accept-Encoding", bigText},                  // no field: a cache must still know
		{"HEAD", "/big", "gzip", 200, "gzip", "Accept-Encoding", bigText},         // §9.3.2: the GET's headers (net/http drops the body)
		{"GET", "/small", "gzip", 200, "", "Accept-Encoding", "hi"},               // under MinSize
		{"GET", "/exact", "gzip", 200, "gzip", "Accept-Encoding", bigText[:1024]}, // MinSize itself
		{"GET", "/below", "gzip", 200, "", "Accept-Encoding", bigText[:1023]},
		{"GET", "/png", "gzip", 200, "", "", bigText},                     // not a listed type: no Vary either
		{"GET", "/json", "gzip", 200, "gzip", "Accept-Encoding", bigText}, // application/*+json
		{"GET", "/sniff", "gzip", 200, "gzip", "Accept-Encoding", "<!DOCTYPE html><html>" + bigText},
		{"GET", "/notype", "gzip", 200, "", "", bigText},
		{"GET", "/encoded", "gzip", 200, "br", "", bigText},            // already encoded
		{"GET", "/range", "gzip", 206, "", "Accept-Encoding", bigText}, // §15.3.7: identity, with its 200's Vary
		{"GET", "/range200", "gzip", 200, "", "", bigText},             // any Content-Range
		{"GET", "/nocontent", "gzip", 204, "", "", ""},                 // §15.3.5: no content
		{"GET", "/notmod", "gzip", 304, "", "", ""},                    // no Content-Type: says nothing of its 200
		{"GET", "/notmodtext", "gzip", 304, "", "Accept-Encoding", ""}, // §15.4.5: the 200's Vary
		{"GET", "/notmodpng", "gzip", 304, "", "", ""},                 // its 200 has no Vary either
		{"GET", "/notransform", "gzip", 200, "", "", bigText},          // RFC 9111 §5.2.2.6
		{"GET", "/vary", "gzip", 200, "gzip", "Origin, Accept-Encoding", bigText},
		{"GET", "/varystar", "gzip", 200, "gzip", "*", bigText},            // §12.5.5: "*" already covers it
		{"GET", "/error", "gzip", 404, "gzip", "Accept-Encoding", bigText}, // error pages pass through
		{"GET", "/late", "gzip", 200, "", "Accept-Encoding", "hi"},         // an error after a helper's whole answer: it stands, nothing appended
		{"GET", "/chunks", "gzip", 200, "gzip", "Accept-Encoding", bigText},
		{"GET", "/readfrom?type=text/plain", "gzip", 200, "gzip", "Accept-Encoding", bigText},
		{"GET", "/readfrom?type=image/png", "gzip", 200, "", "", bigText},
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.ae, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			if tc.ae != "" {
				req.Header.Set("Accept-Encoding", tc.ae)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Errorf("status: got %d, want %d", w.Code, tc.code)
			}
			if got := w.Header().Get("Content-Encoding"); got != tc.enc {
				t.Errorf("Content-Encoding: got %q, want %q", got, tc.enc)
			}
			if got := strings.Join(w.Header().Values("Vary"), ", "); got != tc.vary {
				t.Errorf("Vary: got %q, want %q", got, tc.vary)
			}
			if got := decoded(t, w); got != tc.body {
				t.Errorf("body: got %d bytes %.20q, want %d bytes %.20q", len(got), got, len(tc.body), tc.body)
			}
		})
	}
}

func TestCompressHeaders(t *testing.T) {
	r := compressRouter(t, CompressOptions{})
	for _, tc := range []struct {
		path, header, want string
	}{
		{"/length", "Content-Length", ""}, // the identity length would be a lie
		{"/length", "Accept-Ranges", ""},  // ranges of the encoded body are not served
		{"/etag", "Etag", `W/"v1"`},       // §8.8.3.3: the strong tag must differ; weak still matches If-None-Match
		{"/weaketag", "Etag", `W/"v1"`},   // §8.8.1: a weak tag may be shared
		{"/sniff", "Content-Type", "text/html; charset=utf-8"},
	} {
		t.Run(tc.path+" "+tc.header, func(t *testing.T) {
			req := httptest.NewRequest("GET", tc.path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if got := w.Header().Get(tc.header); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompressOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    CompressOptions
		path string
		enc  string
	}{
		{"level 1", CompressOptions{Level: 1}, "/big", "gzip"},
		{"level 9", CompressOptions{Level: 9}, "/big", "gzip"},
		{"MinSize 1", CompressOptions{MinSize: 1}, "/small", "gzip"},
		{"MinSize large", CompressOptions{MinSize: 1 << 20}, "/big", ""},
		{"types png", CompressOptions{ContentTypes: []string{"IMAGE/*"}}, "/png", "gzip"},
		{"types png not text", CompressOptions{ContentTypes: []string{"image/png"}}, "/big", ""},
		{"empty types", CompressOptions{ContentTypes: []string{}}, "/big", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := compressRouter(t, tc.o)
			req := httptest.NewRequest("GET", tc.path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if got := w.Header().Get("Content-Encoding"); got != tc.enc {
				t.Errorf("Content-Encoding: got %q, want %q", got, tc.enc)
			}
			if got := decoded(t, w); len(got) == 0 {
				t.Errorf("empty body")
			}
		})
	}
}

func TestCompressBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    CompressOptions
		want string
	}{
		{"level 10", CompressOptions{Level: 10}, "waltz: CompressOptions.Level 10"},
		{"level -1", CompressOptions{Level: -1}, "waltz: CompressOptions.Level -1"},
		{"MinSize -1", CompressOptions{MinSize: -1}, "waltz: CompressOptions.MinSize -1"},
		{"type without slash", CompressOptions{ContentTypes: []string{"text"}}, `waltz: CompressOptions.ContentTypes entry "text"`},
		{"type with params", CompressOptions{ContentTypes: []string{"text/html; charset=utf-8"}}, "waltz: CompressOptions.ContentTypes"},
		{"any type", CompressOptions{ContentTypes: []string{"*/*"}}, "waltz: CompressOptions.ContentTypes"},
		{"inner star", CompressOptions{ContentTypes: []string{"text/h*"}}, "waltz: CompressOptions.ContentTypes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				got, _ := recover().(string)
				if !strings.HasPrefix(got, tc.want) {
					t.Errorf("got panic %q, want one starting %q", got, tc.want)
				}
			}()
			Compress(tc.o)
		})
	}
}

// TestCompressStream checks that server-sent events go out compressed one
// by one: the client reads each event before the server writes the next.
func TestCompressStream(t *testing.T) {
	next := make(chan struct{})
	r := waltz.New()
	r.Use(Compress(CompressOptions{}))
	r.Get("/events", func(c *waltz.Context) error {
		c.Writer.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(c.Writer, "data: %d\n\n", i)
			if err := http.NewResponseController(c.Writer).Flush(); err != nil {
				return err
			}
			select {
			case <-next:
			case <-time.After(5 * time.Second):
				return fmt.Errorf("client did not read event %d", i)
			}
		}
		return nil
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/events", nil)
	req.Header.Set("Accept-Encoding", "gzip") // set by hand: the transport does not decode then
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got := res.Header.Get("Content-Encoding"); got != "gzip" {
		t.Fatalf("Content-Encoding: got %q, want gzip", got)
	}
	zr, err := gzip.NewReader(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(zr)
	for i := range 3 {
		line, err := br.ReadString('\n')
		if want := fmt.Sprintf("data: %d\n", i); line != want || err != nil {
			t.Fatalf("event %d: got %q, %v, want %q", i, line, err, want)
		}
		br.ReadString('\n')
		next <- struct{}{}
	}
}

func TestCompressHijack(t *testing.T) {
	r := waltz.New()
	r.Use(Compress(CompressOptions{}))
	r.Get("/ws", func(c *waltz.Context) error {
		conn, rw, err := http.NewResponseController(c.Writer).Hijack()
		if err != nil {
			return err
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nraw ok")
		return rw.Flush()
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/ws", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "raw ok" {
		t.Errorf("got %q, want %q", b, "raw ok")
	}
}

// TestCompressPanic checks that a panic passing through Compress leaves
// c.Writer as it was, so a Recoverer outside answers on the real writer:
// a clean 500 before the handler chose a status, and an aborted response
// after it chose one, though Compress held it: the same as without
// Compress, where the status would have gone out.
func TestCompressPanic(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    bool // the handler sends a status before it panics
		wantAbort bool
	}{
		{"before the status", false, false},
		{"after the status", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			r.Use(Recoverer, Compress(CompressOptions{MinSize: 1}))
			r.Get("/", func(c *waltz.Context) error {
				c.Writer.Header().Set("Content-Type", "text/plain")
				if tc.status {
					c.Writer.WriteHeader(http.StatusOK)
				}
				panic("boom")
			})
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			w := httptest.NewRecorder()
			aborted := panicMessage(func() { r.ServeHTTP(w, req) }) == http.ErrAbortHandler.Error()
			if aborted != tc.wantAbort {
				t.Fatalf("aborted: got %v, want %v", aborted, tc.wantAbort)
			}
			if !tc.wantAbort && (w.Code != http.StatusInternalServerError || w.Header().Get("Content-Encoding") != "") {
				t.Errorf("got %d %q, want 500 unencoded", w.Code, w.Header().Get("Content-Encoding"))
			}
			if tc.wantAbort && w.Body.Len() != 0 {
				t.Errorf("got body %q sent before the abort, want none", w.Body.String())
			}
		})
	}
}

func TestCompressAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	r := compressRouter(t, CompressOptions{})
	for _, tc := range []struct {
		path, ae string
		allocs   float64
	}{
		// One allocation each: the response's own Vary (and Content-Encoding) values.
		{"/big", "gzip", 1},
		{"/big", "deflate", 1},
		{"/big", "br", 1},
		{"/small", "gzip", 1},
		{"/etag", "gzip", 5}, // and the weak tag string and its header slice, and the handler's two Header().Set
	} {
		t.Run(tc.path+" "+tc.ae, func(t *testing.T) {
			req := httptest.NewRequest("GET", tc.path, nil)
			req.Header.Set("Accept-Encoding", tc.ae)
			w := &discardWriter{h: http.Header{}}
			run := func() {
				clear(w.h)
				r.ServeHTTP(w, req)
			}
			run()
			if got := testing.AllocsPerRun(100, run); got != tc.allocs {
				t.Errorf("got %v allocs per request, want %v", got, tc.allocs)
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps headers and drops the body.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header               { return w.h }
func (w *discardWriter) Write(p []byte) (int, error)       { return len(p), nil }
func (w *discardWriter) WriteHeader(int)                   {}
func (w *discardWriter) WriteString(s string) (int, error) { return len(s), nil }

func ExampleCompress() {
	r := waltz.New()
	r.Use(Compress(CompressOptions{}))
	r.Get("/", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, strings.Repeat("hello, waltz\n", 100))
	})

	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept-Encoding", "br;q=1, gzip;q=0.8, deflate;q=0.5")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)

	zr, _ := gzip.NewReader(w.Body)
	body, _ := io.ReadAll(zr)
	fmt.Println(w.Header().Get("Content-Encoding"), w.Header().Get("Vary"))
	fmt.Println(len(body), "bytes decoded")
	// Output:
	// gzip Accept-Encoding
	// 1300 bytes decoded
}

// TestHeldBodyThenError: a handler that wrote to c.Writer directly, into a
// body Compress or ETag holds back, and then returned an error, sent
// nothing yet: what is held is dropped and the error is the answer, never
// the part held, sized and tagged as if whole, nor the error page
// appended to it.
func TestHeldBodyThenError(t *testing.T) {
	for _, tc := range []struct {
		name string
		mw   waltz.Middleware
	}{
		{"Compress", Compress(CompressOptions{})},
		{"ETag", ETag(ETagOptions{})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			r.Use(tc.mw)
			r.Get("/", func(c *waltz.Context) error {
				_, _ = c.Writer.Write([]byte("partial"))
				return errors.New("late failure")
			})
			w := httptest.NewRecorder()
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			r.ServeHTTP(w, req)
			if w.Code != 500 || w.Body.String() != "Internal Server Error" {
				t.Errorf("got %d %q, want 500 \"Internal Server Error\"", w.Code, w.Body.String())
			}
			if et := w.Header().Get("Etag"); et != "" {
				t.Errorf("got ETag %q on the error, want none", et)
			}
		})
	}
}
