package api

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/openapi"
)

// TestDeclarationOf holds what a middleware declares to what Responds and
// Authenticates were given, told apart by the value each returns, never
// by where the func is in memory.
func TestDeclarationOf(t *testing.T) {
	pass := func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }
	bearer := SecurityScheme{Name: "bearerAuth", Type: "http", Scheme: "bearer"}
	other := SecurityScheme{Name: "keyAuth", Type: "apiKey", In: "header", Param: "X-Key"}
	limited := Responds(pass, http.StatusTooManyRequests)
	for _, tc := range []struct {
		name   string
		mw     waltz.Middleware
		codes  []int
		scheme string
	}{
		{"plain", pass, nil, ""},
		{"panics on nil next", func(next waltz.HandlerFunc) waltz.HandlerFunc {
			if next == nil {
				panic("nil next")
			}
			return next
		}, nil, ""},
		{"responds", limited, []int{429}, ""},
		{"authenticates", Authenticates(pass, bearer), []int{401}, "bearerAuth"},
		{"both, merged", Responds(Authenticates(pass, bearer), 400, 401), []int{400, 401}, "bearerAuth"},
		{"same func, other scheme", Authenticates(pass, other), []int{401}, "keyAuth"},
		{"wrapping a declaring one", func(next waltz.HandlerFunc) waltz.HandlerFunc { return limited(next) }, []int{429}, ""},
	} {
		d := declarationOf(tc.mw)
		var codes []int
		scheme := ""
		if d != nil {
			codes = d.codes
			if d.scheme != nil {
				scheme = d.scheme.Name
			}
		}
		if !slices.Equal(codes, tc.codes) || scheme != tc.scheme {
			t.Errorf("%s: got %v %q, want %v %q", tc.name, codes, scheme, tc.codes, tc.scheme)
		}
	}
}

// TestDeclaringServes checks that a declaring middleware serves requests
// as the middleware it was given.
func TestDeclaringServes(t *testing.T) {
	mark := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			c.Writer.Header().Set("X-Mark", "1")
			return next(c)
		}
	}
	r := waltz.New()
	r.Use(Responds(Authenticates(mark, SecurityScheme{Name: "a", Type: "http", Scheme: "basic"}), 429))
	r.Get("/", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
	w := serve(t, r, http.MethodGet, "/")
	if w.Code != http.StatusNoContent || w.Header().Get("X-Mark") != "1" {
		t.Errorf("got %d X-Mark %q, want 204 and 1", w.Code, w.Header().Get("X-Mark"))
	}
}

// TestReads checks that a header field a middleware declares is a
// parameter of the operations inside it whose method it names, beside its
// statuses, and never twice nor over the In's own field of that name.
func TestReads(t *testing.T) {
	pass := func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }
	key := HeaderParam{Name: "idempotency-key", Required: true, MaxLength: 10, Pattern: `^"[a-z]*"$`, Methods: []string{http.MethodPost}}
	mw := Reads(Responds(pass, http.StatusConflict), key)
	r := waltz.New()
	g := r.With(mw, Reads(pass, HeaderParam{Name: "Idempotency-Key", Methods: []string{http.MethodPost}})) // the first declaration of a name wins
	type own struct {
		Key string `header:"Idempotency-Key" maxLength:"3"`
	}
	Op(g, http.MethodPost, "/a", func(*waltz.Context, *struct{}) (*struct{}, error) { return nil, nil }, Operation{})
	Op(g, http.MethodGet, "/a", func(*waltz.Context, *struct{}) (*struct{}, error) { return nil, nil }, Operation{})
	Op(g, http.MethodPost, "/own", func(*waltz.Context, *own) (*struct{}, error) { return nil, nil }, Operation{})
	g.Post("/plain", func(*waltz.Context) error { return nil })
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name     string `json:"name"`
				In       string `json:"in"`
				Required bool   `json:"required"`
				Schema   struct {
					MaxLength int    `json:"maxLength"`
					Pattern   string `json:"pattern"`
				} `json:"schema"`
			} `json:"parameters"`
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, method string
		n            int // parameters named Idempotency-Key
		maxLength    int
		required     bool
	}{
		{"/a", "post", 1, 10, true},
		{"/a", "get", 0, 0, false}, // not among Methods
		{"/own", "post", 1, 3, false},
		{"/plain", "post", 1, 10, true},
	} {
		op := doc.Paths[tc.path][tc.method]
		n := 0
		for _, p := range op.Parameters {
			if p.Name != "Idempotency-Key" || p.In != "header" {
				continue
			}
			n++
			if p.Schema.MaxLength != tc.maxLength || p.Required != tc.required {
				t.Errorf("%s %s: got maxLength %d required %v, want %d %v", tc.method, tc.path, p.Schema.MaxLength, p.Required, tc.maxLength, tc.required)
			}
			if tc.path != "/own" && p.Schema.Pattern != key.Pattern {
				t.Errorf("%s %s: got pattern %q, want %q", tc.method, tc.path, p.Schema.Pattern, key.Pattern)
			}
		}
		if n != tc.n {
			t.Errorf("%s %s: got %d Idempotency-Key parameters, want %d", tc.method, tc.path, n, tc.n)
		}
		if _, ok := op.Responses["409"]; !ok {
			t.Errorf("%s %s: no 409, which the middleware declares", tc.method, tc.path)
		}
	}
	for _, bad := range []HeaderParam{{Name: "a b"}, {Name: ""}, {Name: "X", MaxLength: -1}, {Name: "X", Methods: []string{"GE T"}}} {
		if msg := panicMessage(func() { Reads(pass, bad) }); !strings.HasPrefix(msg, "waltz: Reads: ") {
			t.Errorf("Reads(%+v): got panic %q, want a waltz: Reads: message", bad, msg)
		}
	}
}

// TestSets checks that a response header field a middleware declares is
// a header of the answers that are no error (the success, a 304, a plain
// route's default) of the operations inside it whose method it names,
// never over Out's own field of that name.
func TestSets(t *testing.T) {
	pass := func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }
	replayed := HeaderParam{Name: "idempotent-replayed", Description: "a replay", Pattern: "^true$", Methods: []string{http.MethodPost, http.MethodGet}}
	r := waltz.New()
	g := r.With(Sets(Responds(pass, http.StatusConflict), replayed), Sets(pass, HeaderParam{Name: "X-Trace", Required: true, MaxLength: 32}))
	type out struct {
		Trace string `header:"X-Trace" doc:"Out's own"`
		ETag  string `header:"ETag"`
		Body  struct{ A int }
	}
	Op(g, http.MethodPost, "/a", func(*waltz.Context, *struct{}) (*out, error) { return nil, nil }, Operation{Status: http.StatusCreated})
	Op(g, http.MethodGet, "/a", func(*waltz.Context, *struct{}) (*out, error) { return nil, nil }, Operation{})
	Op(g, http.MethodPut, "/a", func(*waltz.Context, *struct{}) (*struct{}, error) { return nil, nil }, Operation{})
	g.Post("/plain", func(*waltz.Context) error { return nil })
	type header struct {
		Description string `json:"description"`
		Required    bool   `json:"required"`
		Schema      struct {
			MaxLength int    `json:"maxLength"`
			Pattern   string `json:"pattern"`
		} `json:"schema"`
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]header `json:"headers"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, method string
		codes        []string
		replayed     bool
	}{
		{"/a", "post", []string{"201"}, true},
		{"/a", "get", []string{"200", "304"}, true},
		{"/a", "put", []string{"204"}, false}, // not among Methods
		{"/plain", "post", []string{"default"}, true},
		{"/a", "post", []string{"409"}, false}, // an error
		{"/plain", "post", []string{"409"}, false},
	} {
		rs := doc.Paths[tc.path][tc.method].Responses
		for _, code := range tc.codes {
			resp, ok := rs[code]
			if !ok {
				t.Errorf("%s %s: no %s", tc.method, tc.path, code)
				continue
			}
			h, ok := resp.Headers["Idempotent-Replayed"]
			if ok != tc.replayed || ok && (h.Description != "a replay" || h.Required || h.Schema.Pattern != "^true$") {
				t.Errorf("%s %s %s: Idempotent-Replayed got %+v (%v), want it: %v", tc.method, tc.path, code, h, ok, tc.replayed)
			}
			tr, declared := resp.Headers["X-Trace"]
			own := tc.path == "/a" && tc.method != "put" && (code == "200" || code == "201" || code == "304")
			switch {
			case code == "409" && declared:
				t.Errorf("%s %s %s: X-Trace declared on an error answer", tc.method, tc.path, code)
			case code == "409":
			case own && tr.Description != "Out's own" || !own && (!tr.Required || tr.Schema.MaxLength != 32):
				t.Errorf("%s %s %s: X-Trace got %+v, want Out's own: %v", tc.method, tc.path, code, tr, own)
			}
		}
	}
	for _, bad := range []HeaderParam{{Name: "a b"}, {Name: "X", MaxLength: -1}} {
		if msg := panicMessage(func() { Sets(pass, bad) }); !strings.HasPrefix(msg, "waltz: Sets: ") {
			t.Errorf("Sets(%+v): got panic %q, want a waltz: Sets: message", bad, msg)
		}
	}
}

// TestSecurityRequirement holds an operation's security requirement to
// the chain it is inside: every middleware runs, so the required
// schemes go together in one object, and each optional one adds an
// alternative, those and it, before those alone ({} when none is
// required); a scheme declared twice is required when either
// declaration is.
func TestSecurityRequirement(t *testing.T) {
	pass := func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }
	scheme := func(name string, optional bool) waltz.Middleware {
		return Authenticates(pass, SecurityScheme{Name: name, Type: "apiKey", In: "header", Param: "X-" + name, Optional: optional})
	}
	a, b := scheme("a", false), scheme("b", false)
	oa, oc, od := scheme("a", true), scheme("c", true), scheme("d", true)
	type req = openapi.SecurityRequirement
	for _, tc := range []struct {
		name string
		mws  []waltz.Middleware
		want []req
	}{
		{"none", nil, []req{}},
		{"no scheme", []waltz.Middleware{Responds(pass, 429)}, []req{}},
		{"one", []waltz.Middleware{a}, []req{{"a": {}}}},
		{"two, both needed", []waltz.Middleware{a, b}, []req{{"a": {}, "b": {}}}},
		{"optional", []waltz.Middleware{oc}, []req{{"c": {}}, {}}},
		{"required and optional", []waltz.Middleware{a, oc}, []req{{"a": {}, "c": {}}, {"a": {}}}},
		{"optional first", []waltz.Middleware{oc, a}, []req{{"a": {}, "c": {}}, {"a": {}}}},
		{"two optional", []waltz.Middleware{oc, od}, []req{{"c": {}}, {"d": {}}, {}}},
		{"required and two optional", []waltz.Middleware{oc, a, od}, []req{{"a": {}, "c": {}}, {"a": {}, "d": {}}, {"a": {}}}},
		{"optional, then required", []waltz.Middleware{oa, a}, []req{{"a": {}}}},
		{"required, then optional", []waltz.Middleware{a, oa}, []req{{"a": {}}}},
		{"repeated", []waltz.Middleware{a, a}, []req{{"a": {}}}},
	} {
		r := waltz.New()
		r.With(tc.mws...).Get("/", func(c *waltz.Context) error { return nil })
		Op(r.With(tc.mws...), http.MethodPost, "/", func(*waltz.Context, *struct{}) (*struct{}, error) { return nil, nil }, Operation{})
		doc := Describe(r, Info{})
		for method, op := range map[string]*openapi.Operation{"plain": doc.Paths["/"].Get, "typed": doc.Paths["/"].Post} {
			if !reflect.DeepEqual(op.Security, tc.want) {
				t.Errorf("%s, %s: got %v, want %v", tc.name, method, op.Security, tc.want)
			}
			_, has401 := op.Responses["401"]
			if want := len(tc.want) > 0; has401 != want && method == "typed" {
				t.Errorf("%s: 401 listed %v, want %v", tc.name, has401, want)
			}
		}
		for _, s := range []string{"a", "b", "c", "d"} {
			in := slices.ContainsFunc(tc.want, func(r req) bool { _, ok := r[s]; return ok })
			if got := doc.Components.SecuritySchemes[s] != nil; got != in {
				t.Errorf("%s: scheme %s in components %v, want %v", tc.name, s, got, in)
			}
		}
	}
}

// TestHide holds that the routes inside Hide, plain, typed, mounted, a
// QUERY or a whole group's, are left out of the document and served as
// any other; so are those inside a declaring middleware that wraps it.
func TestHide(t *testing.T) {
	r := waltz.New()
	ok := func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") }
	type query struct {
		Body struct {
			Q string `json:"q"`
		}
	}
	type out struct{ Body string }
	typedOK := func(c *waltz.Context, in *query) (*out, error) { return &out{"ok"}, nil }
	hidden := r.With(Hide)
	hidden.Get("/openapi.json", ok)
	Op(hidden, http.MethodPost, "/typed", typedOK, Operation{ID: "secret"})
	Op(hidden, waltz.MethodQuery, "/search", typedOK, Operation{})
	r.Get("/search", ok) // shown, without the hidden QUERY's Accept-Query
	hidden.Mount("/debug", http.NotFoundHandler())
	internal := r.Group("/internal", Responds(Hide, http.StatusTeapot))
	internal.Get("/health", ok)
	Op(r, http.MethodGet, "/shown", func(c *waltz.Context, in *struct{}) (*out, error) { return &out{"ok"}, nil }, Operation{})
	// An ID of a hidden operation, which the shown one's derived ID does
	// not avoid: nothing in the document tells of it.
	Op(hidden, http.MethodPut, "/typed", typedOK, Operation{ID: "get-shown"})

	want := []waltz.Route{{Method: "*", Pattern: "/debug/*"}, {Method: http.MethodGet, Pattern: "/internal/health"},
		{Method: http.MethodGet, Pattern: "/openapi.json"}, {Method: waltz.MethodQuery, Pattern: "/search"},
		{Method: http.MethodPost, Pattern: "/typed"}, {Method: http.MethodPut, Pattern: "/typed"}}
	if got := Hidden(r); !slices.Equal(got, want) {
		t.Errorf("Hidden: got %v, want %v", got, want)
	}
	if got := Hidden(waltz.New()); got != nil {
		t.Errorf("Hidden of a router with no route: got %v, want nil", got)
	}

	for _, v := range []string{"3.1", "3.2"} {
		doc := Describe(r, Info{OpenAPI: v})
		if got := slices.Sorted(maps.Keys(doc.Paths)); !slices.Equal(got, []string{"/search", "/shown"}) {
			t.Errorf("%s: got the paths %v, want /search and /shown", v, got)
		}
		if b, _ := json.Marshal(doc.Paths["/search"]); strings.Contains(string(b), "Accept-Query") || strings.Contains(string(b), "QUERY") {
			t.Errorf("%s: the hidden QUERY shows in /search: %s", v, b)
		}
		if b, _ := json.Marshal(doc); strings.Contains(string(b), "secret") || strings.Contains(string(b), "418") {
			t.Errorf("%s: the document names a hidden operation: %s", v, b)
		}
		if id := doc.Paths["/shown"].Get.OperationID; id != "get-shown" {
			t.Errorf("%s: the shown operation's ID is %q, want get-shown", v, id)
		}
	}
	for _, tc := range []struct{ method, target, body string }{
		{http.MethodGet, "/openapi.json", ""},
		{http.MethodPost, "/typed", `{"q":"x"}`},
		{waltz.MethodQuery, "/search", `{"q":"x"}`},
		{http.MethodGet, "/internal/health", ""},
	} {
		req := httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body))
		if tc.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Errorf("%s %s: got %d %s, want 200", tc.method, tc.target, w.Code, w.Body)
		}
	}
	if msg := panicMessage(func() {
		Op(r, http.MethodGet, "/other", func(c *waltz.Context, in *struct{}) (*out, error) { return nil, nil }, Operation{ID: "secret"})
	}); !strings.Contains(msg, "secret") {
		t.Errorf("a second operation took the hidden one's ID: panic %q", msg)
	}
}

// TestRespondsNotModified checks the one status below 400 that Responds
// takes, 304 (RFC 9110 section 15.4.5): listed with no content for a
// GET's or a QUERY's operation alone, and no error; any other code
// below 400 panics.
func TestRespondsNotModified(t *testing.T) {
	pass := func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }
	for _, code := range []int{200, 302, 399, 600} {
		if msg := panicMessage(func() { Responds(pass, code) }); !strings.HasPrefix(msg, "waltz: Responds: ") {
			t.Errorf("Responds(%d): got panic %q, want a waltz: Responds: message", code, msg)
		}
	}
	r := waltz.New()
	g := r.With(Responds(pass, http.StatusNotModified))
	type out struct {
		Body string `json:"body"`
	}
	Op(g, http.MethodGet, "/a", opFn[struct{}, out], Operation{})
	Op(g, http.MethodDelete, "/a", opFn[struct{}, noOut], Operation{})
	doc := Describe(r, Info{})
	get, del := doc.Paths["/a"].Get, doc.Paths["/a"].Delete
	if nm := get.Responses["304"]; nm == nil || nm.Content != nil {
		t.Errorf("GET: got 304 %+v, want one with no content", nm)
	}
	if _, ok := del.Responses["304"]; ok {
		t.Errorf("DELETE: a 304 is listed: %v", slices.Collect(maps.Keys(del.Responses)))
	}
}
