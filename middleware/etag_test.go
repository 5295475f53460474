package middleware

import (
	"fmt"
	"hash/crc64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// tagOf is the tag ETag gives body.
func tagOf(body string) string {
	return fmt.Sprintf(`"%016x"`, crc64.Checksum([]byte(body), crc64.MakeTable(crc64.ECMA)))
}

func etagRouter(tb testing.TB, o ETagOptions, ran *int) *waltz.Router {
	tb.Helper()
	r := waltz.New()
	r.Use(ETag(o))
	count := func(h waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error { *ran++; return h(c) }
	}
	r.Get("/text", count(func(c *waltz.Context) error { return c.Text(http.StatusOK, "hello") }))
	r.Post("/text", count(func(c *waltz.Context) error { return c.Text(http.StatusOK, "posted") }))
	r.Get("/big", count(func(c *waltz.Context) error { return c.Text(http.StatusOK, strings.Repeat("b", 100)) }))
	r.Get("/own", count(func(c *waltz.Context) error {
		c.Writer.Header().Set("Etag", `"own"`)
		return c.Text(http.StatusOK, "mine")
	}))
	r.Get("/gone", count(func(c *waltz.Context) error { return &waltz.HTTPError{Code: http.StatusGone} }))
	r.Get("/flush", count(func(c *waltz.Context) error {
		c.Writer.Write([]byte("a"))
		http.NewResponseController(c.Writer).Flush()
		c.Writer.Write([]byte("b"))
		return nil
	}))
	r.Get("/empty", count(func(c *waltz.Context) error { return c.NoContent(http.StatusOK) }))
	r.Put("/doc", count(func(c *waltz.Context) error { return c.Text(http.StatusOK, "saved") }))
	r.Delete("/doc", count(func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }))
	r.Get("/doc", count(func(c *waltz.Context) error { return c.Text(http.StatusOK, "doc v2") }))
	r.Put("/missing", count(func(c *waltz.Context) error {
		// A create refuses If-Match itself: there is no current
		// representation for it to match (RFC 9110 section 13.1.1).
		if c.Request.Header.Get("If-Match") != "" {
			return &waltz.HTTPError{Code: http.StatusPreconditionFailed}
		}
		return c.Text(http.StatusCreated, "created")
	}))
	r.Patch("/missing", count(func(c *waltz.Context) error { return &waltz.HTTPError{Code: http.StatusNotFound} }))
	return r
}

func TestETag(t *testing.T) {
	var ran int
	r := etagRouter(t, ETagOptions{MaxSize: 64}, &ran)
	hello := tagOf("hello")
	for _, tc := range []struct {
		method, path, header, value string
		code                        int
		etag, body                  string
	}{
		{"GET", "/text", "", "", 200, hello, "hello"},
		{"HEAD", "/text", "", "", 200, hello, "hello"},                             // the recorder keeps what a server drops
		{"GET", "/text", "If-None-Match", hello, 304, hello, ""},                   // §13.1.2
		{"HEAD", "/text", "If-None-Match", hello, 304, hello, ""},                  // §13.1.2
		{"GET", "/text", "If-None-Match", "W/" + hello, 304, hello, ""},            // §13.1.2: weak comparison
		{"GET", "/text", "If-None-Match", `"x", ` + hello, 304, hello, ""},         // a list
		{"GET", "/text", "If-None-Match", "*", 304, hello, ""},                     // §13.1.2: "*"
		{"GET", "/text", "If-None-Match", `"other"`, 200, hello, "hello"},          //
		{"GET", "/text", "If-None-Match", `garbage`, 200, hello, "hello"},          // malformed: no match
		{"GET", "/text", "If-Match", `"other"`, 412, "", "Precondition Failed"},    // §13.1.1
		{"GET", "/text", "If-Match", "W/" + hello, 412, "", "Precondition Failed"}, // §13.1.1: strong comparison
		{"GET", "/text", "If-Match", hello, 200, hello, "hello"},                   //
		{"GET", "/text", "If-Match", "*", 200, hello, "hello"},                     //
		{"GET", "/big", "If-None-Match", `"x"`, 200, "", strings.Repeat("b", 100)}, // over MaxSize: untagged
		{"GET", "/big", "If-None-Match", "*", 304, "", ""},                         // untagged, and "*" is false all the same
		{"GET", "/own", "If-None-Match", `"own"`, 304, `"own"`, ""},                // the handler's tag
		{"GET", "/own", "If-Match", `"nope"`, 412, `"own"`, "Precondition Failed"}, //
		{"GET", "/own", "", "", 200, `"own"`, "mine"},                              //
		{"GET", "/gone", "If-None-Match", "*", 410, "", "Gone"},                    // only a 200 is tagged
		{"GET", "/flush", "If-None-Match", `"x"`, 200, "", "ab"},                   // a flushed body is not held
		{"GET", "/flush", "If-None-Match", "*", 304, "", ""},                       // nor tagged, and "*" is false
		{"GET", "/empty", "", "", 200, tagOf(""), ""},                              //
		{"HEAD", "/empty", "If-None-Match", "*", 200, "", ""},                      // no body written for HEAD: no tag
		{"POST", "/text", "If-Match", `"x"`, 200, "", "posted"},                    // no Current: unsafe methods pass
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.header+" "+tc.value, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			if tc.header != "" {
				req.Header.Set(tc.header, tc.value)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Errorf("status: got %d, want %d", w.Code, tc.code)
			}
			if got := w.Header().Get("Etag"); got != tc.etag && tc.code != 412 {
				t.Errorf("ETag: got %q, want %q", got, tc.etag)
			}
			if got := strings.TrimSuffix(w.Body.String(), "\n"); got != tc.body {
				t.Errorf("body: got %q, want %q", got, tc.body)
			}
			if tc.code == 304 {
				// §15.4.5: no content metadata on a 304
				for _, k := range []string{"Content-Type", "Content-Length"} {
					if v := w.Header().Get(k); v != "" {
						t.Errorf("304 has %s %q", k, v)
					}
				}
			}
			if tc.code == 200 && tc.etag != "" && tc.etag != `"own"` {
				if got, want := w.Header().Get("Content-Length"), fmt.Sprint(len(tc.body)); got != want {
					t.Errorf("Content-Length: got %q, want %q", got, want)
				}
			}
		})
	}
}

func TestETagCurrent(t *testing.T) {
	var ran int
	current := func(c *waltz.Context) string {
		if c.Request.URL.Path == "/doc" {
			return `"v2"`
		}
		return ""
	}
	r := etagRouter(t, ETagOptions{Current: current}, &ran)
	for _, tc := range []struct {
		method, path, header, value string
		code                        int
		ran                         bool
	}{
		{"PUT", "/doc", "If-Match", `"v1"`, 412, false},        // §13.1.1: lost update prevented
		{"PUT", "/doc", "If-Match", `"v2"`, 200, true},         //
		{"PUT", "/doc", "If-Match", `W/"v2"`, 412, false},      // §13.1.1: strong comparison
		{"PUT", "/doc", "If-Match", `"v1", "v2"`, 200, true},   //
		{"DELETE", "/doc", "If-Match", `"v2"`, 204, true},      //
		{"PUT", "/missing", "If-Match", `*`, 412, true},        // §13.1.1: "*" needs a current representation; the create refuses it
		{"PATCH", "/missing", "If-Match", `*`, 404, true},      // §13.2.1: no resource, the handler's 404 wins over 412
		{"PATCH", "/missing", "If-Match", `"v1"`, 404, true},   //
		{"PUT", "/missing", "If-None-Match", `*`, 201, true},   // §13.1.2: create only if absent
		{"PUT", "/doc", "If-None-Match", `*`, 412, false},      // §13.1.2: it exists
		{"PUT", "/doc", "If-None-Match", `W/"v2"`, 412, false}, // §13.1.2: weak comparison, unsafe method
		{"GET", "/doc", "If-None-Match", `"v2"`, 304, false},   // answered without the handler
		{"GET", "/doc", "If-None-Match", `"v1"`, 200, true},    //
		{"GET", "/doc", "If-Match", `"v1"`, 412, false},        //
		{"PUT", "/doc", "", "", 200, true},                     // no precondition
		{"PUT", "/doc", "If-Match", strings.Repeat(`"x",`, 1000), 412, false},
	} {
		t.Run(tc.method+" "+tc.path+" "+tc.header+" "+tc.value, func(t *testing.T) {
			ran = 0
			req := httptest.NewRequest(tc.method, tc.path, nil)
			if tc.header != "" {
				req.Header.Set(tc.header, tc.value)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Errorf("status: got %d, want %d", w.Code, tc.code)
			}
			if got := ran == 1; got != tc.ran {
				t.Errorf("handler ran: got %v, want %v", got, tc.ran)
			}
			if tc.method == "GET" && tc.code != 412 && w.Header().Get("Etag") != `"v2"` {
				t.Errorf("ETag: got %q, want %q", w.Header().Get("Etag"), `"v2"`)
			}
		})
	}
}

// TestETagCompress checks the two together, Compress outside: the tag is
// the identity body's, made weak, and revalidating with it gives 304.
func TestETagCompress(t *testing.T) {
	r := waltz.New()
	r.Use(Compress(CompressOptions{}), ETag(ETagOptions{}))
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, bigText) })
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	want := "W/" + tagOf(bigText)
	if got := w.Header().Get("Etag"); got != want || w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("got ETag %q, Content-Encoding %q, want %q, gzip", got, w.Header().Get("Content-Encoding"), want)
	}
	if decoded(t, w) != bigText {
		t.Errorf("body differs")
	}
	req.Header.Set("If-None-Match", want)
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != http.StatusNotModified || w.Header().Get("Vary") != "Accept-Encoding" || w.Body.Len() != 0 {
		t.Errorf("got %d, Vary %q, %d body bytes, want 304, Accept-Encoding, 0", w.Code, w.Header().Get("Vary"), w.Body.Len())
	}
}

func TestETagBadOptions(t *testing.T) {
	defer func() {
		got, _ := recover().(string)
		if want := "waltz: ETagOptions.MaxSize -1 is negative"; got != want {
			t.Errorf("got panic %q, want %q", got, want)
		}
	}()
	ETag(ETagOptions{MaxSize: -1})
}

func TestETagAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	var ran int
	r := etagRouter(t, ETagOptions{}, &ran)
	for _, tc := range []struct {
		path, inm string
		allocs    float64
	}{
		{"/text", "", 2},             // the tag; the values of ETag and Content-Length
		{"/big", "", 4},              // and the Content-Length string (100); the handler makes the body
		{"/text", tagOf("hello"), 2}, // 304
		{"/gone", "", 1},             // untagged: the one is the error page's
	} {
		t.Run(tc.path+" "+tc.inm, func(t *testing.T) {
			req := httptest.NewRequest("GET", tc.path, nil)
			if tc.inm != "" {
				req.Header.Set("If-None-Match", tc.inm)
			}
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

func ExampleETag() {
	r := waltz.New()
	r.Use(ETag(ETagOptions{}))
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "hello") })

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	tag := w.Header().Get("ETag")
	fmt.Println(w.Code, tag)

	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set("If-None-Match", tag)
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body.Len())
	// Output:
	// 200 "9b1edae5dbb937b1"
	// 304 0
}
