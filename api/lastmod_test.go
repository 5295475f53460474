package api

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/testhelp"
)

// lmSend sends method to url with the fields kv (name, value, ...) and
// body, through a real client, and returns the status, header and body.
func lmSend(t *testing.T, method, url, body string, kv ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
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

// TestTypedLastModifiedSameSecond: a resource dated by Last-Modified alone
// (no ETag), written twice within one second, keeps its date, which is no
// validator of it until the second has ended (RFC 9110 section 8.8.2.2).
// Its GET sends no Last-Modified then, and two writes that both hold the
// date of that second (If-Unmodified-Since, section 13.1.4) do not both
// go through: the second would lose the first one's change.
func TestTypedLastModifiedSameSecond(t *testing.T) {
	var mu sync.Mutex
	text, mod := "v0", time.Now().Add(-time.Hour)
	r := waltz.New()
	Op(r, http.MethodGet, "/docs/:id", func(c *waltz.Context, in *docIn) (*docOut, error) {
		mu.Lock()
		defer mu.Unlock()
		out := &docOut{Modified: mod}
		out.Body.Text = text
		return out, nil
	}, Operation{})
	Op(r, http.MethodPut, "/docs/:id", func(c *waltz.Context, in *editIn) (*docOut, error) {
		mu.Lock()
		defer mu.Unlock()
		text, mod = in.Body.Text, time.Now()
		out := &docOut{Modified: mod}
		out.Body.Text = text
		return out, nil
	}, Operation{Current: func(c *waltz.Context, in *editIn) (Validators, error) {
		mu.Lock()
		defer mu.Unlock()
		return Validators{LastModified: mod}, nil
	}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	url := srv.URL + "/docs/1"
	bad := testhelp.InOneSecond(t, func() (bad []string) {
		mu.Lock()
		text, mod = "v0", time.Now().Add(-time.Hour)
		old := mod.UTC().Format(http.TimeFormat)
		mu.Unlock()
		if code, _, _ := lmSend(t, http.MethodPut, url, `{"text":"v1"}`, "If-Unmodified-Since", old); code != 200 {
			bad = append(bad, fmt.Sprintf("PUT v1 by the hour-old date: got %d, want 200", code))
		}
		if _, h, _ := lmSend(t, http.MethodGet, url, ""); h.Get("Last-Modified") != "" {
			bad = append(bad, fmt.Sprintf("GET v1: got Last-Modified %q within its second, want none", h.Get("Last-Modified")))
		}
		date := time.Now().UTC().Format(http.TimeFormat) // v1's second
		for _, v := range []string{"v2", "v3"} {
			if code, _, _ := lmSend(t, http.MethodPut, url, `{"text":"`+v+`"}`, "If-Unmodified-Since", date); code != 412 {
				bad = append(bad, fmt.Sprintf("PUT %s by v1's date: got %d, want 412", v, code))
			}
		}
		return bad
	})
	for _, s := range bad {
		t.Error(s)
	}
	// Once the second has ended, the date is sent, and a write by it
	// goes through.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 100*time.Millisecond))) // past the second and its margin (cond.SettleMargin)
	_, h, _ := lmSend(t, http.MethodGet, url, "")
	lm := h.Get("Last-Modified")
	if code, _, _ := lmSend(t, http.MethodPut, url, `{"text":"v4"}`, "If-Unmodified-Since", lm); lm == "" || code != 200 {
		t.Errorf("after the second, PUT by Last-Modified %q: got %d, want 200", lm, code)
	}
}

// TestDownloadLastModifiedSameSecond: a Download of a file written,
// served and rewritten with the same size within one second gets no
// Last-Modified, and an If-Range by the date of that second gets the
// whole new file, not its range spliced onto the old bytes (RFC 9110
// sections 8.8.2.2 and 13.1.5).
func TestDownloadLastModifiedSameSecond(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f.bin")
	r := waltz.New()
	type out struct{ Body Download }
	Op(r, http.MethodGet, "/f", func(c *waltz.Context, in *struct{}) (*out, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		return &out{Download{Content: f, ModTime: fi.ModTime()}}, nil
	}, Operation{})
	srv := httptest.NewServer(r)
	defer srv.Close()
	bad := testhelp.InOneSecond(t, func() (bad []string) {
		if err := os.WriteFile(name, []byte("old-old"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, h, _ := lmSend(t, http.MethodGet, srv.URL+"/f", ""); h.Get("Last-Modified") != "" {
			bad = append(bad, fmt.Sprintf("first GET: got Last-Modified %q within the file's second, want none", h.Get("Last-Modified")))
		}
		date := time.Now().UTC().Format(http.TimeFormat)
		if err := os.WriteFile(name, []byte("new-new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, body := lmSend(t, http.MethodGet, srv.URL+"/f", "", "Range", "bytes=4-", "If-Range", date); code != 200 || body != "new-new" {
			bad = append(bad, fmt.Sprintf("If-Range the file's second: got %d %q, want 200 %q", code, body, "new-new"))
		}
		return bad
	})
	for _, s := range bad {
		t.Error(s)
	}
}
