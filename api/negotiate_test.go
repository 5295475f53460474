package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/waltz-go/waltz"
)

type negItem struct {
	ID   int64  `json:"id" xml:"id"`
	Name string `json:"name" xml:"name"`
}

func (it negItem) String() string { return "item " + it.Name }

type negOut struct{ Body negItem }

type negIn struct {
	ID int64 `path:"id"`
}

// negRouter serves GET /items/:id in JSON, XML and text, and notes the
// media type the handler saw.
func negRouter(t testing.TB, saw *string) *waltz.Router {
	var mu sync.Mutex
	r := waltz.New()
	Op(r, http.MethodGet, "/items/:id", func(c *waltz.Context, in *negIn) (*negOut, error) {
		mu.Lock()
		*saw = MediaType(c)
		mu.Unlock()
		return &negOut{negItem{ID: in.ID, Name: "ant"}}, nil
	}, Operation{ID: "getItem", Produces: []string{"application/json", "application/xml", "text/plain"}})
	return r
}

func TestNegotiate(t *testing.T) {
	const xmlBody = `<?xml version="1.0" encoding="UTF-8"?>` + "\n<negItem><id>7</id><name>ant</name></negItem>\n"
	for _, tc := range []struct {
		accept []string
		status int
		ctype  string
		body   string
	}{
		{nil, 200, "application/json", `{"id":7,"name":"ant"}` + "\n"},
		{[]string{"*/*"}, 200, "application/json", `{"id":7,"name":"ant"}` + "\n"},
		{[]string{"application/xml"}, 200, "application/xml; charset=utf-8", xmlBody},
		{[]string{"text/*;q=0.9, application/*;q=0.8"}, 200, "text/plain; charset=utf-8", "item ant"},
		{[]string{"application/json;q=0.1", "application/xml;q=0.2"}, 200, "application/xml; charset=utf-8", xmlBody},
		{[]string{"TEXT/PLAIN"}, 200, "text/plain; charset=utf-8", "item ant"},
		// Hostile: weights out of range are skipped, not read as 0 or 1.
		{[]string{"application/json;q=2, application/xml;q=0.5"}, 200, "application/xml; charset=utf-8", xmlBody},
		{[]string{"application/xml;q=-1"}, 200, "application/json", `{"id":7,"name":"ant"}` + "\n"},
		{[]string{"application/xml;q=1.0001, text/plain;q=0.3"}, 200, "text/plain; charset=utf-8", "item ant"},
		// An 8 KiB field: read to its end.
		{[]string{strings.Repeat("image/png;q=0.5, ", 8<<10/17) + "text/plain"}, 200, "text/plain; charset=utf-8", "item ant"},
		{[]string{strings.Repeat(",", 8<<10) + "application/xml"}, 200, "application/xml; charset=utf-8", xmlBody},
		// The 406 is problem details, as the document declares, unless
		// the client prefers text: one that accepts neither gets them.
		{[]string{"image/png"}, 406, "application/problem+json", ""},
		{[]string{"image/png, application/problem+json;q=0.1"}, 406, "application/problem+json", ""},
		{[]string{"application/*;q=0, text/plain;q=0"}, 406, "application/problem+json", ""},
		{[]string{"image/png, text/html;q=0.1"}, 406, "text/plain; charset=utf-8", ""},
		{[]string{strings.Repeat("image/png, ", 8<<10/11)}, 406, "application/problem+json", ""},
	} {
		var saw string
		r := negRouter(t, &saw)
		req := httptest.NewRequest(http.MethodGet, "/items/7", nil)
		req.Header["Accept"] = tc.accept
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		name := strings.Join(tc.accept, " | ")
		if len(name) > 60 {
			name = name[:60] + "..."
		}
		if w.Code != tc.status {
			t.Errorf("Accept %q: status got %d, want %d; body %s", name, w.Code, tc.status, w.Body)
			continue
		}
		if got := w.Header().Values("Vary"); len(got) != 1 || got[0] != "Accept" {
			t.Errorf("Accept %q: Vary got %q, want [Accept]", name, got)
		}
		if got := w.Header().Get("Content-Type"); !strings.HasPrefix(got, tc.ctype) {
			t.Errorf("Accept %q: Content-Type got %q, want %q", name, got, tc.ctype)
		}
		if tc.status == 406 {
			if saw != "" {
				t.Errorf("Accept %q: the handler ran on a 406", name)
			}
			for _, typ := range []string{"application/json", "application/xml", "text/plain"} {
				if !strings.Contains(w.Body.String(), typ) {
					t.Errorf("Accept %q: the 406 does not list %s: %s", name, typ, w.Body)
				}
			}
			continue
		}
		if got := w.Body.String(); got != tc.body {
			t.Errorf("Accept %q: body got %q, want %q", name, got, tc.body)
		}
		if want, _, _ := strings.Cut(tc.ctype, ";"); saw != want {
			t.Errorf("Accept %q: MediaType got %q, want %q", name, saw, want)
		}
	}
}

// TestNegotiateUndeclared: an operation that declares no Produces answers
// JSON whatever Accept says, with no Vary, as before negotiation existed.
func TestNegotiateUndeclared(t *testing.T) {
	r := waltz.New()
	Op(r, http.MethodGet, "/items/:id", func(c *waltz.Context, in *negIn) (*negOut, error) {
		if MediaType(c) != "" {
			t.Errorf("MediaType got %q, want \"\"", MediaType(c))
		}
		return &negOut{negItem{ID: in.ID}}, nil
	}, Operation{})
	w := serveWith(t, r, http.MethodGet, "/items/3", "Accept", "image/png")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || w.Header()["Vary"] != nil {
		t.Errorf("got %d %q Vary %q, want 200 application/json and no Vary", w.Code, w.Header().Get("Content-Type"), w.Header()["Vary"])
	}
}

type cborish struct{}

func TestNegotiateEncoders(t *testing.T) {
	r := waltz.New()
	UseEncoder(r, "application/x-tag", func(v any) ([]byte, error) { return []byte("router:" + v.(*negItem).Name), nil })
	UseEncoder(r, "application/x-broken", func(v any) ([]byte, error) { return nil, errors.New("secret detail") })
	h := func(c *waltz.Context, in *negIn) (*negOut, error) {
		return &negOut{negItem{ID: in.ID, Name: "bee"}}, nil
	}
	Op(r, http.MethodGet, "/router/:id", h, Operation{Produces: []string{"application/x-tag", "application/x-broken"}})
	Op(r, http.MethodGet, "/own/:id", h, Operation{Produces: []string{"application/x-tag", "application/vnd.acme+json"},
		Encoders: map[string]Encoder{"Application/X-Tag": func(v any) ([]byte, error) { return []byte("own:" + v.(*negItem).Name), nil }}})
	for _, tc := range []struct {
		target, accept string
		status         int
		ctype, body    string
	}{
		{"/router/1", "", 200, "application/x-tag", "router:bee"},
		{"/own/1", "", 200, "application/x-tag", "own:bee"},
		{"/own/1", "application/vnd.acme+json", 200, "application/vnd.acme+json", `{"id":1,"name":"bee"}` + "\n"},
		{"/router/1", "application/x-broken", 500, "", ""},
	} {
		silenceLogs(t)
		w := serveWith(t, r, http.MethodGet, tc.target, "Accept", tc.accept)
		if w.Code != tc.status {
			t.Errorf("%s Accept %q: status got %d, want %d", tc.target, tc.accept, w.Code, tc.status)
			continue
		}
		if strings.Contains(w.Body.String(), "secret") {
			t.Errorf("%s: the encoder's error leaked: %s", tc.target, w.Body)
		}
		if tc.status != 200 {
			continue
		}
		if got := w.Header().Get("Content-Type"); got != tc.ctype {
			t.Errorf("%s Accept %q: Content-Type got %q, want %q", tc.target, tc.accept, got, tc.ctype)
		}
		if got := w.Body.String(); got != tc.body {
			t.Errorf("%s Accept %q: body got %q, want %q", tc.target, tc.accept, got, tc.body)
		}
	}
}

type negMapOut struct{ Body map[string]int }

type negStructOut struct{ Body struct{ A int } }

type negSliceOut struct{ Body []negItem }

type negPtrSliceOut struct{ Body *[2]negItem }

type negPtrOut struct{ Body *negItem }

func TestNegotiateRegisterPanics(t *testing.T) {
	get := func(c *waltz.Context, in *negIn) (*negOut, error) { return nil, nil }
	for _, tc := range []struct {
		name     string
		register func(r *waltz.Router)
		want     string
	}{
		{"unknown type", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", get, Operation{Produces: []string{"application/cbor"}})
		}, `no encoder for "application/cbor"`},
		{"a range", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", get, Operation{Produces: []string{"text/*"}})
		}, "media range"},
		{"no media type", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", get, Operation{Produces: []string{"json"}})
		}, `"json" is no media type`},
		{"twice", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", get, Operation{Produces: []string{"application/json", "Application/JSON"}})
		}, "twice"},
		{"no body", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", func(c *waltz.Context, in *negIn) (*struct{}, error) { return nil, nil },
				Operation{Produces: []string{"application/json"}})
		}, "no Body field"},
		{"text of a struct", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", func(c *waltz.Context, in *negIn) (*negStructOut, error) { return nil, nil },
				Operation{Produces: []string{"text/plain"}})
		}, "text/plain needs a Body"},
		{"xml of a map", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", func(c *waltz.Context, in *negIn) (*negMapOut, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "encoding/xml cannot write"},
		// XML 1.0 section 2.1: a document has exactly one root element,
		// and encoding/xml writes a slice as one element per item.
		{"xml of a slice", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", func(c *waltz.Context, in *negIn) (*negSliceOut, error) { return nil, nil },
				Operation{Produces: []string{"application/json", "application/xml"}})
		}, "one root element"},
		{"xml of a pointer to an array", func(r *waltz.Router) {
			Op(r, "GET", "/a/:id", func(c *waltz.Context, in *negIn) (*negPtrSliceOut, error) { return nil, nil },
				Operation{Produces: []string{"text/xml"}})
		}, "one root element"},
		{"nil router encoder", func(r *waltz.Router) { UseEncoder(r, "application/cbor", nil) }, "nil Encoder"},
		{"router encoder of a range", func(r *waltz.Router) { UseEncoder(r, "*/*", xmlMarshalForTest) }, "media range"},
	} {
		msg := panicMessage(func() { tc.register(waltz.New()) })
		if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: panic got %q, want one starting \"waltz: \" with %q", tc.name, msg, tc.want)
		}
	}
}

// TestNegotiateXMLNilBody: a nil pointer Body has no XML document (no
// root element): the answer is a 500, logged, never a 200 whose content
// no XML parser takes.
func TestNegotiateXMLNilBody(t *testing.T) {
	logs := silenceLogs(t)
	r := waltz.New()
	Op(r, http.MethodGet, "/a/:id", func(c *waltz.Context, in *negIn) (*negPtrOut, error) {
		if in.ID == 1 {
			return &negPtrOut{&negItem{ID: 1}}, nil
		}
		return &negPtrOut{}, nil
	}, Operation{Produces: []string{"application/xml"}})
	if w := serve(t, r, "GET", "/a/1"); w.Code != 200 || !strings.Contains(w.Body.String(), "<negItem><id>1</id>") {
		t.Errorf("a Body: got %d %q, want 200 with <negItem>", w.Code, w.Body)
	}
	if w := serve(t, r, "GET", "/a/2"); w.Code != 500 {
		t.Errorf("a nil Body: got %d %q, want 500", w.Code, w.Body)
	}
	if !strings.Contains(logs.String(), "no root element") {
		t.Errorf("not logged as an XML answer with no element: %q", logs.String())
	}
}

func xmlMarshalForTest(v any) ([]byte, error) { return nil, nil }

// TestNegotiateDocument: the success answer's content lists exactly the
// declared types, and 406 is among the answers.
func TestNegotiateDocument(t *testing.T) {
	var saw string
	r := negRouter(t, &saw)
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]struct {
					Schema map[string]any `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.Paths["/items/{id}"]["get"]
	ok := op.Responses["200"].Content
	if len(ok) != 3 {
		t.Errorf("200 content: got %d types, want 3", len(ok))
	}
	for _, typ := range []string{"application/json", "application/xml"} {
		if got := ok[typ].Schema["$ref"]; got != "#/components/schemas/negItem" {
			t.Errorf("200 %s schema: got %v, want the negItem ref", typ, ok[typ].Schema)
		}
	}
	if got := ok["text/plain"].Schema["type"]; got != "string" {
		t.Errorf("200 text/plain schema: got %v, want a string", ok["text/plain"].Schema)
	}
	if _, ok := op.Responses["406"]; !ok {
		t.Errorf("responses: no 406 among %v", op.Responses)
	}
}

type negVerbs struct{}

func (negVerbs) Paths() []string { return []string{"/things/:id"} }

func (negVerbs) Verbs() []TypedVerb {
	return []TypedVerb{Verb(http.MethodGet, func(c *waltz.Context, in *negIn) (*negOut, error) {
		return &negOut{negItem{ID: in.ID, Name: "cat"}}, nil
	}, Operation{Produces: []string{"application/json", "application/xml"}})}
}

// TestNegotiateResource: a resource's typed verb negotiates as Op does.
func TestNegotiateResource(t *testing.T) {
	r := waltz.New()
	r.Resource(negVerbs{})
	w := serveWith(t, r, http.MethodGet, "/things/2", "Accept", "application/xml")
	if w.Code != 200 || !strings.Contains(w.Body.String(), "<name>cat</name>") || w.Header().Get("Vary") != "Accept" {
		t.Errorf("got %d %q Vary %q, want 200 XML with Vary: Accept", w.Code, w.Body, w.Header().Get("Vary"))
	}
	if w := serveWith(t, r, http.MethodGet, "/things/2", "Accept", "text/plain"); w.Code != 406 {
		t.Errorf("text/plain: got %d, want 406", w.Code)
	}
}

// TestNegotiateAllocs: negotiating a JSON answer costs no allocation
// beyond the same operation's without Produces.
func TestNegotiateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	out := &negOut{negItem{ID: 1, Name: "ant"}}
	h := func(c *waltz.Context, in *negIn) (*negOut, error) { return out, nil }
	r := waltz.New()
	Op(r, http.MethodGet, "/plain/:id", h, Operation{})
	Op(r, http.MethodGet, "/neg/:id", h, Operation{Produces: []string{"application/json", "application/xml"}})
	count := func(target string) float64 {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Accept", "application/xml;q=0.5, application/json")
		w := newNopWriter()
		return testing.AllocsPerRun(200, func() {
			clear(w.H)
			r.ServeHTTP(w, req)
		})
	}
	plain, neg := count("/plain/1"), count("/neg/1")
	if neg != plain {
		t.Errorf("negotiated JSON: got %v allocs, want %v as without negotiation", neg, plain)
	}
}

// TestNegotiateMemo: one operation asked in turn with fields that pick
// different types (the last field is kept to save parsing it again)
// answers each as its own field says, from many goroutines at once.
func TestNegotiateMemo(t *testing.T) {
	var saw string
	r := negRouter(t, &saw)
	cases := []struct{ accept, ctype string }{
		{"application/xml", "application/xml; charset=utf-8"},
		{"text/plain", "text/plain; charset=utf-8"},
		{"application/xml", "application/xml; charset=utf-8"},
		{"", "application/json"},
		{"*/*", "application/json"},
		{"image/png", "application/problem+json"}, // the 406, problem details
		{"application/xml", "application/xml; charset=utf-8"},
	}
	done := make(chan string, 8*len(cases))
	for g := range 8 {
		go func() {
			for k := range cases {
				tc := cases[(k+g)%len(cases)]
				req := httptest.NewRequest(http.MethodGet, "/items/1", nil)
				if tc.accept != "" {
					req.Header.Set("Accept", tc.accept)
				}
				w := httptest.NewRecorder()
				r.ServeHTTP(w, req)
				if got := w.Header().Get("Content-Type"); got != tc.ctype {
					done <- "Accept " + tc.accept + ": Content-Type got " + got + ", want " + tc.ctype
					continue
				}
				done <- ""
			}
		}()
	}
	for range 8 * len(cases) {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}
