package api

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/openapi.golden.json from the code")

// The types of a document that shows every kind of schema.

type docAudit struct {
	Created time.Time  `json:"created" doc:"When it was made."`
	Updated *time.Time `json:"updated,omitempty"`
}

type docNode struct {
	Name     string     `json:"name" minLength:"1" example:"root"`
	Children []*docNode `json:"children,omitempty" maxItems:"10"`
}

type docBookmark struct {
	docAudit
	ID     int64             `json:"id" minimum:"1"`
	URL    string            `json:"url" format:"uri" doc:"The bookmarked page."`
	Tags   []string          `json:"tags" uniqueItems:"true" maxLength:"20"`
	Notes  *string           `json:"notes,omitempty"`
	Meta   map[string]int    `json:"meta,omitempty"`
	Tree   *docNode          `json:"tree,omitempty"`
	Rating float32           `json:"rating" exclusiveMinimum:"0" maximum:"5" multipleOf:"0.5"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Kind   string            `json:"kind" enum:"link,note" default:"link"`
	secret string            //nolint:unused // unexported: not in the document
	Skip   string            `json:"-"`
	Fields map[string]string `json:"fields"`
}

type docListIn struct {
	Tag    []string      `query:"tag" maxItems:"5" doc:"Only bookmarks with every one of these tags."`
	Limit  int           `query:"limit" minimum:"1" maximum:"100" default:"20" example:"10"`
	Since  time.Time     `query:"since"`
	Within time.Duration `query:"within"`
	Trace  string        `header:"X-Trace-Id" format:"uuid"`
	Theme  *string       `cookie:"theme" enum:"dark,light"`
}

type docListOut struct {
	Total int `header:"X-Total-Count" doc:"How many match."`
	Body  []docBookmark
}

type docGetIn struct {
	ID int64 `path:"id" minimum:"1"`
}

type docGetOut struct {
	ETag string `header:"ETag"`
	Body docBookmark
}

type docCreateIn struct {
	Body struct {
		URL  string   `json:"url" format:"uri" required:"true"`
		Tags []string `json:"tags,omitempty"`
	} `doc:"The bookmark to make." consumes:"json,form"`
}

type docPatchIn struct {
	ID   int64 `path:"id"`
	Body *docNode
}

// docSearch is the query of QUERY /api/bookmarks.
type docSearch struct {
	Text string   `json:"text,omitempty" maxLength:"100"`
	Tags []string `json:"tags,omitempty" maxItems:"5"`
}

type docSearchIn struct {
	Limit int       `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Body  docSearch `consumes:"json,form"`
}

type docSearchOut struct {
	ETag string `header:"ETag"`
	Body []docBookmark
}

// docChange is an event set: a bookmark made or removed.
type docChange struct {
	Created *docBookmark `event:"created"`
	Removed *docGetIn    `event:"removed" doc:"a bookmark was removed"`
}

type docChangesOut struct{ Body Events[docChange] }

type docExportOut struct{ Body Lines[docBookmark] }

// docShelf is a resource with typed verbs, in a group of its own.
type docShelf struct{}

func (*docShelf) Paths() []string { return []string{"/:id"} }

func (*docShelf) Verbs() []TypedVerb {
	return []TypedVerb{Verb(http.MethodGet, opFn[docGetIn, docGetOut], Operation{ID: "getShelf"})}
}

// docRouter registers every kind of route the document shows.
func docRouter() *waltz.Router {
	r := waltz.New()
	auth := Authenticates(func(next waltz.HandlerFunc) waltz.HandlerFunc { return next },
		SecurityScheme{Name: "bearerAuth", Type: "http", Scheme: "bearer", BearerFormat: "opaque"})
	limit := Responds(func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }, http.StatusTooManyRequests)
	r.Get("/health", func(c *waltz.Context) error { return nil })
	r.Handle("PURGE", "/cache", func(c *waltz.Context) error { return nil })
	r.Get("/files/*path", func(c *waltz.Context) error { return nil })
	r.Mount("/static", http.NotFoundHandler())
	api := r.Group("/api", limit)
	Op(api, http.MethodGet, "/bookmarks", opFn[docListIn, docListOut], Operation{
		ID: "listBookmarks", Summary: "List bookmarks", Tags: []string{"bookmarks"}, Description: "Newest first."})
	Op(api, http.MethodGet, "/bookmarks/:id", opFn[docGetIn, docGetOut], Operation{
		Summary: "Get a bookmark", Tags: []string{"bookmarks"}, Errors: []int{http.StatusNotFound}})
	w := api.With(auth)
	w.Get("/admin", func(c *waltz.Context) error { return nil })
	Op(w, http.MethodPost, "/bookmarks", opFn[docCreateIn, docGetOut], Operation{
		ID: "createBookmark", Status: http.StatusCreated, Tags: []string{"bookmarks"}})
	Op(w, http.MethodPatch, "/bookmarks/:id", opFn[docPatchIn, noOut], Operation{Deprecated: true})
	Op(w, http.MethodDelete, "/bookmarks/:id", opFn[docGetIn, noOut], Operation{ID: "deleteBookmark"})
	Op(api, waltz.MethodQuery, "/bookmarks", opFn[docSearchIn, docSearchOut], Operation{
		ID: "searchBookmarks", Summary: "Search bookmarks", Tags: []string{"bookmarks"}})
	Op(api, http.MethodGet, "/changes", opFn[struct{}, docChangesOut], Operation{ID: "listChanges"})
	Op(api, http.MethodGet, "/export", opFn[struct{}, docExportOut], Operation{ID: "exportBookmarks", Tags: []string{"export"}})
	api.Group("/shelves").Resource(&docShelf{})
	r.Get("/openapi.json", ServeOpenAPI(r, Info{Title: "Test", Version: "1.2.3"}))
	return r
}

// TestOpenAPIGolden holds the whole document byte for byte, so that a
// change to it is a reviewed change to testdata/openapi.golden.json
// (go test -run TestOpenAPIGolden -update rewrites it).
func TestOpenAPIGolden(t *testing.T) {
	got := OpenAPI(docRouter(), Info{Title: "Test", Version: "1.2.3", Servers: []string{"https://api.example"}})
	if *updateGolden {
		if err := os.WriteFile("testdata/openapi.golden.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/openapi.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the document differs from testdata/openapi.golden.json (rerun with -update after checking the change):\n%s", got)
	}
}

// TestOpenAPIDeterministic makes the document many times, from routers
// built afresh, and wants the same bytes each time.
func TestOpenAPIDeterministic(t *testing.T) {
	first := OpenAPI(docRouter(), Info{})
	for i := range 20 {
		if got := OpenAPI(docRouter(), Info{}); !bytes.Equal(got, first) {
			t.Fatalf("run %d: got a different document", i)
		}
	}
}

// TestDescribe checks the model against the bytes OpenAPI writes of it,
// that each call gives a model of its own, and that an operation of a
// method OpenAPI 3.1 has no field for leaves nothing in the document:
// no path item entry, no ID taken, no scheme, no schema.
func TestDescribe(t *testing.T) {
	r := docRouter()
	doc := Describe(r, Info{Title: "Test"})
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if got := OpenAPI(r, Info{Title: "Test"}); !bytes.Equal(append(b, '\n'), got) {
		t.Error("OpenAPI's bytes are not the model Describe returns, written")
	}
	if op := doc.Paths["/api/bookmarks"].Get; op == nil || op.OperationID != "listBookmarks" {
		t.Errorf("GET /api/bookmarks: got %+v, want listBookmarks", op)
	}
	doc.Paths["/api/bookmarks"].Get.OperationID = "changed"
	if again := Describe(r, Info{}); again.Paths["/api/bookmarks"].Get.OperationID != "listBookmarks" {
		t.Error("a change to one model shows in the next")
	}

	type purgeIn struct {
		Body docNode
	}
	type purgeOut struct{ Body docAudit }
	auth := Authenticates(func(next waltz.HandlerFunc) waltz.HandlerFunc { return next },
		SecurityScheme{Name: "purgeKey", Type: "apiKey", In: "header", Param: "X-Key"})
	p := waltz.New()
	Op(p.With(auth), "PURGE", "/cache/:id", opFn[purgeIn, purgeOut], Operation{ID: "purge"})
	Op(p, http.MethodGet, "/cache/:id", opFn[docGetIn, noOut], Operation{})
	d := Describe(p, Info{})
	item := d.Paths["/cache/{id}"]
	var ms []string
	for m := range item.Operations() {
		ms = append(ms, m)
	}
	if !slices.Equal(ms, []string{http.MethodGet}) {
		t.Errorf("/cache/{id}: got the operations %q, want GET alone", ms)
	}
	if len(d.Components.SecuritySchemes) != 0 || d.Components.Schemas["docNode"] != nil || d.Components.Schemas["docAudit"] != nil {
		t.Errorf("the PURGE operation left %v and %v in the components", d.Components.SecuritySchemes, d.Components.Schemas)
	}
}

// TestOpenAPIShape checks the parts of the document the rules call for,
// read back as JSON.
func TestOpenAPIShape(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(docRouter(), Info{}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string // slash-separated keys; ~1 is '/'
		want string // the value there, as JSON; "" for absent
	}{
		{"openapi", `"3.1.1"`},
		{"info/title", `"API"`},
		{"paths/~1health/get/parameters", ""},
		{"paths/~1health/head", ""},
		{"paths/~1health/options", ""},
		{"paths/~1cache", `{}`}, // PURGE has no field in OpenAPI 3.1
		{"paths/~1files~1{path}/get/parameters/0", `{"description":` + strconvQuote(catchAllDoc) + `,"in":"path","name":"path","required":true,"schema":{"type":"string"}}`},
		{"paths/~1static~1{path}/description", `"Every request under /static/ is handed to a mounted handler."`},
		{"paths/~1api~1bookmarks/get/operationId", `"listBookmarks"`},
		{"paths/~1api~1bookmarks~1{id}/get/operationId", `"get-api-bookmarks-id"`},
		{"paths/~1api~1bookmarks/get/parameters/0/schema", `{"items":{"type":"string"},"maxItems":5,"type":"array"}`},
		{"paths/~1api~1bookmarks/get/parameters/1", `{"example":10,"in":"query","name":"limit","schema":{"default":20,"format":"int64","maximum":100,"minimum":1,"type":"integer"}}`},
		{"paths/~1api~1bookmarks/get/parameters/4/name", `"X-Trace-Id"`},
		{"paths/~1api~1bookmarks/get/parameters/5/in", `"cookie"`},
		{"paths/~1api~1bookmarks/get/responses/200/headers/X-Total-Count", `{"description":"How many match.","schema":{"format":"int64","type":"integer"}}`},
		{"paths/~1api~1bookmarks/get/responses/200/content/application~1json/schema/items/$ref", `"#/components/schemas/docBookmark"`},
		{"paths/~1api~1bookmarks/get/responses/401", ""},
		{"paths/~1api~1bookmarks/post/responses/401/content/application~1problem+json/schema/$ref", `"#/components/schemas/Problem"`},
		{"paths/~1api~1bookmarks/post/responses/201/description", `"Created"`},
		{"paths/~1api~1bookmarks/post/responses/413/description", `"Content Too Large"`},
		{"paths/~1api~1bookmarks/post/responses/415/description", `"Unsupported Media Type"`},
		{"paths/~1api~1bookmarks/post/requestBody/required", `true`},
		{"paths/~1api~1bookmarks/post/requestBody/description", `"The bookmark to make."`},
		{"paths/~1api~1bookmarks/post/requestBody/content/application~1json/schema/required", `["url"]`},
		{"paths/~1api~1bookmarks/post/requestBody/content/application~1x-www-form-urlencoded/schema/properties/url/format", `"uri"`},
		{"paths/~1api~1bookmarks~1{id}/get/responses/404/description", `"Not Found"`},
		{"paths/~1api~1bookmarks~1{id}/patch/deprecated", `true`},
		{"paths/~1api~1bookmarks~1{id}/patch/requestBody/required", ""},
		{"paths/~1api~1bookmarks~1{id}/patch/requestBody/content/application~1x-www-form-urlencoded", ""},
		{"paths/~1api~1bookmarks~1{id}/delete/responses/204/description", `"No Content"`},
		{"components/schemas/docBookmark/required", `["created","id","url","tags","rating","fields"]`}, // kind has a default
		{"components/schemas/docBookmark/properties/created", `{"description":"When it was made.","format":"date-time","type":"string"}`},
		{"components/schemas/docBookmark/properties/updated/type", `["string","null"]`},
		{"components/schemas/docBookmark/properties/tags", `{"items":{"maxLength":20,"type":"string"},"type":["array","null"],"uniqueItems":true}`},
		{"components/schemas/docBookmark/properties/meta", `{"additionalProperties":{"format":"int64","type":"integer"},"type":"object"}`},
		{"components/schemas/docBookmark/properties/tree", `{"oneOf":[{"$ref":"#/components/schemas/docNode"},{"type":"null"}]}`},
		{"components/schemas/docBookmark/properties/rating", `{"exclusiveMinimum":0,"format":"float","maximum":5,"multipleOf":0.5,"type":"number"}`},
		{"components/schemas/docBookmark/properties/raw", `{}`},
		{"components/schemas/docBookmark/properties/kind", `{"default":"link","enum":["link","note"],"type":"string"}`},
		{"components/schemas/docBookmark/properties/secret", ""},
		{"components/schemas/docBookmark/properties/Skip", ""},
		{"components/schemas/docNode/properties/children", `{"items":{"oneOf":[{"$ref":"#/components/schemas/docNode"},{"type":"null"}]},"maxItems":10,"type":"array"}`},
		{"components/schemas/docNode/properties/name", `{"examples":["root"],"minLength":1,"type":"string"}`},
		{"paths/~1api~1bookmarks/post/security", `[{"bearerAuth":[]}]`},
		{"paths/~1api~1bookmarks/get/security", `[]`},
		{"paths/~1api~1bookmarks/get/responses/429/content/application~1problem+json/schema/$ref", `"#/components/schemas/Problem"`},
		{"paths/~1api~1admin/get/security", `[{"bearerAuth":[]}]`},
		{"paths/~1api~1admin/get/responses/401/content", `{"text/plain":{"schema":{"type":"string"}}}`},
		{"paths/~1api~1admin/get/summary", `"GET /api/admin"`},
		{"paths/~1health/get/security", `[]`},
		{"components/securitySchemes/bearerAuth", `{"bearerFormat":"opaque","scheme":"bearer","type":"http"}`},
		{"components/schemas/Problem/required", `["type","title","status"]`},
	} {
		got := "" // absent
		if v, ok := lookup(doc, tc.path); ok {
			b, _ := json.Marshal(v)
			got = string(b)
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
}

// lookup follows the slash-separated keys (and array indexes) of path.
func lookup(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, "/") {
		k = strings.ReplaceAll(k, "~1", "/")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i := int(k[0] - '0')
			if len(k) != 1 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// TestServeOpenAPI serves the document on the route the user picked.
func TestServeOpenAPI(t *testing.T) {
	r := docRouter()
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	want := OpenAPI(r, Info{Title: "Test", Version: "1.2.3"})
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || !bytes.Equal(w.Body.Bytes(), want) {
		t.Errorf("got %d %q and %d bytes, want 200 application/json and the document", w.Code, w.Header().Get("Content-Type"), w.Body.Len())
	}
	etag := w.Header().Get("ETag")
	if !strings.HasPrefix(etag, `"`) || len(etag) < 8 || w.Header().Get("Content-Length") != strconv.Itoa(len(want)) {
		t.Errorf("got ETag %q, Content-Length %q: want a strong tag and %d", etag, w.Header().Get("Content-Length"), len(want))
	}
	req := httptest.NewRequest(http.MethodGet, "/openapi.json", nil)
	req.Header.Set("If-None-Match", etag)
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("ETag") != etag {
		t.Errorf("If-None-Match: got %d, %d bytes, ETag %q; want 304 with the tag and no body", w.Code, w.Body.Len(), w.Header().Get("ETag"))
	}
	req.Header.Set("If-None-Match", `"other"`)
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) {
		t.Errorf("another tag: got %d and %d bytes, want 200 and the document", w.Code, w.Body.Len())
	}
}

// TestOpenAPILicense holds that Info.License becomes the info object's
// license, with the SPDX identifier as both its name and its identifier
// (OpenAPI 3.1 section 4.8.4 requires the name), and that no license
// object is written without one.
func TestOpenAPILicense(t *testing.T) {
	for _, tc := range []struct {
		license string
		want    string // info.license as JSON; "" for absent
	}{
		{"", ""},
		{"MIT", `{"identifier":"MIT","name":"MIT"}`},
		{"Apache-2.0 OR MIT", `{"identifier":"Apache-2.0 OR MIT","name":"Apache-2.0 OR MIT"}`},
	} {
		var doc struct {
			Info map[string]json.RawMessage `json:"info"`
		}
		if err := json.Unmarshal(OpenAPI(docRouter(), Info{License: tc.license}), &doc); err != nil {
			t.Fatal(err)
		}
		got, ok := doc.Info["license"]
		if tc.want == "" {
			if ok {
				t.Errorf("License %q: info.license is %s, want none", tc.license, got)
			}
			continue
		}
		var v any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatal(err)
		}
		canon, _ := json.Marshal(v)
		if string(canon) != tc.want {
			t.Errorf("License %q: info.license is %s, want %s", tc.license, canon, tc.want)
		}
	}
}

// TestOpenAPIClosed holds that a router refusing unknown members says so
// in its object schemas.
func TestOpenAPIClosed(t *testing.T) {
	r := docRouter()
	r.DisallowUnknownFields = true
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(r, Info{}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"components/schemas/docBookmark/additionalProperties",
		"paths/~1api~1bookmarks/post/requestBody/content/application~1json/schema/additionalProperties"} {
		if v, ok := lookup(doc, path); !ok || v != false {
			t.Errorf("%s: got %v, want false", path, v)
		}
	}
}

type embInner struct {
	A string `json:"a"`
	B int    `json:"b,omitempty"`
	X string `json:"x"`
}

type embPtr struct {
	P string `json:"p"`
	X string `json:"x"`
}

type embOuter struct {
	embInner
	*embPtr
	Named embInner `json:"named"`
	X     string   `json:"x"` // hides both promoted x
	C     []int    `json:"c,omitempty"`
}

// TestSchemaMatchesEncoding holds a struct's schema to what encoding/json
// writes: its properties are the keys of a full value, and its required
// members the keys of the zero value.
func TestSchemaMatchesEncoding(t *testing.T) {
	full := embOuter{embInner: embInner{A: "a", B: 1, X: "x"}, embPtr: &embPtr{P: "p", X: "x"},
		Named: embInner{A: "a", B: 1}, X: "x", C: []int{1}}
	for _, tc := range []struct {
		typ        reflect.Type
		full, zero any
	}{
		{reflect.TypeFor[embOuter](), full, embOuter{}},
		{reflect.TypeFor[docBookmark](), docBookmark{Notes: new(string), Meta: map[string]int{"a": 1}, Tree: &docNode{},
			Raw: json.RawMessage("1"), docAudit: docAudit{Updated: &time.Time{}}}, docBookmark{}},
	} {
		g := typed.NewSchemas(false)
		ref := g.Of(tc.typ).Ref
		b, err := json.Marshal(g.Defs()[strings.TrimPrefix(ref, "#/components/schemas/")])
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]json.RawMessage
			Required   []string
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		var props []string
		for name := range s.Properties {
			props = append(props, name)
		}
		if got, want := sortedKeys(t, tc.full), sorted(props); !slices.Equal(got, want) {
			t.Errorf("%s: encoding/json writes %q, the schema lists %q", tc.typ, got, want)
		}
		// A member with a default may be left out of a request (the
		// default is stored), so it is not required, though written.
		written := slices.DeleteFunc(sortedKeys(t, tc.zero), func(name string) bool { return name == "kind" && tc.typ == reflect.TypeFor[docBookmark]() })
		if got, want := written, sorted(s.Required); !slices.Equal(got, want) {
			t.Errorf("%s: the zero value has %q, the schema requires %q", tc.typ, got, want)
		}
	}
}

func sortedKeys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return sorted(keys)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestOpenAPIUnboundPathParam holds that a pattern's param that In does
// not bind is declared all the same, and that the headers OpenAPI has
// tools ignore are left out.
func TestOpenAPIUnboundPathParam(t *testing.T) {
	r := waltz.New()
	type in struct {
		ID   int    `path:"id"`
		Auth string `header:"Authorization"`
	}
	Op(r.Group("/orgs/:org"), http.MethodGet, "/items/:id", opFn[in, noOut], Operation{})
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(r, Info{}), &doc); err != nil {
		t.Fatal(err)
	}
	got, _ := lookup(doc, "paths/~1orgs~1{org}~1items~1{id}/get/parameters")
	b, _ := json.Marshal(got)
	want := `[{"in":"path","name":"id","required":true,"schema":{"format":"int64","type":"integer"}},` +
		`{"in":"path","name":"org","required":true,"schema":{"type":"string"}}]`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// TestConstraintOpenAPI: a param constraint is described as the schema of
// its values, on a plain route and on a typed one, whose answers include
// the 404 the router gives a value the constraint refuses, in the
// router's rendering (text), beside the operation's own 404 (problem
// details) where it has one; an operation without a constraint has none.
func TestConstraintOpenAPI(t *testing.T) {
	type in struct {
		ID   int64  `path:"id"`
		Key  string `path:"key"`
		Slug string `path:"slug" doc:"The article's slug."`
	}
	r := waltz.New()
	r.Get("/plain/:n<int>/:u<uint>/:id<uuid>/:a<alpha>/:s<[a-z-]+>/:p", func(*waltz.Context) error { return nil })
	Op(r, http.MethodGet, "/typed/:id<int>/:key<uuid>/:slug<[a-z-]+>", opFn[in, noOut], Operation{})
	Op(r, http.MethodGet, "/free/:id/:key/:slug", opFn[in, noOut], Operation{})
	Op(r, http.MethodGet, "/own/:id<int>/:key/:slug", opFn[in, noOut], Operation{Errors: []int{http.StatusNotFound}})
	type both struct {
		Slug string `path:"slug" pattern:"^[0-9a-z]{2}$"`
		Key  string `path:"key" format:"email"`
	}
	Op(r, http.MethodGet, "/both/:slug<[a-z]+>/:key<uuid>", opFn[both, noOut], Operation{})
	r.Get("/re2/:a<(?i)[a-z]+>", func(*waltz.Context) error { return nil })
	r.Get("/dot/:a<a.b>", func(*waltz.Context) error { return nil })
	Op(r, http.MethodGet, "/own2/:slug/:key", opFn[both, noOut], Operation{})
	if w := serve(t, r, "GET", "/typed/x/"+uuidZero+"/a"); w.Code != http.StatusNotFound {
		t.Errorf("a value the constraint refuses: got %d, want 404", w.Code)
	}
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI(r, Info{}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"paths/~1plain~1{n}~1{u}~1{id}~1{a}~1{s}~1{p}/get/parameters", `[` +
			`{"in":"path","name":"n","required":true,"schema":{"format":"int64","type":"integer"}},` +
			`{"in":"path","name":"u","required":true,"schema":{"minimum":0,"type":"integer"}},` +
			`{"in":"path","name":"id","required":true,"schema":{"format":"uuid","type":"string"}},` +
			`{"in":"path","name":"a","required":true,"schema":{"pattern":"^(?:[A-Za-z]+)$","type":"string"}},` +
			`{"in":"path","name":"s","required":true,"schema":{"pattern":"^(?:[a-z-]+)$","type":"string"}},` +
			`{"in":"path","name":"p","required":true,"schema":{"type":"string"}}]`},
		{"paths/~1plain~1{n}~1{u}~1{id}~1{a}~1{s}~1{p}/get/operationId", `"get-plain-n-u-id-a-s-p"`},
		{"paths/~1typed~1{id}~1{key}~1{slug}/get/parameters", `[` +
			`{"in":"path","name":"id","required":true,"schema":{"format":"int64","type":"integer"}},` +
			`{"in":"path","name":"key","required":true,"schema":{"format":"uuid","type":"string"}},` +
			`{"description":"The article's slug.","in":"path","name":"slug","required":true,"schema":{"pattern":"^(?:[a-z-]+)$","type":"string"}}]`},
		{"paths/~1typed~1{id}~1{key}~1{slug}/get/responses/404", `{"content":{"text/plain":{"schema":{"type":"string"}}},"description":"Not Found"}`},
		{"paths/~1own~1{id}~1{key}~1{slug}/get/responses/404/content", // the handler's 404 and the router's
			`{"application/problem+json":{"schema":{"$ref":"#/components/schemas/Problem"}},"text/plain":{"schema":{"type":"string"}}}`},
		{"paths/~1free~1{id}~1{key}~1{slug}/get/responses/404", `null`},
		{"paths/~1own2~1{slug}~1{key}/get/parameters", `[` +
			`{"in":"path","name":"slug","required":true,"schema":{"pattern":"^[0-9a-z]{2}$","type":"string"}},` +
			`{"in":"path","name":"key","required":true,"schema":{"format":"email","type":"string"}}]`},
		// RE2's '.', written as ECMA-262 reads the same.
		{"paths/~1dot~1{a}/get/parameters", `[{"in":"path","name":"a","required":true,"schema":{"pattern":"^(?:a[^\\n]b)$","type":"string"}}]`},
		// RE2's syntax that ECMA-262 does not share: no pattern.
		{"paths/~1re2~1{a}/get/parameters", `[{"in":"path","name":"a","required":true,"schema":{"type":"string"}}]`},
		// The field's own pattern or format and the route's constraint
		// both hold.
		{"paths/~1both~1{slug}~1{key}/get/parameters", `[` +
			`{"in":"path","name":"slug","required":true,"schema":{"allOf":[{"pattern":"^(?:[a-z]+)$"}],"pattern":"^[0-9a-z]{2}$","type":"string"}},` +
			`{"in":"path","name":"key","required":true,"schema":{"allOf":[{"format":"uuid"}],"format":"email","type":"string"}}]`},
	} {
		v, ok := lookup(doc, tc.path)
		b, _ := json.Marshal(v)
		if got := string(b); ok == (tc.want == "null") || got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
}

// uuidZero is a uuid, the nil one.
const uuidZero = "00000000-0000-0000-0000-000000000000"

// TestCatchAllDocumented: a catch-all of a pattern is a path parameter
// like another to OpenAPI, whose templates cannot match '/'; its
// description says that it spans segments, on a plain route and on a
// typed operation's, beside the field's own doc.
func TestCatchAllDocumented(t *testing.T) {
	r := waltz.New()
	r.Get("/static/*path", func(c *waltz.Context) error { return nil })
	var rest []string
	Op(r, http.MethodGet, "/files/:dir/*rest", func(c *waltz.Context, in *struct {
		Dir  string `path:"dir"`
		Rest string `path:"rest" doc:"the file's name inside dir"`
	}) (*struct{}, error) {
		rest = append(rest, in.Rest)
		return nil, nil
	}, Operation{})
	// What the description promises: '/' as it is or escaped is one
	// value, and the rest may be empty.
	for _, target := range []string{"/files/d/a/b", "/files/d/a%2Fb", "/files/d/"} {
		if w := serve(t, r, "GET", target); w.Code != 204 {
			t.Errorf("GET %s: got %d", target, w.Code)
		}
	}
	if want := []string{"a/b", "a/b", ""}; !slices.Equal(rest, want) {
		t.Errorf("rest got %q, want %q", rest, want)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name, In, Description string
			}
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, name, own string
		spans           bool
	}{
		{"/static/{path}", "path", "", true},
		{"/files/{dir}/{rest}", "rest", "the file's name inside dir", true},
		{"/files/{dir}/{rest}", "dir", "", false},
	} {
		var d string
		found := false
		for _, p := range doc.Paths[tc.path]["get"].Parameters {
			if p.In == "path" && p.Name == tc.name {
				d, found = p.Description, true
			}
		}
		switch {
		case !found:
			t.Errorf("%s: no path parameter %s", tc.path, tc.name)
		case tc.spans != strings.Contains(d, "spans segments"):
			t.Errorf("%s %s: description %q, want one that says it spans segments: %v", tc.path, tc.name, d, tc.spans)
		case !strings.HasPrefix(d, tc.own):
			t.Errorf("%s %s: description %q lost the field's doc %q", tc.path, tc.name, d, tc.own)
		}
	}
}

// strconvQuote returns s as a JSON string, as encoding/json writes it.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestErrorBody: a router whose own RenderError writes a body of a known
// type documents its error answers with that type's schema; without
// ErrorBody, any JSON value.
func TestErrorBody(t *testing.T) {
	type apiErrors struct {
		Errors struct {
			Body []string `json:"body"`
		} `json:"errors"`
	}
	type in struct {
		N int `query:"n" maximum:"3"`
	}
	for _, declared := range []bool{false, true} {
		r := waltz.New()
		r.RenderError = func(c *waltz.Context, e *waltz.HTTPError) { _ = c.JSON(e.Code, apiErrors{}) }
		if declared {
			ErrorBody[apiErrors](r, "application/json")
		}
		Op(r, http.MethodGet, "/x", opFn[in, noOut], Operation{ID: "x"})
		var doc map[string]any
		if err := json.Unmarshal(OpenAPI(r, Info{}), &doc); err != nil {
			t.Fatal(err)
		}
		got, _ := lookup(doc, "paths/~1x/get/responses/422/content/application~1json/schema")
		b, _ := json.Marshal(got)
		want := `{}`
		if declared {
			want = `{"$ref":"#/components/schemas/apiErrors"}`
			if _, ok := lookup(doc, "components/schemas/apiErrors/properties/errors"); !ok {
				t.Errorf("declared: no apiErrors component with its errors member")
			}
		}
		if string(b) != want {
			t.Errorf("declared %v: got 422 schema %s, want %s", declared, b, want)
		}
	}
	if msg := panicMessage(func() { ErrorBody[string](waltz.New(), "json") }); !strings.HasPrefix(msg, "waltz: ErrorBody: ") {
		t.Errorf("a media type that is none: got %q, want a waltz: ErrorBody panic", msg)
	}
}
