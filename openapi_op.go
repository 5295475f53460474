package waltz

import (
	"net/http"
	"reflect"
	"slices"
	"strconv"
)

// describe adds the route rt to doc.
func (r *Router) describe(d *docBuilder, rt Route) {
	if rt.Method == "*" {
		describeMount(d.doc, rt.Pattern)
		return
	}
	path, names := openAPIPath(rt.Pattern)
	item := d.doc.Paths[path]
	if item == nil {
		item = &pathItem{}
		d.doc.Paths[path] = item
	}
	slot := item.slot(rt.Method)
	if slot == nil {
		return
	}
	key := opKey{rt.Method, rt.Pattern}
	var op *docOp
	var mws []Middleware
	var codes []int
	if o := r.ops.get(key); o != nil {
		op, mws, codes = o.document(d.schemas), o.mw, o.errorCodes()
		// A param of the pattern that In does not bind is still in the
		// path: the document declares it, as a string.
		for _, n := range names {
			if !slices.ContainsFunc(op.Parameters, func(p *parameter) bool { return p.In == "path" && p.Name == n }) {
				op.Parameters = append(op.Parameters, &parameter{Name: n, In: "path", Required: true, Schema: &schema{Type: "string"}})
			}
		}
	} else {
		mws = r.ops.plainOf(key)
		_, codes = security(mws)
		op = &docOp{Responses: map[string]*response{"default": {Description: "The handler's answer."}}}
		for _, n := range names {
			op.Parameters = append(op.Parameters, &parameter{Name: n, In: "path", Required: true, Schema: &schema{Type: "string"}})
		}
	}
	if op.OperationID == "" {
		op.OperationID = uniqueID(d.ids, rt.Method, rt.Pattern)
	}
	if op.Summary == "" {
		op.Summary = rt.Method + " " + path
	}
	for _, code := range codes {
		op.Responses[strconv.Itoa(code)] = d.errorResponse(code, r.ops.get(key) != nil)
	}
	op.Security = d.security(mws)
	*slot = op
}

// errorResponse returns the response object of an error code, in the
// format the router renders it: problem details on a typed operation or
// under RenderProblem, text under the text rendering, any JSON under a
// rendering of the user's.
func (d *docBuilder) errorResponse(code int, typed bool) *response {
	resp := &response{Description: http.StatusText(code)}
	switch {
	case d.render == nil && typed || isFunc(d.render, RenderProblem):
		d.problems = true
		resp.Content = map[string]*mediaType{"application/problem+json": {Schema: &schema{Ref: "#/components/schemas/Problem"}}}
	case d.render == nil || isFunc(d.render, RenderText):
		resp.Content = map[string]*mediaType{"text/plain": {Schema: &schema{Type: "string"}}}
	default:
		resp.Content = map[string]*mediaType{"application/json": {Schema: &schema{}}}
	}
	return resp
}

// isFunc reports whether f is the function g.
func isFunc(f, g func(*Context, *HTTPError)) bool {
	return f != nil && reflect.ValueOf(f).Pointer() == reflect.ValueOf(g).Pointer()
}

// security returns the security requirement of an operation inside mws,
// adding their schemes to the document: none, an empty list, when they
// declared no scheme.
func (d *docBuilder) security(mws []Middleware) []map[string][]string {
	schemes, _ := security(mws)
	reqs := []map[string][]string{}
	for _, s := range schemes {
		reqs = append(reqs, map[string][]string{s.Name: {}})
		if d.doc.Components.SecuritySchemes == nil {
			d.doc.Components.SecuritySchemes = map[string]*securityScheme{}
		}
		d.doc.Components.SecuritySchemes[s.Name] = &securityScheme{Type: s.Type, Description: s.Description,
			Scheme: s.Scheme, BearerFormat: s.BearerFormat, Name: s.Param, In: s.In}
	}
	return reqs
}

// document returns the operation object of o.
func (o *operation) document(g *schemas) *docOp {
	d := &docOp{Tags: o.op.Tags, Summary: o.op.Summary, Description: o.op.Description,
		OperationID: o.op.ID, Deprecated: o.op.Deprecated, Responses: map[string]*response{}}
	for _, pr := range o.in.params {
		if pr.place == inHeader && ignoredHeader(pr.name) {
			continue
		}
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
	_, declared := security(o.mw)
	codes = append(codes, declared...)
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

// ignoredHeader reports whether a header param named name is one that
// OpenAPI 3.1 section 4.8.12.1 has tools ignore, being described elsewhere
// (by the request body's media types and the security requirements).
func ignoredHeader(name string) bool {
	return name == "Accept" || name == "Content-Type" || name == "Authorization"
}
