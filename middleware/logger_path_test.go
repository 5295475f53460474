package middleware

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/waltz-go/waltz"
)

// TestLoggerLongPath: a path of a megabyte is logged as its first 2 KiB,
// cut between characters, with its whole length beside it; a record of a
// path up to the limit is as it was.
func TestLoggerLongPath(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Use(Logger(slog.New(slog.NewJSONHandler(&logs, nil))))
	r.Get("/*rest", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
	for _, tc := range []struct {
		name string
		path string
		cut  bool
	}{
		{"short", "/a/b", false},
		{"at the limit", "/" + strings.Repeat("a", maxLoggedPath-1), false},
		{"a byte over", "/" + strings.Repeat("a", maxLoggedPath), true},
		{"a megabyte", "/" + strings.Repeat("a", 1<<20), true},
		// é is two bytes: the limit falls inside one.
		{"cut inside a character", "/" + strings.Repeat("é", maxLoggedPath), true},
		// GET /%80%80…: no character starts before the limit; the cut
		// steps back at most the 3 bytes a character can go on for,
		// where it stepped back to the path's first byte and logged "…".
		{"no character starts", "/" + strings.Repeat("\x80", 2*maxLoggedPath), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs.Reset()
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path = tc.path
			r.ServeHTTP(httptest.NewRecorder(), req)
			var rec struct {
				Path      string `json:"path"`
				PathBytes *int   `json:"path_bytes"`
			}
			if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
				t.Fatalf("%v: %.200s", err, logs.String())
			}
			if !tc.cut {
				if rec.Path != tc.path || rec.PathBytes != nil {
					t.Fatalf("logged path of %d bytes, path_bytes %v; want the path as it is", len(rec.Path), rec.PathBytes)
				}
				return
			}
			if !utf8.ValidString(tc.path) {
				// The handler writes each invalid byte as U+FFFD.
				if n := strings.Count(rec.Path, "\uFFFD"); n < maxLoggedPath-4 || !strings.HasSuffix(rec.Path, "…") {
					t.Errorf("logged %d bytes of the path (%.16q) and …: want the first %d bytes, at most 3 fewer", n, rec.Path, maxLoggedPath)
				}
			} else if len(rec.Path) > maxLoggedPath+len("…") || !strings.HasSuffix(rec.Path, "…") || !strings.HasPrefix(tc.path, strings.TrimSuffix(rec.Path, "…")) {
				t.Errorf("logged path of %d bytes (%q…): want the first %d bytes and …", len(rec.Path), rec.Path[:16], maxLoggedPath)
			}
			if !utf8.ValidString(rec.Path) && utf8.ValidString(tc.path) {
				t.Errorf("the logged path is cut inside a character")
			}
			if rec.PathBytes == nil || *rec.PathBytes != len(tc.path) {
				t.Errorf("path_bytes %v, want %d", rec.PathBytes, len(tc.path))
			}
		})
	}
}
