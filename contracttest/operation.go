package contracttest

import (
	"encoding/base64"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"
)

// operation is what the test reads of one operation of the document: its
// params and bodies with a valid value of each, the credentials it
// sends, and the media types it accepts in answers.
type operation struct {
	id, method, path string // path is the document's template, "/a/{id}"
	model            *v3.Operation
	params           []*param
	bodyRequired     bool
	media            []*media
	creds            []cred // what satisfies the security requirement; nil when none is needed or none is known
	secured          bool   // some credentials are required
	authorized       bool   // the test has them
	accept           string // every media type the answers are declared in
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
	value  any
}

// cred is one credential as a request carries it.
type cred struct{ in, name, value string }

// readOperation returns the operation, or why the test cannot make its
// requests. notes gets each part it leaves out.
func (g *gen) readOperation(doc *v3.Document, path, method string, item *v3.PathItem, op *v3.Operation, creds map[string]string, notes func(string)) (*operation, error) {
	o := &operation{id: op.OperationId, method: strings.ToUpper(method), path: path, model: op}
	if o.id == "" {
		o.id = o.method + " " + path
	}
	for _, p := range mergeParams(item.Parameters, op.Parameters) {
		pr, err := g.readParam(p)
		switch {
		case pr == nil && err == nil:
		case err != nil && (p.Required != nil && *p.Required || p.In == "path"):
			return nil, unsupported("param " + p.In + "." + p.Name + ": " + err.Error())
		case err != nil:
			notes(o.id + ": param " + p.In + "." + p.Name + " is never sent: " + err.Error())
		default:
			o.params = append(o.params, pr)
		}
	}
	if err := g.readBody(o, op.RequestBody, notes); err != nil {
		return nil, err
	}
	o.readSecurity(doc, op, creds)
	var accept []string
	for _, resp := range responses(op) {
		for name := range resp.Content.FromOldest() {
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
func mergeParams(item, op []*v3.Parameter) []*v3.Parameter {
	out := slices.Clone(op)
	for _, p := range item {
		if !slices.ContainsFunc(op, func(q *v3.Parameter) bool { return q.Name == p.Name && q.In == p.In }) {
			out = append(out, p)
		}
	}
	return out
}

// readParam returns the param p with a valid value, or nil for one the
// test leaves alone (the headers OpenAPI has tools ignore).
func (g *gen) readParam(p *v3.Parameter) (*param, error) {
	pr := &param{name: p.Name, in: p.In, required: p.Required != nil && *p.Required || p.In == "path"}
	switch p.In {
	case "header":
		if n := strings.ToLower(p.Name); n == "accept" || n == "content-type" || n == "authorization" {
			return nil, nil
		}
	case "path", "query", "cookie":
	default:
		return nil, unsupported("params in " + p.In)
	}
	if p.Schema == nil || p.Schema.Schema() == nil {
		return nil, unsupported("a param without a schema")
	}
	pr.schema = p.Schema.Schema()
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
// with a valid body.
func (g *gen) readBody(o *operation, rb *v3.RequestBody, notes func(string)) error {
	if rb == nil {
		return nil
	}
	o.bodyRequired = rb.Required != nil && *rb.Required
	var why []string
	for name, mt := range rb.Content.FromOldest() {
		md := &media{name: name, m: asJSON}
		switch ct := strings.ToLower(name); {
		case ct == "application/json" || strings.HasSuffix(ct, "+json"):
		case ct == "application/x-www-form-urlencoded":
			md.m = asText
		default:
			why = append(why, "a body of "+name+" is not written")
			continue
		}
		if mt.Schema == nil || mt.Schema.Schema() == nil {
			why = append(why, "the "+name+" body has no schema")
			continue
		}
		md.schema = mt.Schema.Schema()
		if md.m == asText && kindOf(md.schema) != "object" {
			why = append(why, "a form body that is no object")
			continue
		}
		v, err := g.value(md.schema, md.m, true, 0)
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
// satisfy (OpenAPI 3.1 section 4.8.30): any one of them suffices.
func (o *operation) readSecurity(doc *v3.Document, op *v3.Operation, creds map[string]string) {
	reqs := op.Security
	if reqs == nil {
		reqs = doc.Security
	}
	for _, r := range reqs {
		if r.ContainsEmptyRequirement || orderedmap.Len(r.Requirements) == 0 {
			o.secured, o.creds = false, nil
			return
		}
		o.secured = true
		var cs []cred
		for name := range r.Requirements.FromOldest() {
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
	if !o.secured {
		o.authorized = true
	}
}

// credential returns how the scheme named name carries creds[name].
func credential(doc *v3.Document, name string, creds map[string]string) (cred, bool) {
	v, ok := creds[name]
	if !ok || doc.Components == nil || doc.Components.SecuritySchemes == nil {
		return cred{}, false
	}
	s := doc.Components.SecuritySchemes.GetOrZero(name)
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

// responses returns op's declared answers, default last.
func responses(op *v3.Operation) []*v3.Response {
	var out []*v3.Response
	if op.Responses == nil {
		return nil
	}
	for _, r := range op.Responses.Codes.FromOldest() {
		out = append(out, r)
	}
	if op.Responses.Default != nil {
		out = append(out, op.Responses.Default)
	}
	return out
}
