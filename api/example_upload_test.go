package api_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// An avatar upload: a PNG or GIF of at most 64 KiB and a caption, in one
// multipart/form-data body. The file's content is checked against the
// accepted types before the handler runs, and removed after it returns.
func ExampleFile() {
	type AvatarForm struct {
		Image   api.File `json:"image" accept:"image/png,image/gif" maxBytes:"64KiB"`
		Caption string   `json:"caption,omitempty" maxLength:"80"`
	}
	type SetAvatar struct {
		Body AvatarForm
	}
	type Saved struct {
		Body struct {
			Type    string `json:"type"`
			Size    int64  `json:"size"`
			Caption string `json:"caption"`
		}
	}
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	api.Op(r, http.MethodPut, "/avatar", func(c *waltz.Context, in *SetAvatar) (*Saved, error) {
		f, err := in.Body.Image.Open()
		if err != nil {
			return nil, err
		}
		defer f.Close()
		n, err := io.Copy(io.Discard, f) // a real handler stores it
		if err != nil {
			return nil, err
		}
		out := &Saved{}
		out.Body.Type, out.Body.Size, out.Body.Caption = in.Body.Image.Type(), n, in.Body.Caption
		return out, nil
	}, api.Operation{})

	send := func(ctype string, content []byte) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="image"; filename="me.gif"`)
		h.Set("Content-Type", ctype)
		w, _ := mw.CreatePart(h)
		w.Write(content)
		mw.WriteField("caption", "me, in 1987")
		mw.Close()
		req := httptest.NewRequest(http.MethodPut, "/avatar", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, req)
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;") // a GIF's signature and an empty image
	send("image/gif", gif)
	send("image/gif", []byte("<svg xmlns='http://www.w3.org/2000/svg'/>"))
	// Output:
	// 200 {"type":"image/gif","size":14,"caption":"me, in 1987"}
	// 415 {"type":"about:blank","title":"Unsupported Media Type","status":415,"detail":"part \"image\" is declared \"image/gif\" but its bytes are text/plain: it must be one of image/png, image/gif","instance":"/avatar","errors":[{"location":"body.image","keyword":"contentMediaType","message":"part \"image\" is declared \"image/gif\" but its bytes are text/plain: it must be one of image/png, image/gif"}]}
}
