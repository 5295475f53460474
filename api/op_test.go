package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

type listIn struct {
	Tags   []string `query:"tag" maxItems:"5" maxLength:"10"`
	Limit  int      `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Offset *int     `query:"offset" minimum:"0"`
	Ratio  float64  `query:"ratio" minimum:"0" maximum:"1"`
	Small  int8     `query:"small"`
	Active bool     `query:"active"`
	Name   string   `query:"name"`
}

type listOut struct {
	Body listIn
}

type createIn struct {
	Org  string `path:"org" pattern:"^[a-z]+$"`
	Body struct {
		URL   string   `json:"url" format:"uri" required:"true"`
		Title string   `json:"title,omitempty" maxLength:"10"`
		Tags  []string `json:"tags,omitempty" maxItems:"2" maxLength:"5" uniqueItems:"true"`
		Stars int      `json:"stars" minimum:"0" maximum:"5"`
		Owner *struct {
			Email string `json:"email" format:"email"`
		} `json:"owner,omitempty"`
	}
}

type createOut struct {
	Status   int
	Location string `header:"Location"`
	Body     map[string]any
}

type formIn struct {
	Org  string `path:"org"`
	Body struct {
		URL   string   `json:"url" format:"uri" required:"true"`
		Tags  []string `json:"tags,omitempty" maxItems:"2" uniqueItems:"true"`
		Stars int      `json:"stars" minimum:"0" maximum:"5"`
	} `consumes:"form"`
}

type strictIn struct {
	_ struct{} `strict:"query"`
	Q string   `query:"q"`
}

func typedRouter(t testing.TB) *waltz.Router {
	t.Helper()
	r := waltz.New()
	Op(r, http.MethodGet, "/items", func(c *waltz.Context, in *listIn) (*listOut, error) {
		return &listOut{Body: *in}, nil
	}, Operation{})
	Op(r, http.MethodPost, "/orgs/:org/items", func(c *waltz.Context, in *createIn) (*createOut, error) {
		return &createOut{Status: http.StatusCreated, Location: "/orgs/" + in.Org + "/items/1",
			Body: map[string]any{"url": in.Body.URL, "tags": in.Body.Tags}}, nil
	}, Operation{})
	Op(r, http.MethodPost, "/orgs/:org/form", func(c *waltz.Context, in *formIn) (*createOut, error) {
		return &createOut{Status: http.StatusCreated, Body: map[string]any{"url": in.Body.URL}}, nil
	}, Operation{})
	Op(r, http.MethodGet, "/strict", func(c *waltz.Context, in *strictIn) (*listOut, error) {
		return &listOut{}, nil
	}, Operation{})
	return r
}

type problemDoc struct {
	Type, Title, Detail, Instance string
	Status                        int
	Errors                        []waltz.FieldError
}

// serveTyped sends a request and returns the recorder and, for a problem
// answer, the decoded problem.
func serveTyped(t testing.TB, r http.Handler, method, target, ctype, body string) (*httptest.ResponseRecorder, *problemDoc) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Header().Get("Content-Type") != "application/problem+json" {
		return w, nil
	}
	var p problemDoc
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("problem body %q: %v", w.Body, err)
	}
	return w, &p
}

// failures lists a problem's errors as "location keyword".
func failures(p *problemDoc) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Location+" "+e.Keyword)
	}
	return out
}

func TestTypedQuery(t *testing.T) {
	r := typedRouter(t)
	for _, tc := range []struct {
		name, target string
		code         int
		want         []string // failures, or for 200 the bound value as JSON
	}{
		{"defaults", "/items", 200, []string{`{"Tags":null,"Limit":20,"Offset":null,"Ratio":0,"Small":0,"Active":false,"Name":""}`}},
		{"values", "/items?tag=a&tag=b&limit=5&offset=0&ratio=0.25&small=-128&active=true&name=x+y",
			200, []string{`{"Tags":["a","b"],"Limit":5,"Offset":0,"Ratio":0.25,"Small":-128,"Active":true,"Name":"x y"}`}},
		{"escaped key and value", "/items?t%61g=%E2%9C%93&n%61me=a%26b", 200,
			[]string{`{"Tags":["✓"],"Limit":20,"Offset":null,"Ratio":0,"Small":0,"Active":false,"Name":"a\u0026b"}`}},
		{"wrong types", "/items?limit=ten&active=yes&ratio=half", 422,
			[]string{"query.limit type", "query.active type", "query.ratio type"}},
		{"overflow", "/items?limit=99999999999999999999&small=128", 422, []string{"query.limit type", "query.small type"}},
		{"NaN and Inf", "/items?ratio=NaN", 422, []string{"query.ratio type"}},
		{"Inf", "/items?ratio=Inf", 422, []string{"query.ratio type"}},
		{"huge exponent", "/items?ratio=1e999", 422, []string{"query.ratio type"}},
		{"hex float", "/items?ratio=0x1p-2", 422, []string{"query.ratio type"}},
		{"bounds", "/items?limit=0&offset=-1&ratio=1.5", 422,
			[]string{"query.limit minimum", "query.offset minimum", "query.ratio maximum"}},
		{"bad escape", "/items?name=%zz&limit=%", 400, []string{"query.name escape", "query.limit escape"}},
		{"repeated scalar", "/items?limit=1&limit=2", 422, []string{"query.limit type"}},
		{"empty values are values", "/items?limit=&offset=&active=", 422,
			[]string{"query.limit type", "query.offset type", "query.active type"}},
		{"empty string is a value", "/items?name=", 200,
			[]string{`{"Tags":null,"Limit":20,"Offset":null,"Ratio":0,"Small":0,"Active":false,"Name":""}`}},
		{"item rules", "/items?tag=ok&tag=" + strings.Repeat("x", 11), 422, []string{"query.tag[1] maxLength"}},
		{"huge repetition", "/items?" + strings.Repeat("tag=a&", 10000), 422, []string{"query.tag maxItems"}},
		{"unknown params ignored", "/items?nope=1&limit=3", 200,
			[]string{`{"Tags":null,"Limit":3,"Offset":null,"Ratio":0,"Small":0,"Active":false,"Name":""}`}},
		{"strict refuses unknown", "/strict?q=1&nope=2&x", 422, []string{"query.nope unknown", "query.x unknown"}},
		{"a semicolon is unreadable", "/items?limit=3;limit=4", 400, []string{"query syntax"}},
		{"a semicolon beside good pairs", "/items?limit=3&name=a;b", 400, []string{"query syntax"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, p := serveTyped(t, r, http.MethodGet, tc.target, "", "")
			if w.Code != tc.code {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tc.code)
			}
			got := failures(p)
			if tc.code == 200 {
				got = []string{strings.TrimSpace(w.Body.String())}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTypedBody(t *testing.T) {
	r := typedRouter(t)
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name, target, ctype, body string
		code                      int
		want                      []string
	}{
		{"valid", "/orgs/acme/items", "application/json", `{"url":"https://a.example","tags":["x","y"],"stars":0}`, 201, nil},
		{"members missing", "/orgs/acme/items", "application/json", `{"tags":["x"],"owner":{}}`, 422,
			[]string{"body.owner.email required", "body.url required", "body.stars required"}},
		{"member keys matched exactly, escapes read", "/orgs/acme/items", "application/json",
			`{"\u0075rl":"https://a.example","St\u0061rs":1,"stars":1}`, 201, nil},
		{"member keys differing in case are unknown", "/orgs/acme/items", "application/json",
			`{"URL":"https://a.example","Stars":1}`, 422, []string{"body.url required", "body.stars required"}},
		{"every failure at once", "/orgs/ACME/items", "application/json",
			`{"url":"nope","title":"far too long a title","tags":["a","a","toolong"],"stars":9,"owner":{"email":"x"}}`, 422,
			[]string{"path.org pattern", "body.url format", "body.title maxLength", "body.tags[2] maxLength",
				"body.tags maxItems", "body.stars maximum", "body.owner.email format"}},
		// Once maxItems has failed, uniqueItems cannot change the answer
		// and is not checked: its cost would grow with the items.
		{"repeated items within the count", "/orgs/acme/items", "application/json",
			`{"url":"https://a.example","tags":["a","a"],"stars":1}`, 422, []string{"body.tags uniqueItems"}},
		{"required member", "/orgs/acme/items", "application/json", `{"stars":1}`, 422, []string{"body.url required"}},
		{"wrong JSON type", "/orgs/acme/items", "application/json", `{"url":5}`, 422, []string{"body.url type", "body.stars required"}},
		{"malformed JSON", "/orgs/acme/items", "application/json", `{"url":`, 400, []string{"body syntax"}},
		{"data after the value", "/orgs/acme/items", "application/json", `{"url":"https://a.example"} {}`, 400, []string{"body syntax"}},
		{"deep JSON", "/orgs/acme/items", "application/json", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), 400,
			[]string{"body syntax"}},
		{"no body", "/orgs/acme/items", "", "", 422, []string{"body required"}},
		{"body field sent in the query", "/orgs/acme/items?url=https://a.example", "", "", 422, []string{"body required"}},
		{"wrong content type", "/orgs/acme/items", "text/plain", "url=x", 415, nil},
		{"form body", "/orgs/acme/form", form, "url=https%3A%2F%2Fa.example&tags=x&tags=y&stars=2", 201, nil},
		{"form failures", "/orgs/acme/form", form, "url=nope&stars=9&tags=a&tags=a", 422,
			[]string{"body.url format", "body.stars maximum", "body.tags uniqueItems"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, p := serveTyped(t, r, http.MethodPost, tc.target, tc.ctype, tc.body)
			if w.Code != tc.code {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tc.code)
			}
			if got := failures(p); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if tc.code == 201 && w.Header().Get("Location") != "/orgs/acme/items/1" && tc.ctype != form {
				t.Errorf("got Location %q, want /orgs/acme/items/1", w.Header().Get("Location"))
			}
		})
	}
}

func TestTypedBodyLimits(t *testing.T) {
	r := typedRouter(t)
	r.MaxBodyBytes = 64
	w, p := serveTyped(t, r, http.MethodPost, "/orgs/acme/items", "application/json",
		`{"url":"https://a.example","title":"`+strings.Repeat("x", 100)+`"}`)
	if w.Code != http.StatusRequestEntityTooLarge || p == nil || p.Status != 413 {
		t.Errorf("got %d %s, want a 413 problem", w.Code, w.Body)
	}
	r.DisallowUnknownFields = true
	r.MaxBodyBytes = 1 << 20
	w, p = serveTyped(t, r, http.MethodPost, "/orgs/acme/items", "application/json", `{"url":"https://a.example","stars":1,"nope":1}`)
	if got, want := failures(p), []string{"body additionalProperties"}; w.Code != 422 || !slices.Equal(got, want) {
		t.Errorf("got %d %q, want 422 %q", w.Code, got, want)
	}
}

// TestTypedMessagesBounded holds that a failure quotes at most 64 bytes
// of what the client sent.
func TestTypedMessagesBounded(t *testing.T) {
	r := typedRouter(t)
	huge := strings.Repeat("9", 5000)
	w, p := serveTyped(t, r, http.MethodGet, "/items?limit="+huge+"&strict"+huge+"=1", "", "")
	if w.Code != 422 || p == nil || len(p.Errors) != 1 {
		t.Fatalf("got %d %s, want one 422 failure", w.Code, w.Body)
	}
	if n := len(p.Errors[0].Message); n > 200 {
		t.Errorf("got a message of %d bytes, want at most 200: %q", n, p.Errors[0].Message)
	}
	if !strings.Contains(p.Errors[0].Message, "…") {
		t.Errorf("got %q, want the value cut with …", p.Errors[0].Message)
	}
}

type headerIn struct {
	ID      string  `header:"x-request-id" required:"true" maxLength:"8"`
	Count   *uint8  `header:"X-Count"`
	Session string  `cookie:"session" required:"true"`
	Theme   *string `cookie:"theme" enum:"dark,light"`
}

func TestTypedHeadersCookies(t *testing.T) {
	r := waltz.New()
	Op(r, http.MethodGet, "/h", func(c *waltz.Context, in *headerIn) (*listOut, error) {
		return &listOut{Body: listIn{Name: fmt.Sprintf("%s %v %s %v", in.ID, deref(in.Count), in.Session, deref(in.Theme))}}, nil
	}, Operation{})
	for _, tc := range []struct {
		name    string
		headers map[string][]string
		code    int
		want    string
	}{
		{"all there", map[string][]string{"X-Request-Id": {"abc"}, "X-Count": {"7"},
			"Cookie": {`other=1; session="s1"`, "theme=dark"}}, 200, "abc 7 s1 dark"},
		{"missing", nil, 422, `["header.X-Request-Id required" "cookie.session required"]`},
		{"bad values", map[string][]string{"X-Request-Id": {"123456789"}, "X-Count": {"300"},
			"Cookie": {"session=s; theme=pink"}}, 422,
			`["header.X-Request-Id maxLength" "header.X-Count type" "cookie.theme enum"]`},
		{"repeated header", map[string][]string{"X-Request-Id": {"a", "b"}, "Cookie": {"session=s"}}, 422,
			`["header.X-Request-Id type"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/h", nil)
			for k, v := range tc.headers {
				req.Header[k] = v
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tc.code)
			}
			var got string
			if tc.code == 200 {
				var out listIn
				_ = json.Unmarshal(w.Body.Bytes(), &out)
				got = out.Name
			} else {
				var p problemDoc
				_ = json.Unmarshal(w.Body.Bytes(), &p)
				got = fmt.Sprintf("%q", failures(&p))
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// level is a TextUnmarshaler bound from text.
type level int

func (l *level) UnmarshalText(b []byte) error {
	switch string(b) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return fmt.Errorf("unknown level %q", b)
	}
	return nil
}

type rangeIn struct {
	From  int    `query:"from"`
	To    int    `query:"to"`
	Level level  `query:"level"`
	Lvl2  *level `query:"lvl2" default:"high"`
}

func (in *rangeIn) Validate(c *waltz.Context) []waltz.FieldError {
	if in.To < in.From {
		return []waltz.FieldError{{Location: "query.to", Keyword: "range", Message: "must not be below from"}}
	}
	return nil
}

func TestTypedValidateAndText(t *testing.T) {
	r := waltz.New()
	Op(r, http.MethodGet, "/r", func(c *waltz.Context, in *rangeIn) (*listOut, error) {
		return &listOut{Body: listIn{Limit: int(in.Level)*10 + int(*in.Lvl2)}}, nil
	}, Operation{})
	for _, tc := range []struct {
		target string
		code   int
		want   string
	}{
		{"/r?from=1&to=2&level=low", 200, "12"},
		{"/r?from=1&to=2&level=high&lvl2=low", 200, "21"},
		{"/r?from=3&to=2", 422, `["query.to range"]`},
		{"/r?from=3&to=2&level=mid", 422, `["query.level format"]`}, // Validate runs only once the tags pass
	} {
		w, p := serveTyped(t, r, http.MethodGet, tc.target, "", "")
		got := fmt.Sprintf("%q", failures(p))
		if tc.code == 200 {
			var out listIn
			_ = json.Unmarshal(w.Body.Bytes(), &out)
			got = fmt.Sprint(out.Limit)
		}
		if w.Code != tc.code || got != tc.want {
			t.Errorf("%s: got %d %s, want %d %s", tc.target, w.Code, got, tc.code, tc.want)
		}
	}
}

type deepNode struct {
	Name  string     `json:"name" minLength:"2"`
	Kids  []deepNode `json:"kids,omitempty"`
	Child *deepNode  `json:"child,omitempty"`
}

// TestTypedBodyDepth holds the locations of failures deep in a recursive
// body, past the depth the walk keeps inline.
func TestTypedBodyDepth(t *testing.T) {
	r := waltz.New()
	type in struct{ Body deepNode }
	Op(r, http.MethodPost, "/tree", opFn[in, noOut], Operation{})
	body := `{"name":"x","kids":[{"name":"ok"},{"name":"y"}],"child":` +
		strings.Repeat(`{"name":"ok","child":`, 10) + `{"name":"z"}` + strings.Repeat("}", 10) + "}"
	w, p := serveTyped(t, r, http.MethodPost, "/tree", "application/json", body)
	want := []string{"body.name minLength", "body.kids[1].name minLength",
		"body" + strings.Repeat(".child", 11) + ".name minLength"}
	if got := failures(p); w.Code != 422 || !slices.Equal(got, want) {
		t.Errorf("got %d %q, want 422 %q", w.Code, got, want)
	}
}
