package middleware

import (
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// The tests in this file hold the rules that the writers which hold a
// response back (ETag's, Compress's) and the error paths (the error
// handler, Recoverer, Timeout) agree on, whatever their order.

// jsonErrors is an error handler of the kind users write: it renders every
// error as JSON through c.JSON.
func jsonErrors(c *waltz.Context, err error) {
	code := http.StatusInternalServerError
	var he *waltz.HTTPError
	if errors.As(err, &he) {
		code = he.Code
	}
	_ = c.JSON(code, map[string]string{"error": http.StatusText(code)})
}

// entityFields are the fields that describe a body; an error answer must
// carry none that was set for a body it did not send.
var entityFields = []string{"Etag", "Content-Encoding", "Content-Range", "Last-Modified"}

// checkFramed fails unless a Content-Length, when sent, is the body's length.
func checkFramed(tb testing.TB, w *httptest.ResponseRecorder) {
	tb.Helper()
	if cl := w.Header().Get("Content-Length"); cl != "" && cl != strconv.Itoa(w.Body.Len()) {
		tb.Errorf("Content-Length %s with a body of %d bytes", cl, w.Body.Len())
	}
}

// readDecoded reads res's body, decoding its Content-Encoding (gzip or
// deflate); the error is the read's or the decoder's.
func readDecoded(res *http.Response) ([]byte, error) {
	var r io.Reader = res.Body
	switch res.Header.Get("Content-Encoding") {
	case "gzip":
		zr, err := gzip.NewReader(res.Body)
		if err != nil {
			return nil, err
		}
		r = zr
	case "deflate":
		zr, err := zlib.NewReader(res.Body)
		if err != nil {
			return nil, err
		}
		r = zr
	}
	return io.ReadAll(r)
}

// TestTimeoutOutsideHolder: a handler that wrote its whole answer before
// Timeout's deadline and returned after it has its answer sent, though a
// writer inside Timeout held it back, whichever error handler is set.
func TestTimeoutOutsideHolder(t *testing.T) {
	for _, holder := range []struct {
		name string
		mw   waltz.Middleware
	}{
		{"ETag", ETag(ETagOptions{})},
		{"Compress", Compress(CompressOptions{MinSize: 4096})},
	} {
		for _, eh := range []struct {
			name string
			h    func(*waltz.Context, error)
		}{{"default", nil}, {"JSON", jsonErrors}} {
			t.Run(holder.name+"/"+eh.name, func(t *testing.T) {
				r := waltz.New()
				r.ErrorHandler = eh.h
				r.Use(Timeout(TimeoutOptions{Duration: 20 * time.Millisecond}), holder.mw)
				r.Get("/", func(c *waltz.Context) error {
					err := c.Text(http.StatusOK, "the whole answer")
					<-c.Request.Context().Done()
					return err
				})
				w := httptest.NewRecorder()
				r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
				if w.Code != http.StatusOK || w.Body.String() != "the whole answer" {
					t.Errorf("got %d %q, want 200 %q", w.Code, w.Body.String(), "the whole answer")
				}
				checkFramed(t, w)
			})
		}
	}
}

// TestTimeoutLateHolder: after the deadline, a status a holding writer
// takes is refused as a direct one is, and the answer is the timeout's,
// with none of the fields set for the refused body.
func TestTimeoutLateHolder(t *testing.T) {
	for _, holder := range []struct {
		name string
		mw   waltz.Middleware
	}{
		{"ETag", ETag(ETagOptions{})},
		{"Compress", Compress(CompressOptions{})},
		{"none", func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }},
	} {
		for _, eh := range []struct {
			name string
			h    func(*waltz.Context, error)
		}{{"default", nil}, {"JSON", jsonErrors}} {
			t.Run(holder.name+"/"+eh.name, func(t *testing.T) {
				r := waltz.New()
				r.ErrorHandler = eh.h
				r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
				r.Use(Timeout(TimeoutOptions{Duration: 10 * time.Millisecond}), holder.mw)
				var werr error
				r.Get("/", func(c *waltz.Context) error {
					<-c.Request.Context().Done()
					h := c.Writer.Header()
					h.Set("Etag", `"late"`)
					h.Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
					werr = c.Text(http.StatusOK, "too late")
					return nil
				})
				w := httptest.NewRecorder()
				r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
				if w.Code != http.StatusServiceUnavailable || strings.Contains(w.Body.String(), "too late") {
					t.Errorf("got %d %q, want 503 without the late body", w.Code, w.Body.String())
				}
				if werr == nil {
					t.Error("the late write returned nil, want an error")
				}
				for _, k := range entityFields {
					if v := w.Header().Get(k); v != "" {
						t.Errorf("the 503 carries %s: %q", k, v)
					}
				}
				checkFramed(t, w)
			})
		}
	}
}

// TestErrorAnswerEntityFields: an error answered before the response
// started carries none of the entity fields set for the body it replaces,
// whichever error handler renders it, and whoever set them.
func TestErrorAnswerEntityFields(t *testing.T) {
	setAll := func(c *waltz.Context) error {
		h := c.Writer.Header()
		h.Set("Etag", `"v1"`)
		h.Set("Content-Length", "9")
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Range", "bytes 0-8/100")
		h.Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		return &waltz.HTTPError{Code: http.StatusConflict}
	}
	current := ETag(ETagOptions{Current: func(*waltz.Context) string { return `"v1"` }})
	notFound := func(*waltz.Context) error { return &waltz.HTTPError{Code: http.StatusNotFound} }
	for _, tc := range []struct {
		name string
		mw   []waltz.Middleware
		h    waltz.HandlerFunc
		code int
	}{
		{"handler set them", nil, setAll, http.StatusConflict},
		{"under ETag and Compress", []waltz.Middleware{Compress(CompressOptions{}), ETag(ETagOptions{})}, setAll, http.StatusConflict},
		{"ETag.Current set the tag", []waltz.Middleware{current}, notFound, http.StatusNotFound},
	} {
		for _, eh := range []struct {
			name string
			h    func(*waltz.Context, error)
		}{{"default", nil}, {"JSON", jsonErrors}} {
			t.Run(tc.name+"/"+eh.name, func(t *testing.T) {
				r := waltz.New()
				r.ErrorHandler = eh.h
				r.Use(tc.mw...)
				r.Get("/", tc.h)
				w := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, "/", nil)
				req.Header.Set("Accept-Encoding", "gzip")
				r.ServeHTTP(w, req)
				if w.Code != tc.code {
					t.Errorf("got %d, want %d", w.Code, tc.code)
				}
				for _, k := range entityFields {
					if v := w.Header().Get(k); v != "" {
						t.Errorf("the %d carries %s: %q", w.Code, k, v)
					}
				}
				checkFramed(t, w)
			})
		}
	}
}

// TestPanicUnderHolder: a recovered panic after the handler wrote part of
// its body aborts the response, whether the writer holding that part is
// outside Recoverer or inside it; before anything was written it is a
// clean 500.
func TestPanicUnderHolder(t *testing.T) {
	holders := []struct {
		name string
		mw   waltz.Middleware
	}{
		{"ETag", ETag(ETagOptions{})},
		{"Compress", Compress(CompressOptions{})},
		{"Compress small MinSize", Compress(CompressOptions{MinSize: 16})},
	}
	for _, hd := range holders {
		for _, outside := range []bool{true, false} {
			for _, wrote := range []bool{true, false} {
				name := hd.name + "/holder inside Recoverer"
				if outside {
					name = hd.name + "/holder outside Recoverer"
				}
				if wrote {
					name += "/after 512 bytes"
				} else {
					name += "/before writing"
				}
				t.Run(name, func(t *testing.T) {
					r := waltz.New()
					r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
					if outside {
						r.Use(hd.mw, Recoverer)
					} else {
						r.Use(Recoverer, hd.mw)
					}
					r.Get("/", func(c *waltz.Context) error {
						if wrote {
							_, _ = c.Writer.Write([]byte(strings.Repeat("x", 512)))
						}
						panic("boom")
					})
					srv := httptest.NewServer(r)
					defer srv.Close()
					req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
					req.Header.Set("Accept-Encoding", "gzip")
					res, err := srv.Client().Transport.RoundTrip(req)
					if err != nil {
						if !wrote {
							t.Fatalf("got %v, want a clean 500", err)
						}
						return // aborted before the headers: the client knows
					}
					defer res.Body.Close()
					body, rerr := readDecoded(res)
					switch {
					case wrote && rerr == nil:
						t.Errorf("got a complete %d with %d bytes, want an aborted response", res.StatusCode, len(body))
					case !wrote && (rerr != nil || res.StatusCode != 500 || string(body) != "Internal Server Error"):
						t.Errorf("got %d %q %v, want a clean 500", res.StatusCode, body, rerr)
					}
				})
			}
		}
	}
}

// TestErrorWhileHeld: a handler that wrote part of its body, held by
// ETag, Compress or both, and then returned an error sent nothing yet: the
// held part is dropped and the error answered (a 500, or Timeout's 503
// once its deadline passed), never the part as a complete, tagged 200;
// the log says the status sent. Behind a writer that cannot forget what
// it saw, the response is aborted instead.
func TestErrorWhileHeld(t *testing.T) {
	const d = 50 * time.Millisecond
	part := strings.Repeat("x", 500)
	failing := func(c *waltz.Context) error {
		c.Writer.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(c.Writer, part)
		return errors.New("db failed midway")
	}
	timingOut := func(c *waltz.Context) error {
		c.Writer.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(c.Writer, part)
		<-c.Request.Context().Done()
		return c.Request.Context().Err()
	}
	// counting is a writer of the user's that counts what passes it and
	// has no Unhold: what it saw cannot be taken back.
	counting := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			orig := c.Writer
			c.Writer = &countingWriter{ResponseWriter: orig}
			defer func() { c.Writer = orig }()
			return next(c)
		}
	}
	for _, tc := range []struct {
		name  string
		group []waltz.Middleware
		h     waltz.HandlerFunc
		code  int // 0: aborted
	}{
		{"ETag", []waltz.Middleware{ETag(ETagOptions{})}, failing, 500},
		{"Compress outside ETag", []waltz.Middleware{ETag(ETagOptions{MaxSize: 100})}, failing, 500},
		{"Compress inside ETag", []waltz.Middleware{ETag(ETagOptions{}), Compress(CompressOptions{MinSize: 100})}, failing, 500},
		{"Timeout and ETag", []waltz.Middleware{Timeout(TimeoutOptions{Duration: d}), ETag(ETagOptions{})}, timingOut, 503},
		{"Timeout under Compress", []waltz.Middleware{Timeout(TimeoutOptions{Duration: d})}, timingOut, 503},
		{"a writer without Unhold", []waltz.Middleware{ETag(ETagOptions{}), counting}, failing, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			r := waltz.New()
			r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), Recoverer, Compress(CompressOptions{}))
			r.Group("/g", tc.group...).Get("/", tc.h)
			srv := httptest.NewServer(r)
			defer srv.Close()
			srv.Config.ErrorLog = newStdLog(io.Discard)
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/g/", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			res, err := srv.Client().Transport.RoundTrip(req)
			if tc.code == 0 {
				if err == nil {
					body, rerr := readDecoded(res)
					res.Body.Close()
					if rerr == nil {
						t.Errorf("got a complete %d with %d bytes, want an aborted response", res.StatusCode, len(body))
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("got %v, want %d", err, tc.code)
			}
			body, rerr := readDecoded(res)
			res.Body.Close()
			if want := http.StatusText(tc.code); rerr != nil || res.StatusCode != tc.code || string(body) != want {
				t.Errorf("got %d %q %v, want %d %q", res.StatusCode, body, rerr, tc.code, want)
			}
			if et := res.Header.Get("Etag"); et != "" {
				t.Errorf("got ETag %q on the error, want none", et)
			}
			if want := fmt.Sprintf("status=%d", tc.code); !strings.Contains(logs.String(), want) {
				t.Errorf("got log %q, want %s", logs.String(), want)
			}
		})
	}
}

type countingWriter struct {
	http.ResponseWriter
	n int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return w.ResponseWriter.Write(p)
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestHolderReadFrom: a body copied in with io.Copy goes through the
// holding writers' one ReadFrom: held up to the limit (a body of exactly
// the limit is still whole for ETag to tag, and too small for Compress
// only below MinSize), then passed on or encoded, every byte once.
func TestHolderReadFrom(t *testing.T) {
	const limit = 64
	for _, tc := range []struct {
		name       string
		mw         waltz.Middleware
		size       int
		tagged     bool
		compressed bool
	}{
		{"ETag, under", ETag(ETagOptions{MaxSize: limit}), limit - 1, true, false},
		{"ETag, at", ETag(ETagOptions{MaxSize: limit}), limit, true, false},
		{"ETag, over", ETag(ETagOptions{MaxSize: limit}), limit + 1, false, false},
		{"ETag, far over", ETag(ETagOptions{MaxSize: limit}), 100 * limit, false, false},
		{"Compress, under", Compress(CompressOptions{MinSize: limit}), limit - 1, false, false},
		{"Compress, at", Compress(CompressOptions{MinSize: limit}), limit, false, true},
		{"Compress, far over", Compress(CompressOptions{MinSize: limit}), 100 * limit, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Repeat("0123456789", tc.size/10+1)[:tc.size]
			r := waltz.New()
			r.Use(tc.mw)
			r.Get("/", func(c *waltz.Context) error {
				c.Writer.Header().Set("Content-Type", "text/plain")
				// A reader that is not an io.WriterTo, so io.Copy asks
				// the writer's ReadFrom.
				n, err := io.Copy(c.Writer, struct{ io.Reader }{strings.NewReader(body)})
				if n != int64(tc.size) || err != nil {
					t.Errorf("io.Copy: got %d, %v, want %d, nil", n, err, tc.size)
				}
				return nil
			})
			srv := httptest.NewServer(r)
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			got, err := readDecoded(res)
			if err != nil || string(got) != body {
				t.Errorf("body: got %d bytes (%v), want the %d written", len(got), err, tc.size)
			}
			if tagged := res.Header.Get("Etag") != ""; tagged != tc.tagged {
				t.Errorf("ETag %q: tagged %v, want %v", res.Header.Get("Etag"), tagged, tc.tagged)
			}
			if compressed := res.Header.Get("Content-Encoding") == "gzip"; compressed != tc.compressed {
				t.Errorf("Content-Encoding %q: compressed %v, want %v", res.Header.Get("Content-Encoding"), compressed, tc.compressed)
			}
		})
	}
}
