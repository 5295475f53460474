package bookmarks

import (
	"bytes"
	"hash/fnv"
	"image"
	"image/color"
	"image/png"
	"net/http"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// A bookmark's picture as a download: GET /api/bookmarks/:id/image
// answers the image uploaded for it (image.go), or else a PNG made from
// the bookmark (a square in a color of its URL), with when it was set as
// Last-Modified, so that a client can ask for a range of it (Range,
// If-Range), revalidate it (If-Modified-Since) or only its headers
// (HEAD).

// PictureOutput is the answer of GET /api/bookmarks/:id/image.
type PictureOutput struct {
	CacheControl string `header:"Cache-Control" doc:"how long the picture may be kept"`
	Body         api.Download
}

// registerDownloads registers the picture download on g, the /api group.
func registerDownloads(g *waltz.Group, h *handlers) {
	api.Op(g, http.MethodGet, "/bookmarks/:id/image", h.picture, api.Operation{
		ID: "getBookmarkImage", Summary: "Download a bookmark's picture", Tags: []string{"bookmarks"},
		Errors: []int{http.StatusNotFound}, Produces: []string{"image/png", "image/jpeg", "image/gif", "image/webp"},
	})
	registerFeed(g, h)
}

func (h *handlers) picture(c *waltz.Context, in *IDInput) (*PictureOutput, error) {
	b, ok := h.store.Get(in.ID)
	if !ok {
		return nil, noSuchBookmark(in.ID)
	}
	if img, ok := h.store.Image(in.ID); ok {
		return &PictureOutput{CacheControl: "no-cache", Body: api.Download{
			Content: bytes.NewReader(img.Data), Type: img.Type, ModTime: img.Modified,
		}}, nil
	}
	return &PictureOutput{CacheControl: "max-age=3600", Body: api.Download{
		Content: bytes.NewReader(picture(b.URL)), Type: "image/png", ModTime: b.Created,
	}}, nil
}

// pictureSide is the picture's width and height, in pixels.
const pictureSide = 48

// picture returns a PNG of a square in a color made from url, with a
// border a shade darker.
func picture(url string) []byte {
	sum := fnv.New32a()
	sum.Write([]byte(url))
	v := sum.Sum32()
	fill := color.NRGBA{R: uint8(v), G: uint8(v >> 8), B: uint8(v >> 16), A: 0xff}
	edge := color.NRGBA{R: fill.R / 2, G: fill.G / 2, B: fill.B / 2, A: 0xff}
	img := image.NewNRGBA(image.Rect(0, 0, pictureSide, pictureSide))
	for y := range pictureSide {
		for x := range pictureSide {
			c := fill
			if x < 3 || y < 3 || x >= pictureSide-3 || y >= pictureSide-3 {
				c = edge
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // writing to memory does not fail
	return buf.Bytes()
}
