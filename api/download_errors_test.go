package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// pictureOut is a download whose Out sets caching and other fields for
// its 200, as an image a client may keep does.
type pictureOut struct {
	CacheControl string    `header:"Cache-Control"`
	Expires      time.Time `header:"Expires"`
	ETag         string    `header:"ETag"`
	Link         string    `header:"Link"`
	Body         Download
}

// pictureRouter serves /p, a PNG download of pictureOut, on a router
// that renders errors with render (nil: the typed default); a middleware
// sets Cache-Control: no-store on every answer before the handler runs,
// unless keep is false.
func pictureRouter(render func(*waltz.Context, *waltz.HTTPError), noStore bool, typ string) *waltz.Router {
	r := waltz.New()
	r.RenderError = render
	if noStore {
		r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
			return func(c *waltz.Context) error {
				c.Writer.Header().Set("Cache-Control", "no-store")
				return next(c)
			}
		})
	}
	Op(r, http.MethodGet, "/p", func(c *waltz.Context, in *struct{}) (*pictureOut, error) {
		return &pictureOut{CacheControl: "max-age=3600", Expires: dlTime.Add(time.Hour), ETag: `"v1"`, Link: `</q>; rel="next"`,
			Body: Download{Content: bytes.NewReader(dlContent), Type: typ, ModTime: dlTime}}, nil
	}, Operation{Produces: []string{"image/png", "image/jpeg"}})
	return r
}

// TestDownloadErrorAnswers: a Download's 412 and 416 are error answers
// rendered as every other error of the router (problem details on a
// typed route and under RenderProblem, whatever image types the client
// asks for, and text under RenderText), as the document declares them;
// the 416 keeps "Content-Range: bytes */size" (RFC 9110 section
// 15.5.17); and no error answer carries a field Out set for the 200
// (RFC 9111 section 3: a Cache-Control or Expires would let a cache keep
// the error in place of the picture), while a middleware's field set
// before the handler stays.
func TestDownloadErrorAnswers(t *testing.T) {
	old := dlTime.Add(-time.Hour).Format(http.TimeFormat)
	for _, rc := range []struct {
		name   string
		render func(*waltz.Context, *waltz.HTTPError)
		ctype  string
	}{
		{"typed default", nil, "application/problem+json"},
		{"RenderProblem", waltz.RenderProblem, "application/problem+json"},
		{"RenderText", waltz.RenderText, "text/plain; charset=utf-8"},
	} {
		for _, tc := range []struct {
			name   string
			header []string
			code   int
			rng    string
			typ    string // the Download's Type
		}{
			{"if-match", []string{"If-Match", `"x"`}, 412, "", ""},
			{"if-match, an image asked for", []string{"If-Match", `"x"`, "Accept", "image/png"}, 412, "", ""},
			{"if-match, any image", []string{"If-Match", `"x"`, "Accept", "image/*"}, 412, "", ""},
			{"if-unmodified-since", []string{"If-Unmodified-Since", old, "Accept", "image/png,image/jpeg;q=0.5"}, 412, "", ""},
			{"past the end", []string{"Range", "bytes=30-"}, 416, "bytes */20", ""},
			{"past the end, an image asked for", []string{"Range", "bytes=30-", "Accept", "image/png"}, 416, "bytes */20", ""},
			{"backwards", []string{"Range", "bytes=5-1", "Accept", "image/*"}, 416, "bytes */20", ""},
			{"its own type refused", []string{"Accept", "image/jpeg"}, 406, "", "image/png"},
		} {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				for _, noStore := range []bool{false, true} {
					name := rc.name + "/" + tc.name + "/" + method
					if noStore {
						name += "/no-store"
					}
					w := serveWith(t, pictureRouter(rc.render, noStore, tc.typ), method, "/p", tc.header...)
					h := w.Header()
					if w.Code != tc.code || h.Get("Content-Type") != rc.ctype {
						t.Errorf("%s: got %d %q, want %d %q", name, w.Code, h.Get("Content-Type"), tc.code, rc.ctype)
						continue
					}
					if rc.ctype == "application/problem+json" {
						var p waltz.Problem
						if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Status != tc.code {
							t.Errorf("%s: body %q is no problem document of status %d (%v)", name, w.Body, tc.code, err)
						}
					}
					if got := h.Get("Content-Range"); got != tc.rng {
						t.Errorf("%s: Content-Range got %q, want %q", name, got, tc.rng)
					}
					cache := ""
					if noStore {
						cache = "no-store"
					}
					if got := h.Values("Cache-Control"); strings.Join(got, ", ") != cache {
						t.Errorf("%s: Cache-Control got %q, want %q", name, got, cache)
					}
					for _, k := range []string{"Expires", "Etag", "Last-Modified", "Link", "Accept-Ranges", "X-Content-Type-Options"} {
						if v, ok := h[k]; ok {
							t.Errorf("%s: %s %q, a field of the answer it replaces", name, k, v)
						}
					}
					if h.Get("Vary") != "Accept" {
						t.Errorf("%s: Vary got %q, want Accept", name, h.Get("Vary"))
					}
				}
			}
		}
	}
}

// TestDownloadErrorDocument: the document declares the 412 and the 416 of
// a ranged download in the format the router renders errors in, the
// 416 with its Content-Range.
func TestDownloadErrorDocument(t *testing.T) {
	for _, rc := range []struct {
		name   string
		render func(*waltz.Context, *waltz.HTTPError)
		ctypes []string
	}{
		{"typed default", nil, []string{"application/problem+json", "text/plain"}},
		{"RenderProblem", waltz.RenderProblem, []string{"application/problem+json", "text/plain"}},
		{"RenderText", waltz.RenderText, []string{"text/plain"}},
	} {
		var doc struct {
			Paths map[string]map[string]struct {
				Responses map[string]struct {
					Headers map[string]any `json:"headers"`
					Content map[string]any `json:"content"`
				} `json:"responses"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(OpenAPI(pictureRouter(rc.render, false, ""), Info{Title: "t", Version: "1"}), &doc); err != nil {
			t.Fatal(err)
		}
		rs := doc.Paths["/p"]["get"].Responses
		for _, code := range []string{"406", "412", "416"} {
			c := rs[code].Content
			ok := len(c) == len(rc.ctypes)
			for _, ct := range rc.ctypes {
				ok = ok && c[ct] != nil
			}
			if !ok {
				t.Errorf("%s: %s content got %v, want %v", rc.name, code, c, rc.ctypes)
			}
		}
		if rs["416"].Headers["Content-Range"] == nil {
			t.Errorf("%s: 416 declares no Content-Range: %v", rc.name, rs["416"].Headers)
		}
	}
}
