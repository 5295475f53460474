package api

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/openapi"
)

// searchIn is the input of QUERY /search: a JSON or form body, the
// query, and a URI query parameter beside it.
type searchIn struct {
	Limit int `query:"limit" minimum:"1" maximum:"10" default:"10"`
	Body  struct {
		Text string   `json:"text" maxLength:"20"`
		Tags []string `json:"tags,omitempty" maxItems:"3"`
	} `consumes:"json,form"`
}

// searchOut is its answer: the names found, the data's validators, and
// where the query and its results can be had with GET (RFC 10008
// sections 2.3 and 2.4).
type searchOut struct {
	ETag            string    `header:"ETag"`
	Modified        time.Time `header:"Last-Modified"`
	Location        string    `header:"Location"`
	ContentLocation string    `header:"Content-Location"`
	Body            []string
}

// searchRouter serves QUERY /search over a few names, GET /search beside
// it, and counts the runs of the QUERY's handler in *ran.
func searchRouter(ran *int) *waltz.Router {
	r := waltz.New()
	names := []string{"ada", "alan", "barbara", "grace", "ken"}
	Op(r, waltz.MethodQuery, "/search", func(c *waltz.Context, in *searchIn) (*searchOut, error) {
		*ran++
		if in.Body.Text == "no-such-table" {
			// Section 2.1: understood, consistent, and yet not a query
			// this resource can run.
			return nil, &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "no such table"}
		}
		var found []string
		for _, n := range names {
			if strings.HasPrefix(n, in.Body.Text) && len(found) < in.Limit {
				found = append(found, n)
			}
		}
		return &searchOut{ETag: `"v3"`, Modified: docModified, Location: "/search/stored/1",
			ContentLocation: "/search/results/1", Body: found}, nil
	}, Operation{ID: "search", Produces: []string{"application/json"}, Errors: []int{http.StatusUnprocessableEntity}})
	Op(r, http.MethodGet, "/search", func(c *waltz.Context, in *struct{}) (*struct{ Body string }, error) {
		return &struct{ Body string }{"a form"}, nil
	}, Operation{ID: "searchForm"})
	return r
}

// query sends a QUERY (or another method) to r and returns the answer.
func query(r http.Handler, method, target, ctype, body string, h ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Add(h[i], h[i+1])
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

// TestQuerySection2 has a row for each rule of RFC 10008 section 2 (the
// QUERY method) and section 3 (Accept-Query) a typed operation keeps:
// what it answers, and whether its handler ran. The rules of a client
// (retries, redirects) are the client package's (TestQueryRetried,
// TestQueryRedirects); the router's, for plain routes, TestQueryRouting.
func TestQuerySection2(t *testing.T) {
	var ran int
	r := searchRouter(&ran)
	const js = "application/json"
	first := query(r, waltz.MethodQuery, "/search", js, `{"text":"a"}`)
	tag := first.Header().Get("ETag")
	if first.Code != 200 || !strings.HasPrefix(tag, `"v3.`) {
		t.Fatalf("the first QUERY: got %d, ETag %q: %s", first.Code, tag, first.Body)
	}
	lm := docModified.Format(http.TimeFormat)
	for _, tc := range []struct {
		rule                  string
		method, target, ctype string
		body                  string
		header                []string
		code                  int
		want                  string // the body; "" for none to check
		ran                   bool
		etag                  string // the ETag, "" for none to check; "-" for another than tag
	}{
		// Section 2: the content and its media type define the query.
		{rule: "2: the content is the query", method: "QUERY", target: "/search", ctype: js, body: `{"text":"a"}`,
			code: 200, want: `["ada","alan"]` + "\n", ran: true, etag: tag},
		{rule: "2: the URI's query part takes part", method: "QUERY", target: "/search?limit=1", ctype: js, body: `{"text":"a"}`,
			code: 200, want: `["ada"]` + "\n", ran: true},
		{rule: "2: any media type of the resource's: a form", method: "QUERY", target: "/search",
			ctype: "application/x-www-form-urlencoded", body: "text=g", code: 200, want: `["grace"]` + "\n", ran: true},
		{rule: "2: a Content-Type missing is a failure (MUST): 400", method: "QUERY", target: "/search", body: `{"text":"a"}`,
			code: 400},
		{rule: "2.1: no media type and no content: 400", method: "QUERY", target: "/search", code: 400},
		{rule: "2.1: a media type the resource does not take: 415", method: "QUERY", target: "/search", ctype: "text/csv", body: "a",
			code: 415},
		{rule: "2.1: a type known, with no QUERY semantics here: 415", method: "QUERY", target: "/search", ctype: "application/xml",
			body: "<q>a</q>", code: 415},
		{rule: "2.1: no sniffing: JSON sent as text/plain is 415", method: "QUERY", target: "/search", ctype: "text/plain",
			body: `{"text":"a"}`, code: 415},
		{rule: "2.1: content inconsistent with its type: 400", method: "QUERY", target: "/search", ctype: js, body: `{"text":`,
			code: 400},
		{rule: "2.1: content against the query's rules: 422", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"aaaaaaaaaaaaaaaaaaaaaaaaaa"}`, code: 422},
		{rule: "2.1: a query the resource cannot process: 422", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"no-such-table"}`, code: 422, ran: true},
		{rule: "2.1: a response type not supported: 406", method: "QUERY", target: "/search", ctype: js, body: `{"text":"a"}`,
			header: []string{"Accept", "text/csv"}, code: 406},
		// Sections 2.2 to 2.4: what identifies the equivalent resource
		// and the results goes in the 2xx answer's fields, as the
		// handler gives them.
		{rule: "2.3, 2.4: Location and Content-Location on a 200", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"k"}`, code: 200, want: `["ken"]` + "\n", ran: true},
		// Section 2.5: the router's redirect keeps the method and content.
		{rule: "2.5: a redirect is 308, never 301", method: "QUERY", target: "/search/", ctype: js, body: `{"text":"a"}`, code: 308},
		// Section 2.6: the selected representation is the results';
		// their validators cover the content.
		{rule: "2.6: If-None-Match with the tag of the same content: 304", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"a"}`, header: []string{"If-None-Match", tag}, code: 304, want: "", ran: true, etag: tag},
		{rule: "2.6: the same query written otherwise: 304", method: "QUERY", target: "/search", ctype: js,
			body: "{ \"tags\": [], \"text\" : \"a\" }", header: []string{"If-None-Match", tag}, code: 304, ran: true, etag: tag},
		{rule: "2.6: the same query as a form: 304", method: "QUERY", target: "/search", ctype: "application/x-www-form-urlencoded",
			body: "text=a", header: []string{"If-None-Match", tag}, code: 304, ran: true, etag: tag},
		{rule: "2.6: that tag with another content: 200", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"b"}`, header: []string{"If-None-Match", tag}, code: 200, want: `["barbara"]` + "\n", ran: true, etag: "-"},
		{rule: "2.6: the data's own tag does not match: 200", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"a"}`, header: []string{"If-None-Match", `"v3"`}, code: 200, ran: true, etag: tag},
		{rule: "2.6: If-Modified-Since, unchanged: 304", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"a"}`, header: []string{"If-Modified-Since", lm}, code: 304, ran: true},
		{rule: "2.6: If-Match false: 412", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"a"}`, header: []string{"If-Match", `"v2"`}, code: 412, ran: true},
		// Section 2.8: Range is a GET's: a JSON answer ignores it.
		{rule: "2.8: Range as on a GET: the whole answer", method: "QUERY", target: "/search", ctype: js,
			body: `{"text":"a"}`, header: []string{"Range", "bytes=0-1"}, code: 200, want: `["ada","alan"]` + "\n", ran: true},
		// Section 3 and appendix A.2: discovering QUERY.
		{rule: "A.2: OPTIONS lists QUERY", method: "OPTIONS", target: "/search", code: 204},
		{rule: "A.2: a 405 lists QUERY", method: "PUT", target: "/search", ctype: js, body: "{}", code: 405},
		{rule: "A.3: GET beside QUERY is its own, with Accept-Query", method: "GET", target: "/search", code: 200, want: `"a form"` + "\n"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			before := ran
			w := query(r, tc.method, tc.target, tc.ctype, tc.body, tc.header...)
			if w.Code != tc.code {
				t.Errorf("status: got %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			if tc.want != "" || tc.code == 304 {
				if w.Body.String() != tc.want {
					t.Errorf("body: got %q, want %q", w.Body, tc.want)
				}
			}
			if got := ran > before; got != tc.ran {
				t.Errorf("the handler ran: got %v, want %v", got, tc.ran)
			}
			got := w.Header().Get("ETag")
			switch {
			case tc.etag == "-" && (got == tag || got == ""):
				t.Errorf("ETag: got %q, want another tag than %q", got, tag)
			case tc.etag != "" && tc.etag != "-" && got != tc.etag:
				t.Errorf("ETag: got %q, want %q", got, tc.etag)
			}
			h := w.Header()
			switch {
			case tc.code == 308:
				if loc := h.Get("Location"); loc != "/search" {
					t.Errorf("Location: got %q, want /search", loc)
				}
			case tc.method == waltz.MethodQuery && tc.code < 400:
				// A QUERY's success (a 304 included): the client sent a
				// type the route takes, and the field would tell it
				// nothing.
				if aq := h.Get("Accept-Query"); aq != "" {
					t.Errorf("Accept-Query on a QUERY's %d: got %q, want none", tc.code, aq)
				}
			default:
				// Section 3 and appendices A.2, A.3: a refusal of the
				// route, the GET beside it, its OPTIONS and its 405 say
				// what a QUERY here takes.
				if aq := h.Get("Accept-Query"); aq != "application/json, application/x-www-form-urlencoded" {
					t.Errorf("Accept-Query on a %d: got %q", tc.code, aq)
				}
			}
			if tc.code == 204 || tc.code == 405 {
				if allow := h.Get("Allow"); !strings.Contains(allow, "QUERY") {
					t.Errorf("Allow: got %q, want QUERY in it", allow)
				}
			}
			if tc.code == 200 && tc.rule[:3] == "2.3" {
				if h.Get("Location") != "/search/stored/1" || h.Get("Content-Location") != "/search/results/1" {
					t.Errorf("Location %q, Content-Location %q", h.Get("Location"), h.Get("Content-Location"))
				}
			}
			if tc.code == 304 && (h.Get("Location") != "/search/stored/1" || h.Get("Last-Modified") != lm) {
				// RFC 9110 section 15.4.5: the fields the 200 would carry.
				t.Errorf("a 304's fields: %v", h)
			}
		})
	}
}

// TestQueryTags checks that a QUERY answer's ETag is the same for the
// same query, whatever its spelling, and another for another query.
func TestQueryTags(t *testing.T) {
	var ran int
	r := searchRouter(&ran)
	tagOf := func(ctype, body string) string {
		return query(r, waltz.MethodQuery, "/search", ctype, body).Header().Get("ETag")
	}
	a := tagOf("application/json", `{"text":"a","tags":["x"]}`)
	for _, same := range []struct{ ctype, body string }{
		{"application/json", `{"tags":["x"],"text":"a"}`},
		{"application/json; charset=utf-8", " {\"text\" : \"a\", \"tags\" : [\"x\"]}\n"},
		{"application/x-www-form-urlencoded", "tags=x&text=a"},
	} {
		if got := tagOf(same.ctype, same.body); got != a {
			t.Errorf("%s %s: got %q, want %q", same.ctype, same.body, got, a)
		}
	}
	for _, other := range []string{`{"text":"a"}`, `{"text":"a","tags":["y"]}`, `{"text":"b","tags":["x"]}`} {
		if got := tagOf("application/json", other); got == a || !strings.HasPrefix(got, `"v3.`) {
			t.Errorf("%s: got %q, want a tag of its own", other, got)
		}
	}
	for _, tc := range []struct{ tag, digest, want string }{
		{`"v3"`, "ab", `"v3.ab"`},
		{`W/"v3"`, "ab", `W/"v3.ab"`},
		{`""`, "ab", `".ab"`},
		{`"v3"`, "", `"v3"`},
		{`v3`, "ab", `v3`},
		{`W/v3"`, "ab", `W/v3"`},
		{``, "ab", ``},
	} {
		if got := contentTag(tc.tag, tc.digest); got != tc.want {
			t.Errorf("contentTag(%q, %q): got %q, want %q", tc.tag, tc.digest, got, tc.want)
		}
	}
}

// TestQueryRegistration checks what Op refuses of a QUERY.
func TestQueryRegistration(t *testing.T) {
	for _, tc := range []struct {
		name string
		reg  func(r *waltz.Router)
		want string
	}{
		{"no Body", func(r *waltz.Router) {
			Op(r, waltz.MethodQuery, "/q", func(c *waltz.Context, in *struct {
				Q string `query:"q"`
			}) (*struct{}, error) {
				return nil, nil
			}, Operation{})
		}, "a QUERY takes its query as content"},
		{"Current", func(r *waltz.Router) {
			Op(r, waltz.MethodQuery, "/q", func(c *waltz.Context, in *searchIn) (*searchOut, error) { return nil, nil },
				Operation{Current: func(c *waltz.Context, in *searchIn) (Validators, error) { return Validators{}, nil }})
		}, "Operation.Current is for writes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := panicMessage(func() { tc.reg(waltz.New()) })
			if !strings.Contains(msg, tc.want) {
				t.Errorf("panic: got %q, want one with %q", msg, tc.want)
			}
		})
	}
	// A typed QUERY route names its types itself: Accepts refuses it.
	r := waltz.New()
	rg := Op(r, waltz.MethodQuery, "/q", func(c *waltz.Context, in *searchIn) (*searchOut, error) { return nil, nil }, Operation{})
	if msg := panicMessage(func() { rg.Accepts("text/csv") }); !strings.Contains(msg, "consumes tag") {
		t.Errorf("Accepts on a typed route: got %q", msg)
	}
}

// TestPlainQueryDocument: the 3.2 document of a plain QUERY route says
// what the router holds it to, as a typed QUERY's does: its content,
// required, in the media types Accepts named (any, when it named none),
// with no schema the router knows; the 400 of a QUERY without a
// Content-Type (RFC 10008 section 2.1), the 415 of another type, each
// carrying Accept-Query (section 3), as the router answers them. The 3.1
// document still leaves the QUERY out.
func TestPlainQueryDocument(t *testing.T) {
	ok := func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }
	r := waltz.New()
	r.Query("/find", ok).Accepts("application/json", "text/*")
	r.Query("/any", ok)
	for _, tc := range []struct {
		target, ctype string
		code          int
	}{
		{"/find", "", 400}, {"/find", "application/xml", 415}, {"/find", "text/csv", 204},
		{"/any", "", 400}, {"/any", "application/xml", 204},
	} {
		if w := query(r, waltz.MethodQuery, tc.target, tc.ctype, "a"); w.Code != tc.code {
			t.Errorf("QUERY %s of %q: got %d, want %d", tc.target, tc.ctype, w.Code, tc.code)
		}
	}
	doc := Describe(r, Info{OpenAPI: "3.2"})
	for _, tc := range []struct {
		path  string
		types []string
		codes []string
	}{
		{"/find", []string{"application/json", "text/*"}, []string{"400", "415", "default"}},
		{"/any", []string{"*/*"}, []string{"400", "default"}},
	} {
		op := doc.Paths[tc.path].Query
		if op == nil {
			t.Fatalf("%s: no QUERY operation", tc.path)
		}
		rb := op.RequestBody
		if rb == nil || !rb.Required {
			t.Fatalf("%s: got requestBody %+v, want a required one", tc.path, rb)
		}
		if got := slices.Sorted(maps.Keys(rb.Content)); !slices.Equal(got, tc.types) {
			t.Errorf("%s: content %q, want %q", tc.path, got, tc.types)
		}
		for mt, m := range rb.Content {
			if m.Schema == nil || !reflect.DeepEqual(*m.Schema, openapi.Schema{}) {
				t.Errorf("%s: %s's schema %+v, want {}", tc.path, mt, m.Schema)
			}
		}
		if got := slices.Sorted(maps.Keys(op.Responses)); !slices.Equal(got, tc.codes) {
			t.Errorf("%s: responses %q, want %q", tc.path, got, tc.codes)
		}
		if tc.path == "/find" {
			for _, code := range tc.codes {
				if op.Responses[code].Headers["Accept-Query"] == nil {
					t.Errorf("%s: its %s does not list Accept-Query", tc.path, code)
				}
			}
		}
	}
	if item := Describe(r, Info{}).Paths["/find"]; item == nil || item.Description != queryNote {
		t.Errorf("3.1: got %+v, want the path item with its note alone", item)
	}
}
