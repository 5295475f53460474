package middleware

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// recRouter returns a router with Recoverer whose error log goes to logs.
func recRouter(logs *bytes.Buffer) *waltz.Router {
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(logs, nil))
	r.Use(Recoverer)
	r.Get("/panic", func(c *waltz.Context) error { panic("secret detail") })
	r.Get("/error-value", func(c *waltz.Context) error {
		panic(&waltz.HTTPError{Code: http.StatusTeapot})
	})
	r.Get("/late", func(c *waltz.Context) error {
		_ = c.Text(http.StatusOK, "partial-")
		panic("after writing")
	})
	r.Get("/flushed", func(c *waltz.Context) error {
		_, _ = c.Writer.Write(bytes.Repeat([]byte("x"), 8<<10))
		_ = http.NewResponseController(c.Writer).Flush()
		panic("after flushing")
	})
	r.Get("/abort", func(c *waltz.Context) error { panic(http.ErrAbortHandler) })
	return r
}

func TestRecovererBeforeWrite(t *testing.T) {
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/panic", 500, "Internal Server Error"},
		// A panic value that is an HTTPError is still a panic: 500.
		{"/error-value", 500, "Internal Server Error"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			var logs bytes.Buffer
			w := httptest.NewRecorder()
			recRouter(&logs).ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
			if w.Code != tc.code || w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.code, tc.body)
			}
			if strings.Contains(w.Body.String(), "secret") {
				t.Errorf("panic value leaked to the client: %q", w.Body.String())
			}
			if n := strings.Count(logs.String(), "\n"); n != 1 {
				t.Errorf("got %d log lines, want 1: %q", n, logs.String())
			}
			if !strings.Contains(logs.String(), "err.stack=") || !strings.Contains(logs.String(), "err.panic=") {
				t.Errorf("panic value and stack not logged: %q", logs.String())
			}
		})
	}
}

// TestRecovererAfterWrite: once the response has started, a recovered
// panic aborts it, so the client cannot read the part it got as a whole
// answer; over a real connection the read fails.
func TestRecovererAfterWrite(t *testing.T) {
	var logs bytes.Buffer
	srv := httptest.NewServer(recRouter(&logs))
	defer srv.Close()
	srv.Config.ErrorLog = nil
	for _, path := range []string{"/late", "/flushed", "/abort"} {
		t.Run(path, func(t *testing.T) {
			res, err := http.Get(srv.URL + path)
			if err == nil {
				_, err = io.ReadAll(res.Body)
				res.Body.Close()
			}
			if err == nil {
				t.Fatalf("got a complete response (%d), want a failed read", res.StatusCode)
			}
		})
	}
	// The server keeps serving.
	res, err := http.Get(srv.URL + "/panic")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusInternalServerError {
		t.Errorf("after aborts: got %d, want 500", res.StatusCode)
	}
}

func TestRecovererAbortsThroughServeHTTP(t *testing.T) {
	var logs bytes.Buffer
	r := recRouter(&logs)
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("got panic %v, want http.ErrAbortHandler", v)
		}
		if !strings.Contains(logs.String(), "err.aborted=true") {
			t.Errorf("abort not logged: %q", logs.String())
		}
	}()
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/late", nil))
}

// TestRecovererHijacked: after a hijack nothing of waltz writes to the
// connection, whether the handler returns an error or panics.
func TestRecovererHijacked(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	r.Use(Recoverer)
	hijack := func(c *waltz.Context) {
		conn, rw, err := http.NewResponseController(c.Writer).Hijack()
		if err != nil {
			panic(err)
		}
		_, _ = rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nraw")
		_ = rw.Flush()
		conn.Close()
		if !c.Response().Hijacked() {
			panic("Response does not report the hijack")
		}
	}
	answered := make(chan struct{}, 2)
	r.ErrorHandler = func(c *waltz.Context, err error) {
		waltz.DefaultErrorHandler(c, err)
		answered <- struct{}{}
	}
	r.Get("/error", func(c *waltz.Context) error { hijack(c); return errors.New("after hijack") })
	r.Get("/panic", func(c *waltz.Context) error { hijack(c); panic("after hijack") })
	var serverLog bytes.Buffer
	srv := httptest.NewUnstartedServer(r)
	srv.Config.ErrorLog = newStdLog(&serverLog)
	srv.Start()
	defer srv.Close()
	for _, path := range []string{"/error", "/panic"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != "raw" {
			t.Errorf("%s: got %d %q, want 200 \"raw\"", path, res.StatusCode, body)
		}
	}
	// The handlers go on after the client has its answer: wait for both.
	for range 2 {
		select {
		case <-answered:
		case <-time.After(5 * time.Second):
			t.Fatal("the error handler was not called for both requests")
		}
	}
	srv.Close()
	if strings.Contains(serverLog.String(), "hijacked") {
		t.Errorf("net/http logged a write to a hijacked connection: %q", serverLog.String())
	}
	if n := strings.Count(logs.String(), "\n"); n != 2 {
		t.Errorf("got %d error log lines, want one per request: %q", n, logs.String())
	}
}

// TestRecovererHijackWriter checks the recorder refuses writes after a
// hijack on a writer that supports it.
func TestRecovererHijackWriter(t *testing.T) {
	r := waltz.New()
	var werr error
	r.Get("/", func(c *waltz.Context) error {
		if _, _, err := http.NewResponseController(c.Writer).Hijack(); err != nil {
			return err
		}
		_, werr = c.Writer.Write([]byte("x"))
		return nil
	})
	w := &hijackable{ResponseRecorder: httptest.NewRecorder()}
	r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if !errors.Is(werr, http.ErrHijacked) {
		t.Errorf("write after hijack: got %v, want http.ErrHijacked", werr)
	}
	if w.Body.Len() != 0 || w.wroteHeader {
		t.Errorf("got %q written after hijack, want nothing", w.Body.String())
	}
}

type hijackable struct {
	*httptest.ResponseRecorder
	wroteHeader bool
}

func (h *hijackable) WriteHeader(code int) {
	h.wroteHeader = true
	h.ResponseRecorder.WriteHeader(code)
}
func (h *hijackable) Hijack() (c netConn, rw *bufio.ReadWriter, err error) {
	return nil, bufio.NewReadWriter(bufio.NewReader(strings.NewReader("")), bufio.NewWriter(io.Discard)), nil
}
