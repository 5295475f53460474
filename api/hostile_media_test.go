package api

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// Hostile requests to this round's typed features: negotiation,
// conditional requests, downloads, merge patches, event streams, the
// query comma form and the JSON body decoder. Each is answered with the
// status a client's mistake gets, never a 5xx, a panic or a hang.

type hostileNegOut struct{ Body string }

type hostilePatch struct {
	Name  Optional[string]          `json:"name,omitempty"`
	Tags  Optional[[]string]        `json:"tags"`
	Items Optional[[]hostileItem]   `json:"items,omitempty"`
	Meta  Optional[map[string]any]  `json:"meta"`
	Inner Optional[*hostileInnerPt] `json:"inner"`
}

type hostileItem struct {
	N int `json:"n,omitempty" minimum:"0"`
}

type hostileInnerPt struct {
	A Optional[int]    `json:"a"`
	B Optional[string] `json:"b"`
}

type hostileStored struct {
	Name  string         `json:"name" minLength:"1"`
	Tags  []string       `json:"tags" maxItems:"3"`
	Items []hostileItem  `json:"items,omitempty"`
	Meta  map[string]any `json:"meta"`
	Inner *struct {
		A int    `json:"a" maximum:"9"`
		B string `json:"b"`
	} `json:"inner"`
}

type hostileJSONBody struct {
	Name  string         `json:"name,omitempty" maxLength:"10"`
	N     float64        `json:"n,omitempty"`
	I     int64          `json:"i,omitempty"`
	U     uint8          `json:"u,omitempty"`
	Tree  *deepNode      `json:"tree,omitempty"`
	Any   any            `json:"any,omitempty"`
	Map   map[string]int `json:"map,omitempty"`
	Raw   []byte         `json:"raw,omitempty"`
	Items []hostileItem  `json:"items,omitempty" maxItems:"100"`
}

func hostileRouter() *waltz.Router {
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	Op(r, http.MethodGet, "/neg", func(c *waltz.Context, in *struct{}) (*hostileNegOut, error) {
		return &hostileNegOut{Body: "hi"}, nil
	}, Operation{Produces: []string{"application/json", "application/xml", "text/plain", "application/problem+json"}})
	Op(r, http.MethodPatch, "/docs/:id", func(c *waltz.Context, in *editIn) (*docOut, error) {
		out := &docOut{ETag: `"v3"`, Modified: docModified.Add(time.Hour)}
		out.Body.Text = in.Body.Text
		return out, nil
	}, Operation{Current: currentDoc})
	Op(r, http.MethodGet, "/docs/:id", func(c *waltz.Context, in *docIn) (*docOut, error) {
		out := &docOut{ETag: `W/"v2"`, Modified: docModified}
		out.Body.Text = "hello"
		return out, nil
	}, Operation{})
	type dlOut struct {
		ETag string `header:"ETag"`
		Body Download
	}
	content := bytes.Repeat([]byte("0123456789"), 100)
	Op(r, http.MethodGet, "/dl", func(c *waltz.Context, in *struct{}) (*dlOut, error) {
		return &dlOut{ETag: `"d1"`, Body: Download{Content: bytes.NewReader(content), ModTime: docModified}}, nil
	}, Operation{Produces: []string{"application/octet-stream", "image/png"}})
	type patchIn struct {
		Body hostilePatch
	}
	Op(r, http.MethodPatch, "/merge", func(c *waltz.Context, in *patchIn) (*struct{ Body hostileStored }, error) {
		s := hostileStored{Name: "x", Tags: []string{"a"}, Meta: map[string]any{"k": map[string]any{"j": 1}}}
		if err := Merge(&s, &in.Body); err != nil {
			return nil, err
		}
		return &struct{ Body hostileStored }{s}, nil
	}, Operation{})
	type jsonIn struct{ Body hostileJSONBody }
	Op(r, http.MethodPost, "/json", func(c *waltz.Context, in *jsonIn) (*struct{ Body hostileJSONBody }, error) {
		return &struct{ Body hostileJSONBody }{in.Body}, nil
	}, Operation{})
	type qIn struct {
		IDs   []int    `query:"ids" explode:"false" maxItems:"5"`
		Names []string `query:"names" explode:"false"`
		Ptrs  []*int64 `query:"ptrs" explode:"false"`
	}
	Op(r, http.MethodGet, "/q", func(c *waltz.Context, in *qIn) (*noOut, error) { return &noOut{}, nil }, Operation{})
	Op(r, http.MethodGet, "/ev", func(c *waltz.Context, in *struct {
		Last string `header:"Last-Event-ID" maxLength:"64"`
	}) (*evOut, error) {
		return &evOut{Body: func(s *EventSender[evChange]) error {
			return s.Send(in.Last, evChange{Created: &evItem{ID: 1, Name: "x"}})
		}}, nil
	}, Operation{})
	return r
}

// hostileServe serves req on h within a time limit that only a hang
// reaches, and recovers a panic into a failure.
func hostileServe(t *testing.T, h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		h.ServeHTTP(w, req)
	}()
	select {
	case p := <-done:
		if p != nil {
			t.Fatalf("panic: %v", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no answer in 20s: a hang")
	}
	return w
}

func repeatJoin(s, sep string, n int) string {
	return strings.TrimSuffix(strings.Repeat(s+sep, n), sep)
}

func TestTypedHostileHeaders(t *testing.T) {
	r := hostileRouter()
	manyTags := repeatJoin(`"x"`, ", ", 5000)
	tests := []struct {
		name, method, target string
		hdr                  map[string][]string
		body                 string
		codes                []int // the codes that are right
	}{
		// Accept
		{"accept huge", "GET", "/neg", map[string][]string{"Accept": {strings.Repeat("a", 1<<20)}}, "", []int{200}},
		{"accept thousands", "GET", "/neg", map[string][]string{"Accept": {repeatJoin("text/html;q=0.5", ",", 10000)}}, "", []int{406}},
		{"accept thousands lines", "GET", "/neg", map[string][]string{"Accept": strings.Split(repeatJoin("image/png", ",", 5000), ",")}, "", []int{406}},
		{"accept q=1.0000", "GET", "/neg", map[string][]string{"Accept": {"application/xml;q=1.0000"}}, "", []int{200}},
		{"accept q=-1", "GET", "/neg", map[string][]string{"Accept": {"application/json;q=-1"}}, "", []int{200}},
		{"accept q=NaN", "GET", "/neg", map[string][]string{"Accept": {"application/json;q=NaN"}}, "", []int{200}},
		{"accept unicode fold", "GET", "/neg", map[string][]string{"Accept": {"application/j\u017fon"}}, "", []int{406}},
		{"accept */json", "GET", "/neg", map[string][]string{"Accept": {"*/json"}}, "", []int{406}},
		{"accept text/* q=0", "GET", "/neg", map[string][]string{"Accept": {"text/*;q=0, application/xml;q=0, application/*;q=0"}}, "", []int{406}},
		{"accept repeated", "GET", "/neg", map[string][]string{"Accept": {"text/plain", "text/plain;q=0", "text/plain"}}, "", []int{200}},
		{"accept unterminated quote", "GET", "/neg", map[string][]string{"Accept": {`text/plain;x="` + strings.Repeat(`\",`, 10000)}}, "", []int{200, 406}},
		{"accept quotes", "GET", "/neg", map[string][]string{"Accept": {strings.Repeat(`"`, 100000)}}, "", []int{200}},
		{"accept control", "GET", "/neg", map[string][]string{"Accept": {"text/plain\x00;q=1"}}, "", []int{200, 406}},
		// If-Match / If-None-Match
		{"if-match thousands", "PATCH", "/docs/1", map[string][]string{"If-Match": {manyTags}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{412}},
		{"if-match thousands then", "PATCH", "/docs/1", map[string][]string{"If-Match": {manyTags + `, "v2"`}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{200}},
		{"if-match unterminated", "PATCH", "/docs/1", map[string][]string{"If-Match": {`"v2`}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{412}},
		{"if-match star and tag", "PATCH", "/docs/1", map[string][]string{"If-Match": {`"x", *`}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{200}},
		{"if-match weak", "PATCH", "/docs/1", map[string][]string{"If-Match": {`W/"v2"`}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{412}},
		{"if-match empty", "PATCH", "/docs/1", map[string][]string{"If-Match": {""}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{412, 428}},
		{"if-match W/ alone", "PATCH", "/docs/1", map[string][]string{"If-Match": {`W/`}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{412}},
		{"if-match star glued", "PATCH", "/docs/1", map[string][]string{"If-Match": {`*"v2"`}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{412}},
		{"if-unmodified garbage", "PATCH", "/docs/1", map[string][]string{"If-Unmodified-Since": {"yesterday"}, "Content-Type": {"application/json"}}, `{"text":"a"}`, []int{428}},
		{"if-none-match strong on weak", "GET", "/docs/1", map[string][]string{"If-None-Match": {`"v2"`}}, "", []int{304}},
		{"if-none-match many", "GET", "/docs/1", map[string][]string{"If-None-Match": {manyTags}}, "", []int{200}},
		{"if-none-match bad", "GET", "/docs/1", map[string][]string{"If-None-Match": {`"v2", x`}}, "", []int{200}},
		{"if-modified garbage", "GET", "/docs/1", map[string][]string{"If-Modified-Since": {"\x00\xff" + strings.Repeat("9", 1000)}}, "", []int{200}},
		{"if-modified two", "GET", "/docs/1", map[string][]string{"If-Modified-Since": {"Sun, 01 Mar 2026 12:00:00 GMT", "Sun, 01 Mar 2026 12:00:00 GMT"}}, "", []int{200}},
		{"if-modified far future", "GET", "/docs/1", map[string][]string{"If-Modified-Since": {"Fri, 31 Dec 9999 23:59:59 GMT"}}, "", []int{304}},
		// Range on a download
		{"range thousands", "GET", "/dl", map[string][]string{"Range": {"bytes=" + repeatJoin("0-0", ",", 10000)}}, "", []int{206}},
		{"range thousands apart", "GET", "/dl", map[string][]string{"Range": {"bytes=" + strings.TrimSuffix(strings.Repeat("0-0,2-2,4-4,6-6,8-8,10-10,12-12,14-14,16-16,18-18,20-20,22-22,24-24,26-26,28-28,30-30,32-32,34-34,", 500), ",")}}, "", []int{200}},
		{"range overlapping", "GET", "/dl", map[string][]string{"Range": {"bytes=0-500,100-200,400-999,-10"}}, "", []int{206}},
		{"range negative", "GET", "/dl", map[string][]string{"Range": {"bytes=-5-10"}}, "", []int{200, 416}},
		{"range past int64", "GET", "/dl", map[string][]string{"Range": {"bytes=99999999999999999999-"}}, "", []int{416, 200}},
		{"range end past int64", "GET", "/dl", map[string][]string{"Range": {"bytes=0-99999999999999999999"}}, "", []int{206, 200}},
		{"range suffix past int64", "GET", "/dl", map[string][]string{"Range": {"bytes=-99999999999999999999"}}, "", []int{206, 200}},
		{"range reversed", "GET", "/dl", map[string][]string{"Range": {"bytes=10-5"}}, "", []int{200, 416}},
		{"range unit", "GET", "/dl", map[string][]string{"Range": {"pages=1-2"}}, "", []int{200}},
		{"range if-range garbage", "GET", "/dl", map[string][]string{"Range": {"bytes=0-1"}, "If-Range": {`"d1`}}, "", []int{200}},
		{"range if-range date", "GET", "/dl", map[string][]string{"Range": {"bytes=0-1"}, "If-Range": {"Sun, 01 Mar 2026 12:00:00 GMT"}}, "", []int{206}},
		{"dl accept none", "GET", "/dl", map[string][]string{"Accept": {"text/html"}}, "", []int{406}},
		{"dl if-none-match many", "GET", "/dl", map[string][]string{"If-None-Match": {manyTags + `,"d1"`}}, "", []int{304}},
		// Last-Event-ID
		{"last-event-id tab", "GET", "/ev", map[string][]string{"Last-Event-ID": {"a\tb"}}, "", []int{200}},
		{"last-event-id long", "GET", "/ev", map[string][]string{"Last-Event-ID": {strings.Repeat("x", 100000)}}, "", []int{422}},
		{"last-event-id two", "GET", "/ev", map[string][]string{"Last-Event-ID": {"1", "2"}}, "", []int{422}},
		// Query comma form
		{"comma many", "GET", "/q?ids=" + repeatJoin("1", ",", 100000), nil, "", []int{422}},
		{"comma empty items", "GET", "/q?ids=,,,,", nil, "", []int{422}},
		{"comma huge number", "GET", "/q?ids=99999999999999999999999", nil, "", []int{422}},
		{"comma and repeat", "GET", "/q?ids=1,2&ids=3,4", nil, "", []int{422}},
		{"comma escaped", "GET", "/q?names=a%2Cb,c", nil, "", []int{204}},
		{"comma ptrs", "GET", "/q?ptrs=1,,2", nil, "", []int{422}},
		{"comma ptrs huge", "GET", "/q?ptrs=" + repeatJoin("-9223372036854775809", ",", 10), nil, "", []int{422}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rd *strings.Reader
			if tt.body != "" {
				rd = strings.NewReader(tt.body)
			}
			var req *http.Request
			if rd != nil {
				req = httptest.NewRequest(tt.method, tt.target, rd)
			} else {
				req = httptest.NewRequest(tt.method, tt.target, nil)
			}
			for k, v := range tt.hdr {
				req.Header[http.CanonicalHeaderKey(k)] = v
			}
			w := hostileServe(t, r, req)
			ok := false
			for _, c := range tt.codes {
				ok = ok || w.Code == c || c == 4 && w.Code/100 == 4 && w.Header().Get("Content-Type") == "application/problem+json"
			}
			if !ok {
				t.Errorf("got %d %.300q, want one of %v (4: any 4xx problem)", w.Code, w.Body.String(), tt.codes)
			}
		})
	}
}

func TestTypedHostileBodies(t *testing.T) {
	r := hostileRouter()
	keys100k := func() string {
		var sb strings.Builder
		sb.WriteString("{")
		for i := range 100000 {
			fmt.Fprintf(&sb, `"k%d":1,`, i)
		}
		sb.WriteString(`"name":"x"}`)
		return sb.String()
	}()
	tests := []struct {
		name, target, ctype, body string
		codes                     []int
	}{
		// A media type compares by ASCII letters alone: U+017F, which
		// Unicode folds to 's', does not make a JSON type, which a proxy
		// would not take for one either.
		{"json type unicode fold", "/json", "application/j\u017fon", `{"n":1}`, []int{415}},
		{"json type upper case", "/json", "APPLICATION/JSON", `{"n":1}`, []int{200}},
		{"json type no-break space", "/json", "application/json\u00a0", `{"n":1}`, []int{415}},
		{"json type dotted capital I", "/json", "appl\u0130cation/json", `{"n":1}`, []int{415}},
		{"json deep any", "/json", "application/json", `{"any":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}", []int{4}},
		{"json deep any ok", "/json", "application/json", `{"any":` + strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000) + "}", []int{200}},
		{"json deep tree", "/json", "application/json", `{"tree":` + strings.Repeat(`{"name":"ab","child":`, 9000) + "null" + strings.Repeat("}", 9000) + "}", []int{200}},
		{"json 1e999", "/json", "application/json", `{"n":1e999}`, []int{4}},
		{"json 1E400 any", "/json", "application/json", `{"any":1E400}`, []int{200, 4}},
		{"json -0", "/json", "application/json", `{"n":-0,"i":-0,"u":-0}`, []int{200}},
		{"json huge int", "/json", "application/json", `{"i":` + strings.Repeat("9", 10000) + `}`, []int{4}},
		{"json u 256", "/json", "application/json", `{"u":256}`, []int{4}},
		{"json u 1.5", "/json", "application/json", `{"u":1.5}`, []int{4}},
		{"json u 1e2", "/json", "application/json", `{"u":1e2}`, []int{200, 4}},
		{"json long number", "/json", "application/json", `{"n":0.` + strings.Repeat("1", 1<<20) + `}`, []int{200, 4}},
		{"json escapes", "/json", "application/json", `{"any":"` + strings.Repeat(`\u0000`, 100000) + `"}`, []int{200}},
		{"json lone surrogates", "/json", "application/json", `{"name":"` + strings.Repeat(`\ud800`, 5) + `"}`, []int{200, 4}},
		{"json lone surrogate pairs bad", "/json", "application/json", `{"name":"\udc00\ud800x"}`, []int{200, 4}},
		{"json name escapes long", "/json", "application/json", `{"name":"` + strings.Repeat(`\u0041`, 100000) + `"}`, []int{4}},
		{"json bad escape", "/json", "application/json", `{"name":"\x"}`, []int{4}},
		{"json bad utf8", "/json", "application/json", "{\"name\":\"\xff\xfe\"}", []int{200, 4}},
		{"json keys by case", "/json", "application/json", `{"name":"a","NAME":"b","Name":"c"}`, []int{200, 4}},
		{"json dup keys", "/json", "application/json", `{"name":"a","name":"b"}`, []int{200, 4}},
		{"json 100k keys", "/json", "application/json", keys100k, []int{200, 4}},
		{"json 100k map", "/json", "application/json", strings.Replace(keys100k, "{", `{"map":{`, 1) + "}", []int{200, 4}},
		{"json raw bad base64", "/json", "application/json", `{"raw":"!!!"}`, []int{4}},
		{"json trailing", "/json", "application/json", `{"name":"a"} {}`, []int{4}},
		{"json empty", "/json", "application/json", ``, []int{200, 4}},
		{"json truncated", "/json", "application/json", `{"name":"a`, []int{4}},
		{"json items many", "/json", "application/json", `{"items":[` + repeatJoin(`{"n":-1}`, ",", 100000) + `]}`, []int{4}},
		{"merge opt string", "/merge", "application/merge-patch+json", `{"name":1}`, []int{4}},
		{"merge opt huge", "/merge", "application/merge-patch+json", `{"inner":{"a":1e400}}`, []int{4}},
		{"merge opt bool", "/merge", "application/merge-patch+json", `{"inner":{"a":true}}`, []int{4}},
		// merge patch
		{"merge null everywhere", "/merge", "application/merge-patch+json", `{"name":null,"tags":null,"items":null,"meta":null,"inner":null}`, []int{4}},
		{"merge inner null", "/merge", "application/merge-patch+json", `{"inner":{"a":null,"b":null}}`, []int{200}},
		{"merge inner bad", "/merge", "application/merge-patch+json", `{"inner":{"a":10}}`, []int{4}},
		{"merge items", "/merge", "application/merge-patch+json", `{"items":[{"n":-1},null,{}]}`, []int{4}},
		{"merge items null", "/merge", "application/merge-patch+json", `{"items":[null]}`, []int{200, 4}},
		{"merge meta deep", "/merge", "application/merge-patch+json", `{"meta":` + strings.Repeat(`{"k":`, 9000) + "null" + strings.Repeat("}", 9000) + "}", []int{200}},
		{"merge meta nulls", "/merge", "application/merge-patch+json", `{"meta":{"k":{"j":null},"z":null}}`, []int{200}},
		{"merge dup", "/merge", "application/merge-patch+json", `{"name":"a","name":null}`, []int{200, 4}},
		{"merge dup inner", "/merge", "application/merge-patch+json", `{"inner":{"a":1},"inner":null}`, []int{200, 4}},
		{"merge tags many", "/merge", "application/merge-patch+json", `{"tags":[` + repeatJoin(`"a"`, ",", 100000) + `]}`, []int{4}},
		{"merge not object", "/merge", "application/merge-patch+json", `[1,2]`, []int{4}},
		{"merge null", "/merge", "application/merge-patch+json", `null`, []int{4}},
		{"merge string", "/merge", "application/merge-patch+json", `"x"`, []int{4}},
		{"merge tags wrong", "/merge", "application/merge-patch+json", `{"tags":{"a":1}}`, []int{4}},
		{"merge inner wrong", "/merge", "application/merge-patch+json", `{"inner":[1]}`, []int{4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tt.target, strings.NewReader(tt.body))
			if tt.target == "/merge" {
				req.Method = http.MethodPatch
			}
			req.Header.Set("Content-Type", tt.ctype)
			w := hostileServe(t, r, req)
			ok := false
			for _, c := range tt.codes {
				ok = ok || w.Code == c || c == 4 && w.Code/100 == 4 && w.Header().Get("Content-Type") == "application/problem+json"
			}
			if !ok {
				t.Errorf("got %d %.300q, want one of %v (4: any 4xx problem)", w.Code, w.Body.String(), tt.codes)
			}
		})
	}
}

func TestUploadHostileHeaders(t *testing.T) {
	img := string(pngBytes(t, 8, 8))
	title := "Content-Disposition: form-data; name=\"title\"\r\n\r\nCat"
	image := "Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/png\r\n\r\n" + img
	manyHeaders := strings.Repeat("X-A: b\r\n", 20000) + title
	long := strings.Repeat("n", 64<<10)
	bnd := strings.Repeat("b", 70)
	tests := []struct {
		name, ctype, body string
		codes             []int
	}{
		{"many headers in a part", "multipart/form-data; boundary=b", rawMultipart(true, manyHeaders, image), []int{400, 413}},
		{"name of 64 KiB", "multipart/form-data; boundary=b", rawMultipart(true, title, image, "Content-Disposition: form-data; name=\""+long+"\"\r\n\r\nx"), []int{200}},
		{"name of 64 KiB for a file", "multipart/form-data; boundary=b", rawMultipart(true, title, image, "Content-Disposition: form-data; name=\""+long+"\"; filename=\"a\"\r\n\r\nx"), []int{200}},
		{"filename star latin1", "multipart/form-data; boundary=b", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename*=ISO-8859-1''caf%E9.png\r\nContent-Type: image/png\r\n\r\n"+img), []int{400}},
		{"filename star bad", "multipart/form-data; boundary=b", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename*=UTF-8''%ZZ\r\nContent-Type: image/png\r\n\r\n"+img), []int{200, 400}},
		{"name star", "multipart/form-data; boundary=b", rawMultipart(true,
			"Content-Disposition: form-data; name*=UTF-8''title\r\n\r\nCat", image), []int{400}},
		// RFC 2231's names, which mime.ParseMediaType lets override the
		// plain ones a proxy reads: refused, never taken.
		{"boundary star over boundary", "multipart/form-data; boundary=zzz; boundary*=utf-8''b", rawMultipart(true, title, image), []int{400}},
		{"name star over name", "multipart/form-data; boundary=b", rawMultipart(true,
			"Content-Disposition: form-data; name=\"upload\"; name*=UTF-8''title\r\n\r\nCat", image), []int{400}},
		{"filename star over filename", "multipart/form-data; boundary=b", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"safe.png\"; filename*=UTF-8''evil.php\r\nContent-Type: image/png\r\n\r\n"+img), []int{400}},
		// White space is space and tab (RFC 9110 section 5.6.3).
		{"form-data and a no-break space", "multipart/form-data; boundary=b", rawMultipart(true,
			"Content-Disposition: form-data\u00a0; name=\"title\"\r\n\r\nCat", image), []int{400}},
		{"part type, a no-break space before a parameter", "multipart/form-data; boundary=b", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/png;\u00a0x=y\r\n\r\n"+img), []int{415}},
		{"CR in name", "multipart/form-data; boundary=b", rawMultipart(true, title, image,
			"Content-Disposition: form-data; name=\"a\rb\"\r\n\r\nx"), []int{200, 400}},
		{"CRLF in quoted name", "multipart/form-data; boundary=b", rawMultipart(true, title, image,
			"Content-Disposition: form-data; name=\"a\r\nb\"\r\n\r\nx"), []int{200, 400}},
		{"boundary of 70", "multipart/form-data; boundary=" + bnd, strings.ReplaceAll(rawMultipart(true, title, image), "--b", "--"+bnd), []int{200}},
		{"boundary of 200", "multipart/form-data; boundary=" + strings.Repeat("b", 200), strings.ReplaceAll(rawMultipart(true, title, image), "--b", "--"+strings.Repeat("b", 200)), []int{200, 400}},
		{"boundary of 64 KiB", "multipart/form-data; boundary=" + long, strings.ReplaceAll(rawMultipart(true, title, image), "--b", "--"+long), []int{200, 400}},
		{"ends after a boundary", "multipart/form-data; boundary=b", rawMultipart(false, title, image) + "--b", []int{400}},
		{"ends after a boundary CRLF", "multipart/form-data; boundary=b", rawMultipart(false, title, image) + "--b\r\n", []int{400}},
		{"ends in a part's headers", "multipart/form-data; boundary=b", rawMultipart(false, title, image) + "--b\r\nContent-Disposition: form-data; name=\"rating\"\r\n", []int{400}},
		{"ends after the close", "multipart/form-data; boundary=b", rawMultipart(false, title, image) + "--b--", []int{200}},
		{"empty body", "multipart/form-data; boundary=b", "", []int{400}},
		{"only close", "multipart/form-data; boundary=b", "--b--\r\n", []int{400, 422}},
		{"two boundary params", "multipart/form-data; boundary=b; boundary=c", rawMultipart(true, title, image), []int{400, 415}},
		{"empty boundary", "multipart/form-data; boundary=", rawMultipart(true, title, image), []int{400, 415}},
		{"part header no colon", "multipart/form-data; boundary=b", rawMultipart(true, title, "garbage\r\n\r\nx"), []int{400}},
		{"title twice", "multipart/form-data; boundary=b", rawMultipart(true, title, title, image), []int{400, 422}},
		// A part's fields once each: a proxy may read the last of two.
		{"a part's Content-Disposition twice", "multipart/form-data; boundary=b", rawMultipart(true,
			"Content-Disposition: form-data; name=\"title\"\r\nContent-Disposition: form-data; name=\"image\"; filename=\"x.png\"\r\n\r\nCat", image), []int{400}},
		{"a part's field name with a space before its colon", "multipart/form-data; boundary=b", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type : text/html\r\n\r\n"+img), []int{400}},
		{"a part's Content-Type twice", "multipart/form-data; boundary=b", rawMultipart(true, title,
			"Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/png\r\nContent-Type: text/html\r\n\r\n"+img), []int{400}},
		{"image twice", "multipart/form-data; boundary=b", rawMultipart(true, title, image, image), []int{400, 422}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TMPDIR", dir)
			req := httptest.NewRequest(http.MethodPost, "/up", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.ctype)
			w := hostileServe(t, uploadRouter(t, nil), req)
			ok := false
			for _, c := range tt.codes {
				ok = ok || w.Code == c
			}
			if !ok {
				t.Errorf("got %d %.300q, want one of %v", w.Code, w.Body.String(), tt.codes)
			}
			if n := len(w.Body.String()); n > 16<<10 {
				t.Errorf("got an answer of %d bytes, want at most 16 KiB", n)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("got %d files left in the temporary directory, want none", len(ents))
			}
		})
	}
}

// TestTypedRepeatedFields sends a typed POST, a typed QUERY and an
// upload with Content-Type twice, a 400 whatever the two say (RFC 9110
// sections 5.3, 8.3: one media type, one field, of which a proxy may read
// the last), and with Content-Encoding lines of which one is not
// identity, a 415: a proxy joins the lines into one list.
func TestTypedRepeatedFields(t *testing.T) {
	type in struct {
		Body struct {
			Name string `json:"name"`
		}
	}
	type out struct{ Body string }
	r := waltz.New()
	h := func(c *waltz.Context, in *in) (*out, error) { return &out{in.Body.Name}, nil }
	Op(r, http.MethodPost, "/json", h, Operation{})
	Op(r, waltz.MethodQuery, "/json", h, Operation{})
	up := uploadRouter(t, nil)
	js, form := "application/json", "application/x-www-form-urlencoded"
	img := string(pngBytes(t, 8, 8))
	multipart := rawMultipart(true, "Content-Disposition: form-data; name=\"title\"\r\n\r\nCat",
		"Content-Disposition: form-data; name=\"image\"; filename=\"c.png\"\r\nContent-Type: image/png\r\n\r\n"+img)
	for _, tc := range []struct {
		name, method string
		h            http.Handler
		body         string
		ctypes, ces  []string
		code         int
	}{
		{"once", http.MethodPost, r, `{"name":"a"}`, []string{js}, nil, 200},
		{"twice, the same", http.MethodPost, r, `{"name":"a"}`, []string{js, js}, nil, 400},
		{"twice, JSON first", http.MethodPost, r, `{"name":"a"}`, []string{js, form}, nil, 400},
		{"twice, JSON last", http.MethodPost, r, `{"name":"a"}`, []string{"text/plain", js}, nil, 400},
		{"QUERY twice", waltz.MethodQuery, r, `{"name":"a"}`, []string{js, "text/plain"}, nil, 400},
		{"QUERY once", waltz.MethodQuery, r, `{"name":"a"}`, []string{js}, nil, 200},
		{"upload once", http.MethodPost, up, multipart, []string{"multipart/form-data; boundary=b"}, nil, 200},
		{"upload twice", http.MethodPost, up, multipart, []string{"multipart/form-data; boundary=b", "multipart/form-data; boundary=c"}, nil, 400},
		{"identity twice", http.MethodPost, r, `{"name":"a"}`, []string{js}, []string{"identity", "IDENTITY"}, 200},
		{"identity joined", http.MethodPost, r, `{"name":"a"}`, []string{js}, []string{"identity, identity", ","}, 200},
		{"identity, then gzip, joined", http.MethodPost, r, `{"name":"a"}`, []string{js}, []string{"identity, gzip"}, 415},
		{"identity, then gzip", http.MethodPost, r, `{"name":"a"}`, []string{js}, []string{"identity", "gzip"}, 415},
		{"QUERY identity, then gzip", waltz.MethodQuery, r, `{"name":"a"}`, []string{js}, []string{"identity", "gzip"}, 415},
	} {
		req := httptest.NewRequest(tc.method, "/json", strings.NewReader(tc.body))
		if tc.h == up {
			req.URL.Path = "/up"
		}
		req.Header["Content-Type"] = tc.ctypes
		req.Header["Content-Encoding"] = tc.ces
		w := hostileServe(t, tc.h, req)
		if w.Code != tc.code {
			t.Errorf("%s: got %d %.200q, want %d", tc.name, w.Code, w.Body.String(), tc.code)
		}
	}
}

// FuzzTypedHostile sends a request of fuzzed header fields and body to
// each operation of hostileRouter: no answer is a 5xx.
func FuzzTypedHostile(f *testing.F) {
	f.Add(uint8(0), "text/plain;q=0.5, */*;q=0", `"v2", W/"x"`, "bytes=0-1,5-", "Sun, 01 Mar 2026 12:00:00 GMT", `{"text":"a"}`)
	f.Add(uint8(1), "application/*", `*`, "bytes=-5", "x", `{"meta":{"a":null},"inner":{"a":null}}`)
	f.Add(uint8(2), "", `"v2`, "bytes=9999999999999999999-", "", `{"items":[{"n":1}],"tags":null}`)
	f.Add(uint8(3), "*/*", `W/"v2", *`, "bytes=0-0,0-0", "", `{"name":"x","any":[1e999]}`)
	r := hostileRouter()
	routes := [...]struct{ method, target, ctype string }{
		{http.MethodGet, "/neg", ""},
		{http.MethodPatch, "/docs/1", "application/json"},
		{http.MethodGet, "/docs/1", ""},
		{http.MethodGet, "/dl", ""},
		{http.MethodPatch, "/merge", "application/merge-patch+json"},
		{http.MethodPost, "/json", "application/json"},
	}
	f.Fuzz(func(t *testing.T, route uint8, accept, tags, rng, date, body string) {
		rt := routes[int(route)%len(routes)]
		req := httptest.NewRequest(rt.method, rt.target, strings.NewReader(body))
		if rt.ctype != "" {
			req.Header.Set("Content-Type", rt.ctype)
		}
		for k, v := range map[string]string{"Accept": accept, "If-Match": tags, "If-None-Match": tags,
			"Range": rng, "If-Range": tags, "If-Modified-Since": date, "If-Unmodified-Since": date} {
			if v != "" && (k != "If-None-Match" || len(tags)%2 == 0) && (k != "If-Match" || len(tags)%2 == 1) {
				req.Header.Set(k, v)
			}
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Errorf("%s %s: got %d %.300s", rt.method, rt.target, w.Code, w.Body)
		}
	})
}
