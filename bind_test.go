package waltz_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

type bindNote struct {
	Title  string   `json:"title"`
	N      int      `json:"n"`
	Tags   []string `json:"tags"`
	Author struct {
		Name string `json:"name"`
	} `json:"author"`
}

func TestBind(t *testing.T) {
	const json = "application/json"
	for _, tc := range []struct {
		name        string
		ctype, body string
		encoding    string
		unknownLen  bool  // send the body with no Content-Length
		limit       int64 // Router.MaxBodyBytes; 0 keeps New's
		strict      bool  // Router.DisallowUnknownFields
		code        int
		want        string // the response body
	}{
		{name: "ok", ctype: json, body: `{"title":"a","n":1}`, code: 200, want: `a 1`},
		{name: "charset", ctype: "application/json; charset=utf-8", body: `{"title":"a"}`, code: 200, want: `a 0`},
		{name: "letter case", ctype: "Application/JSON", body: `{"title":"a"}`, code: 200, want: `a 0`},
		{name: "json suffix", ctype: "application/merge-patch+json", body: `{"title":"a"}`, code: 200, want: `a 0`},
		{name: "white space after", ctype: json, body: "{\"n\":2} \r\n\t", code: 200, want: ` 2`},
		{name: "unknown field allowed", ctype: json, body: `{"title":"a","extra":1}`, code: 200, want: `a 0`},
		{name: "no content type", body: `{}`, code: 415,
			want: "Unsupported Media Type: Content-Type must be application/json, got none"},
		{name: "text", ctype: "text/plain", body: `{}`, code: 415,
			want: `Unsupported Media Type: Content-Type must be application/json, got "text/plain"`},
		{name: "bare suffix", ctype: "application/+json", body: `{}`, code: 415,
			want: `Unsupported Media Type: Content-Type must be application/json, got "application/+json"`},
		{name: "encoded", ctype: json, encoding: "gzip", body: `{}`, code: 415,
			want: `Unsupported Media Type: Content-Encoding "gzip" is not supported`},
		{name: "too large", ctype: json, body: `{"title":"0123456789"}`, limit: 16, code: 413,
			want: "Content Too Large: the body may be at most 16 bytes"},
		{name: "too large, unknown length", ctype: json, body: `{"title":"0123456789"}`, unknownLen: true,
			limit: 16, code: 413, want: "Content Too Large: the body may be at most 16 bytes"},
		{name: "too large after the value", ctype: json, body: `{}                    `, unknownLen: true,
			limit: 16, code: 413, want: "Content Too Large: the body may be at most 16 bytes"},
		{name: "no limit", ctype: json, body: `{"title":"` + strings.Repeat("x", 2<<20) + `"}`, limit: -1,
			code: 200, want: strings.Repeat("x", 2<<20) + " 0"},
		{name: "empty", ctype: json, code: 400, want: "Bad Request: empty body, want a JSON value"},
		{name: "syntax", ctype: json, body: `{"title":}`, code: 400,
			want: "Bad Request: malformed JSON at byte offset 9: invalid character '}' looking for beginning of value"},
		{name: "truncated", ctype: json, body: `{"title":"a"`, code: 400,
			want: "Bad Request: malformed JSON: the body ends inside a value"},
		{name: "wrong type", ctype: json, body: `{"n":"x"}`, code: 400,
			want: `Bad Request: field "n" is a JSON string, want an integer`},
		{name: "wrong nested type", ctype: json, body: `{"author":{"name":5}}`, code: 400,
			want: `Bad Request: field "author.name" is a JSON number, want a string`},
		{name: "wrong element type", ctype: json, body: `{"tags":["a",true]}`, code: 400,
			want: `Bad Request: field "tags" is a JSON bool, want a string`},
		{name: "wrong top type", ctype: json, body: `[1]`, code: 400,
			want: `Bad Request: the body is a JSON array, want an object`},
		{name: "unknown field", ctype: json, body: `{"title":"a","extra":1}`, strict: true, code: 400,
			want: `Bad Request: unknown field "extra"`},
		{name: "second value", ctype: json, body: `{} {}`, code: 400,
			want: "Bad Request: data after the JSON value, which ends at byte offset 2"},
		{name: "trailing junk", ctype: json, body: `{}x`, code: 400,
			want: "Bad Request: data after the JSON value, which ends at byte offset 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			if tc.limit != 0 {
				r.MaxBodyBytes = tc.limit
			}
			r.DisallowUnknownFields = tc.strict
			r.Post("/", func(c *waltz.Context) error {
				var n bindNote
				if err := c.Bind(&n); err != nil {
					return err
				}
				return c.Text(http.StatusOK, fmt.Sprintf("%s %d", n.Title, n.N))
			})
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			if tc.encoding != "" {
				req.Header.Set("Content-Encoding", tc.encoding)
			}
			if tc.unknownLen {
				req.ContentLength = -1
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if got := w.Body.String(); w.Code != tc.code || got != tc.want {
				if len(got) > 200 {
					got = got[:200] + "..."
				}
				t.Errorf("got %d %q, want %d %q", w.Code, got, tc.code, tc.want)
			}
			if tc.encoding != "" {
				if got := w.Header().Get("Accept-Encoding"); got != "identity" {
					t.Errorf("got Accept-Encoding %q, want %q", got, "identity")
				}
			}
		})
	}
}

// TestBindMisuse checks that a destination encoding/json cannot fill is
// the handler's bug, a 500 that shows nothing of it.
func TestBindMisuse(t *testing.T) {
	r := waltz.New()
	var bindErr error
	r.ErrorHandler = func(c *waltz.Context, err error) {
		bindErr = err
		waltz.DefaultErrorHandler(c, err)
	}
	r.Post("/", func(c *waltz.Context) error {
		var n bindNote
		return c.Bind(n)
	})
	w := resDo(t, r, http.MethodPost, "/", "{}", "Content-Type", "application/json")
	if w.Code != 500 || w.Body.String() != "Internal Server Error" {
		t.Errorf("got %d %q, want 500 %q", w.Code, w.Body.String(), "Internal Server Error")
	}
	want := "waltz: Bind: json: Unmarshal(non-pointer waltz_test.bindNote)"
	if bindErr == nil || bindErr.Error() != want {
		t.Errorf("got error %v, want %s", bindErr, want)
	}
}
