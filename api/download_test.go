package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

type dlIn struct {
	Name string `path:"name"`
}

type dlOut struct {
	ETag string `header:"ETag"`
	Body Download
}

// closeCounter is a reader that counts its Close calls; seekable or not.
type closeCounter struct {
	io.Reader
	closed *int
}

func (c closeCounter) Close() error { *c.closed++; return nil }

type seekCloser struct {
	*bytes.Reader
	closed *int
}

func (c seekCloser) Close() error { *c.closed++; return nil }

var dlContent = []byte("0123456789abcdefghij") // 20 bytes
var dlTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func dlRouter(closed *int) *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodGet, "/files/:name", func(c *waltz.Context, in *dlIn) (*dlOut, error) {
		switch in.Name {
		case "stream":
			return &dlOut{Body: Download{Content: closeCounter{bytes.NewReader(dlContent), closed}}}, nil
		case "webp":
			return &dlOut{Body: Download{Content: bytes.NewReader(dlContent), Type: "image/webp"}}, nil
		case "tagged":
			return &dlOut{ETag: `"v1"`, Body: Download{Content: seekCloser{bytes.NewReader(dlContent), closed}}}, nil
		case "nil":
			return &dlOut{}, nil
		case "png":
			return &dlOut{Body: Download{Content: seekCloser{bytes.NewReader(dlContent), closed}, Type: "image/png"}}, nil
		case "big":
			return &dlOut{Body: Download{Content: seekCloser{bytes.NewReader(bytes.Repeat(dlContent, 5)), closed}}}, nil
		}
		return &dlOut{Body: Download{Content: seekCloser{bytes.NewReader(dlContent), closed}, ModTime: dlTime}}, nil
	}, Operation{ID: "getFile", Produces: []string{"image/png", "image/jpeg"}})
	return r
}

func TestDownload(t *testing.T) {
	// The same three ranges nine times: three parts once merged.
	manyRanges := "bytes=" + strings.Repeat("0-0,2-2,", 9) + "4-4"
	// 17 ranges of one byte, two apart: more than 16 parts.
	var far []string
	for i := range 17 {
		far = append(far, strconv.Itoa(2*i)+"-"+strconv.Itoa(2*i))
	}
	lastMod := dlTime.Format(http.TimeFormat)
	for _, tc := range []struct {
		name, method, target string
		header               []string
		status               int
		body                 string // "" checks nothing
		want                 map[string]string
	}{
		{"whole", "GET", "/files/a", nil, 200, string(dlContent),
			map[string]string{"Content-Type": "image/png", "Content-Length": "20", "Last-Modified": lastMod, "Accept-Ranges": "bytes", "Vary": "Accept"}},
		{"head", "HEAD", "/files/a", nil, 200, "",
			map[string]string{"Content-Type": "image/png", "Content-Length": "20"}},
		{"negotiated", "GET", "/files/a", []string{"Accept", "image/jpeg"}, 200, string(dlContent),
			map[string]string{"Content-Type": "image/jpeg"}},
		{"not acceptable", "GET", "/files/a", []string{"Accept", "image/gif"}, 406, "",
			map[string]string{"Vary": "Accept"}},
		{"a range", "GET", "/files/a", []string{"Range", "bytes=2-5"}, 206, "2345",
			map[string]string{"Content-Range": "bytes 2-5/20", "Content-Type": "image/png"}},
		{"a suffix", "GET", "/files/a", []string{"Range", "bytes=-3"}, 206, "hij",
			map[string]string{"Content-Range": "bytes 17-19/20"}},
		{"overlapping, merged", "GET", "/files/a", []string{"Range", "bytes=0-5,3-8,8-9"}, 206, "0123456789",
			map[string]string{"Content-Range": "bytes 0-9/20"}},
		{"repeated ranges, merged", "GET", "/files/a", []string{"Range", manyRanges}, 206, "",
			map[string]string{"Content-Type": "multipart/byteranges"}},
		{"too many ranges: the whole", "GET", "/files/big", []string{"Range", "bytes=" + strings.Join(far, ",")}, 200, strings.Repeat(string(dlContent), 5), nil},
		{"16 ranges", "GET", "/files/big", []string{"Range", "bytes=" + strings.Join(far[:16], ",")}, 206, "",
			map[string]string{"Content-Type": "multipart/byteranges"}},
		// 8 KiB of ten ranges repeated: ten parts once merged.
		{"8 KiB of ranges, merged", "GET", "/files/a", []string{"Range", "bytes=" + strings.Repeat("1-1,3-3,5-5,7-7,9-9,11-11,13-13,15-15,17-17,19-19,", 120) + "1-1"}, 206, "",
			map[string]string{"Content-Type": "multipart/byteranges"}},
		// A 416 is an error answer too, problem details on a typed
		// route, with the whole size (RFC 9110 section 15.5.17).
		{"past the end", "GET", "/files/a", []string{"Range", "bytes=30-40"}, 416, "",
			map[string]string{"Content-Range": "bytes */20", "Content-Type": "application/problem+json", "X-Content-Type-Options": ""}},
		{"past the end, an image asked for", "GET", "/files/a", []string{"Range", "bytes=30-40", "Accept", "image/*"}, 416, "",
			map[string]string{"Content-Range": "bytes */20", "Content-Type": "application/problem+json"}},
		{"backwards", "GET", "/files/a", []string{"Range", "bytes=5-1"}, 416, "",
			map[string]string{"Content-Range": "bytes */20", "Content-Type": "application/problem+json"}},
		{"if-range, old date", "GET", "/files/a", []string{"Range", "bytes=0-1", "If-Range", dlTime.Add(-time.Hour).Format(http.TimeFormat)}, 200, string(dlContent), nil},
		{"if-range, same date", "GET", "/files/a", []string{"Range", "bytes=0-1", "If-Range", lastMod}, 206, "01", nil},
		{"if-range, tag", "GET", "/files/tagged", []string{"Range", "bytes=0-1", "If-Range", `"v1"`}, 206, "01", nil},
		{"if-range, other tag", "GET", "/files/tagged", []string{"Range", "bytes=0-1", "If-Range", `"v0"`}, 200, string(dlContent), nil},
		{"not modified", "GET", "/files/a", []string{"If-Modified-Since", lastMod}, 304, "", nil},
		{"if-none-match", "GET", "/files/tagged", []string{"If-None-Match", `"v1"`}, 304, "", nil},
		// Judged by internal/cond, as FileServer, middleware.ETag and the
		// operations' own validators are: a field's lines are one list,
		// and a 412 is an error answer, problem details on a typed route.
		{"if-none-match, second line", "GET", "/files/tagged", []string{"If-None-Match", `"v0"`, "If-None-Match", `"v1"`}, 304, "", nil},
		{"if-match, other tag", "GET", "/files/tagged", []string{"If-Match", `"v0"`}, 412, "",
			map[string]string{"Content-Type": "application/problem+json", "Etag": ""}},
		{"if-unmodified-since, before", "GET", "/files/a", []string{"If-Unmodified-Since", dlTime.Add(-time.Hour).Format(http.TimeFormat)}, 412, "",
			map[string]string{"Content-Type": "application/problem+json", "Last-Modified": ""}},
		// A client that asks for images accepts neither problem details
		// nor text: it gets what the document declares.
		{"if-match, an image asked for", "GET", "/files/tagged", []string{"If-Match", `"v0"`, "Accept", "image/png"}, 412, "",
			map[string]string{"Content-Type": "application/problem+json"}},
		{"if-unmodified-since, an image asked for", "GET", "/files/a", []string{"If-Unmodified-Since", dlTime.Add(-time.Hour).Format(http.TimeFormat), "Accept", "image/*"}, 412, "",
			map[string]string{"Content-Type": "application/problem+json"}},
		{"other unit", "GET", "/files/a", []string{"Range", "items=0-1"}, 200, string(dlContent), nil},
		{"stream", "GET", "/files/stream", nil, 200, string(dlContent), map[string]string{"Content-Type": "image/png", "Content-Length": ""}},
		{"stream, range ignored", "GET", "/files/stream", []string{"Range", "bytes=0-1"}, 200, string(dlContent), nil},
		{"stream, head", "HEAD", "/files/stream", nil, 200, "", nil},
		{"undeclared type", "GET", "/files/webp", nil, 500, "", nil},
		// The content's own type is image/png: a client that takes only
		// JPEG gets a 406, though negotiation found JPEG acceptable.
		{"its own type, not acceptable", "GET", "/files/png", []string{"Accept", "image/jpeg"}, 406, "", map[string]string{"Vary": "Accept"}},
		{"its own type, acceptable", "GET", "/files/png", []string{"Accept", "image/jpeg, image/png;q=0.1"}, 200, string(dlContent),
			map[string]string{"Content-Type": "image/png"}},
		{"no content", "GET", "/files/nil", nil, 500, "", nil},
	} {
		closed := 0
		silenceLogs(t)
		r := dlRouter(&closed)
		w := serveWith(t, r, tc.method, tc.target, tc.header...)
		if w.Code != tc.status {
			t.Errorf("%s: status got %d, want %d; body %.80q", tc.name, w.Code, tc.status, w.Body)
			continue
		}
		if tc.body != "" && w.Body.String() != tc.body {
			t.Errorf("%s: body got %.80q, want %q", tc.name, w.Body, tc.body)
		}
		if tc.method == "HEAD" && w.Body.Len() != 0 {
			t.Errorf("%s: a HEAD answer has a body: %q", tc.name, w.Body)
		}
		for k, v := range tc.want {
			if got := w.Header().Get(k); got != v && !(k == "Content-Type" && strings.HasPrefix(got, v+";")) {
				t.Errorf("%s: %s got %q, want %q", tc.name, k, got, v)
			}
		}
		if tc.status < 406 && tc.target != "/files/webp" && closed != 1 {
			t.Errorf("%s: Content closed %d times, want 1", tc.name, closed)
		}
	}
}

// TestDownloadOwnTypeNotAcceptable: a 406 for a Download whose own type
// the client does not accept names that type, and does not say that none
// of the operation's types is acceptable (one was: negotiation picked it).
func TestDownloadOwnTypeNotAcceptable(t *testing.T) {
	closed := 0
	w := serveWith(t, dlRouter(&closed), "GET", "/files/png", "Accept", "image/jpeg")
	want := `this answer's content is image/png, which the request's Accept field does not accept`
	var p waltz.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); w.Code != 406 || err != nil || p.Detail != want {
		t.Errorf("got %d %q, want 406 with the detail %q", w.Code, w.Body, want)
	}
	if closed != 1 {
		t.Errorf("Content closed %d times, want 1", closed)
	}
}

// TestDownloadTypeParams: a Download's Type is a Content-Type, which may
// carry parameters (RFC 9110 section 8.3.1): its media type is the one
// Produces must list and Accept must accept, and the field goes as given.
func TestDownloadTypeParams(t *testing.T) {
	r := waltz.New()
	Op(r, http.MethodGet, "/csv", func(c *waltz.Context, in *struct{}) (*struct{ Body Download }, error) {
		return &struct{ Body Download }{Download{Content: strings.NewReader("a,b\n"), Type: "Text/CSV; charset=utf-8"}}, nil
	}, Operation{Produces: []string{"text/csv"}})
	for _, tc := range []struct {
		accept string
		status int
	}{
		{"", 200},
		{"text/csv", 200},
		{"text/html", 406},
	} {
		var h []string
		if tc.accept != "" {
			h = []string{"Accept", tc.accept}
		}
		w := serveWith(t, r, "GET", "/csv", h...)
		if w.Code != tc.status {
			t.Errorf("Accept %q: got %d %q, want %d", tc.accept, w.Code, w.Body, tc.status)
			continue
		}
		if got := w.Header().Get("Content-Type"); tc.status == 200 && got != "Text/CSV; charset=utf-8" {
			t.Errorf("Accept %q: Content-Type got %q, want the Download's", tc.accept, got)
		}
	}
}

// TestDownloadDocument: the media types with a binary schema, and the
// answers a ranged download gives.
func TestDownloadDocument(t *testing.T) {
	closed := 0
	r := dlRouter(&closed)
	Op(r, http.MethodGet, "/raw", func(c *waltz.Context, in *struct{}) (*struct{ Body Download }, error) { return nil, nil }, Operation{})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]any `json:"headers"`
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.Paths["/files/{name}"]["get"]
	for _, typ := range []string{"image/png", "image/jpeg"} {
		s := op.Responses["200"].Content[typ].Schema
		if s["type"] != "string" || s["contentMediaType"] != typ {
			t.Errorf("200 %s: schema got %v, want a string of contentMediaType %s", typ, s, typ)
		}
	}
	if len(op.Responses["200"].Content) != 2 {
		t.Errorf("200: got %d media types, want 2", len(op.Responses["200"].Content))
	}
	for _, code := range []string{"206", "304", "406", "412", "416"} {
		if _, ok := op.Responses[code]; !ok {
			t.Errorf("responses: no %s", code)
		}
	}
	if _, ok := op.Responses["412"].Content["application/problem+json"]; !ok {
		t.Errorf("412: got %v, want problem details", op.Responses["412"].Content)
	}
	if op.Responses["416"].Headers["Content-Range"] == nil {
		t.Errorf("416: no Content-Range header described")
	}
	if c := op.Responses["416"].Content; len(c) != 2 || c["application/problem+json"].Schema == nil || c["text/plain"].Schema == nil {
		t.Errorf("416: got %v, want problem details and their text", c)
	}
	if _, ok := doc.Paths["/raw"]["get"].Responses["412"].Content["application/problem+json"]; !ok {
		t.Errorf("/raw 412: got %v, want problem details", doc.Paths["/raw"]["get"].Responses["412"].Content)
	}
	if s := doc.Paths["/raw"]["get"].Responses["200"].Content["application/octet-stream"].Schema; s["type"] != "string" {
		t.Errorf("a download with no Produces: got %v, want application/octet-stream", doc.Paths["/raw"]["get"].Responses["200"].Content)
	}
	if _, ok := doc.Components.Schemas["Download"]; ok {
		t.Errorf("components: a schema of the Download type itself")
	}
}

// TestDownloadServed: over a real connection, as a client sees it.
func TestDownloadServed(t *testing.T) {
	closed := 0
	srv := httptest.NewServer(dlRouter(&closed))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/files/a", nil)
	req.Header.Set("Range", "bytes=10-")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 206 || string(b) != "abcdefghij" {
		t.Errorf("got %d %q, want 206 abcdefghij", resp.StatusCode, b)
	}
}
