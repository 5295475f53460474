package apidocs

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/openapi"
)

// buildOp arranges one operation.
func buildOp(d *openapi.Document, path string, item *openapi.PathItem, m methodOp, base []piece, vars map[string]bool) *opView {
	op := m.op
	ov := &opView{Method: m.method, Path: path, ID: cmp.Or(op.OperationID, m.method+" "+path),
		Summary: op.Summary, Description: paragraphs(cmp.Or(op.Description, item.Description)), Deprecated: op.Deprecated}
	if ov.Summary == m.method+" "+path {
		ov.Summary = "" // what the heading says already
	}
	params := mergeParams(item.Parameters, op.Parameters)
	req := exampler{defs: d.Components.Schemas, request: true}
	for _, pr := range params {
		ov.Params = append(ov.Params, paramOf(req, pr))
	}
	if rb := op.RequestBody; rb != nil {
		ov.Body = &bodyView{Required: rb.Required, Description: paragraphs(rb.Description), Content: contents(req, rb.Content)}
	}
	ov.Responses = responses(exampler{defs: d.Components.Schemas}, op.Responses)
	var creds []credential
	ov.Security, ov.Anonymous, creds = security(d, op)
	for _, c := range creds {
		for _, pc := range c.value {
			if pc.isVar {
				vars[pc.text] = true
			}
		}
	}
	for _, pr := range params {
		if (pr.Required || pr.Example != nil || len(pr.Examples) > 0) && asksETag(pr) {
			ov.AsksETag, vars["ETAG"] = true, true
		}
	}
	ov.Curl = curl{method: m.method, base: base, path: path, params: params, body: op.RequestBody, creds: creds, ex: req}.line()
	return ov
}

// responses arranges an operation's answers in status order.
func responses(ex exampler, rs map[string]*openapi.Response) []*responseView {
	var rvs []*responseView
	for _, code := range statusOrder(rs) {
		r := rs[code]
		if r == nil {
			continue
		}
		rv := &responseView{Status: code, Description: r.Description, Class: statusClass(code)}
		for _, name := range sortedKeys(r.Headers) {
			if h := r.Headers[name]; h != nil {
				rv.Headers = append(rv.Headers, &paramView{Name: name, Required: h.Required, Type: typeOf(h.Schema),
					Rules: rules(h.Schema), Description: paragraphs(h.Description)})
			}
		}
		content := r.Content
		if rv.Class == "error" && problemOrText(content) {
			// RenderProblem's text for a client that prefers it: the
			// page says so once (page.ErrorsAsText), not under each.
			content = maps.Clone(content)
			delete(content, "text/plain")
			rv.TextToo = true
		}
		rv.Content = contents(ex, content)
		if rv.Class != "ok" {
			for _, c := range rv.Content {
				c.Example = "" // an error's example says little; its schema says it all
			}
		}
		rvs = append(rvs, rv)
	}
	return rvs
}

// problemOrText reports whether the content of an error answer is
// problem details (application/problem+json, RFC 9457 section 3) and,
// beside them, a text/plain string with no rule: the problem as text,
// which RenderProblem answers a client whose Accept prefers it.
func problemOrText(content map[string]*openapi.MediaType) bool {
	pj, text := content["application/problem+json"], content["text/plain"]
	if pj == nil || text == nil {
		return false
	}
	s := text.Schema
	return s == nil || s.Ref == "" && len(rules(s)) == 0 && slices.Equal(types(s), []string{"string"})
}

// security returns the security requirements of op (the document's
// when op has none of its own; OpenAPI 3.1 section 4.8.10.1) as
// alternatives, each the schemes it needs together, leaving out an
// empty one, which anonymous says (section 4.8.30: none needed); and how
// the curl line sends the first alternative's credentials.
func security(d *openapi.Document, op *openapi.Operation) (alts [][]part, anonymous bool, creds []credential) {
	reqs := d.Security
	if op.Security != nil {
		reqs = op.Security
	}
	for _, alt := range reqs {
		if len(alt) == 0 {
			anonymous = true
			continue
		}
		var names []part
		for _, name := range sortedKeys(alt) {
			names = append(names, part{Text: name, Anchor: schemeAnchor(name)})
		}
		if alts == nil {
			creds = credentials(alt, d.Components.SecuritySchemes)
		}
		alts = append(alts, names)
	}
	return alts, anonymous, creds
}

// mergeParams returns the path item's params that the operation does not
// override (same name and place, OpenAPI 3.1 section 4.8.9.1) and the
// operation's own.
func mergeParams(item, op []*openapi.Parameter) []*openapi.Parameter {
	var all []*openapi.Parameter
	for _, p := range item {
		if p != nil && !slices.ContainsFunc(op, func(o *openapi.Parameter) bool { return o != nil && o.Name == p.Name && o.In == p.In }) {
			all = append(all, p)
		}
	}
	for _, p := range op {
		if p != nil {
			all = append(all, p)
		}
	}
	return all
}

func paramOf(ex exampler, pr *openapi.Parameter) *paramView {
	pv := &paramView{Name: pr.Name, In: pr.In, Required: pr.Required, Deprecated: pr.Deprecated,
		Type: typeOf(pr.Schema), Rules: rules(pr.Schema), Description: paragraphs(pr.Description)}
	if pr.Schema != nil && pr.Description == "" {
		pv.Description = paragraphs(pr.Schema.Description)
	}
	if pr.In == "query" && pr.Schema != nil && slices.Contains(types(pr.Schema), "array") {
		if w := arrayWords(pr); w != "" {
			pv.Rules = append(pv.Rules, w)
		}
	}
	if pr.Example != nil || len(pr.Examples) > 0 || pr.Schema != nil && (len(pr.Schema.Examples) > 0 || pr.Schema.Example != nil) {
		pv.Example = paramExample(ex, pr)
	}
	return pv
}

// arrayWords says how the items of an array query param are written
// (OpenAPI 3.1 section 4.8.12.4): form style, each item a param of its
// own unless explode is false (the default for form, section 4.8.12.2),
// then comma-separated; "" for a style the page does not know.
func arrayWords(p *openapi.Parameter) string {
	switch {
	case p.Style != "" && p.Style != "form":
		return ""
	case p.Explode == nil || *p.Explode:
		return "each item a parameter of its own: " + p.Name + "=a&" + p.Name + "=b"
	}
	return "items comma-separated: " + p.Name + "=a,b"
}

// contents returns the schemas of a body's media types, media types of
// the same schema together.
func contents(ex exampler, content map[string]*openapi.MediaType) []*contentView {
	var cvs []*contentView
	seen := map[string]*contentView{}
	for _, mt := range sortedKeys(content) {
		m := content[mt]
		if m == nil {
			m = &openapi.MediaType{}
		}
		s := m.Schema
		switch {
		case s == nil && m.ItemSchema != nil:
			// A sequential media type described item by item (OpenAPI
			// 3.2): a stream of events, JSON Lines.
			s = m.ItemSchema
		case s != nil && s.Type == "string" && s.ContentMediaType == mt && s.ContentSchema != nil &&
			s.ContentSchema.Type == "array" && s.ContentSchema.Items != nil:
			// The same in 3.1, which has no itemSchema: a string of the
			// media type, whose content is an array of items (waltz
			// writes an event stream so).
			s = s.ContentSchema.Items
		}
		cv := &contentView{MediaTypes: []string{mt}, Schema: view(s), Items: s != m.Schema}
		if s != nil && s.Ref != "" {
			cv.Schema.Props = nil // the schema's own section lists them
		}
		// Media types whose schemas read the same are shown together.
		key := jsonText(cv.Schema, false) + jsonText(m.Example, false) + strconv.FormatBool(cv.Items)
		if same := seen[key]; same != nil {
			same.MediaTypes = append(same.MediaTypes, mt)
			if same.Example == "" && isJSON(mt) {
				same.Example = exampleText(ex, m)
			}
			continue
		}
		switch {
		case isJSON(mt):
			cv.Example = exampleText(ex, m)
		case cv.Items && isJSONLines(mt):
			cv.Example = linesExample(ex, s)
		}
		seen[key] = cv
		cvs = append(cvs, cv)
	}
	return cvs
}

// linesExample returns an example of JSON Lines whose items have the
// schema s: two items, each on a line of its own, as the wire has them.
func linesExample(ex exampler, s *openapi.Schema) string {
	v := ex.value(s)
	if v == nil {
		return ""
	}
	line := jsonText(v, false)
	return line + "\n" + line
}

// isJSONLines reports whether mt is JSON Lines or its twin, NDJSON.
func isJSONLines(mt string) bool {
	mt, _, _ = strings.Cut(mt, ";")
	mt = strings.TrimSpace(strings.ToLower(mt))
	return mt == "application/jsonl" || mt == "application/x-ndjson"
}

// exampleText returns the example of a JSON media type, indented: its
// own, else one made from its schema.
func exampleText(ex exampler, m *openapi.MediaType) string {
	v := m.Example
	if v == nil {
		v = ex.value(m.Schema)
	}
	if v == nil {
		return ""
	}
	return jsonText(v, true)
}

// statusOrder returns the response keys in reading order: codes and
// ranges ("2XX") by number, then "default".
func statusOrder(rs map[string]*openapi.Response) []string {
	keys := sortedKeys(rs)
	slices.SortStableFunc(keys, func(a, b string) int {
		return cmp.Compare(b2i(a == "default"), b2i(b == "default"))
	})
	return keys
}

// statusClass returns the page's class of a response key.
func statusClass(code string) string {
	switch {
	case strings.HasPrefix(code, "2"):
		return "ok"
	case strings.HasPrefix(code, "4"), strings.HasPrefix(code, "5"):
		return "error"
	}
	return "other"
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
