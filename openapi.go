package waltz

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// APIInfo is what the OpenAPI document says of the API as a whole (its
// info object, OpenAPI 3.1 section 4.8.2, and its servers).
type APIInfo struct {
	Title       string   // the API's name; "" means "API"
	Version     string   // the API's version, not OpenAPI's; "" means "0.0.0"
	Summary     string   // one line
	Description string   // CommonMark
	Servers     []string // base URLs, such as "https://api.example.com"; none means the document's own host
}

// openAPIVersion is the version of the OpenAPI specification the
// document follows.
const openAPIVersion = "3.1.1"

type document struct {
	OpenAPI    string               `json:"openapi"`
	Info       docInfo              `json:"info"`
	Servers    []docServer          `json:"servers,omitempty"`
	Paths      map[string]*pathItem `json:"paths"`
	Components docComponents        `json:"components"`
}

type docInfo struct {
	Title       string `json:"title"`
	Summary     string `json:"summary,omitempty"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version"`
}

type docServer struct {
	URL string `json:"url"`
}

type docComponents struct {
	Schemas map[string]*schema `json:"schemas,omitempty"`
}

type pathItem struct {
	Description string       `json:"description,omitempty"`
	Parameters  []*parameter `json:"parameters,omitempty"`
	Get         *docOp       `json:"get,omitempty"`
	Put         *docOp       `json:"put,omitempty"`
	Post        *docOp       `json:"post,omitempty"`
	Delete      *docOp       `json:"delete,omitempty"`
	Options     *docOp       `json:"options,omitempty"`
	Head        *docOp       `json:"head,omitempty"`
	Patch       *docOp       `json:"patch,omitempty"`
	Trace       *docOp       `json:"trace,omitempty"`
}

// slot returns the field of p for method, or nil for a method OpenAPI
// 3.1 has no field for.
func (p *pathItem) slot(method string) **docOp {
	switch method {
	case http.MethodGet:
		return &p.Get
	case http.MethodPut:
		return &p.Put
	case http.MethodPost:
		return &p.Post
	case http.MethodDelete:
		return &p.Delete
	case http.MethodOptions:
		return &p.Options
	case http.MethodHead:
		return &p.Head
	case http.MethodPatch:
		return &p.Patch
	case http.MethodTrace:
		return &p.Trace
	}
	return nil
}

type docOp struct {
	Tags        []string             `json:"tags,omitempty"`
	Summary     string               `json:"summary,omitempty"`
	Description string               `json:"description,omitempty"`
	OperationID string               `json:"operationId"`
	Parameters  []*parameter         `json:"parameters,omitempty"`
	RequestBody *requestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*response `json:"responses"`
	Deprecated  bool                 `json:"deprecated,omitempty"`
}

type parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *schema `json:"schema"`
	Example     any     `json:"example,omitempty"`
}

type requestBody struct {
	Description string                `json:"description,omitempty"`
	Content     map[string]*mediaType `json:"content"`
	Required    bool                  `json:"required,omitempty"`
}

type mediaType struct {
	Schema *schema `json:"schema,omitempty"`
}

type response struct {
	Description string                `json:"description"`
	Headers     map[string]*docHeader `json:"headers,omitempty"`
	Content     map[string]*mediaType `json:"content,omitempty"`
}

type docHeader struct {
	Description string  `json:"description,omitempty"`
	Schema      *schema `json:"schema"`
}

// OpenAPI returns the OpenAPI 3.1 document of every route registered on
// r, as indented JSON: typed operations ([Op]) in full, with their
// parameters, request bodies, success answers and problem details errors;
// plain routes with their methods and path params (as strings); mounts as
// their prefix. HEAD served by GET and the automatic OPTIONS are left out,
// as the router answers them itself, and so are methods OpenAPI has no
// field for. Named struct types become components/schemas, referred to by
// $ref. The same registrations give the same bytes, so the document can be
// committed and diffed.
func (r *Router) OpenAPI(info APIInfo) []byte {
	doc := &document{OpenAPI: openAPIVersion, Paths: map[string]*pathItem{},
		Info: docInfo{Title: info.Title, Version: info.Version, Summary: info.Summary, Description: info.Description}}
	if doc.Info.Title == "" {
		doc.Info.Title = "API"
	}
	if doc.Info.Version == "" {
		doc.Info.Version = "0.0.0"
	}
	for _, s := range info.Servers {
		doc.Servers = append(doc.Servers, docServer{URL: s})
	}
	g := newSchemas()
	ids := map[string]bool{}
	for _, o := range r.ops.list {
		if o.op.ID != "" {
			ids[o.op.ID] = true
		}
	}
	for _, rt := range r.Routes() {
		r.describe(doc, g, rt, ids)
	}
	if len(r.ops.list) > 0 {
		g.named(reflect.TypeFor[Problem]())
	}
	doc.Components.Schemas = g.defs
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic("waltz: OpenAPI: " + err.Error()) // only this file's types go in
	}
	return append(b, '\n')
}

// ServeOpenAPI returns a handler that answers with r's OpenAPI document,
// made on the first request (when every route is registered) and kept:
//
//	r.Get("/openapi.json", r.ServeOpenAPI(waltz.APIInfo{Title: "Bookmarks", Version: "1.0.0"}))
func (r *Router) ServeOpenAPI(info APIInfo) HandlerFunc {
	var once sync.Once
	var doc []byte
	return func(c *Context) error {
		once.Do(func() { doc = r.OpenAPI(info) })
		return c.Blob(http.StatusOK, "application/json", doc)
	}
}

// describe adds the route rt to doc.
func (r *Router) describe(doc *document, g *schemas, rt Route, ids map[string]bool) {
	if rt.Method == "*" {
		describeMount(doc, rt.Pattern)
		return
	}
	path, names := openAPIPath(rt.Pattern)
	item := doc.Paths[path]
	if item == nil {
		item = &pathItem{}
		doc.Paths[path] = item
	}
	slot := item.slot(rt.Method)
	if slot == nil {
		return
	}
	if o := r.ops.byKey[opKey{rt.Method, rt.Pattern}]; o != nil {
		d := o.document(g)
		if d.OperationID == "" {
			d.OperationID = uniqueID(ids, rt.Method, rt.Pattern)
		}
		*slot = d
		return
	}
	op := &docOp{OperationID: uniqueID(ids, rt.Method, rt.Pattern),
		Responses: map[string]*response{"default": {Description: "The handler's answer."}}}
	for _, n := range names {
		op.Parameters = append(op.Parameters, &parameter{Name: n, In: "path", Required: true, Schema: &schema{Type: "string"}})
	}
	*slot = op
}

// describeMount adds a mount's prefix to doc as a path item with the rest
// of the path as a param and no operations: the mounted handler's own are
// not known.
func describeMount(doc *document, pattern string) {
	prefix := strings.TrimSuffix(pattern, mountSuffix)
	path, names := openAPIPath(prefix + "/*path")
	item := &pathItem{Description: "Every request under " + prefix + "/ is handed to a mounted handler."}
	for _, n := range names {
		item.Parameters = append(item.Parameters, &parameter{Name: n, In: "path", Required: true, Schema: &schema{Type: "string"}})
	}
	doc.Paths[path] = item
}

// openAPIPath returns pattern in OpenAPI's template syntax ("/a/{id}")
// and its params' names.
func openAPIPath(pattern string) (string, []string) {
	p, err := parsePattern(pattern)
	if err != nil {
		return pattern, nil
	}
	var b strings.Builder
	for _, pc := range p.pieces {
		if pc.kind == paramKind || pc.kind == catchAllKind {
			b.WriteString("{" + pc.text + "}")
		} else {
			b.WriteString(pc.text)
		}
	}
	return b.String(), p.names
}

// uniqueID returns an operation ID made of method and pattern that is not
// in ids, and adds it.
func uniqueID(ids map[string]bool, method, pattern string) string {
	words := []string{strings.ToLower(method)}
	for seg := range strings.SplitSeq(pattern, "/") {
		seg = strings.TrimLeft(seg, ":*")
		if seg != "" {
			words = append(words, seg)
		}
	}
	id := strings.Join(words, "-")
	base := id
	for i := 2; ids[id]; i++ {
		id = base + "-" + strconv.Itoa(i)
	}
	ids[id] = true
	return id
}

// document returns the operation object of o.
func (o *operation) document(g *schemas) *docOp {
	d := &docOp{Tags: o.op.Tags, Summary: o.op.Summary, Description: o.op.Description,
		OperationID: o.op.ID, Deprecated: o.op.Deprecated, Responses: map[string]*response{}}
	for _, pr := range o.in.params {
		d.Parameters = append(d.Parameters, pr.document())
	}
	if bp := o.in.body; bp != nil {
		s := g.of(bp.typ)
		rb := &requestBody{Description: bp.doc, Required: !bp.ptr,
			Content: map[string]*mediaType{"application/json": {Schema: s}}}
		if bp.form != nil {
			rb.Content["application/x-www-form-urlencoded"] = &mediaType{Schema: s}
		}
		d.RequestBody = rb
	}
	d.Responses[strconv.Itoa(o.out.status)] = o.out.document(g)
	for _, code := range o.errorCodes() {
		d.Responses[strconv.Itoa(code)] = &response{Description: http.StatusText(code),
			Content: map[string]*mediaType{"application/problem+json": {Schema: &schema{Ref: "#/components/schemas/Problem"}}}}
	}
	return d
}

// errorCodes returns the error statuses o can answer, sorted: the
// binding's, its middleware's and its handler's.
func (o *operation) errorCodes() []int {
	var codes []int
	if len(o.in.params) > 0 || o.in.body != nil || o.in.validate || o.in.strict {
		codes = append(codes, http.StatusUnprocessableEntity)
	}
	if len(o.in.query) > 0 || o.in.body != nil {
		codes = append(codes, http.StatusBadRequest)
	}
	if o.in.body != nil {
		codes = append(codes, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	for _, mw := range o.mw {
		codes = append(codes, declared(mw)...)
	}
	codes = append(codes, o.op.Errors...)
	slices.Sort(codes)
	return slices.Compact(codes)
}

// document returns the parameter object of pr.
func (pr *param) document() *parameter {
	s := paramSchema(pr.codec)
	if pr.multi {
		s = &schema{Type: "array", Items: s}
	}
	if tagged(pr.field.Tag) {
		s = withTags(s, pr.field.Tag, pr.field.Type)
		s.Description, s.Examples = "", nil // the parameter's own
	}
	if pr.multi && s.MaxItems == nil {
		n := pr.maxItems
		s.MaxItems = &n
	}
	p := &parameter{Name: pr.name, In: placeNames[pr.place], Required: pr.required, Description: pr.doc, Schema: s}
	if pr.example != "" {
		p.Example = typedValue(pr.codec, pr.example)
	}
	return p
}

// paramSchema returns the schema of a param's text as c parses it.
func paramSchema(c *codec) *schema {
	switch c.kind {
	case kTime:
		return &schema{Type: "string", Format: "date-time"}
	case kDuration:
		return &schema{Type: "string", Description: "A duration such as 1.5s or 2h45m."}
	case kText:
		return &schema{Type: "string"}
	}
	return scalarSchema(c.typ)
}

// document returns the success response object of p.
func (p *outPlan) document(g *schemas) *response {
	resp := &response{Description: http.StatusText(p.status)}
	if p.bodyDoc != "" {
		resp.Description = p.bodyDoc
	}
	for _, h := range p.headers {
		if resp.Headers == nil {
			resp.Headers = map[string]*docHeader{}
		}
		ht := h.typ
		if ht.Kind() == reflect.Pointer {
			ht = ht.Elem()
		}
		s := &schema{Type: "string"}
		if c := codecFor(ht); c != nil && c.numeric() {
			s = scalarSchema(ht)
		}
		resp.Headers[h.name] = &docHeader{Description: h.doc, Schema: s}
	}
	if p.body != nil {
		resp.Content = map[string]*mediaType{"application/json": {Schema: g.of(p.body)}}
	}
	return resp
}

// declaredCodes holds the statuses middleware declared with Responds, by
// the middleware function's code pointer.
var declaredCodes sync.Map // uintptr to []int

// Responds declares, for the OpenAPI document, that mw refuses some
// requests with the error statuses codes (401 for authentication, 429 for
// a rate limit), and returns mw. Every typed operation registered inside
// mw then lists each code as a problem details response. The bundled
// middleware that refuses requests declares its codes itself. A
// middleware is known by its function's code, so every middleware that
// one constructor returns shares the codes declared for any of them.
func Responds(mw Middleware, codes ...int) Middleware {
	if mw == nil {
		panic("waltz: Responds: nil middleware")
	}
	key := reflect.ValueOf(mw).Pointer()
	prev, _ := declaredCodes.Load(key)
	old, _ := prev.([]int)
	all := slices.Concat(old, codes)
	slices.Sort(all)
	declaredCodes.Store(key, slices.Compact(all))
	return mw
}

// declared returns the codes declared for mw.
func declared(mw Middleware) []int {
	v, _ := declaredCodes.Load(reflect.ValueOf(mw).Pointer())
	codes, _ := v.([]int)
	return codes
}
