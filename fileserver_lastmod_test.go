package waltz

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/waltz-go/waltz/internal/testhelp"
)

// lastModServer serves dir's files by FileServer with o, through a real
// server.
func lastModServer(t *testing.T, dir string, o FileServerOptions) *httptest.Server {
	t.Helper()
	r := New()
	r.Get("/static/*path", FileServer(os.DirFS(dir), o))
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return srv
}

// lastModGet sends a GET of url with the fields kv (name, value, ...) and
// returns its status, header and body.
func lastModGet(t *testing.T, url string, kv ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, string(b)
}

// TestFileServerLastModifiedSameSecond: a file written, served and
// rewritten with the same size within one second keeps its date, so a
// date is no validator of it until the second has ended (RFC 9110
// section 8.8.2.2). FileServer sends no Last-Modified for it, and a date
// of that second (the one it would have sent) neither splices a range of
// the new bytes onto the old (If-Range, section 13.1.5, and
// If-Unmodified-Since), nor gets a 304 for the old bytes.
func TestFileServerLastModifiedSameSecond(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f.txt")
	srv := lastModServer(t, dir, FileServerOptions{})
	url := srv.URL + "/static/f.txt"
	bad := testhelp.InOneSecond(t, func() (bad []string) {
		if err := os.WriteFile(name, []byte("old-old"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, h, _ := lastModGet(t, url)
		if lm := h.Get("Last-Modified"); lm != "" {
			bad = append(bad, fmt.Sprintf("first GET: got Last-Modified %q within the file's second, want none", lm))
		}
		date := time.Now().UTC().Format(http.TimeFormat) // the file's second
		if err := os.WriteFile(name, []byte("new-new"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			kv   []string
			code int
			body string
		}{
			{[]string{"Range", "bytes=4-", "If-Range", date}, 200, "new-new"},
			{[]string{"Range", "bytes=4-", "If-Unmodified-Since", date}, 412, ""},
			{[]string{"If-Modified-Since", date}, 200, "new-new"},
		} {
			code, _, body := lastModGet(t, url, tc.kv...)
			if code != tc.code || tc.code == 200 && body != tc.body {
				bad = append(bad, fmt.Sprintf("%q: got %d %q, want %d %q", tc.kv, code, body, tc.code, tc.body))
			}
		}
		return bad
	})
	for _, s := range bad {
		t.Error(s)
	}
	// Once the second has ended, the date is sent, and an If-Range by
	// it serves the range.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 100*time.Millisecond))) // past the second and its margin (cond.SettleMargin)
	_, h, _ := lastModGet(t, url)
	lm := h.Get("Last-Modified")
	code, _, body := lastModGet(t, url, "Range", "bytes=4-", "If-Range", lm)
	if lm == "" || code != 206 || body != "new" {
		t.Errorf("after the second, with Last-Modified %q: got %d %q, want 206 %q", lm, code, body, "new")
	}
}

// TestFileServerETagSameModTime: FileServer's ETag option keeps a file's
// tag by its size and modification time, which two versions written
// within one tick of a coarse file system clock share (os.Chtimes sets
// the first one's here). A tag made while that time's second has not
// ended is not kept, so the new version gets its own tag and an If-Range
// with the old one gets the whole new file, not a range of it.
func TestFileServerETagSameModTime(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f.txt")
	srv := lastModServer(t, dir, FileServerOptions{ETag: true})
	url := srv.URL + "/static/f.txt"
	bad := testhelp.InOneSecond(t, func() (bad []string) {
		if err := os.WriteFile(name, []byte("old-old"), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		_, h, _ := lastModGet(t, url)
		old := h.Get("Etag")
		if err := os.WriteFile(name, []byte("new-new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(name, time.Time{}, fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		_, h, _ = lastModGet(t, url)
		if tag := h.Get("Etag"); tag == old {
			bad = append(bad, fmt.Sprintf("the new version: got the old one's ETag %s", tag))
		}
		code, _, body := lastModGet(t, url, "Range", "bytes=4-", "If-Range", old)
		if code != 200 || body != "new-new" {
			bad = append(bad, fmt.Sprintf("If-Range the old tag: got %d %q, want 200 %q", code, body, "new-new"))
		}
		return bad
	})
	for _, s := range bad {
		t.Error(s)
	}
}
