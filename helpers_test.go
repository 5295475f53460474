package waltz

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/waltz-go/waltz/internal/testhelp"
)

// Helpers shared by the package's tests: serving a request, writers,
// no-op handlers, route sets, and catching panics and logs; most are
// internal/testhelp's, which the contract's tests share.

var (
	serve        = testhelp.Serve
	serveWith    = testhelp.ServeWith
	panicMessage = testhelp.PanicMessage
	silenceLogs  = testhelp.SilenceLogs
	newNopWriter = testhelp.NewNopWriter
	benchServe   = testhelp.BenchServe
)

type nopWriter = testhelp.NopWriter

type flushNopWriter = testhelp.FlushNopWriter

const (
	raceAllocs  = testhelp.RaceAllocs
	raceEnabled = testhelp.RaceEnabled
)

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
