package middleware

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

var generatedID = regexp.MustCompile(`^[A-Z2-7]{16}-[1-9][0-9]*$`)

func TestRequestID(t *testing.T) {
	for _, tc := range []struct {
		name     string
		o        RequestIDOptions
		incoming []string // values of the request header, nil for none
		keep     bool     // the incoming ID is kept; else a new one is made
	}{
		{"none", RequestIDOptions{}, nil, false},
		{"uuid", RequestIDOptions{}, []string{"0f8fad5b-d9cb-469f-a165-70867728950e"}, true},
		{"base64", RequestIDOptions{}, []string{"aGVsbG8+/w=="}, true},
		{"every safe byte", RequestIDOptions{}, []string{"Az09._~:+/=-"}, true},
		{"64 bytes", RequestIDOptions{}, []string{strings.Repeat("a", 64)}, true},
		{"65 bytes", RequestIDOptions{}, []string{strings.Repeat("a", 65)}, false},
		{"MaxLength 8, 8 bytes", RequestIDOptions{MaxLength: 8}, []string{"abcdefgh"}, true},
		{"MaxLength 8, 9 bytes", RequestIDOptions{MaxLength: 8}, []string{"abcdefghi"}, false},
		{"discard incoming", RequestIDOptions{DiscardIncoming: true}, []string{"abc"}, false},
		{"other header", RequestIDOptions{Header: "x-correlation-id"}, []string{"abc"}, true},
		// Hostile rows: nothing of these may be echoed or stored.
		{"empty", RequestIDOptions{}, []string{""}, false},
		{"10 KB", RequestIDOptions{}, []string{strings.Repeat("A", 10<<10)}, false},
		{"CR LF injection", RequestIDOptions{}, []string{"abc\r\nSet-Cookie: x=1"}, false},
		{"NUL", RequestIDOptions{}, []string{"abc\x00"}, false},
		{"ESC (terminal escape)", RequestIDOptions{}, []string{"\x1b[31mred"}, false},
		{"DEL", RequestIDOptions{}, []string{"abc\x7f"}, false},
		{"space", RequestIDOptions{}, []string{"a b"}, false},
		{"quote (log injection)", RequestIDOptions{}, []string{`a" level=ERROR msg="x`}, false},
		{"non-ASCII", RequestIDOptions{}, []string{"caf\u00e9"}, false},
		{"invalid UTF-8", RequestIDOptions{}, []string{"a\xff"}, false},
		{"two values", RequestIDOptions{}, []string{"abc", "def"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header := http.CanonicalHeaderKey(tc.o.Header)
			if header == "" {
				header = "X-Request-Id"
			}
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tc.incoming != nil {
				req.Header[header] = tc.incoming
			}
			var seen string
			w := serve(t, RequestID(tc.o), func(c *waltz.Context) error {
				seen = RequestIDFrom(c.Request.Context())
				return c.NoContent(http.StatusNoContent)
			}, req)
			got := w.Header().Values(header)
			if len(got) != 1 || got[0] != seen {
				t.Fatalf("got response header %q and context ID %q, want the same one ID", got, seen)
			}
			if tc.keep {
				if seen != tc.incoming[0] {
					t.Errorf("got ID %q, want the incoming %q", seen, tc.incoming[0])
				}
			} else if !generatedID.MatchString(seen) {
				t.Errorf("got ID %q, want a new one matching %s", seen, generatedID)
			}
		})
	}
}

func TestRequestIDUnique(t *testing.T) {
	mw := RequestID(RequestIDOptions{})
	seen := map[string]bool{}
	for range 1000 {
		w := serve(t, mw, ok, httptest.NewRequest(http.MethodGet, "/", nil))
		id := w.Header().Get("X-Request-Id")
		if seen[id] {
			t.Fatalf("got ID %q twice, want each new ID unique", id)
		}
		seen[id] = true
	}
}

func TestRequestIDFromEmpty(t *testing.T) {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	if got := RequestIDFrom(req.Context()); got != "" {
		t.Errorf("got %q from a context without an ID, want \"\"", got)
	}
	if got := RequestIDFrom(nil); got != "" {
		t.Errorf("got %q from a nil context, want \"\"", got)
	}
}

// Middleware outside RequestID (the Logger) reads the ID after the handlers
// return, and values put in the context before RequestID stay readable.
func TestRequestIDContext(t *testing.T) {
	type key struct{}
	var got string
	var other any
	mw := RequestID(RequestIDOptions{})
	r := waltz.New()
	r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), key{}, "kept"))
			err := next(c)
			got = RequestIDFrom(c.Request.Context())
			return err
		}
	}, mw)
	r.Get("/", func(c *waltz.Context) error {
		other = c.Request.Context().Value(key{})
		return nil
	})
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("X-Request-ID", "abc")
	r.ServeHTTP(httptest.NewRecorder(), req)
	if got != "abc" || other != "kept" {
		t.Errorf("got ID %q and outer value %v, want \"abc\" and \"kept\"", got, other)
	}
}

func TestRequestIDAllocs(t *testing.T) {
	mw := RequestID(RequestIDOptions{})
	withID := httptest.NewRequest(http.MethodGet, "/", nil)
	withID.Header.Set("X-Request-ID", "0f8fad5b-d9cb-469f-a165-70867728950e")
	for _, tc := range []struct {
		name string
		req  *http.Request
		want float64
	}{
		{"incoming kept", withID, 2},
		{"new ID", httptest.NewRequest(http.MethodGet, "/", nil), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := func(c *waltz.Context) error {
				_ = RequestIDFrom(c.Request.Context()) // reading it is free
				return nil
			}
			if got := allocs(t, mw, h, tc.req); got != tc.want {
				t.Errorf("got %v allocations per request, want %v", got, tc.want)
			}
		})
	}
}

func TestRequestIDBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    RequestIDOptions
		want string
	}{
		{"header with space", RequestIDOptions{Header: "X Request"}, `waltz: RequestIDOptions.Header "X Request" is not a valid header field name`},
		{"header with colon", RequestIDOptions{Header: "X-Id:"}, `waltz: RequestIDOptions.Header "X-Id:" is not a valid header field name`},
		{"negative length", RequestIDOptions{MaxLength: -1}, `waltz: RequestIDOptions.MaxLength -1 is negative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := panicMessage(func() { RequestID(tc.o) }); got != tc.want {
				t.Errorf("got panic %q, want %q", got, tc.want)
			}
		})
	}
}

func ExampleRequestID() {
	r := waltz.New()
	r.Use(RequestID(RequestIDOptions{}))
	r.Get("/", func(c *waltz.Context) error {
		// A context-aware slog.Handler can read it the same way.
		return c.Text(http.StatusOK, RequestIDFrom(c.Request.Context()))
	})
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("X-Request-ID", "trace-7f3a")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Header().Get("X-Request-ID"), w.Body.String())

	req.Header.Set("X-Request-ID", "bad\x1b[31m id") // dropped, a new one is made
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Header().Get("X-Request-ID") != "bad\x1b[31m id")
	// Output:
	// trace-7f3a trace-7f3a
	// true
}

// Logger, put before RequestID, logs the ID; a hostile incoming ID never
// reaches the log.
func TestRequestIDLogged(t *testing.T) {
	for _, tc := range []struct {
		name, incoming string
		kept           bool
	}{
		{"safe", "trace-7f3a", true},
		{"CR LF and a fake field", "x\r\nlevel=ERROR msg=forged", false},
		{"terminal escape", "\x1b]0;pwned\x07", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			r := waltz.New()
			r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), RequestID(RequestIDOptions{}))
			r.Get("/", ok)
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header["X-Request-Id"] = []string{tc.incoming}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			id := w.Header().Get("X-Request-ID")
			if want := "request_id=" + id + "\n"; !strings.HasSuffix(logs.String(), want) {
				t.Errorf("got log %q, want it to end with %q", logs.String(), want)
			}
			if kept := id == tc.incoming; kept != tc.kept || !tc.kept && strings.Contains(logs.String(), tc.incoming) {
				t.Errorf("got ID %q and log %q, want the incoming ID kept: %v", id, logs.String(), tc.kept)
			}
		})
	}
}
