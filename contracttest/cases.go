package contracttest

import (
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/waltz-go/waltz/openapi"
)

// A testCase is one request the run sends: a name that stays the same
// from run to run ("createBookmark body.title over maxLength"), what it
// is about (the Known that names it), whether the document admits it,
// and its values.
type testCase struct {
	name  string
	about Known // Operation, Location and Keyword; no Reason
	valid bool
	why   string // for an invalid case, what the document says the request breaks
	v     values
}

// operation makes the cases of one operation and sends them.
func (run *runner) operation(path, method string, item *openapi.PathItem, op *openapi.Operation) {
	run.t.Helper()
	o, err := run.readOperation(path, method, item, op)
	if err != nil {
		run.note(method + " " + path + " (every request): " + err.Error())
		return
	}
	if o.secured && !o.authorized {
		run.note(o.id + ": no Options.Credentials meet its security requirement: its requests go without, and none may be answered 2xx")
	}
	if run.routes != nil {
		o.route = run.routes.ops[o.method+" "+o.path]
	}
	for _, c := range run.cases(o) {
		run.send(o, c)
	}
}

// cases returns the cases of o: its valid values, Count random valid
// ones, then each variant of each param and each body, each required
// value left out, the body in a media type the document does not list,
// and the request without its credentials.
func (run *runner) cases(o *operation) []testCase {
	first := o.base()
	valid := Known{Operation: o.id}
	cs := []testCase{{name: o.id + " valid", about: valid, valid: true, v: first}}
	count := run.opts.Count
	if len(o.params) == 0 && len(o.media) == 0 {
		count = 0 // nothing to vary: the valid request is the only one
	}
	for i := range count {
		if v, ok := run.random(o, i); ok {
			cs = append(cs, testCase{name: o.id + " valid #" + strconv.Itoa(i+1), about: valid, valid: true, v: v})
		}
	}
	cs = append(cs, run.paramCases(o, first)...)
	cs = append(cs, run.bodyCases(o, first)...)
	if len(o.media) > 0 {
		v := first
		v.ctype = "text/plain"
		cs = append(cs, testCase{name: o.id + " body as text/plain", about: Known{Operation: o.id, Location: "body", Keyword: "content"},
			why: "its media type is not one the document lists", v: v})
		if o.bodyRequired {
			v := first
			v.media, v.body = nil, nil
			cs = append(cs, testCase{name: o.id + " body left out", about: Known{Operation: o.id, Location: "body", Keyword: "required"},
				why: "the body is required", v: v})
		}
	}
	if o.creds != nil {
		v := first
		v.noAuth = true
		c := testCase{name: o.id + " without credentials", about: Known{Operation: o.id, Keyword: "security"},
			why: "it does not meet the security requirement", v: v}
		if !o.secured {
			c.about, c.valid, c.why = valid, true, "" // optional credentials: anonymous is served too
			c.v.body = run.renewed(first)
		}
		cs = append(cs, c)
	}
	if !o.authorized {
		for i := range cs {
			cs[i].valid, cs[i].why = false, "it does not meet the security requirement"
		}
	}
	return cs
}

// paramCases returns the variants of each param of o, each in the valid
// values first, and each param left out.
func (run *runner) paramCases(o *operation, first values) []testCase {
	var cs []testCase
	for i, p := range o.params {
		vs := run.g.variants(p.schema, p.value, p.loc(), asText, 0)
		if p.in != "path" {
			vs = append(vs, variant{loc: p.loc(), rule: "left out", kw: "required", omit: true, valid: !p.required})
		}
		for _, vr := range vs {
			if !vr.omit && !run.judged(p.schema, vr) {
				continue
			}
			v := first
			v.params = append([]any(nil), first.params...)
			v.params[i] = vr.v
			if vr.valid {
				v.body = run.renewed(first)
			}
			cs = append(cs, variantCase(o.id, vr, "", v))
		}
	}
	return cs
}

// bodyCases returns the variants of each body of o, each in the valid
// values first.
func (run *runner) bodyCases(o *operation, first values) []testCase {
	var cs []testCase
	for i, md := range o.media {
		suffix := ""
		if i > 0 {
			suffix = " (" + md.name + ")"
		}
		for _, vr := range run.g.bodyVariants(md, md.value) {
			if !run.judged(md.schema, vr) {
				continue
			}
			v := first
			v.media, v.body = md, run.fresh(md, vr)
			cs = append(cs, variantCase(o.id, vr, suffix, v))
		}
	}
	return cs
}

// fresh returns the body of the valid variant vr with every value off the
// path to its change drawn anew: a server that refuses a value it holds
// already (an email taken, a name in use) would refuse the variant for
// the valid values it shares with the case before it, which says nothing
// of the variant. Where the new values break a rule together with the
// variant's (an item of a uniqueItems array equal to a new one), the
// items of the arrays on the path stay the variant's; where they still
// do, the variant is sent as it is. An invalid variant and a multipart
// body keep the valid values. A variant at "" (none) renews the whole
// body.
func (run *runner) fresh(md *media, vr variant) any {
	if !vr.valid || md.m == asParts || vr.v == nil {
		return vr.v
	}
	f, err := run.g.body(md, true)
	if err != nil {
		return vr.v
	}
	for _, items := range []bool{true, false} {
		v := graft(vr.v, f, "body", vr.loc, items)
		if ok, _ := run.values.ValidateSchemaBytes(md.schema, appendJSON(nil, v)); ok {
			return v
		}
	}
	return vr.v
}

// graft returns v, the value at at, with each member that is not on the
// way to loc taken from f where f has it, and each item too when items is
// set (else the items of an array on the way stay v's).
func graft(v, f any, at, loc string, items bool) any {
	if at == loc {
		return v
	}
	take := func(child string, cur, fv any, has bool) any {
		switch {
		case under(loc, child):
			return graft(cur, fv, child, loc, items)
		case has:
			return fv
		}
		return cur
	}
	switch v := v.(type) {
	case object:
		fo, _ := f.(object)
		out := make(object, len(v))
		for i, mb := range v {
			fv, has := fo.get(mb.name)
			out[i] = member{mb.name, take(at+"."+mb.name, mb.v, fv, has)}
		}
		return out
	case []any:
		fa, _ := f.([]any)
		if !items && under(loc, at) {
			fa = nil
		}
		out := make([]any, len(v))
		for i, cur := range v {
			var fv any
			if i < len(fa) {
				fv = fa[i]
			}
			out[i] = take(at+"["+strconv.Itoa(i)+"]", cur, fv, i < len(fa))
		}
		return out
	}
	return v
}

// renewed returns the body of v drawn anew (fresh), for a valid case
// that changes something else.
func (run *runner) renewed(v values) any {
	if v.media == nil {
		return v.body
	}
	return run.fresh(v.media, variant{loc: "", v: v.body, valid: true})
}

// under reports whether loc is at or inside at.
func under(loc, at string) bool {
	return loc == at || strings.HasPrefix(loc, at+".") || strings.HasPrefix(loc, at+"[")
}

// variantCase returns the case of the variant vr of operation id.
func variantCase(id string, vr variant, suffix string, v values) testCase {
	c := testCase{name: id + " " + vr.loc + " " + vr.rule + suffix, about: Known{Operation: id, Location: vr.loc, Keyword: vr.kw},
		valid: vr.valid, v: v}
	if !vr.valid {
		c.why = vr.loc + ": " + vr.rule
	}
	return c
}

// random returns the i-th random valid values of o: optional params left
// out at random, the media types in turn.
func (run *runner) random(o *operation, i int) (values, bool) {
	g := run.g
	v := values{params: make([]any, len(o.params))}
	for j, p := range o.params {
		if !p.required && g.rnd.IntN(2) == 0 {
			continue
		}
		pv, err := g.value(p.schema, asText, false, 0)
		if err != nil || !run.judged(p.schema, variant{v: pv, valid: true}) {
			pv = p.value
		}
		v.params[j] = pv
	}
	if len(o.media) > 0 {
		md := o.media[i%len(o.media)]
		b, err := g.body(md, false)
		if err != nil || !run.judged(md.schema, variant{v: b, valid: true}) {
			return values{}, false
		}
		v.media, v.body = md, b
	}
	return v, true
}

// judged reports whether libopenapi-validator agrees with the generator
// on whether vr's value is one of s: a value the two judge otherwise is
// not sent (and counted), so that no request is called invalid that the
// document allows. null, which the validator does not judge, is valid
// where the schema is nullable; a part's media type, which no schema
// says, is judged by its encoding (byEncoding).
func (run *runner) judged(s *base.Schema, vr variant) bool {
	var ok bool
	if vr.byEncoding {
		return true
	}
	if vr.v == nil {
		ok = nullable(s)
	} else {
		ok, _ = run.values.ValidateSchemaBytes(s, appendJSON(nil, vr.v))
	}
	if ok != vr.valid {
		run.dropped++
		return false
	}
	return true
}
