package typed

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

type doc struct {
	Name  string            `json:"name" minLength:"1"`
	Note  string            `json:"note,omitempty"`
	Must  string            `json:"must,omitempty" required:"true"`
	Tags  []string          `json:"tags,omitempty" maxItems:"2" uniqueItems:"true" maxLength:"3"`
	Pair  [2]int            `json:"pair,omitempty" minimum:"0"`
	Kids  []doc             `json:"kids,omitempty"`
	ByKey map[string]kv     `json:"byKey,omitempty"`
	Ptr   *kv               `json:"ptr,omitempty"`
	N     int               `json:"n,omitempty" maximum:"9"`
	U     uint16            `json:"u,omitempty" maximum:"9"`
	F     float32           `json:"f,omitempty" maximum:"9"`
	B     bool              `json:"b,omitempty" enum:"true"`
	At    time.Time         `json:"at,omitempty" enum:"2026-01-02T03:04:05Z"`
	ID    textID            `json:"id,omitempty" maxLength:"2"`
	Free  map[string]string `json:"free,omitempty"`
}

type kv struct {
	K string `json:"k" pattern:"^k"`
}

type docIn struct {
	Body doc
}

type optIn struct {
	Body *kv
}

type formIn struct {
	Body struct {
		A int      `json:"a" minimum:"1"`
		B string   `json:"b,omitempty"`
		C []string `json:"c,omitempty"`
	} `consumes:"json,form"`
}

const js = "application/json"

func TestBindBody(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, body string
		want              []string
	}{
		{"good", js, `{"name":"a","must":"m","tags":["x","y"],"pair":[1,2],"kids":[{"name":"k","must":"m"}],` +
			`"byKey":{"b":{"k":"k1"},"a":{"k":"k2"}},"ptr":{"k":"k"},"n":1,"u":1,"f":1,"b":true,"at":"2026-01-02T03:04:05Z","id":"ab"}`, nil},
		{"required members", js, `{}`, []string{"body.must required", "body.name required"}},
		{"null body", js, `null`, []string{"body type"}},
		{"null member", js, `{"name":null,"must":"m"}`, []string{"body.name type"}},
		{"rules inside", js, `{"name":"","must":"m","tags":["toolong","a","a"],"pair":[-1,0],` +
			`"kids":[{"name":"","must":"m"}],"byKey":{"z":{"k":"no"}},"ptr":{"k":"no"},"n":10,"u":10,"f":9.5,"b":false,` +
			`"at":"2026-01-02T03:04:06Z","id":"abc"}`, []string{
			"body.at enum", "body.b enum", "body.byKey.z.k pattern", "body.f maximum", "body.id maxLength",
			"body.kids[0].name minLength", "body.n maximum", "body.name minLength", "body.pair[0] minimum",
			"body.ptr.k pattern", "body.tags maxItems", "body.tags[0] maxLength", "body.u maximum"}},
		{"wrong type", js, `{"name":5,"must":"m"}`, []string{"body.name type"}},
		{"wrong top type", js, `[1]`, []string{"body type"}},
		{"syntax", js, `{"name":`, []string{"body syntax"}},
		{"data after", js, `{"name":"a","must":"m"} x`, []string{"body syntax"}},
		{"empty", js, ``, []string{"body required"}},
		{"no body, no type", "", ``, []string{"body required"}},
		{"escaped key", js, `{"n\u0061me":"a","must":"m"}`, nil},
		{"other case key", js, `{"NAME":"a","must":"m"}`, []string{"body.name required"}}, // keys match exactly
		{"repeated key, last wins", js, `{"name":null,"name":"a","must":"m"}`, nil},
		{"repeated key, last fails", js, `{"name":"a","name":null,"must":"m"}`, []string{"body.name type"}},
	} {
		_, err := bindInto[docIn](t, nil, nil, post(tc.ctype, tc.body), Body{MaxBytes: 1 << 20})
		got, ok := failures(err)
		if err != nil && !ok {
			t.Errorf("%s: got %v, want failures", tc.name, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestBindBodyWhole(t *testing.T) {
	// Errors about the body as a whole are BodyErrors, not failures.
	for _, tc := range []struct {
		name, ctype, encoding, body string
		strict                      bool
		status                      int
		reason                      Reason
	}{
		{"media type", "text/plain", "", `{}`, false, 415, ReasonMediaType},
		{"encoding", js, "gzip", `{}`, false, 415, ReasonMediaType},
		{"too large", js, "", `{"name":"` + strings.Repeat("x", 100) + `"}`, false, 413, ReasonTooLarge},
	} {
		req := post(tc.ctype, tc.body)
		if tc.encoding != "" {
			req.Header.Set("Content-Encoding", tc.encoding)
		}
		_, err := bindInto[docIn](t, nil, nil, req, Body{MaxBytes: 64, Strict: tc.strict})
		var be *BodyError
		if !errors.As(err, &be) || be.Status != tc.status || be.Reason != tc.reason || be.Encoding != (tc.encoding != "") {
			t.Errorf("%s: got %#v, want a %d", tc.name, err, tc.status)
		}
	}
	_, err := bindInto[docIn](t, nil, nil, post(js, `{"name":"a","must":"m","x":1}`), Body{Strict: true})
	if got, _ := failures(err); !slices.Equal(got, []string{"body additionalProperties"}) {
		t.Errorf("strict: got %q (%v)", got, err)
	}
	// An optional body may be left out.
	v, err := bindInto[optIn](t, nil, nil, post("", ""), Body{})
	if err != nil || v.Body != nil {
		t.Errorf("optional body left out: got %v %v", v.Body, err)
	}
	v, err = bindInto[optIn](t, nil, nil, post(js, `{"k":"kk"}`), Body{})
	if err != nil || v.Body == nil || v.Body.K != "kk" {
		t.Errorf("optional body: got %v %v", v.Body, err)
	}
}

func TestBindForm(t *testing.T) {
	const form = "application/x-www-form-urlencoded; charset=utf-8"
	v, err := bindInto[formIn](t, nil, nil, post(form, "a=2&b=x%20y&c=1&c=2"), Body{})
	if err != nil || v.Body.A != 2 || v.Body.B != "x y" || !slices.Equal(v.Body.C, []string{"1", "2"}) {
		t.Errorf("good form: got %+v %v", v.Body, err)
	}
	for _, tc := range []struct {
		name, body string
		strict     bool
		want       []string
	}{
		{"rules", "a=0", false, []string{"body.a minimum"}},
		{"required", "b=x", false, []string{"body.a required"}},
		{"unknown, strict", "a=1&z=1", true, []string{"body.z unknown"}},
		{"bad escape", "a=1&b=%zz", false, []string{"body.b escape"}},
	} {
		_, err := bindInto[formIn](t, nil, nil, post(form, tc.body), Body{Strict: tc.strict})
		if got, _ := failures(err); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
	_, err = bindInto[formIn](t, nil, nil, post(form, "a=1&b="+strings.Repeat("x", 100)), Body{MaxBytes: 16})
	var be *BodyError
	if !errors.As(err, &be) || be.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("large form: got %v, want a 413", err)
	}
}

// slowBody is a body whose read passes a deadline, or fails otherwise.
type slowBody struct{ err error }

func (b slowBody) Read([]byte) (int, error) { return 0, b.err }
func (b slowBody) Close() error             { return nil }

func TestReadBody(t *testing.T) {
	w := httptest.NewRecorder()
	for _, tc := range []struct {
		name   string
		req    func() *http.Request
		limit  int64
		body   string
		status int
		reason Reason
	}{
		{"whole", func() *http.Request { return post(js, "hello") }, 0, "hello", 0, 0},
		{"nil body", func() *http.Request {
			r := post(js, "")
			r.Body = nil
			return r
		}, 10, "", 0, 0},
		{"length over the limit", func() *http.Request { return post(js, "0123456789") }, 4, "", 413, ReasonTooLarge},
		{"stream over the limit", func() *http.Request {
			r := post(js, "0123456789")
			r.ContentLength = -1
			return r
		}, 4, "", 413, ReasonTooLarge},
		{"deadline", func() *http.Request {
			r := post(js, "")
			r.Body, r.ContentLength = slowBody{os.ErrDeadlineExceeded}, -1
			return r
		}, 0, "", 408, ReasonTimeout},
		{"broken", func() *http.Request {
			r := post(js, "")
			r.Body, r.ContentLength = slowBody{io.ErrClosedPipe}, -1
			return r
		}, 0, "", 400, ReasonRead},
	} {
		b, err := ReadBody(w, tc.req(), tc.limit, nil)
		var be *BodyError
		switch {
		case tc.status == 0 && (err != nil || string(b) != tc.body):
			t.Errorf("%s: got %q %v, want %q", tc.name, b, err, tc.body)
		case tc.status != 0 && (!errors.As(err, &be) || be.Status != tc.status || be.Reason != tc.reason):
			t.Errorf("%s: got %v, want a %d", tc.name, err, tc.status)
		}
	}
	if err := ReadError(os.ErrDeadlineExceeded); err.(*BodyError).Status != 408 {
		t.Errorf("ReadError: got %v, want a 408", err)
	}
}

// TestIsJSONType: JSON's media type and its +json kin, with parameters,
// spaces and any letter case; not the kin of other suffixes, and not a
// bare "+json" subtype.
func TestIsJSONType(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json":                 true,
		"application/json; charset=utf-8":  true,
		"application/json;charset=utf-8":   true,
		"Application/JSON":                 true,
		" application/json ":               true,
		"APPLICATION/JSON ; charset=utf-8": true,
		"application/problem+json":         true,
		"application/Merge-Patch+JSON":     true,
		"application/+json":                false,
		"appl\u0130cation/json":            false, // U+0130, which Unicode lowers to 'i'
		"APPL\u0130CATION/JSON":            false,
		"appl\u0130cation/x+json":          false,
		"application/json\u00a0":           false, // no-break space is no OWS
		"\u0085application/json":           false,
		"application/\u017f+json":          false, // a subtype is a token
		"\tapplication/json ; x=y":         true,
		"application/jsonl":                false,
		"application/json-seq":             false,
		"text/json":                        false,
		"application/xml":                  false,
		"":                                 false,
	} {
		if got := IsJSONType(ct); got != want {
			t.Errorf("IsJSONType(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	if got := Clip(long); len(got) > maxQuoted+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("Clip: got %q", got)
	}
	if got := Quote(long); !strings.HasPrefix(got, `"é`) || !strings.HasSuffix(got, `…"`) {
		t.Errorf("Quote: got %q", got)
	}
	if Clip("short") != "short" || Quote("a") != `"a"` {
		t.Error("short values are not clipped")
	}
}

// TestBindBodyUnknownLength: a body of no bytes has no media type,
// whether its length is announced (Content-Length: 0) or not (chunked,
// ContentLength -1): an optional body is absent, a required one a 422
// "required", and neither a 415 for a Content-Type it could not have.
// A body of unknown length that does hold bytes, with no Content-Type,
// is still a 415; one that cannot be read is its read error.
func TestBindBodyUnknownLength(t *testing.T) {
	chunked := func(body io.Reader) *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		req.Body, req.ContentLength = io.NopCloser(body), -1
		req.TransferEncoding = []string{"chunked"}
		return req
	}
	v, err := bindInto[optIn](t, nil, nil, chunked(strings.NewReader("")), Body{MaxBytes: 64})
	if err != nil || v.Body != nil {
		t.Errorf("optional body, chunked and empty: got %v %v, want it absent", v.Body, err)
	}
	_, err = bindInto[docIn](t, nil, nil, chunked(strings.NewReader("")), Body{})
	if got, _ := failures(err); !slices.Equal(got, []string{"body required"}) {
		t.Errorf("required body, chunked and empty: got %q (%v), want body required", got, err)
	}
	_, err = bindInto[optIn](t, nil, nil, chunked(strings.NewReader(`{"k":"kk"}`)), Body{})
	var be *BodyError
	if !errors.As(err, &be) || be.Status != http.StatusUnsupportedMediaType {
		t.Errorf("chunked bytes with no Content-Type: got %v, want a 415", err)
	}
	_, err = bindInto[optIn](t, nil, nil, chunked(slowBody{os.ErrDeadlineExceeded}), Body{})
	if !errors.As(err, &be) || be.Status != http.StatusRequestTimeout {
		t.Errorf("chunked body past its deadline: got %v, want a 408", err)
	}
}

// TestCookie: the Cookie field's pairs are split at ';' and trimmed of
// space and tab alone (RFC 6265 section 5.4 and 4.2.1), as net/http's
// Request.Cookie reads them: a pair after a no-break space is another
// name, as a proxy keyed on the name would read it.
func TestCookie(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		value string
		ok    bool
	}{
		{[]string{"theme=x; session=s1"}, "s1", true},
		{[]string{"theme=x;session=s1"}, "s1", true},
		{[]string{"theme=x;\tsession=\"s1\""}, "s1", true},
		{[]string{"theme=x", "session=s2"}, "s2", true},
		{[]string{"theme=x;\u00a0session=evil"}, "", false},
		{[]string{"theme=x;\u3000session=evil"}, "", false},
		{[]string{"Session=s1"}, "", false},
	} {
		if v, ok := cookie(tc.lines, "session"); v != tc.value || ok != tc.ok {
			t.Errorf("cookie(%q, session) = %q %v, want %q %v", tc.lines, v, ok, tc.value, tc.ok)
		}
	}
}
