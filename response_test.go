package waltz

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestResponseRecords(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      func(w http.ResponseWriter)
		status int
		size   int64
		sent   int // the status the client got
	}{
		{"nothing written", func(w http.ResponseWriter) {}, 200, 0, 200},
		{"body without status", func(w http.ResponseWriter) { w.Write([]byte("abc")) }, 200, 3, 200},
		{"status then body", func(w http.ResponseWriter) { w.WriteHeader(201); w.Write([]byte("ab")) }, 201, 2, 201},
		{"second WriteHeader ignored", func(w http.ResponseWriter) { w.WriteHeader(202); w.WriteHeader(500) }, 202, 0, 202},
		{"1xx passes through", func(w http.ResponseWriter) { w.WriteHeader(103); w.WriteHeader(204) }, 204, 0, 204},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *Response
			r := New()
			r.Get("/", func(c *Context) error {
				tc.h(c.Writer)
				got = c.Response()
				if s := got.Status(); s != tc.status {
					t.Errorf("Status: got %d, want %d", s, tc.status)
				}
				if n := got.Size(); n != tc.size {
					t.Errorf("Size: got %d, want %d", n, tc.size)
				}
				return nil
			})
			// A real server: the recorder in httptest keeps a 1xx as final.
			srv := httptest.NewServer(r)
			defer srv.Close()
			res, err := http.Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tc.sent {
				t.Errorf("client got %d, want %d", res.StatusCode, tc.sent)
			}
		})
	}
}

// TestResponseController checks that http.ResponseController reaches the
// server's writer through Unwrap, and that the wrapper's own Flush and
// Hijack report what the underlying writer cannot do.
func TestResponseController(t *testing.T) {
	r := New()
	r.Get("/flush", func(c *Context) error {
		c.Writer.Write([]byte("a"))
		return http.NewResponseController(c.Writer).Flush()
	})
	r.Get("/hijack", func(c *Context) error {
		conn, brw, err := c.Writer.(http.Hijacker).Hijack()
		if err != nil {
			return err
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhj")
		return brw.Flush()
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	for _, tc := range []struct{ path, body string }{{"/flush", "a"}, {"/hijack", "hj"}} {
		res, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		b := make([]byte, 8)
		n, _ := bufio.NewReader(res.Body).Read(b)
		res.Body.Close()
		if res.StatusCode != 200 || string(b[:n]) != tc.body {
			t.Errorf("%s: got %d %q, want 200 %q", tc.path, res.StatusCode, b[:n], tc.body)
		}
	}

	// A writer that can neither flush nor hijack.
	var rw Response
	rw.reset(struct{ http.ResponseWriter }{httptest.NewRecorder()}, false)
	if err := rw.FlushError(); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("FlushError: got %v, want ErrNotSupported", err)
	}
	if _, _, err := rw.Hijack(); !errors.Is(err, http.ErrNotSupported) {
		t.Errorf("Hijack: got %v, want ErrNotSupported", err)
	}
}

// TestResponseReadFrom: ReadFrom sends the status first, counts the bytes,
// and reaches the underlying writer's ReadFrom when it has one.
func TestResponseReadFrom(t *testing.T) {
	for _, tc := range []struct {
		name     string
		w        http.ResponseWriter
		readFrom bool
	}{
		{"writer with ReadFrom", &rfWriter{ResponseRecorder: httptest.NewRecorder()}, true},
		{"plain writer", httptest.NewRecorder(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Response
			r.reset(tc.w, false)
			n, err := r.ReadFrom(strings.NewReader("hello"))
			if n != 5 || err != nil || r.Size() != 5 || r.Status() != 200 || !r.Written() {
				t.Errorf("got n=%d err=%v size=%d status=%d, want 5 <nil> 5 200", n, err, r.Size(), r.Status())
			}
			if rf, ok := tc.w.(*rfWriter); ok != tc.readFrom || ok && !rf.called {
				t.Errorf("underlying ReadFrom called: %v, want %v", ok && rf.called, tc.readFrom)
			}
		})
	}
}

type rfWriter struct {
	*httptest.ResponseRecorder
	called bool
}

func (w *rfWriter) ReadFrom(src io.Reader) (int64, error) {
	w.called = true
	return io.Copy(w.ResponseRecorder, src)
}

// TestResponseHold: a status held above the Response starts it without
// sending anything, a writer between may refuse, and a hijack ends it.
func TestResponseHold(t *testing.T) {
	var r Response
	rec := httptest.NewRecorder()
	r.reset(rec, false)
	if r.Started() {
		t.Fatal("Started before anything: got true")
	}
	if err := Hold(&r); err != nil || !r.Started() || r.Written() || rec.Code != 200 || rec.Flushed {
		t.Errorf("after Hold: got err %v, Started %v, Written %v, want nil, true, false", err, r.Started(), r.Written())
	}
	refused := errors.New("refused")
	var r2 Response
	r2.reset(refuser{httptest.NewRecorder(), refused}, false)
	if err := Hold(struct{ http.ResponseWriter }{&r2}); err != nil {
		t.Errorf("through a writer without Unwrap: got %v, want nil (nothing to ask)", err)
	}
	if err := Hold(unwrapper{&r2}); !errors.Is(err, refused) || r2.Started() {
		t.Errorf("refused beneath: got %v, Started %v, want %v, false", err, r2.Started(), refused)
	}
}

type refuser struct {
	http.ResponseWriter
	err error
}

func (w refuser) Hold() error { return w.err }

type unwrapper struct{ http.ResponseWriter }

func (w unwrapper) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestResponseHeadFlushed: once a HEAD's headers are flushed, writes and
// flushes fail, so a streaming handler ends; before that, and on GET,
// writes succeed.
func TestResponseHeadFlushed(t *testing.T) {
	for _, head := range []bool{false, true} {
		var r Response
		r.reset(httptest.NewRecorder(), head)
		if _, err := r.WriteString("a"); err != nil {
			t.Errorf("head=%v: write before the flush: got %v, want nil", head, err)
		}
		if err := r.FlushError(); err != nil {
			t.Errorf("head=%v: first flush: got %v, want nil", head, err)
		}
		_, werr := r.Write([]byte("b"))
		ferr := r.FlushError()
		_, rerr := r.ReadFrom(strings.NewReader("c"))
		for _, err := range []error{werr, ferr, rerr} {
			if head != errors.Is(err, http.ErrBodyNotAllowed) {
				t.Errorf("head=%v: after the flush: got %v", head, err)
			}
		}
	}
}

// TestResponseNotModified: a 304 goes out without the Content-Type and
// Content-Length that writers above left for each other.
func TestResponseNotModified(t *testing.T) {
	var r Response
	rec := httptest.NewRecorder()
	r.reset(rec, false)
	h := r.Header()
	h.Set("Content-Type", "text/plain")
	h.Set("Content-Length", "12")
	h.Set("Etag", `"x"`)
	r.WriteHeader(http.StatusNotModified)
	if rec.Code != 304 || h.Get("Content-Type") != "" || h.Get("Content-Length") != "" || h.Get("Etag") != `"x"` {
		t.Errorf("got %d %v, want 304 with only the Etag", rec.Code, h)
	}
}
