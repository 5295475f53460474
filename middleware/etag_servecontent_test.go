package middleware

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// TestETagServeContent: a handler that answers with http.ServeContent,
// which knows no tag of its own, under ETag gets the answers FileServer
// gets: conditionals judged by the tag ETag gives the body (If-Match
// with the 200's tag is no 412; If-None-Match with it is a 304), and a
// Range under an If-Range with that tag a 206 that carries it.
func TestETagServeContent(t *testing.T) {
	content := strings.Repeat("0123456789", 10)
	modtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	r.Use(ETag(ETagOptions{}))
	r.Get("/f", func(c *waltz.Context) error {
		http.ServeContent(c.Writer, c.Request, "f.txt", modtime, strings.NewReader(content))
		return nil
	})
	do := func(fields ...string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/f", nil)
		for _, f := range fields {
			k, v, _ := strings.Cut(f, ": ")
			req.Header.Add(k, v)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	tag := do().Header().Get("Etag")
	if tag == "" {
		t.Fatal("GET: no ETag")
	}
	for _, tc := range []struct {
		name         string
		fields       []string
		code         int
		body         string
		etag         string // "" for none
		contentRange string
	}{
		{"plain", nil, 200, content, tag, ""},
		{"If-Match the tag", []string{"If-Match: " + tag}, 200, content, tag, ""},
		{"If-Match *", []string{"If-Match: *"}, 200, content, tag, ""},
		{"If-Match another", []string{`If-Match: "other"`}, 412, "", "", ""},
		{"If-None-Match the tag", []string{"If-None-Match: " + tag}, 304, "", tag, ""},
		{"If-None-Match another", []string{`If-None-Match: "other"`}, 200, content, tag, ""},
		{"Range", []string{"Range: bytes=0-3"}, 206, "0123", "", "bytes 0-3/100"},
		{"If-Range the tag", []string{"Range: bytes=10-13", "If-Range: " + tag}, 206, "0123", tag, "bytes 10-13/100"},
		{"If-Range another", []string{"Range: bytes=10-13", `If-Range: "other"`}, 200, content, tag, ""},
		{"If-None-Match the tag, Range", []string{"Range: bytes=0-3", "If-None-Match: " + tag}, 304, "", tag, ""},
		{"If-Range the tag, past the end", []string{"Range: bytes=500-", "If-Range: " + tag}, 416, "", "", "bytes */100"},
		// The dates ETag takes from the handler with the tag fields are
		// judged on the 200's Last-Modified, in RFC 9110 section
		// 13.2.2's order, as FileServer and typed operations judge them.
		{"If-None-Match another, If-Unmodified-Since before", []string{`If-None-Match: "other"`, "If-Unmodified-Since: " + modtime.Add(-time.Hour).Format(http.TimeFormat)}, 412, "", "", ""},
		{"If-None-Match another, If-Unmodified-Since the date", []string{`If-None-Match: "other"`, "If-Unmodified-Since: " + modtime.Format(http.TimeFormat)}, 200, content, tag, ""},
		{"If-Match *, If-Modified-Since the date", []string{"If-Match: *", "If-Modified-Since: " + modtime.Format(http.TimeFormat)}, 304, "", tag, ""},
		{"If-Match *, If-Modified-Since before", []string{"If-Match: *", "If-Modified-Since: " + modtime.Add(-time.Hour).Format(http.TimeFormat)}, 200, content, tag, ""},
		{"If-Match the tag, If-Range the date", []string{"If-Match: " + tag, "Range: bytes=10-13", "If-Range: " + modtime.Format(http.TimeFormat)}, 206, "0123", tag, "bytes 10-13/100"},
		{"If-Match the tag, If-Range another date", []string{"If-Match: " + tag, "Range: bytes=10-13", "If-Range: " + modtime.Add(time.Hour).Format(http.TimeFormat)}, 200, content, tag, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := do(tc.fields...)
			h := w.Header()
			if w.Code != tc.code || w.Body.String() != tc.body && tc.code != 412 && tc.code != 416 {
				t.Fatalf("got %d %q, want %d %q", w.Code, w.Body, tc.code, tc.body)
			}
			if h.Get("Etag") != tc.etag || h.Get("Content-Range") != tc.contentRange {
				t.Errorf("got ETag %q Content-Range %q, want %q %q", h.Get("Etag"), h.Get("Content-Range"), tc.etag, tc.contentRange)
			}
		})
	}
}

// TestETagPreconditionFailedRendered: ETag's own 412 (If-Match against
// the tag of the body the handler wrote) goes through the router's
// RenderError, as every other error answer does, and the OpenAPI
// document lists it for the operations inside ETag.
func TestETagPreconditionFailedRendered(t *testing.T) {
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	r.Use(ETag(ETagOptions{}))
	r.Get("/a", func(c *waltz.Context) error { return c.Text(http.StatusOK, "a body") })
	type out struct {
		Body string `json:"body"`
	}
	api.Op(r, http.MethodGet, "/op", func(c *waltz.Context, in *struct{}) (*out, error) {
		return &out{Body: "x"}, nil
	}, api.Operation{})
	for _, path := range []string{"/a", "/op"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("If-Match", `"nope"`)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		var p struct{ Status int }
		if w.Code != http.StatusPreconditionFailed || w.Header().Get("Content-Type") != "application/problem+json" ||
			json.Unmarshal(w.Body.Bytes(), &p) != nil || p.Status != 412 {
			t.Errorf("%s: got %d %q %q, want a 412 problem", path, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
		if h := w.Header(); h.Get("Etag") != "" || h.Get("Content-Length") != "" && h.Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
			t.Errorf("%s: the 412 carries ETag %q, Content-Length %q for a body of %d", path, h.Get("Etag"), h.Get("Content-Length"), w.Body.Len())
		}
	}
	doc := api.OpenAPI(r, api.Info{Title: "t", Version: "1"})
	var d struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Paths["/op"]["get"].Responses["412"]; !ok {
		t.Errorf("the document's GET /op responses: no 412 in %s", bytes.TrimSpace(doc))
	}
}

// TestETagDocument checks what ETag declares for the OpenAPI document:
// a GET, HEAD or QUERY operation inside it lists the 304 it answers (RFC
// 9110 section 15.4.5: no content) beside the 412, and the ETag field on
// its success answer and its 304; a write lists the 412 alone. In 3.1
// and 3.2, which alone has QUERY.
func TestETagDocument(t *testing.T) {
	r := waltz.New()
	r.Use(ETag(ETagOptions{}))
	r.Get("/plain", func(c *waltz.Context) error { return c.Text(http.StatusOK, "a body") })
	r.Head("/plain", func(c *waltz.Context) error { return c.NoContent(http.StatusOK) })
	r.Put("/plain", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
	r.Query("/plain", func(c *waltz.Context) error { return c.Text(http.StatusOK, "found") }).Accepts("application/json")
	type out struct {
		Body string `json:"body"`
	}
	type in struct {
		Body struct {
			Q string `json:"q"`
		}
	}
	api.Op(r, http.MethodGet, "/op", func(*waltz.Context, *struct{}) (*out, error) { return &out{}, nil }, api.Operation{})
	api.Op(r, http.MethodPost, "/op", func(*waltz.Context, *in) (*out, error) { return &out{}, nil }, api.Operation{})
	api.Op(r, waltz.MethodQuery, "/op", func(*waltz.Context, *in) (*out, error) { return &out{}, nil }, api.Operation{})
	type response struct {
		Content map[string]json.RawMessage
		Headers map[string]json.RawMessage
	}
	for _, version := range []string{"3.1", "3.2"} {
		var d struct {
			Paths map[string]map[string]json.RawMessage // a path item's description is a string
		}
		if err := json.Unmarshal(api.OpenAPI(r, api.Info{OpenAPI: version}), &d); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			path, method, success string
			revalidates           bool
		}{
			{"/plain", "get", "default", true},
			{"/plain", "head", "default", true},
			{"/plain", "put", "default", false},
			{"/plain", "query", "default", true},
			{"/op", "get", "200", true},
			{"/op", "post", "200", false},
			{"/op", "query", "200", true},
		} {
			if tc.method == "query" && version == "3.1" {
				continue
			}
			var op struct{ Responses map[string]response }
			if err := json.Unmarshal(d.Paths[tc.path][tc.method], &op); err != nil {
				t.Fatalf("%s %s %s: %v", version, tc.method, tc.path, err)
			}
			rs := op.Responses
			if _, ok := rs["412"]; !ok {
				t.Errorf("%s %s %s: no 412", version, tc.method, tc.path)
			}
			nm, ok := rs["304"]
			if ok != tc.revalidates {
				t.Errorf("%s %s %s: 304 listed %v, want %v", version, tc.method, tc.path, ok, tc.revalidates)
				continue
			}
			if !ok {
				if _, tagged := rs[tc.success].Headers["ETag"]; tagged {
					t.Errorf("%s %s %s: a write's answer declares the ETag field", version, tc.method, tc.path)
				}
				continue
			}
			if nm.Content != nil {
				t.Errorf("%s %s %s: the 304 has content %v", version, tc.method, tc.path, nm.Content)
			}
			for _, code := range []string{tc.success, "304"} {
				if _, tagged := rs[code].Headers["ETag"]; !tagged {
					t.Errorf("%s %s %s: its %s has no ETag field: %v", version, tc.method, tc.path, code, rs[code].Headers)
				}
			}
		}
	}
}

// TestETagServeContentLarge: a body larger than MaxSize is sent whole and
// untagged, so a handler shown no If-Match gets ETag's 412 for one that
// is not "*", one shown no If-None-Match a 304 for "*", and its Range is
// ignored for the whole 200.
func TestETagServeContentLarge(t *testing.T) {
	content := strings.Repeat("z", 300)
	r := waltz.New()
	r.Use(ETag(ETagOptions{MaxSize: 100}))
	r.Get("/f", func(c *waltz.Context) error {
		http.ServeContent(c.Writer, c.Request, "f.txt", time.Time{}, strings.NewReader(content))
		return nil
	})
	for _, tc := range []struct {
		field string
		code  int
		body  string
	}{
		{`If-Match: "x"`, 412, "Precondition Failed"},
		{`If-Match: *`, 200, content},
		{`If-None-Match: "x"`, 200, content},
		// "*" is false for a representation that exists, tagged or not
		// (RFC 9110 section 13.1.2).
		{`If-None-Match: *`, 304, ""},
	} {
		req := httptest.NewRequest(http.MethodGet, "/f", nil)
		k, v, _ := strings.Cut(tc.field, ": ")
		req.Header.Set(k, v)
		req.Header.Set("Range", "bytes=0-3")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != tc.code || w.Body.String() != tc.body || w.Header().Get("Etag") != "" {
			t.Errorf("%s: got %d %.20q ETag %q, want %d %.20q and no tag", tc.field, w.Code, w.Body, w.Header().Get("Etag"), tc.code, tc.body)
		}
	}
}
