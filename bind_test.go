package waltz_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/testhelp"
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
			want: "Content-Type must be application/json, got none"},
		{name: "text", ctype: "text/plain", body: `{}`, code: 415,
			want: `Content-Type must be application/json, got "text/plain"`},
		{name: "bare suffix", ctype: "application/+json", body: `{}`, code: 415,
			want: `Content-Type must be application/json, got "application/+json"`},
		{name: "encoded", ctype: json, encoding: "gzip", body: `{}`, code: 415,
			want: `Content-Encoding "gzip" is not supported`},
		// A field per line ("\n" apart): Content-Type once (RFC 9110
		// sections 5.3, 8.3), whatever the two say; every Content-Encoding
		// line, which a proxy joins into one list.
		{name: "content type twice", ctype: json + "\n" + json, body: `{}`, code: 400,
			want: "the request has two Content-Type fields: a body has one media type (RFC 9110 sections 5.3, 8.3)"},
		{name: "content type twice, JSON last", ctype: "text/plain\n" + json, body: `{}`, code: 400,
			want: "the request has two Content-Type fields: a body has one media type (RFC 9110 sections 5.3, 8.3)"},
		{name: "identity, then gzip", ctype: json, encoding: "identity\ngzip", body: `{}`, code: 415,
			want: `Content-Encoding "gzip" is not supported`},
		{name: "identity, joined and empty", ctype: json, encoding: "identity, , identity\n,", body: `{"title":"a"}`, code: 200, want: `a 0`},
		{name: "identity, then gzip, joined", ctype: json, encoding: "identity, gzip", body: `{}`, code: 415,
			want: `Content-Encoding "gzip" is not supported`},
		{name: "content type twice, and a coding", ctype: json + "\n" + json, encoding: "gzip", body: `{}`, code: 400,
			want: "the request has two Content-Type fields: a body has one media type (RFC 9110 sections 5.3, 8.3)"},
		{name: "too large", ctype: json, body: `{"title":"0123456789"}`, limit: 16, code: 413,
			want: "the body may be at most 16 bytes"},
		{name: "too large, unknown length", ctype: json, body: `{"title":"0123456789"}`, unknownLen: true,
			limit: 16, code: 413, want: "the body may be at most 16 bytes"},
		{name: "too large after the value", ctype: json, body: `{}                    `, unknownLen: true,
			limit: 16, code: 413, want: "the body may be at most 16 bytes"},
		{name: "no limit", ctype: json, body: `{"title":"` + strings.Repeat("x", 2<<20) + `"}`, limit: -1,
			code: 200, want: strings.Repeat("x", 2<<20) + " 0"},
		{name: "empty", ctype: json, code: 400, want: "empty body, want a JSON value"},
		{name: "syntax", ctype: json, body: `{"title":}`, code: 400,
			want: "malformed JSON at byte offset 9: want a JSON value, got '}'"},
		{name: "truncated", ctype: json, body: `{"title":"a"`, code: 400,
			want: "malformed JSON at byte offset 12: the body ends inside a value"},
		{name: "invalid UTF-8", ctype: json, body: "{\"title\":\"a\xff\"}", code: 400,
			want: "malformed JSON at byte offset 11: invalid UTF-8 inside a string (RFC 8259 section 8.1)"},
		// A body that is JSON but does not fit: 422, every failure
		// located as a typed body's.
		{name: "wrong type", ctype: json, body: `{"n":"x"}`, code: 422,
			want: bindInvalid + "\nbody.n: must be an integer, got a string"},
		{name: "wrong nested type", ctype: json, body: `{"author":{"name":5}}`, code: 422,
			want: bindInvalid + "\nbody.author.name: must be a string, got a number"},
		{name: "wrong element type", ctype: json, body: `{"tags":["a",true]}`, code: 422,
			want: bindInvalid + "\nbody.tags[1]: must be a string, got a boolean"},
		{name: "wrong top type", ctype: json, body: `[1]`, code: 422,
			want: bindInvalid + "\nbody: must be an object, got an array"},
		{name: "every failure", ctype: json, body: `{"title":1,"n":true,"tags":[1,"a",{}]}`, code: 422,
			want: bindInvalid + "\nbody.title: must be a string, got a number\nbody.n: must be an integer, got a boolean" +
				"\nbody.tags[0]: must be a string, got a number\nbody.tags[2]: must be a string, got an object"},
		{name: "unknown field", ctype: json, body: `{"title":"a","extra":1}`, strict: true, code: 422,
			want: bindInvalid + "\nbody: has an unknown member \"extra\""},
		// Keys match members exactly, letter case included: "Title" is
		// an unknown key.
		{name: "key case", ctype: json, body: `{"Title":"a","N":1}`, code: 200, want: ` 0`},
		{name: "key case, strict", ctype: json, body: `{"Title":"a"}`, strict: true, code: 422,
			want: bindInvalid + "\nbody: has an unknown member \"Title\""},
		{name: "null", ctype: json, body: `{"title":null,"n":null,"tags":null}`, code: 200, want: ` 0`},
		{name: "repeated key", ctype: json, body: `{"n":"x","n":2}`, code: 200, want: ` 2`},
		{name: "second value", ctype: json, body: `{} {}`, code: 400,
			want: "data after the JSON value, which ends at byte offset 2"},
		{name: "trailing junk", ctype: json, body: `{}x`, code: 400,
			want: "data after the JSON value, which ends at byte offset 2"},
		// What a message quotes from the client is cut at
		// 64 bytes, so a huge input is not echoed back in the 400 body.
		{name: "huge number", ctype: json, body: `{"n":` + strings.Repeat("9", 100000) + `}`, code: 422,
			want: bindInvalid + "\nbody.n: must be an integer from -9223372036854775808 to 9223372036854775807, got " +
				strings.Repeat("9", 64) + `…`},
		{name: "huge unknown key", ctype: json, strict: true, body: `{"` + strings.Repeat("k", 100000) + `":1}`, code: 422,
			want: bindInvalid + "\nbody: has an unknown member \"" + strings.Repeat("k", 64) + `…"`},
		{name: "huge content type", ctype: "application/" + strings.Repeat("x", 1000), body: `{}`, code: 415,
			want: `Content-Type must be application/json, got "application/` + strings.Repeat("x", 52) + `…"`},
		{name: "huge content encoding", ctype: json, encoding: strings.Repeat("z", 1000), body: `{}`, code: 415,
			want: `Content-Encoding "` + strings.Repeat("z", 64) + `…" is not supported`},
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
				req.Header["Content-Type"] = strings.Split(tc.ctype, "\n")
			}
			if tc.encoding != "" {
				req.Header["Content-Encoding"] = strings.Split(tc.encoding, "\n")
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
			if tc.encoding != "" && tc.code == http.StatusUnsupportedMediaType {
				if got := w.Header().Get("Accept-Encoding"); got != "identity" {
					t.Errorf("got Accept-Encoding %q, want %q", got, "identity")
				}
			}
		})
	}
}

// bindInvalid is the message of Bind's 422.
const bindInvalid = "the JSON body holds values that do not fit"

// TestBindMisuse checks that a destination Bind cannot fill is the
// handler's bug, a 500 that shows nothing of it.
func TestBindMisuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"not a pointer", bindNote{}, "waltz: Bind: want a non-nil pointer, got waltz_test.bindNote"},
		{"nil pointer", (*bindNote)(nil), "waltz: Bind: want a non-nil pointer, got a nil *waltz_test.bindNote"},
		{"nil", nil, "waltz: Bind: want a non-nil pointer, got <nil>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			var bindErr error
			r.ErrorHandler = func(c *waltz.Context, err error) {
				bindErr = err
				waltz.DefaultErrorHandler(c, err)
			}
			r.Post("/", func(c *waltz.Context) error { return c.Bind(tc.v) })
			w := resDo(t, r, http.MethodPost, "/", "{}", "Content-Type", "application/json")
			if w.Code != 500 || w.Body.String() != "Internal Server Error" {
				t.Errorf("got %d %q, want 500 %q", w.Code, w.Body.String(), "Internal Server Error")
			}
			if bindErr == nil || bindErr.Error() != tc.want {
				t.Errorf("got error %v, want %s", bindErr, tc.want)
			}
		})
	}
}

// timeoutReader returns its data, then an error that wraps
// os.ErrDeadlineExceeded, as a request body does when the connection's
// read deadline passes mid-body.
type timeoutReader struct{ data string }

func (r *timeoutReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, fmt.Errorf("read tcp 127.0.0.1:3000: %w", os.ErrDeadlineExceeded)
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestBindTimeout: a body whose read times out
// mid-value is answered 408 Request Timeout with "Connection: close" (RFC
// 9110 section 15.5.9), not 400.
func TestBindTimeout(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"mid value", `{"title":"abc`},
		{"before any byte", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			r.Post("/", func(c *waltz.Context) error {
				var n bindNote
				return c.Bind(&n)
			})
			req := httptest.NewRequest(http.MethodPost, "/", &timeoutReader{tc.body})
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != http.StatusRequestTimeout || w.Header().Get("Connection") != "close" {
				t.Errorf("got %d Connection %q body %q, want 408 Connection %q", w.Code, w.Header().Get("Connection"), w.Body, "close")
			}
		})
	}
}

// TestContextMaxBodyBytes: middleware reads the limit the Router gives
// Bind, and 1 MiB on a Context of its own.
func TestContextMaxBodyBytes(t *testing.T) {
	for _, limit := range []int64{64, 0, -1} {
		r := waltz.New()
		r.MaxBodyBytes = limit
		var got int64
		r.Post("/", func(c *waltz.Context) error { got = c.MaxBodyBytes(); return nil })
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil))
		if got != limit {
			t.Errorf("Router.MaxBodyBytes %d: got %d", limit, got)
		}
	}
	if got := waltz.NewContext(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/", nil)).MaxBodyBytes(); got != 1<<20 {
		t.Errorf("NewContext: got %d, want 1 MiB", got)
	}
}

// bindSmall is the small struct of TestBindAllocs and BenchmarkBind.
type bindSmall struct {
	Title string `json:"title"`
	Stars int    `json:"stars"`
	Done  bool   `json:"done"`
}

// bindSmallBody is a body of bindSmall: the string is the one value that
// must be allocated, as the destination keeps it.
const bindSmallBody = `{"title":"waltz","stars":5,"done":true}`

// bindServer returns a function that sends r one POST of body, reading
// the same request each time: what is counted is the router and Bind.
func bindServer(tb testing.TB, r *waltz.Router, body string) func() {
	tb.Helper()
	sr := strings.NewReader(body)
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.Body, req.ContentLength = io.NopCloser(sr), int64(len(body))
	req.Header.Set("Content-Type", "application/json")
	w := testhelp.NewNopWriter()
	return func() {
		sr.Reset(body)
		r.ServeHTTP(w, req)
	}
}

// bindSmallRouter binds a bindSmall and answers 204, or fails tb.
func bindSmallRouter(tb testing.TB) *waltz.Router {
	r := waltz.New()
	want := bindSmall{"waltz", 5, true}
	r.Post("/", func(c *waltz.Context) error {
		var v bindSmall
		if err := c.Bind(&v); err != nil {
			return err
		}
		if v != want {
			tb.Fatalf("bound %+v, want %+v", v, want)
		}
		return c.NoContent(http.StatusNoContent)
	})
	return r
}

// TestBindAllocs holds Bind's cost for a small struct: three
// allocations, the struct itself (which escapes through Bind's any), the
// body's http.MaxBytesReader and the one string the struct keeps. Through
// encoding/json, before Bind used the typed bodies' decoder, it was 9.
func TestBindAllocs(t *testing.T) {
	if testhelp.RaceEnabled {
		t.Skip(testhelp.RaceAllocs)
	}
	send := bindServer(t, bindSmallRouter(t), bindSmallBody)
	send()
	if n := testing.AllocsPerRun(200, send); n > 3 {
		t.Errorf("got %v allocs per Bind of a small struct, want at most 3", n)
	}
}

// BenchmarkBind is a POST whose handler binds a small struct.
func BenchmarkBind(b *testing.B) {
	send := bindServer(b, bindSmallRouter(b), bindSmallBody)
	b.ReportAllocs()
	for b.Loop() {
		send()
	}
}
