package openapitest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi-validator/config"
)

// TestMediaExchanges: the answers that are not JSON — XML reads, the
// picture download whole, in ranges, refused and by HEAD, the feed of
// changes as server-sent events — and 406 for a type no operation
// answers in, each validated against the document as TestExchanges's
// rows are (the response in strict mode, XML bodies converted for the
// schema by the validator's XML option).
func TestMediaExchanges(t *testing.T) {
	s := newServer(t)
	s.strict = newValidator(t, s.doc, config.WithFormatAssertions(), config.WithContentAssertions(), config.WithStrictMode(),
		config.WithXmlBodyValidation())
	s.do(t, "POST", "/api/bookmarks", `{"url":"https://go.dev/doc/","title":"Go","tags":["go","docs"]}`, "Content-Type", js, "Authorization", auth)
	s.do(t, "POST", "/api/bookmarks", `{"url":"https://go.dev/blog/","title":"Blog"}`, "Content-Type", js, "Authorization", auth)
	whole := s.do(t, "GET", "/api/bookmarks/1/image", "")
	size := len(whole.body)
	for _, tc := range []struct {
		name           string
		method, target string
		header         []string
		status         int
		ctype          string // the answer's media type, before any parameter
		resGap         string // why the document does not describe the response, if it does not
	}{
		{"get, JSON", "GET", "/api/bookmarks/1", h("Accept", "application/json"), 200, "application/json", ""},
		{"get, XML", "GET", "/api/bookmarks/1", h("Accept", "application/xml"), 200, "application/xml", ""},
		{"list, XML by weight", "GET", "/api/bookmarks?tag=docs", h("Accept", "application/json;q=0.5, application/xml"), 200, "application/xml", ""},
		{"list, XML, a bookmark without tags", "GET", "/api/bookmarks", h("Accept", "application/xml"), 200, "application/xml",
			"an empty list is no element at all in XML (encoding/xml writes a slice as repeated elements), and the schema, made for JSON, requires tags"},
		{"list, JSON by a wildcard", "GET", "/api/bookmarks", h("Accept", "*/*"), 200, "application/json", ""},
		{"get, CSV: 406", "GET", "/api/bookmarks/1", h("Accept", "text/csv, application/problem+json;q=0.1"), 406, "application/problem+json", ""},
		{"get, q-values out of range", "GET", "/api/bookmarks/1", h("Accept", "application/xml;q=7, application/json;q=-1"), 200, "application/json", ""},
		{"get, an 8 KiB Accept", "GET", "/api/bookmarks/1", h("Accept", strings.Repeat("text/csv;q=0.5, ", 512)+"application/xml"), 200, "application/xml", ""},
		{"picture", "GET", "/api/bookmarks/1/image", nil, 200, "image/png", ""},
		{"picture, HEAD", "HEAD", "/api/bookmarks/1/image", nil, 200, "image/png", ""},
		{"picture, a range", "GET", "/api/bookmarks/1/image", h("Range", "bytes=0-15"), 206, "image/png", ""},
		{"picture, ranges", "GET", "/api/bookmarks/1/image", h("Range", "bytes=0-3,8-11"), 206, "multipart/byteranges",
			"several ranges are answered as multipart/byteranges (RFC 9110 section 14.6), which the document does not list beside image/png"},
		{"picture, overlapping ranges merged", "GET", "/api/bookmarks/1/image", h("Range", "bytes=0-9,5-15,10-20"), 206, "image/png", ""},
		{"picture, 500 ranges", "GET", "/api/bookmarks/1/image", h("Range", "bytes="+strings.Repeat("0-0,2-2,", 250)+"4-4"), 206, "multipart/byteranges",
			"several ranges are answered as multipart/byteranges (RFC 9110 section 14.6), which the document does not list beside image/png"},
		{"picture, past the end: 416", "GET", "/api/bookmarks/1/image", h("Range", "bytes=100000-"), 416, "application/problem+json", ""},
		{"picture, webp: 406", "GET", "/api/bookmarks/1/image", h("Accept", "image/webp"), 406, "application/problem+json", ""},
		{"picture, none", "GET", "/api/bookmarks/9/image", nil, 404, "application/problem+json", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := s.do(t, tc.method, tc.target, "", tc.header...)
			if x.status != tc.status {
				t.Errorf("status: got %d, want %d; body %.300s", x.status, tc.status, x.body)
			}
			if ct, _, _ := strings.Cut(x.header.Get("Content-Type"), ";"); ct != tc.ctype {
				t.Errorf("Content-Type: got %q, want %s", x.header.Get("Content-Type"), tc.ctype)
			}
			if len(x.reqErrs) > 0 {
				t.Errorf("the document refuses the request:%s", describe(x.reqErrs))
			}
			if tc.status == 206 && tc.ctype == "image/png" && len(x.body) >= size {
				t.Errorf("a 206 of %d bytes, the whole is %d", len(x.body), size)
			}
			switch {
			case len(x.resErrs) > 0 && tc.resGap == "":
				t.Errorf("the response (%d %s) is not one the document describes:%s\nbody %.300s",
					x.status, x.header.Get("Content-Type"), describe(x.resErrs), x.body)
			case len(x.resErrs) == 0 && tc.resGap != "":
				t.Errorf("the row names a response gap (%s), but the document describes the response", tc.resGap)
			case tc.resGap != "":
				t.Logf("response gap: %s", tc.resGap)
			}
		})
	}

	t.Run("changes, as events", func(t *testing.T) {
		// The stream does not end: the client reads for a while and
		// leaves, and what it read is validated.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		req := s.request(t, "GET", "/api/changes", "", "Last-Event-ID", "0")
		if _, errs := s.loose.ValidateHttpRequestSync(req); len(errs) > 0 {
			t.Errorf("the document refuses the request:%s", describe(errs))
		}
		res, err := s.Client().Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte("event: created\n")); res.StatusCode != 200 || n != 2 {
			t.Errorf("got %d and %d created events, want 200 and 2:\n%s", res.StatusCode, n, b)
		}
		res.Body = io.NopCloser(bytes.NewReader(b))
		if _, errs := s.strict.ValidateHttpResponse(s.request(t, "GET", "/api/changes", ""), res); len(errs) > 0 {
			t.Errorf("the response is not one the document describes:%s", describe(errs))
		}
	})

	t.Run("changes, a bad Last-Event-ID", func(t *testing.T) {
		x := s.do(t, "GET", "/api/changes", "", "Last-Event-ID", "-1")
		if x.status != 422 || len(x.reqErrs) == 0 || len(x.resErrs) > 0 {
			t.Errorf("got %d, request errors %d, response errors:%s", x.status, len(x.reqErrs), describe(x.resErrs))
		}
	})
}
