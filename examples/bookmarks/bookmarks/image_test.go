package bookmarks

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
)

// upload sends PUT target with a multipart body of one file part
// "image" (filename, media type ctype, content) and, when alt is not "",
// an "alt" part.
func upload(t testing.TB, base, target, auth, ctype string, content []byte, alt string) answer {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="image"; filename="cover.png"`)
	h.Set("Content-Type", ctype)
	w, _ := mw.CreatePart(h)
	w.Write(content)
	if alt != "" {
		mw.WriteField("alt", alt)
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPut, base+target, &b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, string(body)}
}

func testPNG(t testing.TB) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestImageUpload(t *testing.T) {
	store := NewStore()
	srv := httptest.NewServer(New(store, testToken))
	defer srv.Close()
	call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/","title":"Go"}`)
	img := testPNG(t)
	big := append(append([]byte{}, img...), make([]byte, 256<<10)...)
	for _, tc := range []struct {
		name, target, auth, ctype string
		content                   []byte
		alt                       string
		code                      int
		want                      string // in the body, for a success; the problem's locations otherwise
	}{
		{"accepted", "/api/bookmarks/1/image", testToken, "image/png", img, "a gopher", 200, `"type":"image/png","size":`},
		{"refused for its type", "/api/bookmarks/1/image", testToken, "text/plain", []byte("not a picture"), "", 415, "body.image"},
		{"bytes that are no image", "/api/bookmarks/1/image", testToken, "image/png", []byte("not a picture"), "", 415, "body.image"},
		{"too large", "/api/bookmarks/1/image", testToken, "image/png", big, "", 413, "body.image"},
		{"alt too long", "/api/bookmarks/1/image", testToken, "image/png", img, strings.Repeat("a", 201), 422, "body.alt"},
		{"no such bookmark", "/api/bookmarks/9/image", testToken, "image/png", img, "", 404, ""},
		{"no token", "/api/bookmarks/1/image", "", "image/png", img, "", 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := upload(t, srv.URL, tc.target, tc.auth, tc.ctype, tc.content, tc.alt)
			if a.code != tc.code {
				t.Fatalf("got %d, want %d; body %s", a.code, tc.code, a.body)
			}
			if tc.code < 300 {
				if !strings.Contains(a.body, tc.want) {
					t.Errorf("body: got %s, want it to contain %s", a.body, tc.want)
				}
				return
			}
			if _, where := readProblem(t, a); strings.Join(where, ",") != tc.want {
				t.Errorf("error locations: got %q, want %q; body %s", where, tc.want, a.body)
			}
		})
	}
	got, ok := store.Image(1)
	if !ok || !bytes.Equal(got.Data, img) || got.Alt != "a gopher" {
		t.Errorf("stored image: got %v (%d bytes, alt %q), want the %d bytes accepted, alt \"a gopher\"", ok, len(got.Data), got.Alt, len(img))
	}
	call(t, srv.URL, "DELETE", "/api/bookmarks/1", testToken, "")
	if _, ok := store.Image(1); ok {
		t.Error("the image outlived its bookmark")
	}
}
