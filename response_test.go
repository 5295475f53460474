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
