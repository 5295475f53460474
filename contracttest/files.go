package contracttest

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"slices"
	"strings"
)

// The files a multipart body's file parts carry: for each media type, a
// small file of that type, whose first bytes are the ones a server that
// sniffs content (the WHATWG MIME Sniffing algorithm, which
// http.DetectContentType follows) recognizes as it. A file is never a
// random string: a server may rightly refuse bytes that are not of the
// type they are declared as.

// file is the value of a file part: the media type its part declares,
// and its bytes.
type file struct {
	ctype string
	data  []byte
}

// name returns the file's name in its part, the part's name and an
// extension of its type ("image.png").
func (f file) name(part string) string {
	ext := "bin"
	if e, ok := extensions[f.ctype]; ok {
		ext = e
	} else if isTextType(f.ctype) {
		ext = "txt"
	}
	return part + "." + ext
}

var extensions = map[string]string{
	"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "image/bmp": "bmp",
	"application/pdf": "pdf", "application/zip": "zip", "application/gzip": "gz", "application/x-gzip": "gz",
	"text/plain": "txt", "text/csv": "csv", "application/json": "json", "application/xml": "xml", "text/xml": "xml",
	"audio/mpeg": "mp3", "video/mp4": "mp4", "application/ogg": "ogg",
}

// fileOf returns a file of the media type mt.
func fileOf(mt string) file {
	if mk, ok := samples[mt]; ok {
		return file{mt, mk()}
	}
	if isTextType(mt) {
		return file{mt, []byte("contracttest\n")}
	}
	// Bytes no signature names: application/octet-stream to a sniffer,
	// which a server takes for a type it does not know the bytes of.
	return file{mt, []byte("\x00\x01\x02\x03contracttest\x00")}
}

// samples make a file of each media type whose bytes a sniffer names.
var samples = map[string]func() []byte{
	"image/png": func() []byte {
		return encodeImage(func(b *bytes.Buffer, m image.Image) error { return png.Encode(b, m) })
	},
	"image/jpeg": func() []byte {
		return encodeImage(func(b *bytes.Buffer, m image.Image) error { return jpeg.Encode(b, m, nil) })
	},
	"image/gif": func() []byte {
		return encodeImage(func(b *bytes.Buffer, m image.Image) error { return gif.Encode(b, m, nil) })
	},
	// A 1×1 lossless WebP (the standard library writes none).
	"image/webp": func() []byte {
		b, _ := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
		return b
	},
	"image/bmp":        func() []byte { return []byte("BM\x3a\x00\x00\x00\x00\x00\x00\x00\x36\x00\x00\x00") },
	"application/pdf":  func() []byte { return []byte("%PDF-1.4\n%contracttest\n%%EOF\n") },
	"application/zip":  zipFile,
	"application/gzip": gzipFile, "application/x-gzip": gzipFile,
	"application/json": func() []byte { return []byte(`{"contracttest":true}`) },
	"application/xml":  func() []byte { return []byte(`<?xml version="1.0"?><contracttest/>`) },
	"text/xml":         func() []byte { return []byte(`<?xml version="1.0"?><contracttest/>`) },
	"text/html":        func() []byte { return []byte("<!DOCTYPE HTML><p>contracttest</p>\n") },
	"audio/mpeg":       func() []byte { return []byte("ID3\x03\x00\x00\x00\x00\x00\x00contracttest") },
	"application/ogg":  func() []byte { return []byte("OggS\x00\x02\x00\x00contracttest") },
	"video/mp4":        func() []byte { return []byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom") },
}

// encodeImage returns a 2×2 image written by enc.
func encodeImage(enc func(*bytes.Buffer, image.Image) error) []byte {
	m := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	m.Set(0, 0, color.NRGBA{R: 0x2a, G: 0x7a, B: 0xb0, A: 0xff})
	var b bytes.Buffer
	_ = enc(&b, m) // writing to memory does not fail
	return b.Bytes()
}

func zipFile() []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	f, _ := w.Create("contracttest.txt")
	_, _ = f.Write([]byte("contracttest\n"))
	_ = w.Close()
	return b.Bytes()
}

func gzipFile() []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write([]byte("contracttest\n"))
	_ = w.Close()
	return b.Bytes()
}

// isTextType reports whether the media type mt is text: text/*, or
// JSON, XML or YAML by name or suffix.
func isTextType(mt string) bool {
	switch mt {
	case "application/json", "application/xml", "application/yaml", "application/javascript":
		return true
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")
}

// mediaRanges returns the media types and ranges of an encoding's
// contentType, "image/png, image/*;q=1" (OpenAPI 3.1 section 4.8.15.1:
// a comma-separated list), lower case, without parameters.
func mediaRanges(s string) []string {
	var out []string
	for r := range strings.SplitSeq(s, ",") {
		r, _, _ = strings.Cut(r, ";")
		if r = strings.ToLower(strings.TrimSpace(r)); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// inRanges reports whether the media type mt is one of ranges:
// itself, its family's range ("image/*"), or any ("*/*", and
// application/octet-stream, which any bytes are).
func inRanges(ranges []string, mt string) bool {
	for _, r := range ranges {
		if r == mt || r == "*/*" || r == "application/octet-stream" {
			return true
		}
		if family, ok := strings.CutSuffix(r, "/*"); ok && strings.HasPrefix(mt, family+"/") {
			return true
		}
	}
	return false
}

// rangeSample is the media type a file of a range is made of.
var rangeSample = map[string]string{
	"*/*": "application/octet-stream", "image/*": "image/png", "text/*": "text/plain",
	"audio/*": "audio/mpeg", "video/*": "video/mp4", "application/*": "application/octet-stream",
}

// fileTypes returns the media types files of ranges are made of: each
// type, and for each range a type of it, once each.
func fileTypes(ranges []string) []string {
	var out []string
	for _, r := range ranges {
		mt := r
		if strings.HasSuffix(r, "/*") {
			if mt = rangeSample[r]; mt == "" {
				mt = strings.TrimSuffix(r, "*") + "x-contracttest"
			}
		}
		if !slices.Contains(out, mt) {
			out = append(out, mt)
		}
	}
	return out
}

// otherType returns a media type that none of ranges admits, of which a
// file can be made, or "" when they admit any.
func otherType(ranges []string) string {
	for _, mt := range []string{"text/plain", "image/png", "application/pdf", "application/zip"} {
		if !inRanges(ranges, mt) {
			return mt
		}
	}
	return ""
}
