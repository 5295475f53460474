package typed

import (
	"net/http"
	"reflect"

	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/openapi"
)

// The parts of an OpenAPI 3.1 operation that its In and Out types decide:
// parameters, request body and success response, as objects of the
// model (package openapi).

// Parameters returns the parameter objects of p's fields, in field order,
// leaving out the header params that OpenAPI 3.1 section 4.8.12.1 has
// tools ignore (Accept, Content-Type, Authorization: described by the
// request body's media types and the security requirements).
func (p *InPlan) Parameters() []*openapi.Parameter {
	var ps []*openapi.Parameter
	for _, pr := range p.params {
		if pr.place == inHeader && ignoredHeader(pr.name) {
			continue
		}
		ps = append(ps, pr.document())
	}
	return ps
}

// RequestBody returns the request body object of p, or nil when p has no
// Body field; its schemas are made in g.
func (p *InPlan) RequestBody(g *Schemas) *openapi.RequestBody {
	bp := p.body
	if bp == nil {
		return nil
	}
	if bp.multi != nil {
		return &openapi.RequestBody{Description: bp.doc, Required: !bp.ptr,
			Content: map[string]*openapi.MediaType{"multipart/form-data": bp.multi.describe(g)}}
	}
	s := g.of(bp.typ)
	rb := &openapi.RequestBody{Description: bp.doc, Required: !bp.ptr, Content: map[string]*openapi.MediaType{}}
	for _, k := range bp.media {
		rb.Content[k.mediaType] = &openapi.MediaType{Schema: s}
	}
	return rb
}

// ErrorCodes returns the error statuses binding p can answer, sorted: 422
// for values against the rules, 400 for an unreadable query or body, 413
// and 415 for a body.
func (p *InPlan) ErrorCodes() []int {
	var codes []int
	if p.HasInput() {
		codes = append(codes, http.StatusUnprocessableEntity)
	}
	if len(p.query) > 0 || p.body != nil {
		codes = append(codes, http.StatusBadRequest)
	}
	if p.body != nil {
		codes = append(codes, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	return codes
}

// HasInput reports whether p binds anything, or refuses unknown query
// params.
func (p *InPlan) HasInput() bool { return len(p.params) > 0 || p.body != nil || p.strict }

// document returns the parameter object of pr.
func (pr *param) document() *openapi.Parameter {
	s := paramSchema(pr.codec)
	if pr.multi {
		s = &openapi.Schema{Type: "array", Items: s}
	}
	if tagged(pr.field.Tag) {
		s = withTags(s, pr.field.Tag, pr.field.Type)
		s.Description, s.Examples = "", nil // the parameter's own
	}
	if pr.multi && s.MaxItems == nil {
		n := pr.maxItems
		s.MaxItems = &n
	}
	p := &openapi.Parameter{Name: pr.name, In: placeNames[pr.place], Required: pr.required, Description: pr.doc, Schema: s}
	if pr.comma {
		p.Style, p.Explode = "form", new(bool)
	}
	switch {
	case pr.example != "" && pr.multi:
		items, _ := EnumValues(pr.example) // checked at registration
		ex := make([]any, len(items))
		for i, it := range items {
			ex[i] = typedValue(pr.codec, it)
		}
		p.Example = ex
	case pr.example != "":
		p.Example = typedValue(pr.codec, pr.example)
	}
	return p
}

// paramSchema returns the schema of a param's text as c parses it.
func paramSchema(c *codec) *openapi.Schema {
	switch c.kind {
	case kTime:
		return &openapi.Schema{Type: "string", Format: "date-time"}
	case kDuration:
		return &openapi.Schema{Type: "string", Description: "A duration such as 1.5s or 2h45m."}
	case kText:
		return &openapi.Schema{Type: "string"}
	}
	return scalarSchema(c.typ)
}

// Response returns the success response object of p; its schemas are
// made in g.
func (p *OutPlan) Response(g *Schemas) *openapi.Response {
	resp := &openapi.Response{Description: header.Phrase(p.status)}
	if p.bodyDoc != "" {
		resp.Description = p.bodyDoc
	}
	for _, h := range p.headers {
		if resp.Headers == nil {
			resp.Headers = map[string]*openapi.Header{}
		}
		ht := h.typ
		if ht.Kind() == reflect.Pointer {
			ht = ht.Elem()
		}
		s := &openapi.Schema{Type: "string"}
		if c := codecFor(ht); c != nil && c.numeric() {
			s = scalarSchema(ht)
		}
		resp.Headers[h.name] = &openapi.Header{Description: h.doc, Schema: s}
	}
	if p.body != nil && !p.opaque {
		resp.Content = map[string]*openapi.MediaType{"application/json": {Schema: g.of(p.body)}}
	}
	return resp
}

// ignoredHeader reports whether a header param named name is one that
// OpenAPI 3.1 section 4.8.12.1 has tools ignore.
func ignoredHeader(name string) bool {
	return name == "Accept" || name == "Content-Type" || name == "Authorization"
}

// SuccessStatus returns the status of p's success answer when its Status
// field is 0 or absent.
func (p *OutPlan) SuccessStatus() int { return p.status }

// HasStatus reports whether p's Out type has a Status field, by which a
// handler answers another success status than SuccessStatus.
func (p *OutPlan) HasStatus() bool { return p.hasStatus }

// Spellings adds to m, by canonical name, the spelling of each header
// field p's In binds whose tag spells it otherwise (`header:"X-Request-ID"`
// for X-Request-Id), unless m has one for that name: the document is
// built with canonical names and written with these.
func (p *InPlan) Spellings(m map[string]string) {
	for _, pr := range p.header {
		if pr.shown != "" && pr.shown != pr.name {
			if _, ok := m[pr.name]; !ok {
				m[pr.name] = pr.shown
			}
		}
	}
}

// Spellings adds to m the spelling of each header field of p's Out type
// whose tag spells it otherwise than its canonical name, as
// [InPlan.Spellings] does.
func (p *OutPlan) Spellings(m map[string]string) {
	for _, h := range p.headers {
		if h.shown != h.name {
			if _, ok := m[h.name]; !ok {
				m[h.name] = h.shown
			}
		}
	}
}
