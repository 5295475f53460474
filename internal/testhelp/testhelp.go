// Package testhelp holds the helpers the tests of the router (package
// waltz) and of the contract (package api) share: serving a request,
// writers that cost nothing, catching panics and logs, reading an event
// stream; and the conformance kits' tests (storetest, idemtest,
// eventlogtest) share KitRefuses. It imports nothing of the framework, so that the root package's
// own tests can use it.
package testhelp

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// Serve sends one request through h and returns the recorded response.
func Serve(tb testing.TB, h http.Handler, method, target string) *httptest.ResponseRecorder {
	tb.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

// ServeWith sends one request with the given header fields (name, value
// pairs) through h and returns the recorded response.
func ServeWith(tb testing.TB, h http.Handler, method, target string, header ...string) *httptest.ResponseRecorder {
	tb.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// PanicMessage runs f and returns what it panicked with, as text ("" if it
// did not panic).
func PanicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}

// SilenceLogs sends slog's default logger to a buffer for the test and
// returns the buffer.
func SilenceLogs(tb testing.TB) *bytes.Buffer {
	tb.Helper()
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	tb.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// NopWriter is a ResponseWriter that discards everything; it implements
// io.StringWriter and reuses one header map, so it costs nothing itself.
type NopWriter struct{ H http.Header }

// NewNopWriter returns a NopWriter with an empty header map.
func NewNopWriter() *NopWriter { return &NopWriter{H: make(http.Header)} }

func (w *NopWriter) Header() http.Header { return w.H }

func (w *NopWriter) Write(b []byte) (int, error) { return len(b), nil }

func (w *NopWriter) WriteString(s string) (int, error) { return len(s), nil }

func (w *NopWriter) WriteHeader(int) {}

// FlushNopWriter is a NopWriter that can flush, as an event stream needs.
type FlushNopWriter struct{ NopWriter }

func (*FlushNopWriter) Flush() {}

// BenchServe serves req through h in b's loop, into a NopWriter.
func BenchServe(b *testing.B, h http.Handler, req *http.Request) {
	b.Helper()
	w := NewNopWriter()
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}

// RaceAllocs is why a test of allocation counts is skipped under the race
// detector: it makes sync.Pool drop items at random, so a pooled Context
// or buffer is made anew now and then. The counts are held by the run
// without -race (.ci/run's checkptr run).
const RaceAllocs = "the race detector makes sync.Pool drop items at random"

// Event is one dispatched server-sent event, as a client sees it.
type Event struct {
	ID, Event, Data string
	Retry           int // milliseconds; -1 when not set
}

// ReadEvent reads up to the next dispatched event, following the WHATWG
// HTML "Interpreting an event stream" rules: lines split at LF (the
// server sends no CR), "field: value" with one leading space stripped,
// comments skipped, a blank line dispatches when the data buffer is not
// empty. lastID carries the last event ID across events, as the client's
// does; comments collects comment lines.
func ReadEvent(tb testing.TB, br *bufio.Reader, lastID *string, comments *[]string) (Event, error) {
	tb.Helper()
	ev := Event{Retry: -1}
	var data strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimSuffix(line, "\n")
		if strings.ContainsRune(line, '\r') {
			tb.Errorf("stream line %q holds a CR", line)
		}
		if line == "" {
			if data.Len() == 0 {
				ev = Event{Retry: ev.Retry}
				continue
			}
			ev.Data, ev.ID = strings.TrimSuffix(data.String(), "\n"), *lastID
			return ev, nil
		}
		if line[0] == ':' {
			*comments = append(*comments, line)
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data.WriteString(value + "\n")
		case "event":
			ev.Event = value
		case "id":
			if !strings.ContainsRune(value, 0) {
				*lastID = value
			}
		case "retry":
			if n, err := strconv.Atoi(value); err == nil {
				ev.Retry = n
			}
		default:
			tb.Errorf("stream line %q: unknown field", line)
		}
	}
}
