package main

import (
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

// TestReadmeUploadAnswer checks that the refused upload the guide
// docs/media.md shows is the answer the example gives: the guide's curl
// -F is sent again (same token, file, declared type and path, bookmark 1
// made first) and the status line, Content-Type, Content-Length and body
// must be the guide's, byte for byte.
func TestReadmeUploadAnswer(t *testing.T) {
	readme, err := os.ReadFile("../../docs/media.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)curl -i -H 'Authorization: Bearer (\\w+)' -F 'image=@([^;']+);type=([^']+)' \\\\\n\\s*-X PUT localhost:3000(/\\S*)\n```\n\n```\n" +
		"(HTTP/1.1 (\\d+) [^\n]*)\nContent-Type: ([^\n]*)\nDate: [^\n]*\nContent-Length: (\\d+)\n\n([^\n]*)\n```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("docs/media.md has no upload curl and answer in the expected shape")
	}
	token, file, ctype, path := string(m[1]), string(m[2]), string(m[3]), string(m[4])
	content, err := os.ReadFile(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(bookmarks.New(bookmarks.NewStore(), token))
	defer srv.Close()
	send := func(method, target, ct string, body io.Reader) (*http.Response, string) {
		req, err := http.NewRequest(method, srv.URL+target, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", ct)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	if res, body := send(http.MethodPost, "/api/bookmarks", "application/json",
		strings.NewReader(`{"url":"https://go.dev/","title":"Go"}`)); res.StatusCode != 201 {
		t.Fatalf("create: got %d %s", res.StatusCode, body)
	}
	// The part as curl -F writes it: the file's base name and the type given.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="image"; filename="`+filepath.Base(file)+`"`)
		h.Set("Content-Type", ctype)
		w, _ := mw.CreatePart(h)
		w.Write(content)
		pw.CloseWithError(mw.Close())
	}()
	res, body := send(http.MethodPut, path, mw.FormDataContentType(), pr)
	if got, want := "HTTP/1.1 "+res.Status, string(m[5]); got != want {
		t.Errorf("status: got %q, want the guide's %q", got, want)
	}
	if got, want := res.Header.Get("Content-Type"), string(m[7]); got != want {
		t.Errorf("Content-Type: got %q, want the guide's %q", got, want)
	}
	if got, want := res.Header.Get("Content-Length"), string(m[8]); got != want {
		t.Errorf("Content-Length: got %s, want the guide's %s", got, want)
	}
	if got, want := strings.TrimSuffix(body, "\n"), string(m[9]); got != want {
		t.Errorf("body:\ngot  %s\nwant %s", got, want)
	}
}
