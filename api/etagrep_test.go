package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

type repNote struct {
	ID   int    `json:"id" xml:"id"`
	Text string `json:"text" xml:"text"`
}

type repOut struct {
	ETag string `header:"ETag" doc:"the note's version"`
	Body repNote
}

type repPicture struct {
	ETag string `header:"ETag"`
	Body Download
}

// repRouter serves a note in JSON or XML, a picture in PNG or JPEG and
// a note in JSON alone, each tagged by the handler with one tag (tag),
// and a write of the note whose current tag is tag.
func repRouter(tag string, wrote *int) *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodGet, "/notes/:id", func(c *waltz.Context, in *struct {
		ID int `path:"id"`
	}) (*repOut, error) {
		return &repOut{ETag: tag, Body: repNote{ID: in.ID, Text: "hi"}}, nil
	}, Operation{Produces: []string{"application/json", "application/xml"}})
	Op(r, http.MethodGet, "/pictures/:id", func(c *waltz.Context, in *struct {
		ID int `path:"id"`
	}) (*repPicture, error) {
		return &repPicture{ETag: tag, Body: Download{Content: bytes.NewReader(dlContent)}}, nil
	}, Operation{Produces: []string{"image/png", "image/jpeg"}})
	Op(r, http.MethodGet, "/plain/:id", func(c *waltz.Context, in *struct {
		ID int `path:"id"`
	}) (*repOut, error) {
		return &repOut{ETag: tag, Body: repNote{ID: in.ID}}, nil
	}, Operation{Produces: []string{"application/json"}})
	Op(r, http.MethodPut, "/notes/:id", func(c *waltz.Context, in *struct {
		ID   int `path:"id"`
		Body *repNote
	}) (*struct{}, error) {
		*wrote++
		return nil, nil
	}, Operation{Current: func(c *waltz.Context, in *struct {
		ID   int `path:"id"`
		Body *repNote
	}) (Validators, error) {
		return Validators{ETag: tag}, nil
	}})
	return r
}

// TestETagPerRepresentation: an operation that negotiates keeps its
// representations' validators apart (RFC 9110 sections 8.8.1 and 8.8.3):
// the first of Produces goes out with the handler's tag, each other with
// the tag and its media type, "v1" as "v1-application/xml", compared so
// by If-None-Match (the 304, which carries that tag) and If-Match; so a
// cache that revalidates one representation never gets a 304 for
// another. A write's Operation.Current takes a tag of any
// representation for its own.
func TestETagPerRepresentation(t *testing.T) {
	const xmlTag, jpegTag = `"v1-application/xml"`, `"v1-image/jpeg"`
	for _, tc := range []struct {
		name, method, target string
		header               []string
		code                 int
		etag                 string // the answer's ETag
	}{
		{"json", "GET", "/notes/1", nil, 200, `"v1"`},
		{"xml", "GET", "/notes/1", []string{"Accept", "application/xml"}, 200, xmlTag},
		{"xml, head", "HEAD", "/notes/1", []string{"Accept", "application/xml"}, 200, xmlTag},
		// Revalidation of each representation, by its own tag only.
		{"json revalidated", "GET", "/notes/1", []string{"If-None-Match", `"v1"`}, 304, `"v1"`},
		{"xml revalidated", "GET", "/notes/1", []string{"Accept", "application/xml", "If-None-Match", xmlTag}, 304, xmlTag},
		{"xml by the json tag", "GET", "/notes/1", []string{"Accept", "application/xml", "If-None-Match", `"v1"`}, 200, xmlTag},
		{"json by the xml tag", "GET", "/notes/1", []string{"If-None-Match", xmlTag}, 200, `"v1"`},
		{"a cache holding both, json", "GET", "/notes/1", []string{"If-None-Match", `"v1", ` + xmlTag}, 304, `"v1"`},
		{"a cache holding both, xml", "GET", "/notes/1", []string{"Accept", "application/xml", "If-None-Match", `"v1", ` + xmlTag}, 304, xmlTag},
		{"xml, weak comparison", "GET", "/notes/1", []string{"Accept", "application/xml", "If-None-Match", `W/` + xmlTag}, 304, xmlTag},
		{"xml, if-match its tag", "GET", "/notes/1", []string{"Accept", "application/xml", "If-Match", xmlTag}, 200, xmlTag},
		{"xml, if-match the json tag", "GET", "/notes/1", []string{"Accept", "application/xml", "If-Match", `"v1"`}, 412, ""},
		// A download's representations alike.
		{"png", "GET", "/pictures/1", nil, 200, `"v1"`},
		{"jpeg", "GET", "/pictures/1", []string{"Accept", "image/jpeg"}, 200, jpegTag},
		{"jpeg revalidated", "GET", "/pictures/1", []string{"Accept", "image/jpeg", "If-None-Match", jpegTag}, 304, jpegTag},
		{"jpeg by the png tag", "GET", "/pictures/1", []string{"Accept", "image/jpeg", "If-None-Match", `"v1"`}, 200, jpegTag},
		{"jpeg, if-match the png tag", "GET", "/pictures/1", []string{"Accept", "image/jpeg", "If-Match", `"v1"`}, 412, ""},
		// One representation: the handler's tag.
		{"one type", "GET", "/plain/1", nil, 200, `"v1"`},
	} {
		var wrote int
		w := serveWith(t, repRouter(`"v1"`, &wrote), tc.method, tc.target, tc.header...)
		if w.Code != tc.code || w.Header().Get("Etag") != tc.etag {
			t.Errorf("%s: got %d ETag %q, want %d %q", tc.name, w.Code, w.Header().Get("Etag"), tc.code, tc.etag)
		}
		if w.Code == 304 && w.Header().Get("Vary") != "Accept" {
			t.Errorf("%s: a 304 with Vary %q, want Accept", tc.name, w.Header().Get("Vary"))
		}
	}
	// A weak tag stays weak.
	var wrote int
	if w := serveWith(t, repRouter(`W/"v1"`, &wrote), "GET", "/notes/1", "Accept", "application/xml"); w.Header().Get("Etag") != `W/"v1-application/xml"` {
		t.Errorf("weak: got ETag %q, want %q", w.Header().Get("Etag"), `W/"v1-application/xml"`)
	}
	// The write takes the tag of any representation the GETs gave.
	for _, tc := range []struct {
		ifMatch string
		code    int
	}{
		{`"v1"`, 204},
		{xmlTag, 204},
		{jpegTag, 204},
		{`"v0-application/xml"`, 412},
		{`"v1-text/csv"`, 412},
		{`"v1-application/json"`, 412},
	} {
		wrote = 0
		w := serveWith(t, repRouter(`"v1"`, &wrote), "PUT", "/notes/1", "If-Match", tc.ifMatch)
		if w.Code != tc.code || (tc.code == 204) != (wrote == 1) {
			t.Errorf("PUT If-Match %s: got %d, ran %d times, want %d", tc.ifMatch, w.Code, wrote, tc.code)
		}
	}
}

// TestETagPerRepresentationDocument: the document says how a
// negotiated operation's ETag differs by representation.
func TestETagPerRepresentationDocument(t *testing.T) {
	var wrote int
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]struct {
					Description string `json:"description"`
				} `json:"headers"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(repRouter(`"v1"`, &wrote), Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, code, want string
	}{
		{"/notes/{id}", "200", `"v7-application/xml"`},
		{"/notes/{id}", "304", `"v7-application/xml"`},
		{"/pictures/{id}", "200", `"v7-image/jpeg"`},
		{"/pictures/{id}", "206", `"v7-image/jpeg"`},
	} {
		d := doc.Paths[tc.path]["get"].Responses[tc.code].Headers["ETag"].Description
		if !strings.Contains(d, tc.want) {
			t.Errorf("%s %s: ETag's description %q says nothing of %s", tc.path, tc.code, d, tc.want)
		}
	}
	if d := doc.Paths["/notes/{id}"]["get"].Responses["200"].Headers["ETag"].Description; !strings.HasPrefix(d, "the note's version") {
		t.Errorf("the field's own doc is lost: %q", d)
	}
	if d := doc.Paths["/plain/{id}"]["get"].Responses["200"].Headers["ETag"].Description; strings.Contains(d, "application/json") {
		t.Errorf("one representation: %q", d)
	}
}
