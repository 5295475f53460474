package openapitest

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
)

// formPart is one part of a multipart/form-data body a row sends.
type formPart struct {
	name, filename, ctype, content string
}

// form returns a multipart/form-data body of parts and its Content-Type.
func form(t testing.TB, parts ...formPart) (string, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := fmt.Sprintf("form-data; name=%q", p.name)
		if p.filename != "" {
			cd += fmt.Sprintf("; filename=%q", p.filename)
		}
		h.Set("Content-Disposition", cd)
		if p.ctype != "" {
			h.Set("Content-Type", p.ctype)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p.content))
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String(), mw.FormDataContentType()
}

// TestUploads sends image uploads to the example (PUT
// /api/bookmarks/:id/image, multipart/form-data) and judges each exchange
// as TestExchanges does: the request against the document, and the
// answer, refusals included, against what the document says of it.
func TestUploads(t *testing.T) {
	s := newServer(t)
	create := s.do(t, "POST", "/api/bookmarks", `{"url":"https://go.dev/","title":"Go"}`, "Content-Type", js, "Authorization", auth)
	if create.status != 201 {
		t.Fatalf("create: got %d %s", create.status, create.body)
	}
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 16, 16))); err != nil {
		t.Fatal(err)
	}
	img := pic.String()
	tooLarge := img + strings.Repeat("\x00", 256<<10)
	many := make([]formPart, 1001)
	for i := range many {
		many[i] = formPart{name: "alt", content: "x"}
	}
	// libopenapi-validator decodes a multipart body (its standard body
	// decoders) and checks the parts against the schema, but not a part's
	// Content-Type against the encoding, nor its bytes.
	const bytesGap = "libopenapi-validator checks the parts' values, not %s"
	for _, tc := range []struct {
		name   string
		parts  []formPart
		status int
		docOK  bool
		gap    string
	}{
		{"accepted", []formPart{{"image", "go.png", "image/png", img}, {"alt", "", "", "a gopher"}}, 200, true, ""},
		{"accepted, no alt", []formPart{{"image", "go.png", "image/png", img}}, 200, true, ""},
		{"too large", []formPart{{"image", "big.png", "image/png", tooLarge}}, 413, true, ""},
		{"wrong type", []formPart{{"image", "notes.txt", "text/plain", "a note, not a picture"}}, 415, true,
			fmt.Sprintf(bytesGap, "a part's Content-Type against the encoding's contentType")},
		{"declared type lies", []formPart{{"image", "notes.png", "image/png", "a note, not a picture"}}, 415, true,
			fmt.Sprintf(bytesGap, "what a file part's bytes are")},
		{"image twice", []formPart{{"image", "a.png", "image/png", img}, {"image", "b.png", "image/png", img}}, 422, false, ""},
		{"too many parts", append([]formPart{{"image", "go.png", "image/png", img}}, many...), 413, false, ""},
		{"alt too long", []formPart{{"image", "go.png", "image/png", img}, {"alt", "", "", strings.Repeat("a", 201)}}, 422, false, ""},
		{"no image", []formPart{{"alt", "", "", "nothing"}}, 422, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := form(t, tc.parts...)
			x := s.do(t, "PUT", "/api/bookmarks/1/image", body, "Content-Type", ct, "Authorization", auth)
			x.judge(t, verdict{status: tc.status, docOK: tc.docOK, gap: tc.gap, authenticated: true})
		})
	}
	// A body of another media type: the document lists multipart/form-data alone.
	x := s.do(t, "PUT", "/api/bookmarks/1/image", `{"image":"x"}`, "Content-Type", js, "Authorization", auth)
	x.judge(t, verdict{status: 415, docOK: false, authenticated: true})
}

// TestUploadDocument reads the upload's request body as libopenapi builds
// it: multipart/form-data alone, the image a binary string, each part's
// media types in the encoding, the image required.
func TestUploadDocument(t *testing.T) {
	s := newServer(t)
	d, err := libopenapi.NewDocument(s.doc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	op := m.Model.Paths.PathItems.GetOrZero("/api/bookmarks/{id}/image").Put
	if op == nil || op.RequestBody == nil {
		t.Fatal("no request body for PUT /api/bookmarks/{id}/image")
	}
	var types []string
	for name := range op.RequestBody.Content.KeysFromOldest() {
		types = append(types, name)
	}
	if len(types) != 1 || types[0] != "multipart/form-data" {
		t.Fatalf("request body media types: got %q, want [multipart/form-data]", types)
	}
	mt := op.RequestBody.Content.GetOrZero("multipart/form-data")
	sc := mt.Schema.Schema()
	img := sc.Properties.GetOrZero("image").Schema()
	if got := fmt.Sprint(img.Type, " ", img.Format); got != "[string] binary" {
		t.Errorf("image schema: got type and format %q, want [string] binary", got)
	}
	if !slices.Contains(sc.Required, "image") || slices.Contains(sc.Required, "alt") {
		t.Errorf("required parts: got %q, want image and not alt", sc.Required)
	}
	for part, want := range map[string]string{"image": "image/png, image/jpeg, image/gif, image/webp"} {
		if got := mt.Encoding.GetOrZero(part); got == nil || got.ContentType != want {
			t.Errorf("encoding of %s: got %v, want contentType %q", part, got, want)
		}
	}
	if alt := sc.Properties.GetOrZero("alt").Schema(); alt.MaxLength == nil || *alt.MaxLength != 200 {
		t.Errorf("alt schema: got maxLength %v, want 200", alt.MaxLength)
	}
}
