package api

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/typed"
	"github.com/waltz-go/waltz/openapi"
)

// describe adds the route rt to the document.
func (d *docBuilder) describe(rt seam.Route) {
	mws := routeMiddleware(rt)
	if isHidden(mws) {
		return
	}
	if rt.Method == "*" {
		d.describeMount(rt.Pattern)
		return
	}
	path, params := openAPIPath(rt.Pattern)
	leaf := leafOf(path, params)
	path, renamed := d.samePath(path, leaf)
	if rt.Method == waltz.MethodQuery {
		types := rt.Accepts // a plain route's, or none
		if o, ok := rt.Op.(*operation); ok {
			types = o.in.MediaTypes()
		}
		if types != nil {
			if d.queries == nil {
				d.queries = map[string][]string{}
			}
			d.queries[leaf] = types
		}
	}
	item := d.doc.Paths[path]
	if item == nil {
		item = &openapi.PathItem{}
		d.doc.Paths[path] = item
	}
	if first := operationOf(item, rt.Method); first != nil {
		// Two routes of one method at one path (/z/:id<int> and /z/:id):
		// the first keeps the place, which one path has for one method
		// (OpenAPI 3.1 section 4.8.8), and names the other.
		if d.others == nil {
			d.others = map[*openapi.Operation][]string{}
		}
		d.others[first] = append(d.others[first], rt.Method+" "+rt.Pattern) // said once, by sayOthers
		return
	}
	// A method the path item has no field for is left out before its
	// operation is made, so it takes no ID and adds no scheme or schema;
	// 3.2 has a place for every method (query.go says why 3.1 has none
	// for QUERY). The item has no operation of the method yet (above), so
	// setting none asks whether it has the field and changes nothing.
	if !d.v32 && (rt.Method == waltz.MethodQuery || !item.SetOperation(rt.Method, nil)) {
		if rt.Method == waltz.MethodQuery {
			item.Description = queryNote
		}
		return
	}
	var op *openapi.Operation
	var codes []int
	o, typedOp := rt.Op.(*operation)
	if typedOp {
		op, codes = o.document(d.schemas, d.v32), o.errorCodes(mws)
		if d.spellings == nil {
			d.spellings = map[string]string{}
		}
		o.in.Spellings(d.spellings)
		o.out.Spellings(d.spellings)
		// A param of the pattern that In does not bind is still in the
		// path: the document declares it, as a string.
		for _, pp := range params {
			i := slices.IndexFunc(op.Parameters, func(p *openapi.Parameter) bool { return p.In == "path" && p.Name == pp.Name })
			if i < 0 {
				op.Parameters = append(op.Parameters, pathParam(pp))
			} else {
				constrainSchema(op.Parameters[i].Schema, pp)
				spans(op.Parameters[i], pp)
			}
		}
	} else {
		_, codes = security(mws)
		op = &openapi.Operation{Responses: map[string]*openapi.Response{"default": {Description: "The handler's answer."}}}
		for _, pp := range params {
			op.Parameters = append(op.Parameters, pathParam(pp))
		}
		if rt.Method == waltz.MethodQuery {
			codes = append(codes, plainQuery(op, rt.Accepts)...)
		}
	}
	renameParams(op, renamed)
	if op.OperationID == "" {
		op.OperationID = uniqueID(d.ids, rt.Method, rt.Pattern)
	}
	if op.Summary == "" {
		op.Summary = rt.Method + " " + path
	}
	for _, h := range declaredHeaders(mws, rt.Method, false) {
		addParam(op, h)
	}
	for _, code := range codes {
		op.Responses[strconv.Itoa(code)] = d.errorResponse(code, typedOp)
	}
	if resp := op.Responses["415"]; typedOp && resp != nil {
		describeAcceptBody(resp, rt.Method, o.in.MediaTypes())
	}
	if op.Responses["304"] == nil && notModified(mws, rt.Method) {
		// A middleware's 304 (ETag's) stands for the success answer, with
		// its fields; a plain route's has none the document knows.
		var fields map[string]*openapi.Header
		if typedOp {
			fields = op.Responses[strconv.Itoa(o.out.SuccessStatus())].Headers
		}
		op.Responses["304"] = notModifiedResponse(fields)
	}
	if typedOp && slices.ContainsFunc(params, constrained) {
		// A value its constraint refuses gets the router's answer before
		// the operation binds anything (refused).
		for _, code := range d.refused(path, leaf, rt.Method) {
			d.routerAnswer(op, code)
		}
	}
	if typedOp && o.ranged() {
		unsatisfiable(op)
	}
	addAnswerHeaders(op, declaredHeaders(mws, rt.Method, true))
	op.Security = d.security(mws)
	if types := d.queries[leaf]; rt.Method == waltz.MethodQuery && types != nil {
		describeAcceptQuery(op, types, d.routerOnly[op], true)
	}
	if rt.Method == http.MethodGet || rt.Method == http.MethodHead {
		if d.reads == nil {
			d.reads = map[string][]*openapi.Operation{}
		}
		d.reads[leaf] = append(d.reads[leaf], op)
	}
	if !item.SetOperation(rt.Method, op) {
		if item.AdditionalOperations == nil {
			item.AdditionalOperations = map[string]*openapi.Operation{}
		}
		item.AdditionalOperations[rt.Method] = op
	}
	if d.placed == nil {
		d.placed = map[waltz.Route]string{}
	}
	d.placed[waltz.Route{Method: rt.Method, Pattern: rt.Pattern}] = path
	if typedOp && d.v32 {
		d.navs = append(d.navs, navOp{o, op})
	}
}

// errorResponse returns the response object of an error code, in the
// format the router renders it: problem details on a typed operation or
// under RenderProblem, and text beside them for a client whose Accept
// prefers text (RenderProblem's rule); text under the text rendering;
// any JSON under a rendering of the user's.
func (d *docBuilder) errorResponse(code int, onOp bool) *openapi.Response {
	resp := &openapi.Response{Description: header.Phrase(code)}
	switch {
	case d.render == nil && onOp || isFunc(d.render, waltz.RenderProblem):
		d.problems = true
		resp.Content = map[string]*openapi.MediaType{
			"application/problem+json": {Schema: &openapi.Schema{Ref: "#/components/schemas/Problem"}},
			"text/plain":               {Schema: &openapi.Schema{Type: "string"}},
		}
	case d.render == nil || isFunc(d.render, waltz.RenderText):
		resp.Content = map[string]*openapi.MediaType{"text/plain": {Schema: &openapi.Schema{Type: "string"}}}
	case d.errBody != nil:
		resp.Content = map[string]*openapi.MediaType{d.errBody.mediaType: {Schema: d.schemas.Of(d.errBody.t)}}
	default:
		resp.Content = map[string]*openapi.MediaType{"application/json": {Schema: &openapi.Schema{}}}
	}
	return resp
}

// routerAnswer adds to op the answer code that the router gives before
// the operation runs, in the router's rendering of errors (the
// operation's own is problem details), beside the operation's own answer
// of that code when it has one. A NotFound handler of the user's writes
// what it writes; the document says what RenderError would.
func (d *docBuilder) routerAnswer(op *openapi.Operation, code int) {
	key := strconv.Itoa(code)
	r := d.errorResponse(code, false)
	own := op.Responses[key]
	if own == nil {
		op.Responses[key] = r
		if d.routerOnly == nil {
			d.routerOnly = map[*openapi.Operation][]string{}
		}
		d.routerOnly[op] = append(d.routerOnly[op], key) // no route answers it: no Accept-Query
		return
	}
	for mt, m := range r.Content {
		if own.Content[mt] == nil {
			own.Content[mt] = m
		}
	}
}

// errorBody is what ErrorBody says a router's RenderError writes.
type errorBody struct {
	t         reflect.Type
	mediaType string
}

// ErrorBody says, for the document, what the router r's own
// [waltz.Router.RenderError] writes: a body of type T (its JSON Schema,
// as the document describes any body type) in the media type mediaType,
// such as "application/json". Every error answer the document lists for
// r's routes then has that content, where it would be any JSON value.
// With RenderError nil, [waltz.RenderProblem] or [waltz.RenderText], whose
// bodies the document knows, it changes nothing. Call it before serving,
// as everything else of a Router; it panics with a message starting
// "waltz: " when mediaType is not a media type type/subtype.
func ErrorBody[T any](r *waltz.Router, mediaType string) {
	if err := checkMediaType(mediaType); err != nil {
		panic("waltz: ErrorBody: " + err.Error())
	}
	stateOf(r).errBody = &errorBody{t: reflect.TypeFor[T](), mediaType: strings.ToLower(mediaType)}
}

// isFunc reports whether f is the function g.
func isFunc(f, g func(*waltz.Context, *waltz.HTTPError)) bool {
	return f != nil && reflect.ValueOf(f).Pointer() == reflect.ValueOf(g).Pointer()
}

// routeMiddleware returns the middleware of rt, outermost first.
func routeMiddleware(rt seam.Route) []waltz.Middleware {
	mws, _ := rt.Middleware.([]waltz.Middleware)
	return mws
}

// security returns the security requirement of an operation inside mws,
// adding their schemes to the document: none, an empty list, when they
// declared no scheme. Every middleware of mws runs, so the schemes that
// are not optional are needed together, in one requirement object; each
// optional one adds an alternative, those and it, before the last, those
// alone ({} when none is needed). A request that sends two optional
// credentials meets either of theirs.
func (d *docBuilder) security(mws []waltz.Middleware) []openapi.SecurityRequirement {
	schemes, _ := security(mws)
	if len(schemes) == 0 {
		return []openapi.SecurityRequirement{}
	}
	needed := openapi.SecurityRequirement{}
	var optional []string
	for _, s := range schemes {
		if s.Optional {
			optional = append(optional, s.Name)
		} else {
			needed[s.Name] = []string{}
		}
		if d.doc.Components.SecuritySchemes == nil {
			d.doc.Components.SecuritySchemes = map[string]*openapi.SecurityScheme{}
		}
		d.doc.Components.SecuritySchemes[s.Name] = &openapi.SecurityScheme{Type: s.Type, Description: s.Description,
			Scheme: s.Scheme, BearerFormat: s.BearerFormat, Name: s.Param, In: s.In}
	}
	reqs := make([]openapi.SecurityRequirement, 0, len(optional)+1)
	for _, name := range optional {
		with := maps.Clone(needed)
		with[name] = []string{}
		reqs = append(reqs, with)
	}
	return append(reqs, needed)
}

// document returns the operation object of o, for OpenAPI 3.2 when v32
// is set.
func (o *operation) document(g *typed.Schemas, v32 bool) *openapi.Operation {
	d := &openapi.Operation{Tags: o.op.Tags, Summary: o.op.Summary, Description: o.op.Description,
		OperationID: o.op.ID, Deprecated: o.op.Deprecated, Responses: map[string]*openapi.Response{}}
	d.Parameters = o.in.Parameters()
	d.RequestBody = o.in.RequestBody(g)
	success := o.out.Response(g)
	o.out.neg.describeTags(success)
	d.Responses[strconv.Itoa(o.out.SuccessStatus())] = success
	switch n := o.out.neg; {
	case o.out.download:
		types := octetStream
		if n != nil {
			types = n.types
		}
		success.Content = binaryContent(types)
	case o.out.events != nil:
		success.Content = map[string]*openapi.MediaType{"text/event-stream": eventContent(o.out.events.Ref(g), v32)}
	case o.out.lines != nil:
		describeLines(success, o.out.SuccessStatus(), o.out.lines, g, v32)
	case n != nil:
		success.Content = n.content(success.Content["application/json"].Schema, g)
	}
	// The Body's content, which every answer of Out carries but a 204
	// or 205 (RFC 9110 sections 15.3.5, 15.3.6), the success one too
	// when Operation.Status is one of them.
	content := success.Content
	if typed.NoContent(o.out.SuccessStatus()) {
		success.Content = nil
	}
	o.describeStatuses(d, success, content)
	if o.ranged() {
		downloadResponses(d)
	}
	o.describeConditions(d, success, content)
	return d
}

// ranged reports whether o is a download that may answer ranges (206,
// 416): one that may answer 200, its success status or one its Status
// field's enum lists (sendDownload serves a Range on a 200 alone).
func (o *operation) ranged() bool { return o.out.download && o.answers200() }

// answers200 reports whether o may answer 200: its success status is,
// or its Status enum lists it.
func (o *operation) answers200() bool {
	return o.out.SuccessStatus() == http.StatusOK || slices.Contains(o.out.Statuses(), http.StatusOK)
}

// revalidates reports whether o answers 304 and judges a read's
// preconditions: a GET, HEAD or QUERY whose Out carries validators and
// that may answer 200, the answer a 304 stands for (RFC 9110 section
// 15.4.5), as the server judges them on a 200 alone (writeOut). A read
// answered 204 is never judged.
func (o *operation) revalidates() bool {
	return safeMethod(o.method) && o.out.HasValidators() && o.answers200()
}

// addHeader adds the header parameter name, a string, to d, unless d
// has one of that name (In binds it).
func addHeader(d *openapi.Operation, name string, required bool, doc string) {
	addParam(d, HeaderParam{Name: name, Required: required, Description: doc})
}

// addParam adds the header parameter h to d, unless d has one of that
// name (In binds it).
func addParam(d *openapi.Operation, h HeaderParam) {
	if slices.ContainsFunc(d.Parameters, func(p *openapi.Parameter) bool {
		return p.In == "header" && http.CanonicalHeaderKey(p.Name) == h.Name
	}) {
		return
	}
	sc := &openapi.Schema{Type: "string", Pattern: h.Pattern}
	if h.MaxLength > 0 {
		n := h.MaxLength
		sc.MaxLength = &n
	}
	p := &openapi.Parameter{Name: h.Name, In: "header", Required: h.Required, Description: h.Description, Schema: sc}
	if h.Example != "" {
		p.Example = h.Example
	}
	d.Parameters = append(d.Parameters, p)
}

// addAnswerHeaders adds the response header fields hs, which middleware
// declared ([Sets]), to the answers of d that are no error (its success,
// a 206, a 304; a plain route's default), unless one has a field of that
// name (Out's own), each answer's map its own: answers may share one (a
// 304 its 200's).
func addAnswerHeaders(d *openapi.Operation, hs []HeaderParam) {
	if len(hs) == 0 {
		return
	}
	for code, resp := range d.Responses {
		if n, err := strconv.Atoi(code); code != "default" && (err != nil || n >= 400) {
			continue
		}
		resp.Headers = maps.Clone(resp.Headers)
		if resp.Headers == nil {
			resp.Headers = map[string]*openapi.Header{}
		}
		for _, h := range hs {
			if slices.ContainsFunc(slices.Collect(maps.Keys(resp.Headers)), func(k string) bool { return strings.EqualFold(k, h.Name) }) {
				continue
			}
			sc := &openapi.Schema{Type: "string", Pattern: h.Pattern}
			if h.MaxLength > 0 {
				n := h.MaxLength
				sc.MaxLength = &n
			}
			resp.Headers[h.Name] = &openapi.Header{Description: h.Description, Required: h.Required, Schema: sc}
		}
	}
}

// content returns the content of the success answer of a negotiated
// operation: exactly its declared types, each with the Body's schema s,
// or a string's for text/plain when the Body is no string.
//
// For XML, the root element's name (encoding/xml's: the XMLName field's
// tag, or the type's name) goes on the schema of the Body's type in g, as
// its XML object: the document then says what the answer's root is
// called, which a reader of XML needs to find the object in it.
func (n *negotiation) content(s *openapi.Schema, g *typed.Schemas) map[string]*openapi.MediaType {
	m := make(map[string]*openapi.MediaType, len(n.types))
	for _, t := range n.types {
		ts := s
		switch {
		case t == "text/plain" && n.body.Kind() != reflect.String:
			ts = &openapi.Schema{Type: "string"}
		case t == "application/xml" || t == "text/xml":
			if def := g.Defs()[strings.TrimPrefix(s.Ref, openapi.SchemaRef)]; def != nil {
				def.XML = &openapi.XML{Name: xmlRoot(n.body)}
			}
		}
		m[t] = &openapi.MediaType{Schema: ts}
	}
	return m
}

// describeTags says, in the description of the ETag field of success,
// Out's success answer, how the tag differs by representation when n
// has more than one (see suffix). Made before the answers that share
// the field (206, 304) copy it.
func (n *negotiation) describeTags(success *openapi.Response) {
	h := success.Headers["Etag"]
	if n.suffix(1) == "" || h == nil {
		return
	}
	d := *h
	if d.Description != "" {
		d.Description = strings.TrimSuffix(d.Description, ".") + ". "
	}
	d.Description += fmt.Sprintf("Each representation has a tag of its own (RFC 9110 section 8.8.3): %s this one, "+
		"each other type this one with \"-\" and its media type inside the quotes (\"v7\" as \"v7-%s\"), "+
		"as If-None-Match and If-Match compare it.", n.types[0], n.types[1])
	success.Headers["Etag"] = &d
}

// xmlRoot returns the name encoding/xml gives the root element of a
// value of type t: its XMLName field's tag name, or the type's name.
func xmlRoot(t reflect.Type) string {
	if t.Kind() == reflect.Struct {
		if f, ok := t.FieldByName("XMLName"); ok {
			name, _, _ := strings.Cut(f.Tag.Get("xml"), ",")
			if _, local, ok := strings.Cut(name, " "); ok {
				name = local // "namespace local"
			}
			if name != "" {
				return name
			}
		}
	}
	return t.Name()
}

// errorCodes returns the error statuses o can answer inside the
// middleware mws, sorted: the binding's, its middleware's and its
// handler's.
func (o *operation) errorCodes(mws []waltz.Middleware) []int {
	codes := o.in.ErrorCodes()
	if o.validate {
		codes = append(codes, http.StatusUnprocessableEntity)
	}
	_, declared := security(mws)
	codes = append(codes, declared...)
	codes = append(codes, o.op.Errors...)
	if o.current {
		codes = append(codes, http.StatusPreconditionFailed, http.StatusPreconditionRequired)
		if o.method != http.MethodPut {
			codes = append(codes, http.StatusNotFound) // Validators.Absent
		}
	}
	if o.revalidates() || o.ranged() {
		codes = append(codes, http.StatusPreconditionFailed)
	}
	if o.ranged() {
		codes = append(codes, http.StatusRequestedRangeNotSatisfiable)
	}
	if o.out.neg != nil {
		codes = append(codes, http.StatusNotAcceptable)
	}
	slices.Sort(codes)
	return slices.Compact(codes)
}

// eventContent returns the media type object of an event stream whose
// one event's schema is event (a $ref to its component, as a rule). 3.2
// describes a stream item by item (3.2.0 section 4.14.3.1.1:
// itemSchema). In 3.1 a media type's schema is of the whole body, here a
// string of events, so that is what it says; its contentSchema (JSON
// Schema 2020-12 section 8.5) says what the string holds, read as an
// EventSource reads it: an array of events, each event's schema. A
// client generator names the event's type from its component, and a
// validator that reads the body as a string (Prism) finds it one.
func eventContent(event *openapi.Schema, v32 bool) *openapi.MediaType {
	if v32 {
		return &openapi.MediaType{ItemSchema: event}
	}
	return &openapi.MediaType{Schema: &openapi.Schema{Type: "string", ContentMediaType: "text/event-stream",
		ContentSchema: &openapi.Schema{Type: "array", Items: event}}}
}
