package bookmarks

import (
	"io"
	"net/http"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// A bookmark's image: uploaded as multipart/form-data, the file checked
// for its size and its media type (declared and sniffed) before the
// handler runs, and kept in the store beside the bookmark.

// maxImage is the largest image a bookmark takes, as its tag says.
const maxImage = 256 << 10

// ImageForm is the body of PUT /api/bookmarks/:id/image: a
// multipart/form-data body whose "image" part is the file and whose "alt"
// part is its text alternative.
type ImageForm struct {
	Image api.File `json:"image" accept:"image/png,image/jpeg,image/gif,image/webp" maxBytes:"256KiB" doc:"the picture: PNG, JPEG, GIF or WebP, at most 256 KiB"`
	Alt   string   `json:"alt,omitempty" maxLength:"200" doc:"the picture in words, for those who cannot see it"`
}

// ImageInput is the input of PUT /api/bookmarks/:id/image.
type ImageInput struct {
	ID   int64 `path:"id" minimum:"1" doc:"the bookmark's ID"`
	Body ImageForm
}

// ImageInfo describes a bookmark's stored image.
type ImageInfo struct {
	Type     string    `json:"type" example:"image/png"`
	Size     int64     `json:"size" minimum:"0" doc:"in bytes"`
	Alt      string    `json:"alt"`
	Modified time.Time `json:"modified"`
}

// ImageOutput is the answer of PUT /api/bookmarks/:id/image.
type ImageOutput struct{ Body ImageInfo }

// Image is a bookmark's image as the store keeps it.
type Image struct {
	ImageInfo
	Data []byte
}

// registerImage registers the image upload on writes, the group whose
// routes need the token.
func registerImage(writes *waltz.Group, h *handlers) {
	api.Op(writes, http.MethodPut, "/bookmarks/:id/image", h.putImage, api.Operation{
		ID: "putBookmarkImage", Summary: "Set a bookmark's image", Tags: []string{"bookmarks"},
		Errors: []int{http.StatusNotFound},
	})
}

func (h *handlers) putImage(c *waltz.Context, in *ImageInput) (*ImageOutput, error) {
	// The file is removed when this handler returns: the store keeps a
	// copy of its bytes.
	f, err := in.Body.Image.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxImage))
	if err != nil {
		return nil, err
	}
	img := Image{ImageInfo{Type: in.Body.Image.Type(), Size: int64(len(data)), Alt: in.Body.Alt}, data}
	info, ok := h.store.SetImage(in.ID, img)
	if !ok {
		return nil, noSuchBookmark(in.ID)
	}
	return &ImageOutput{info}, nil
}

// SetImage stores img as the image of the bookmark with the given ID,
// replacing any it had, and reports whether there is such a bookmark.
func (s *Store) SetImage(id int64, img Image) (ImageInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.find(id); !ok {
		return ImageInfo{}, false
	}
	if s.images == nil {
		s.images = map[int64]Image{}
	}
	img.Modified = s.now().UTC().Truncate(time.Second)
	s.images[id] = img
	return img.ImageInfo, true
}

// Image returns the image of the bookmark with the given ID and reports
// whether it has one.
func (s *Store) Image(id int64) (Image, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	img, ok := s.images[id]
	return img, ok
}
