package waltz

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
)

// Helpers shared by the package's tests: serving a request, writers,
// no-op handlers, route sets, and catching panics and logs.

// serve sends one request through h and returns the recorded response.
func serve(tb testing.TB, h http.Handler, method, target string) *httptest.ResponseRecorder {
	tb.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

// panicMessage runs f and returns what it panicked with, as text ("" if it
// did not panic).
func panicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// silenceLogs sends slog's default logger to a buffer for the test and
// returns the buffer.
func silenceLogs(tb testing.TB) *bytes.Buffer {
	tb.Helper()
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	tb.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// serveTarget sends method and the request target (path and query, escaped
// as on the wire) to r, as net/http's server would after parsing it.
func serveTarget(tb testing.TB, r http.Handler, method, target string) *httptest.ResponseRecorder {
	tb.Helper()
	u, err := url.ParseRequestURI(target)
	if err != nil {
		tb.Fatalf("bad test target %q: %v", target, err)
	}
	req := &http.Request{Method: method, URL: u, RequestURI: target, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Host: "example.com", Body: http.NoBody}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

// nopWriter is a ResponseWriter that discards everything; it implements
// io.StringWriter and reuses one header map, so it costs nothing itself.
type nopWriter struct{ h http.Header }

func newNopWriter() *nopWriter { return &nopWriter{h: make(http.Header)} }

func (w *nopWriter) Header() http.Header { return w.h }

func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }

func (w *nopWriter) WriteString(s string) (int, error) { return len(s), nil }

func (w *nopWriter) WriteHeader(int) {}

func nopHandler(*Context) error { return nil }

// loadRoutes reads a route set: METHOD<TAB>PATTERN, one a line.
func loadRoutes(tb testing.TB, file string) []Route {
	tb.Helper()
	f, err := os.Open(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rs []Route
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, p, ok := strings.Cut(sc.Text(), "\t"); ok {
			rs = append(rs, Route{Method: m, Pattern: p})
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return rs
}

// recoverHandle runs register, which calls Handle directly so that the
// registering line is the caller's, and returns what it panicked with.
func recoverHandle(register func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = v.(error)
		}
	}()
	register()
	return nil
}

// serveWith sends one request with the given header fields (name, value
// pairs) through h and returns the recorded response.
func serveWith(tb testing.TB, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	tb.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// raceAllocs is why a test of allocation counts is skipped under the race
// detector: it makes sync.Pool drop items at random, so a pooled Context
// or buffer is made anew now and then. The counts are held by the run
// without -race (.ci/run's checkptr run).
const raceAllocs = "the race detector makes sync.Pool drop items at random"
