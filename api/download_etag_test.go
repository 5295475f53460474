package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/middleware"
)

// TestDownloadUnderETag: a Download whose Out sets an ETag, under
// middleware.ETag (which takes a request's conditional fields out for a
// tag of its own), is given the fields back and answers them itself: a
// Range under a matching If-Range of a body past ETag's MaxSize is a 206
// carrying the Download's tag, and a 304 carries it too.
func TestDownloadUnderETag(t *testing.T) {
	content := []byte(strings.Repeat("0123456789", 10<<10)) // 100 KiB
	type out struct {
		ETag string `header:"ETag"`
		Body api.Download
	}
	r := waltz.New()
	r.Use(middleware.ETag(middleware.ETagOptions{}))
	api.Op(r, http.MethodGet, "/d", func(c *waltz.Context, in *struct{}) (*out, error) {
		return &out{ETag: `"v1"`, Body: api.Download{Content: bytes.NewReader(content), Type: "application/octet-stream", ModTime: time.Unix(1700000000, 0)}}, nil
	}, api.Operation{})
	for _, tc := range []struct {
		name   string
		fields map[string]string
		code   int
		body   string
	}{
		{"If-Range the tag", map[string]string{"Range": "bytes=0-9", "If-Range": `"v1"`}, 206, "0123456789"},
		{"If-Range another tag", map[string]string{"Range": "bytes=0-9", "If-Range": `"v0"`}, 200, string(content)},
		{"If-None-Match the tag", map[string]string{"If-None-Match": `"v1"`}, 304, ""},
		{"If-Match another tag", map[string]string{"If-Match": `"v0"`}, 412, ""},
	} {
		req := httptest.NewRequest(http.MethodGet, "/d", nil)
		for k, v := range tc.fields {
			req.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != tc.code || tc.code != 412 && w.Body.String() != tc.body {
			t.Errorf("%s: got %d and %d bytes, want %d and %d", tc.name, w.Code, w.Body.Len(), tc.code, len(tc.body))
		}
		if tc.code != 412 && w.Header().Get("ETag") != `"v1"` {
			t.Errorf("%s: got ETag %q, want the Download's", tc.name, w.Header().Get("ETag"))
		}
	}
}
