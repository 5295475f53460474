package contracttest

import (
	"encoding/base64"
	"maps"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/waltz-go/waltz/openapi"
)

// What the test reads of one operation. The operation, its params, bodies,
// security requirement and answers, it reads from the model
// (api.Describe's document). A schema it reads as libopenapi reads the
// same document: the generator walks the very schema object that
// libopenapi-validator then judges each value against, with its $refs
// resolved as libopenapi resolves them, so that generator and judge
// never read a schema two ways (see the package documentation: the
// judgement is a validator's no one in this repository wrote).

// operation is what the test reads of one operation of the document: its
// params and bodies with a valid value of each, the credentials it
// sends, and the media types it accepts in answers.
type operation struct {
	id, method, path string // path is the document's template, "/a/{id}"
	model            *openapi.Operation
	params           []*param
	bodyRequired     bool
	media            []*media
	creds            []cred // what satisfies an alternative of the security requirement that needs some; nil when none is known
	secured          bool   // some credentials are required: no alternative is {}
	anonymous        bool   // an alternative is {}, beside one that needs some: they are optional
	authorized       bool   // the test has them
	accept           string // every media type the answers are declared in
	route            string // the route it describes ("GET /items/:id<int>", api.Paths), or "" when unknown
}

// param is one parameter (OpenAPI 3.1 section 4.8.12) and a valid value.
type param struct {
	name, in string
	required bool
	sep      string // how an array's items are joined: "" repeats the param
	schema   *base.Schema
	value    any
}

// loc names the param as a problem's location does: "query.limit".
func (p *param) loc() string { return p.in + "." + p.name }

// media is one media type of the request body that the test can write,
// with a valid body.
type media struct {
	name   string
	m      mode
	schema *base.Schema
	parts  []*part // a multipart body's
	value  any
}

// cred is one credential as a request carries it.
type cred struct{ in, name, value string }

// readOperation returns the operation at path and method (upper case)
// of the document, or why the test cannot make its requests. run.note
// gets each part it leaves out.
func (run *runner) readOperation(path, method string, item *openapi.PathItem, op *openapi.Operation) (*operation, error) {
	g, notes := run.g, run.note
	o := &operation{id: op.OperationID, method: method, path: path, model: op}
	if o.id == "" {
		o.id = o.method + " " + path
	}
	lib := libOperation(run.lib, path, method)
	for _, p := range mergeParams(item.Parameters, op.Parameters) {
		if run.opaqueParam(o.id, p.In, p.Name) {
			// The server's own value: never made, never varied.
			if p.Required || p.In == "path" {
				return nil, unsupported("param " + p.In + "." + p.Name + " is opaque (Options.Opaque) and required: no request can carry it")
			}
			continue
		}
		pr, err := g.readParam(p, lib.param(p.Name, p.In))
		switch {
		case pr == nil && err == nil:
		case err != nil && (p.Required || p.In == "path"):
			return nil, unsupported("param " + p.In + "." + p.Name + ": " + err.Error())
		case err != nil:
			notes(o.id + ": param " + p.In + "." + p.Name + " is never sent: " + err.Error())
		default:
			o.params = append(o.params, pr)
		}
	}
	if err := g.readBody(o, op.RequestBody, lib, notes); err != nil {
		return nil, err
	}
	o.readSecurity(run.doc, op, run.opts.Credentials)
	var accept []string
	for _, resp := range responses(op) {
		for _, name := range slices.Sorted(maps.Keys(resp.Content)) {
			if !slices.Contains(accept, name) {
				accept = append(accept, name)
			}
		}
	}
	o.accept = strings.Join(accept, ", ")
	return o, nil
}

// mergeParams returns a path item's params with an operation's, the
// operation's winning where both name one (OpenAPI 3.1 section 4.8.10).
func mergeParams(item, op []*openapi.Parameter) []*openapi.Parameter {
	out := slices.Clone(op)
	for _, p := range item {
		if !slices.ContainsFunc(op, func(q *openapi.Parameter) bool { return q.Name == p.Name && q.In == p.In }) {
			out = append(out, p)
		}
	}
	return out
}

// readParam returns the param p, whose schema libopenapi reads as s, with
// a valid value, or nil for one the test leaves alone (the headers
// OpenAPI has tools ignore).
func (g *gen) readParam(p *openapi.Parameter, s *base.Schema) (*param, error) {
	pr := &param{name: p.Name, in: p.In, required: p.Required || p.In == "path"}
	switch p.In {
	case "header":
		if n := strings.ToLower(p.Name); n == "accept" || n == "content-type" || n == "authorization" {
			return nil, nil
		}
	case "path", "query", "cookie":
	default:
		return nil, unsupported("params in " + p.In)
	}
	if p.Schema == nil || s == nil {
		return nil, unsupported("a param without a schema")
	}
	pr.schema = s
	style := p.Style
	if style == "" {
		style = map[string]string{"path": "simple", "header": "simple"}[p.In]
		if style == "" {
			style = "form"
		}
	}
	explode := style == "form"
	if p.Explode != nil {
		explode = *p.Explode
	}
	switch {
	case style == "form" && explode:
	case style == "form" || style == "simple" && p.In != "cookie":
		pr.sep = ","
	case style == "spaceDelimited" && p.In == "query":
		pr.sep = " "
	case style == "pipeDelimited" && p.In == "query":
		pr.sep = "|"
	default:
		return nil, unsupported("style " + style)
	}
	if kindOf(pr.schema) == "object" {
		return nil, unsupported("an object param")
	}
	v, err := g.value(pr.schema, asText, true, 0)
	if err != nil {
		return nil, err
	}
	pr.value = v
	return pr, nil
}

// readBody adds the media types of rb that the test can write to o, each
// with a valid body made from its schema as lib reads it.
func (g *gen) readBody(o *operation, rb *openapi.RequestBody, lib libOp, notes func(string)) error {
	if rb == nil {
		return nil
	}
	o.bodyRequired = rb.Required
	var why []string
	for _, name := range slices.Sorted(maps.Keys(rb.Content)) {
		mt := rb.Content[name]
		md := &media{name: name, m: asJSON}
		switch ct := strings.ToLower(name); {
		case ct == "application/json" || strings.HasSuffix(ct, "+json"):
		case ct == "application/x-www-form-urlencoded":
			md.m = asText
		case ct == "multipart/form-data":
			md.m = asParts
		default:
			why = append(why, "a body of "+name+" is not written")
			continue
		}
		s := lib.body(name)
		if mt == nil || mt.Schema == nil || s == nil {
			why = append(why, "the "+name+" body has no schema")
			continue
		}
		md.schema = s
		if md.m == asText && kindOf(md.schema) != "object" {
			why = append(why, "a form body that is no object")
			continue
		}
		if md.m == asParts {
			var err error
			if md.parts, err = readParts(s, mt.Encoding); err != nil {
				why = append(why, "the "+name+" body: "+err.Error())
				continue
			}
		}
		v, err := g.body(md, true)
		if err != nil {
			why = append(why, "the "+name+" body: "+err.Error())
			continue
		}
		md.value = v
		o.media = append(o.media, md)
	}
	for _, w := range why {
		notes(o.id + ": " + w)
	}
	if len(o.media) == 0 && o.bodyRequired {
		return unsupported("no request body the test can write")
	}
	return nil
}

// readSecurity picks the first of op's security requirements that creds
// satisfy (OpenAPI 3.1 section 4.8.30): any one of them suffices. An
// empty one, {}, makes credentials optional: those found are still sent,
// and a request without them is valid too.
func (o *operation) readSecurity(doc *openapi.Document, op *openapi.Operation, creds map[string]string) {
	reqs := op.Security
	if reqs == nil {
		reqs = doc.Security
	}
	anonymous := false
	for _, r := range reqs {
		if len(r) == 0 {
			anonymous = true // {}: none needed (OpenAPI 3.1 section 4.8.30)
			continue
		}
		o.secured = true
		var cs []cred
		for _, name := range slices.Sorted(maps.Keys(r)) {
			c, ok := credential(doc, name, creds)
			if !ok {
				cs = nil
				break
			}
			cs = append(cs, c)
		}
		if cs != nil && !o.authorized {
			o.creds, o.authorized = cs, true
		}
	}
	if anonymous {
		o.anonymous, o.secured = o.secured, false
	}
	if !o.secured {
		o.authorized = true
	}
}

// credential returns how the scheme named name carries creds[name].
func credential(doc *openapi.Document, name string, creds map[string]string) (cred, bool) {
	v, ok := creds[name]
	if !ok {
		return cred{}, false
	}
	s := doc.Components.SecuritySchemes[name]
	if s == nil {
		return cred{}, false
	}
	switch strings.ToLower(s.Type) {
	case "http":
		switch strings.ToLower(s.Scheme) {
		case "basic":
			return cred{"header", "Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(v))}, true
		case "bearer":
			return cred{"header", "Authorization", "Bearer " + v}, true
		}
		return cred{"header", "Authorization", s.Scheme + " " + v}, true
	case "apikey":
		return cred{s.In, s.Name, v}, true
	case "oauth2", "openidconnect":
		return cred{"header", "Authorization", "Bearer " + v}, true
	}
	return cred{}, false
}

// responses returns op's declared answers in the document's order,
// default last.
func responses(op *openapi.Operation) []*openapi.Response {
	var out []*openapi.Response
	for _, k := range slices.Sorted(maps.Keys(op.Responses)) {
		if r := op.Responses[k]; k != "default" && r != nil {
			out = append(out, r)
		}
	}
	if r := op.Responses["default"]; r != nil {
		out = append(out, r)
	}
	return out
}

// libOp is libopenapi's reading of one operation and its path item,
// where the test finds the schemas it makes values of.
type libOp struct {
	item *v3.PathItem
	op   *v3.Operation
}

// libOperation returns libopenapi's reading of the operation at path and
// method (upper case) of lib; either part nil when lib has none.
func libOperation(lib *v3.Document, path, method string) libOp {
	var l libOp
	if lib.Paths == nil {
		return l
	}
	if l.item = lib.Paths.PathItems.GetOrZero(path); l.item != nil {
		l.op = l.item.GetOperations().GetOrZero(strings.ToLower(method))
	}
	return l
}

// param returns the schema of the param of that name and place, the
// operation's own or else the path item's, or nil when libopenapi has
// none or cannot resolve it.
func (l libOp) param(name, in string) *base.Schema {
	var lists [][]*v3.Parameter
	if l.op != nil {
		lists = append(lists, l.op.Parameters)
	}
	if l.item != nil {
		lists = append(lists, l.item.Parameters)
	}
	for _, ps := range lists {
		for _, p := range ps {
			if p.Name == name && p.In == in {
				if p.Schema == nil {
					return nil
				}
				return p.Schema.Schema()
			}
		}
	}
	return nil
}

// body returns the schema of the request body of the media type name, or
// nil when libopenapi has none or cannot resolve it.
func (l libOp) body(name string) *base.Schema {
	if l.op == nil || l.op.RequestBody == nil {
		return nil
	}
	mt := l.op.RequestBody.Content.GetOrZero(name)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return mt.Schema.Schema()
}
