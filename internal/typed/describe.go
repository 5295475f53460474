package typed

import (
	"net/http"
	"reflect"

	"github.com/waltz-go/waltz/internal/header"
)

// The parts of an OpenAPI 3.1 operation that its In and Out types decide:
// parameters, request body and success response, as the document writes
// them.

// Parameter is an OpenAPI parameter object (section 4.8.12).
type Parameter struct {
	Name        string `json:"name"`
	In          string `json:"in"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Style and Explode, set for a query array of comma-separated items
	// (explode:"false"): "form" and false (section 4.8.12.4).
	Style   string  `json:"style,omitempty"`
	Explode *bool   `json:"explode,omitempty"`
	Schema  *Schema `json:"schema"`
	Example any     `json:"example,omitempty"`
}

// RequestBody is an OpenAPI request body object (section 4.8.13).
type RequestBody struct {
	Description string                `json:"description,omitempty"`
	Content     map[string]*MediaType `json:"content"`
	Required    bool                  `json:"required,omitempty"`
}

// MediaType is an OpenAPI media type object (section 4.8.14).
type MediaType struct {
	Schema *Schema `json:"schema,omitempty"`
	// Encoding says, for a multipart body, each part's media types
	// (section 4.8.15), by the part's name.
	Encoding map[string]*Encoding `json:"encoding,omitempty"`
}

// Encoding is an OpenAPI encoding object (section 4.8.15): the media
// types a part of a multipart body may have, comma-separated.
type Encoding struct {
	ContentType string `json:"contentType"`
}

// Response is an OpenAPI response object (section 4.8.17).
type Response struct {
	Description string                `json:"description"`
	Headers     map[string]*Header    `json:"headers,omitempty"`
	Content     map[string]*MediaType `json:"content,omitempty"`
}

// Header is an OpenAPI header object (section 4.8.21).
type Header struct {
	Description string  `json:"description,omitempty"`
	Schema      *Schema `json:"schema"`
}

// Parameters returns the parameter objects of p's fields, in field order,
// leaving out the header params that OpenAPI 3.1 section 4.8.12.1 has
// tools ignore (Accept, Content-Type, Authorization: described by the
// request body's media types and the security requirements).
func (p *InPlan) Parameters() []*Parameter {
	var ps []*Parameter
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
func (p *InPlan) RequestBody(g *Schemas) *RequestBody {
	bp := p.body
	if bp == nil {
		return nil
	}
	if bp.multi != nil {
		return &RequestBody{Description: bp.doc, Required: !bp.ptr,
			Content: map[string]*MediaType{"multipart/form-data": bp.multi.describe(g)}}
	}
	s := g.of(bp.typ)
	rb := &RequestBody{Description: bp.doc, Required: !bp.ptr, Content: map[string]*MediaType{}}
	for _, k := range bp.media {
		rb.Content[k.mediaType] = &MediaType{Schema: s}
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
func (pr *param) document() *Parameter {
	s := paramSchema(pr.codec)
	if pr.multi {
		s = &Schema{Type: "array", Items: s}
	}
	if tagged(pr.field.Tag) {
		s = withTags(s, pr.field.Tag, pr.field.Type)
		s.Description, s.Examples = "", nil // the parameter's own
	}
	if pr.multi && s.MaxItems == nil {
		n := pr.maxItems
		s.MaxItems = &n
	}
	p := &Parameter{Name: pr.name, In: placeNames[pr.place], Required: pr.required, Description: pr.doc, Schema: s}
	if pr.comma {
		p.Style, p.Explode = "form", new(bool)
	}
	if pr.example != "" {
		p.Example = typedValue(pr.codec, pr.example)
	}
	return p
}

// paramSchema returns the schema of a param's text as c parses it.
func paramSchema(c *codec) *Schema {
	switch c.kind {
	case kTime:
		return &Schema{Type: "string", Format: "date-time"}
	case kDuration:
		return &Schema{Type: "string", Description: "A duration such as 1.5s or 2h45m."}
	case kText:
		return &Schema{Type: "string"}
	}
	return scalarSchema(c.typ)
}

// Response returns the success response object of p; its schemas are
// made in g.
func (p *OutPlan) Response(g *Schemas) *Response {
	resp := &Response{Description: header.Phrase(p.status)}
	if p.bodyDoc != "" {
		resp.Description = p.bodyDoc
	}
	for _, h := range p.headers {
		if resp.Headers == nil {
			resp.Headers = map[string]*Header{}
		}
		ht := h.typ
		if ht.Kind() == reflect.Pointer {
			ht = ht.Elem()
		}
		s := &Schema{Type: "string"}
		if c := codecFor(ht); c != nil && c.numeric() {
			s = scalarSchema(ht)
		}
		resp.Headers[h.name] = &Header{Description: h.doc, Schema: s}
	}
	if p.body != nil && !p.opaque {
		resp.Content = map[string]*MediaType{"application/json": {Schema: g.of(p.body)}}
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
