package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// pngBytes returns a real PNG image of w×h pixels.
func pngBytes(tb testing.TB, w, h int) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// part is one part of a multipart body a test sends.
type part struct {
	name, filename, ctype string
	body                  []byte
}

// multipartBody returns a multipart/form-data body of parts and its
// Content-Type.
func multipartBody(tb testing.TB, parts ...part) (*bytes.Buffer, string) {
	tb.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := fmt.Sprintf(`form-data; name=%q`, p.name)
		if p.filename != "" {
			cd += fmt.Sprintf(`; filename=%q`, p.filename)
		}
		h.Set("Content-Disposition", cd)
		if p.ctype != "" {
			h.Set("Content-Type", p.ctype)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(p.body)
	}
	if err := mw.Close(); err != nil {
		tb.Fatal(err)
	}
	return &b, mw.FormDataContentType()
}

type uploadMeta struct {
	Caption string `json:"caption" maxLength:"20"`
}

type uploadForm struct {
	Title  string     `json:"title" minLength:"1" maxLength:"40"`
	Rating int        `json:"rating,omitempty" minimum:"1" maximum:"5"`
	Image  File       `json:"image" accept:"image/png,image/gif" maxBytes:"64KiB" doc:"the picture"`
	Extra  []File     `json:"extra,omitempty" maxItems:"2"`
	Meta   uploadMeta `json:"meta,omitempty"`
}

type uploadIn struct {
	Body uploadForm
}

type uploadOut struct {
	Body struct {
		Title, Filename, Type, Caption string
		Size                           int64
		Extra, Rating                  int
		Same                           bool
	}
}

// uploadRouter serves POST /up, which answers what it was given, the
// first bytes of the image compared with want.
func uploadRouter(tb testing.TB, want []byte) *waltz.Router {
	r := waltz.New()
	r.MaxBodyBytes = 1 << 20
	r.RenderError = waltz.RenderProblem
	Op(r, http.MethodPost, "/up", func(c *waltz.Context, in *uploadIn) (*uploadOut, error) {
		f, err := in.Body.Image.Open()
		if err != nil {
			return nil, err
		}
		defer f.Close()
		got, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		out := &uploadOut{}
		b := &out.Body
		b.Title, b.Filename, b.Type, b.Size = in.Body.Title, in.Body.Image.Filename(), in.Body.Image.Type(), in.Body.Image.Size()
		b.Extra, b.Rating, b.Caption, b.Same = len(in.Body.Extra), in.Body.Rating, in.Body.Meta.Caption, bytes.Equal(got, want)
		return out, nil
	}, Operation{})
	return r
}

func postMultipart(tb testing.TB, r http.Handler, body io.Reader, ctype string) *httptest.ResponseRecorder {
	tb.Helper()
	req := httptest.NewRequest(http.MethodPost, "/up", body)
	req.Header.Set("Content-Type", ctype)
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	return rec
}

func TestUpload(t *testing.T) {
	img := pngBytes(t, 8, 8)
	noisy := append(append([]byte{}, img...), bytes.Repeat([]byte{0xAB}, 70<<10)...)
	if len(noisy) <= 64<<10 {
		t.Fatalf("the large image is %d bytes, want more than 64 KiB", len(noisy))
	}
	for _, tc := range []struct {
		name  string
		parts []part
		code  int
		want  string // in the answer's body
	}{
		{"accepted", []part{{"title", "", "", []byte("Cat")}, {"image", "cat.png", "image/png", img}},
			200, `"Title":"Cat","Filename":"cat.png","Type":"image/png","Caption":"","Size":` + fmt.Sprint(len(img))},
		{"same bytes", []part{{"title", "", "", []byte("Cat")}, {"image", "cat.png", "image/png", img}}, 200, `"Same":true`},
		{"text and JSON parts", []part{{"title", "", "", []byte("Cat")}, {"rating", "", "", []byte("4")},
			{"meta", "", "application/json", []byte(`{"caption":"a cat"}`)}, {"image", "c.png", "image/png", img}},
			200, `"Caption":"a cat"`},
		{"repeated files", []part{{"title", "", "", []byte("Cat")}, {"image", "c.png", "image/png", img},
			{"extra", "a.bin", "", []byte("a")}, {"extra", "b.bin", "", []byte("b")}}, 200, `"Extra":2`},
		{"too large", []part{{"title", "", "", []byte("Cat")}, {"image", "c.png", "image/png", noisy}},
			413, `part \"image\" may be at most 65536 bytes`},
		{"declared type refused", []part{{"title", "", "", []byte("Cat")}, {"image", "c.jpg", "image/jpeg", img}},
			415, `"location":"body.image"`},
		{"bytes refused", []part{{"title", "", "", []byte("Cat")}, {"image", "c.png", "image/png", []byte("hello, world")}},
			415, `its bytes are text/plain`},
		{"too many parts", []part{{"title", "", "", []byte("Cat")}, {"image", "c.png", "image/png", img},
			{"extra", "", "", []byte("a")}, {"extra", "", "", []byte("b")}, {"extra", "", "", []byte("c")}},
			422, `"keyword":"maxItems"`},
		{"file twice", []part{{"title", "", "", []byte("Cat")}, {"image", "c.png", "image/png", img},
			{"image", "c.png", "image/png", img}}, 422, `must be given once`},
		{"JSON part twice", []part{{"title", "", "", []byte("Cat")}, {"meta", "", "", []byte(`{"caption":"a cat"}`)},
			{"meta", "", "", []byte(`{"caption":"a dog"}`)}, {"image", "c.png", "image/png", img}},
			422, `"location":"body.meta","keyword":"type","message":"must be given once"`},
		{"file missing", []part{{"title", "", "", []byte("Cat")}}, 422, `"location":"body.image","keyword":"required"`},
		{"no file chosen", []part{{"title", "", "", []byte("Cat")}, {"image", "", "application/octet-stream", nil}},
			422, `"location":"body.image","keyword":"required"`},
		{"text rule", []part{{"title", "", "", []byte("Cat")}, {"rating", "", "", []byte("9")}, {"image", "c.png", "image/png", img}},
			422, `"location":"body.rating","keyword":"maximum"`},
		{"JSON part rule", []part{{"title", "", "", []byte("Cat")}, {"meta", "", "", []byte(`{"caption":"` + strings.Repeat("x", 30) + `"}`)},
			{"image", "c.png", "image/png", img}}, 422, `"location":"body.meta.caption","keyword":"maxLength"`},
		{"JSON part malformed", []part{{"title", "", "", []byte("Cat")}, {"meta", "", "", []byte(`{"caption":`)},
			{"image", "c.png", "image/png", img}}, 400, `"location":"body.meta","keyword":"syntax"`},
		{"JSON part of another type", []part{{"title", "", "", []byte("Cat")}, {"meta", "", "text/csv", []byte(`a,b`)},
			{"image", "c.png", "image/png", img}}, 415, `part \"meta\" must be application/json`},
		{"text missing", []part{{"image", "c.png", "image/png", img}}, 422, `"location":"body.title","keyword":"required"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := multipartBody(t, tc.parts...)
			rec := postMultipart(t, uploadRouter(t, img), body, ct)
			if rec.Code != tc.code || !strings.Contains(rec.Body.String(), tc.want) {
				t.Errorf("got %d %s, want %d with %s", rec.Code, rec.Body, tc.code, tc.want)
			}
		})
	}
}

// TestUploadRepeatedOnce: a part given many times is one failure, not one
// a repetition, which would push out the others (the failures kept are
// bounded): a JSON part as a file or text one. A third JSON part was a
// second failure, and so on.
func TestUploadRepeatedOnce(t *testing.T) {
	img := pngBytes(t, 8, 8)
	for _, name := range []string{"meta", "image"} {
		parts := []part{{"title", "", "", []byte("Cat")}, {"image", "c.png", "image/png", img}}
		for range 5 {
			if name == "meta" {
				parts = append(parts, part{"meta", "", "", []byte(`{"caption":"a cat"}`)})
			} else {
				parts = append(parts, part{"image", "c.png", "image/png", img})
			}
		}
		body, ct := multipartBody(t, parts...)
		rec := postMultipart(t, uploadRouter(t, img), body, ct)
		if n := strings.Count(rec.Body.String(), "must be given once"); rec.Code != 422 || n != 1 {
			t.Errorf("%s five times: got %d with %d failures %s, want 422 with one", name, rec.Code, n, rec.Body)
		}
	}
}

func TestUploadMediaType(t *testing.T) {
	r := uploadRouter(t, nil)
	for _, tc := range []struct {
		ctype string
		code  int
	}{
		{"application/json", 415},
		{"multipart/form-data", 400}, // no boundary
		{"multipart/mixed; boundary=x", 415},
		{"", 415},
	} {
		rec := postMultipart(t, r, strings.NewReader(`{}`), tc.ctype)
		if rec.Code != tc.code {
			t.Errorf("Content-Type %q: got %d %s, want %d", tc.ctype, rec.Code, rec.Body, tc.code)
		}
	}
}

func TestUploadSpillsToDisk(t *testing.T) {
	img := pngBytes(t, 8, 8)
	for _, tc := range []struct {
		name   string
		size   int // of the content
		during int // temporary files while the handler runs
	}{
		{"within UploadMemory", 3 << 10, 0},
		{"at UploadMemory", 4 << 10, 0},
		{"past UploadMemory", 4<<10 + 1, 1},
		{"far past it", 300 << 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			content := append(append([]byte{}, img...), bytes.Repeat([]byte{1, 2, 3}, tc.size)...)[:tc.size]
			r := waltz.New()
			SetUploadMemory(r, 4<<10)
			r.RenderError = waltz.RenderProblem
			during := -1
			Op(r, http.MethodPost, "/up", func(c *waltz.Context, in *struct {
				Body struct {
					Image File `json:"image" accept:"image/png"`
				}
			}) (*struct{ Body []byte }, error) {
				during = countFiles(t, dir)
				f, err := in.Body.Image.Open()
				if err != nil {
					return nil, err
				}
				defer f.Close()
				got, _ := io.ReadAll(f)
				return &struct{ Body []byte }{got}, nil
			}, Operation{})
			body, ct := multipartBody(t, part{"image", "a.png", "image/png", content})
			rec := postMultipart(t, r, body, ct)
			var got []byte
			if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != 200 || err != nil || !bytes.Equal(got, content) {
				t.Fatalf("got %d (%v), %d bytes back, want 200 and the %d bytes sent", rec.Code, err, len(got), len(content))
			}
			if during != tc.during {
				t.Errorf("got %d temporary files while the handler ran, want %d", during, tc.during)
			}
			if n := countFiles(t, dir); n != 0 {
				t.Errorf("got %d temporary files after the handler returned, want 0", n)
			}
		})
	}
}

func TestUploadRemovedOnPanic(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	silenceLogs(t)
	r := waltz.New()
	SetUploadMemory(r, 0)
	Op(r, http.MethodPost, "/up", func(c *waltz.Context, in *struct {
		Body struct {
			Image File `json:"image"`
		}
	}) (*struct{}, error) {
		panic("the handler fails")
	}, Operation{})
	body, ct := multipartBody(t, part{"image", "a.bin", "", bytes.Repeat([]byte("x"), 4096)})
	func() {
		defer func() { recover() }()
		postMultipart(t, r, body, ct)
	}()
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("got %d temporary files after the handler panicked, want 0", n)
	}
}

// countFiles returns how many entries dir holds.
func countFiles(tb testing.TB, dir string) int {
	tb.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return len(es)
}

func TestUploadDeclarationRefused(t *testing.T) {
	type badAccept struct {
		Body struct {
			F File `json:"f" accept:"image"`
		}
	}
	type badSize struct {
		Body struct {
			F File `json:"f" maxBytes:"2MB"`
		}
	}
	type ruleOnFile struct {
		Body struct {
			F File `json:"f" maxLength:"3"`
		}
	}
	type itemsOnOne struct {
		Body struct {
			F File `json:"f" maxItems:"3"`
		}
	}
	for _, tc := range []struct {
		name     string
		register func(r *waltz.Router)
		want     string
	}{
		{"accept", func(r *waltz.Router) { Op(r, "POST", "/", noUpload[badAccept], Operation{}) }, `tag accept:"image": "image" is no media type`},
		{"maxBytes", func(r *waltz.Router) { Op(r, "POST", "/", noUpload[badSize], Operation{}) }, `tag maxBytes:"2MB" wants a positive number`},
		{"rule", func(r *waltz.Router) { Op(r, "POST", "/", noUpload[ruleOnFile], Operation{}) }, "tag maxLength does not apply to a file"},
		{"maxItems on one file", func(r *waltz.Router) { Op(r, "POST", "/", noUpload[itemsOnOne], Operation{}) }, "tag maxItems does not apply to a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := panicMessage(func() { tc.register(waltz.New()) })
			if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "field F") {
				t.Errorf("got panic %q, want one naming field F with %q", msg, tc.want)
			}
		})
	}
}

func noUpload[In any](*waltz.Context, *In) (*struct{}, error) { return nil, nil }

// TestUploadBodyLimit: the whole body stays within Router.MaxBodyBytes,
// whether its length is announced or found while it streams, and no
// temporary file is left.
func TestUploadBodyLimit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	img := pngBytes(t, 8, 8)
	r := uploadRouter(t, img) // MaxBodyBytes 1 MiB; "extra" files have no maxBytes of their own
	SetUploadMemory(r, 0)
	body, ct := multipartBody(t, part{"title", "", "", []byte("Cat")}, part{"image", "c.png", "image/png", img},
		part{"extra", "big.bin", "", bytes.Repeat([]byte("x"), 1<<20)})
	for _, announced := range []bool{true, false} {
		var rd io.Reader = bytes.NewReader(body.Bytes())
		if !announced {
			rd = io.MultiReader(rd) // hides the length: found past the limit while streaming
		}
		req := httptest.NewRequest(http.MethodPost, "/up", rd)
		if !announced {
			req.ContentLength = -1
		}
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		if want := "the body may be at most 1048576 bytes"; rec.Code != 413 || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("length announced %v: got %d %s, want 413 with %q", announced, rec.Code, rec.Body, want)
		}
	}
	if n := countFiles(t, dir); n != 0 {
		t.Errorf("got %d temporary files, want 0", n)
	}
}
