package api

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/waltz-go/waltz"
)

// Typed operations beside the same work written by hand with strconv:
//
//	go test -run '^$' -bench 'Typed' -benchmem -count 6 > typed.txt
//	benchstat -col /impl typed.txt

type benchGetIn struct {
	Org    string `path:"org"`
	ID     int64  `path:"id" minimum:"1"`
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Active bool   `query:"active"`
	Sort   string `query:"sort" enum:"asc,desc" default:"asc"`
}

type benchItem struct {
	Org    string `json:"org"`
	ID     int64  `json:"id"`
	Limit  int    `json:"limit"`
	Active bool   `json:"active"`
	Sort   string `json:"sort"`
}

type benchGetOut struct{ Body benchItem }

type benchPostIn struct {
	Body struct {
		URL   string   `json:"url" format:"uri" required:"true"`
		Title string   `json:"title" maxLength:"100"`
		Tags  []string `json:"tags,omitempty" maxItems:"10" maxLength:"20"`
	}
}

type benchPostOut struct {
	Body struct {
		ID  int64  `json:"id"`
		URL string `json:"url"`
	}
}

func typedGet(c *waltz.Context, in *benchGetIn) (*benchGetOut, error) {
	return &benchGetOut{Body: benchItem{Org: in.Org, ID: in.ID, Limit: in.Limit, Active: in.Active, Sort: in.Sort}}, nil
}

// handGet does what typedGet's binding does, by hand.
func handGet(c *waltz.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "bad id"}
	}
	limit := 20
	if s := c.Query("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > 100 {
			return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "bad limit"}
		}
	}
	active := false
	if s := c.Query("active"); s != "" {
		if active, err = strconv.ParseBool(s); err != nil {
			return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "bad active"}
		}
	}
	sort := c.Query("sort")
	switch sort {
	case "":
		sort = "asc"
	case "asc", "desc":
	default:
		return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "bad sort"}
	}
	return c.JSON(http.StatusOK, benchItem{Org: c.Param("org"), ID: id, Limit: limit, Active: active, Sort: sort})
}

func typedPost(c *waltz.Context, in *benchPostIn) (*benchPostOut, error) {
	out := &benchPostOut{}
	out.Body.ID, out.Body.URL = 1, in.Body.URL
	return out, nil
}

// handPost does what typedPost's binding does, by hand.
func handPost(c *waltz.Context) error {
	var in struct {
		URL   string   `json:"url"`
		Title string   `json:"title"`
		Tags  []string `json:"tags,omitempty"`
	}
	if err := c.Bind(&in); err != nil {
		return err
	}
	var errs []waltz.FieldError
	if u, err := url.Parse(in.URL); err != nil || u.Scheme == "" {
		errs = append(errs, waltz.FieldError{Location: "body.url", Keyword: "format", Message: "must be an absolute URI"})
	}
	if utf8.RuneCountInString(in.Title) > 100 {
		errs = append(errs, waltz.FieldError{Location: "body.title", Keyword: "maxLength", Message: "too long"})
	}
	if len(in.Tags) > 10 {
		errs = append(errs, waltz.FieldError{Location: "body.tags", Keyword: "maxItems", Message: "too many"})
	}
	for i, t := range in.Tags {
		if utf8.RuneCountInString(t) > 20 {
			errs = append(errs, waltz.FieldError{Location: "body.tags[" + strconv.Itoa(i) + "]", Keyword: "maxLength", Message: "too long"})
		}
	}
	if errs != nil {
		return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Errors: errs}
	}
	var out benchPostOut
	out.Body.ID, out.Body.URL = 1, in.URL
	return c.JSON(http.StatusCreated, out.Body)
}

func benchTypedRouter() *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodGet, "/typed/orgs/:org/items/:id", typedGet, Operation{})
	r.Get("/hand/orgs/:org/items/:id", handGet)
	Op(r, http.MethodPost, "/typed/items", typedPost, Operation{Status: http.StatusCreated})
	r.Post("/hand/items", handPost)
	return r
}

func BenchmarkTyped(b *testing.B) {
	r := benchTypedRouter()
	const query = "?limit=10&active=true&sort=desc"
	b.Run("op=get/impl=typed", func(b *testing.B) {
		benchServe(b, r, httptest.NewRequest(http.MethodGet, "/typed/orgs/waltz/items/42"+query, nil))
	})
	b.Run("op=get/impl=hand", func(b *testing.B) {
		benchServe(b, r, httptest.NewRequest(http.MethodGet, "/hand/orgs/waltz/items/42"+query, nil))
	})
	b.Run("op=get-invalid/impl=typed", func(b *testing.B) {
		benchServe(b, r, httptest.NewRequest(http.MethodGet, "/typed/orgs/waltz/items/0?limit=500&active=maybe&sort=up", nil))
	})
	const body = `{"url":"https://example.com/a","title":"A page","tags":["go","http"]}`
	b.Run("op=post/impl=typed", func(b *testing.B) {
		benchBody(b, r, "/typed/items", body)
	})
	b.Run("op=post/impl=hand", func(b *testing.B) {
		benchBody(b, r, "/hand/items", body)
	})
	b.Run("op=post-invalid/impl=typed", func(b *testing.B) {
		benchBody(b, r, "/typed/items", `{"url":"nope","title":"A page","tags":["go","`+strings.Repeat("x", 30)+`"]}`)
	})
}

// benchBody posts body as JSON to target b.N times; the request's body is
// a reader reset each time.
func benchBody(b *testing.B, h http.Handler, target, body string) {
	b.Helper()
	rd := strings.NewReader(body)
	req := httptest.NewRequest(http.MethodPost, target, rd)
	req.Header.Set("Content-Type", "application/json")
	w := newNopWriter()
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		req.ContentLength = int64(len(body))
		h.ServeHTTP(w, req)
	}
}

// register200 registers 200 typed operations, of a few shapes, on r.
func register200(r *waltz.Router) {
	for i := range 50 {
		p := fmt.Sprintf("/r%d/orgs/:org/items", i)
		Op(r, http.MethodGet, p+"/:id", typedGet, Operation{})
		Op(r, http.MethodPost, p, typedPost, Operation{})
		Op(r, http.MethodPut, p+"/:id", typedGet, Operation{})
		Op(r, http.MethodDelete, p+"/:id", typedGet, Operation{})
	}
}

func BenchmarkTypedRegister200(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		register200(waltz.New())
	}
}

func BenchmarkTypedOpenAPI200(b *testing.B) {
	r := waltz.New()
	register200(r)
	b.ReportAllocs()
	for b.Loop() {
		OpenAPI(r, Info{Title: "bench"})
	}
}

// TestTypedBenchRoutes checks that the benchmarks measure the answers
// they claim to.
func TestTypedBenchRoutes(t *testing.T) {
	r := benchTypedRouter()
	for _, tc := range []struct {
		method, target, body string
		code                 int
	}{
		{"GET", "/typed/orgs/waltz/items/42?limit=10&active=true&sort=desc", "", 200},
		{"GET", "/hand/orgs/waltz/items/42?limit=10&active=true&sort=desc", "", 200},
		{"GET", "/typed/orgs/waltz/items/0?limit=500&active=maybe&sort=up", "", 422},
		{"POST", "/typed/items", `{"url":"https://example.com/a","title":"A page","tags":["go","http"]}`, 201},
		{"POST", "/hand/items", `{"url":"https://example.com/a","title":"A page","tags":["go","http"]}`, 201},
	} {
		w, _ := serveTyped(t, r, tc.method, tc.target, "application/json", tc.body)
		if w.Code != tc.code {
			t.Errorf("%s %s: got %d %s, want %d", tc.method, tc.target, w.Code, w.Body, tc.code)
		}
	}
	a, _ := serveTyped(t, r, "GET", "/typed/orgs/waltz/items/42?limit=10&active=true&sort=desc", "", "")
	h, _ := serveTyped(t, r, "GET", "/hand/orgs/waltz/items/42?limit=10&active=true&sort=desc", "", "")
	if a.Body.String() != h.Body.String() {
		t.Errorf("typed answers %s, by hand %s: want the same", a.Body, h.Body)
	}
}

// BenchmarkNegotiate: the typed GET of BenchmarkTyped, as it is
// (impl=plain) and declaring JSON and XML (impl=negotiated), asked with
// an Accept field that names both, so that the JSON answer is picked by
// weight. Each request gets a fresh header map, as net/http gives one:
//
//	go test -run '^$' -bench 'Negotiate' -benchmem -count 6 > neg.txt
//	benchstat -col /impl neg.txt
func BenchmarkNegotiate(b *testing.B) {
	r := waltz.New()
	Op(r, http.MethodGet, "/plain/orgs/:org/items/:id", typedGet, Operation{})
	Op(r, http.MethodGet, "/negotiated/orgs/:org/items/:id", typedGet, Operation{Produces: []string{"application/json", "application/xml"}})
	for _, impl := range []string{"plain", "negotiated"} {
		b.Run("impl="+impl, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/"+impl+"/orgs/waltz/items/42?limit=10&active=true&sort=desc", nil)
			req.Header.Set("Accept", "application/xml;q=0.9, application/json")
			w := newNopWriter()
			b.ReportAllocs()
			for b.Loop() {
				clear(w.H)
				r.ServeHTTP(w, req)
			}
		})
	}
}
