package contracttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strings"

	"github.com/pb33f/libopenapi-validator/content"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/waltz-go/waltz/openapi"
)

// A multipart/form-data body (RFC 7578) as the document describes it: an
// object schema whose members are its parts, and an encoding per part
// (OpenAPI 3.1 section 4.8.15) whose contentType lists the media types
// the part may be. A member is
//
//   - a file part when its schema is a binary string (format binary,
//     OpenAPI 3.0's word; a contentMediaType or contentEncoding, 3.1's)
//     or its encoding lists a media type that is neither text/plain nor
//     JSON; an array of such is one file part per item;
//   - a part holding one JSON value when its encoding is JSON, or it is
//     an object or an array of objects or arrays (section 4.8.15.1's
//     default);
//   - a text part otherwise, a scalar written as a form field is (an
//     array of scalars: one part per item).
//
// A file part carries a file of one of its media types (files.go); a
// file of a type its encoding does not list is a request the document
// forbids, which libopenapi-validator does not judge (it reads no
// encoding): the run judges it by the encoding itself, as it judges a
// body of a media type the document does not list.

// partKind is how a part travels.
type partKind int

const (
	textPart partKind = iota
	jsonPart
	filePart
)

// part is one member of a multipart body.
type part struct {
	name   string
	kind   partKind
	schema *base.Schema // the member's
	multi  bool         // a file part that is an array: one part per item
	types  []string     // a file part's media types and ranges
}

// readParts returns the parts of the multipart body of schema s, whose
// encodings enc are the model's, or why the body cannot be written.
func readParts(s *base.Schema, enc map[string]*openapi.Encoding) ([]*part, error) {
	if kindOf(s) != "object" || s.Properties == nil {
		return nil, unsupported("a multipart body that is no object with properties")
	}
	var parts []*part
	for name, sp := range s.Properties.FromOldest() {
		ps := sp.Schema()
		if ps == nil {
			if slices.Contains(s.Required, name) {
				return nil, unsupported("part " + name + " has a schema libopenapi cannot resolve")
			}
			continue
		}
		p := &part{name: name, schema: ps}
		var ranges []string
		if e := enc[name]; e != nil {
			ranges = mediaRanges(e.ContentType)
		}
		item := ps
		if it := items(ps); kindOf(ps) == "array" && it != nil {
			item = it
		}
		switch k := kindOf(item); {
		case binary(item) || len(ranges) > 0 && !textOrJSON(ranges):
			p.kind, p.multi = filePart, item != ps
			p.types = ranges
			if len(p.types) == 0 && item.ContentMediaType != "" {
				p.types = mediaRanges(item.ContentMediaType)
			}
			if len(p.types) == 0 {
				p.types = []string{"application/octet-stream"} // section 4.8.15.1's default for binary
			}
		case len(ranges) > 0 && jsonRanges(ranges), kindOf(ps) == "object", k == "object" || item != ps && k == "array":
			p.kind = jsonPart
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// binary reports whether s is the schema of a file: a binary string.
func binary(s *base.Schema) bool {
	return kindOf(s) == "string" && (s.Format == "binary" || s.ContentMediaType != "" || s.ContentEncoding != "")
}

// textOrJSON reports whether every one of ranges is text/plain or JSON.
func textOrJSON(ranges []string) bool {
	for _, r := range ranges {
		if r != "text/plain" && !jsonType(r) {
			return false
		}
	}
	return true
}

// jsonRanges reports whether ranges are JSON's.
func jsonRanges(ranges []string) bool {
	return slices.ContainsFunc(ranges, jsonType)
}

func jsonType(mt string) bool { return mt == "application/json" || strings.HasSuffix(mt, "+json") }

// part returns md's part named name, or nil.
func (md *media) part(name string) *part {
	for _, p := range md.parts {
		if p.name == name {
			return p
		}
	}
	return nil
}

// parts returns a value of md's multipart body: its required parts, and
// its optional ones when full (or at random).
func (g *gen) parts(md *media, full bool) (any, error) {
	o := object{}
	for _, p := range md.parts {
		req := slices.Contains(md.schema.Required, p.name)
		if p.schema.ReadOnly != nil && *p.schema.ReadOnly || !req && !full && g.rnd.IntN(2) == 0 {
			continue
		}
		v, err := g.partValue(p, full)
		if err != nil {
			if req {
				return nil, fmt.Errorf("part %s: %w", p.name, err)
			}
			continue
		}
		o = append(o, member{p.name, v})
	}
	return o, nil
}

// partValue returns a value of the part p: a file of its first media
// type when full (else of one at random), or a value of its schema.
func (g *gen) partValue(p *part, full bool) (any, error) {
	switch p.kind {
	case textPart:
		return g.value(p.schema, asText, full, 1)
	case jsonPart:
		return g.value(p.schema, asJSON, full, 1)
	}
	types := fileTypes(p.types)
	mt := types[0]
	if !full {
		mt = types[g.rnd.IntN(len(types))]
	}
	if !p.multi {
		return fileOf(mt), nil
	}
	lo, hi := lengths(p.schema.MinItems, p.schema.MaxItems)
	n := max(lo, 1)
	if hi >= 0 {
		n = min(n, hi)
	}
	return files(mt, n), nil
}

// files returns n files of the media type mt.
func files(mt string, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fileOf(mt)
	}
	return out
}

// partVariants returns the variants of v, a valid value of md's
// multipart body: each part's, and each part left out.
func (g *gen) partVariants(md *media, v any) []variant {
	o, _ := v.(object)
	var out []variant
	for _, p := range md.parts {
		cur, present := o.get(p.name)
		if !present {
			continue
		}
		loc := "body." + p.name
		var vs []variant
		switch p.kind {
		case textPart:
			vs = g.variants(p.schema, cur, loc, asText, 1)
		case jsonPart:
			vs = g.variants(p.schema, cur, loc, asJSON, 1)
		case filePart:
			vs = fileVariants(p, cur, loc)
		}
		for _, pv := range vs {
			pv.v = o.with(p.name, pv.v)
			out = append(out, pv)
		}
		out = append(out, variant{loc: loc, rule: "left out", kw: "required", v: o.without(p.name), valid: !slices.Contains(md.schema.Required, p.name)})
	}
	if closed(md.schema) {
		name := "unknownPart"
		for md.part(name) != nil {
			name += "X"
		}
		out = append(out, variant{loc: "body", rule: "unknown member", kw: "additionalProperties", v: o.with(name, "x"), valid: false})
	}
	return out
}

// fileVariants returns the variants of cur, the value of the file part p
// at loc: a file of each other media type it lists, one of a type it does
// not list, and for an array, the counts at and past its bounds.
func fileVariants(p *part, cur any, loc string) []variant {
	var out []variant
	n := 1
	if a, ok := cur.([]any); ok {
		n = len(a)
	}
	of := func(mt string) any {
		if p.multi {
			return files(mt, n)
		}
		return fileOf(mt)
	}
	types := fileTypes(p.types)
	for _, mt := range types[1:min(len(types), 8)] {
		out = append(out, variant{loc: loc, rule: "a file of " + mt, kw: "contentType", v: of(mt), valid: true, byEncoding: true})
	}
	if mt := otherType(p.types); mt != "" {
		out = append(out, variant{loc: loc, rule: "a file of " + mt + ", which it does not list", kw: "contentType", v: of(mt), byEncoding: true})
	}
	if !p.multi {
		return out
	}
	lo, hi := lengths(p.schema.MinItems, p.schema.MaxItems)
	count := func(kw, rule string, n int, valid bool) {
		out = append(out, variant{loc: loc, rule: rule, kw: kw, v: files(types[0], n), valid: valid})
	}
	if lo > 0 {
		count("minItems", "at minItems", lo, true)
		if lo > 1 {
			count("minItems", "under minItems", lo-1, false)
		}
	}
	if p.schema.MaxItems != nil && hi <= 100 {
		if hi > 0 {
			count("maxItems", "at maxItems", hi, true)
		}
		count("maxItems", "over maxItems", hi+1, false)
	}
	return out
}

// boundary separates the parts of every multipart body the run sends:
// no value it makes holds it.
const boundary = "contracttest-7d1c0e5b9a3f"

// multipart returns v, a value of md's multipart body, as
// multipart/form-data: each member a part, in order, a file part with
// its filename and media type, a JSON part as application/json, a text
// part as a form field (an array: one part per item).
func (md *media) multipart(v any) []byte {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.SetBoundary(boundary) // a valid boundary
	o, _ := v.(object)
	for _, m := range o {
		kind := textPart
		if p := md.part(m.name); p != nil {
			kind = p.kind
		}
		switch fs := fileValues(m.v); {
		case kind == filePart && fs != nil:
			for _, f := range fs {
				h := textproto.MIMEHeader{}
				h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(m.name)+`"; filename="`+quoteEscaper.Replace(f.name(m.name))+`"`)
				h.Set("Content-Type", f.ctype)
				pw, _ := w.CreatePart(h)
				_, _ = pw.Write(f.data) // to memory
			}
		case kind == jsonPart:
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(m.name)+`"`)
			h.Set("Content-Type", "application/json")
			pw, _ := w.CreatePart(h)
			_, _ = pw.Write(appendJSON(nil, m.v))
		default:
			for _, t := range texts(m.v, "") {
				_ = w.WriteField(m.name, t)
			}
		}
	}
	_ = w.Close()
	return b.Bytes()
}

// quoteEscaper escapes a quoted string of a Content-Disposition, as
// multipart.Writer does (RFC 7578 section 4.2).
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

// fileValues returns the files of a file part's value, one or an array,
// or nil when it holds something else.
func fileValues(v any) []file {
	switch v := v.(type) {
	case file:
		return []file{v}
	case []any:
		var fs []file
		for _, e := range v {
			f, ok := e.(file)
			if !ok {
				return nil
			}
			fs = append(fs, f)
		}
		return fs
	}
	return nil
}

// partsDecoder decodes a multipart/form-data request for
// libopenapi-validator, as the document's encodings say: a file part
// (one with a filename, or of a media type that is neither text nor
// JSON) as a string of its bytes, a JSON part as its value, a text part
// as its text read as the member's type; a member that is an array
// gathers its parts. Its own multipart decoder reads every part as text,
// which a JSON part's schema would refuse.
func partsDecoder() content.Decoder {
	return content.DecoderFunc(func(in *content.DecodeInput) (any, error) {
		r := multipart.NewReader(in.Body, in.Parameters["boundary"])
		values := map[string]any{}
		for {
			p, err := r.NextPart()
			if errors.Is(err, io.EOF) {
				return values, nil
			}
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(p)
			if err != nil {
				return nil, err
			}
			name := p.FormName()
			prop := property(in.Schema, name)
			item := prop
			if it := items(prop); prop != nil && kindOf(prop) == "array" && it != nil {
				item = it
			}
			mt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
			var v any = string(b)
			switch {
			case jsonType(mt):
				d := json.NewDecoder(bytes.NewReader(b))
				d.UseNumber()
				if err := d.Decode(&v); err != nil {
					return nil, fmt.Errorf("part %q: %v", name, err)
				}
				values[name] = v
				continue
			case p.FileName() == "" && (mt == "" || mt == "text/plain") && item != nil:
				v = content.ParseScalar(string(b), kindOf(item))
			}
			if prev, ok := values[name].([]any); ok {
				values[name] = append(prev, v)
			} else if prop != nil && kindOf(prop) == "array" {
				values[name] = []any{v}
			} else {
				values[name] = v
			}
		}
	})
}

// property returns the schema of s's member name, or nil.
func property(s *base.Schema, name string) *base.Schema {
	if s == nil || s.Properties == nil {
		return nil
	}
	if sp := s.Properties.GetOrZero(name); sp != nil {
		return sp.Schema()
	}
	return nil
}
