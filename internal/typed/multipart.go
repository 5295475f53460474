package typed

import (
	"cmp"
	"mime"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/openapi"
)

// A Body struct with a file member is a multipart/form-data body (RFC
// 7578): each member is a part of that name (its JSON name). A file
// member (of a file type: see isFileType) takes an uploaded file; a
// scalar member, a pointer to one or a slice of them binds from the
// part's text as a form field does; any other member is a part holding
// one JSON value. The body is read part by part as it arrives
// (mime/multipart.Reader), never parsed whole: see bindparts.go.

var partPtrType = reflect.TypeFor[*Part]()

// isFileType reports whether t is a file type: a struct whose one field
// is a *Part, which the root package's File is, so that the engine fills
// it without knowing it.
func isFileType(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.NumField() == 1 && t.Field(0).Type == partPtrType
}

// multipartPlan is the plan of a Body struct with file members.
type multipartPlan struct {
	text  *InPlan // the scalar members, bound as a form's fields
	files []*fileMember
	jsons []*jsonMember
}

// fileMember is a member of a file type, a pointer to one (optional) or a
// slice of them (a repeated part).
type fileMember struct {
	filePart
	loc      string
	off      uintptr
	typ      reflect.Type // the member's type
	elem     reflect.Type // the file type
	ptr      bool
	multi    bool
	minItems int
	maxItems int
	required bool
	doc      string
}

// jsonMember is a member bound from a part holding one JSON value.
type jsonMember struct {
	name, loc string
	off       uintptr
	typ       reflect.Type
	node      *dnode // how the part's value is decoded and checked
	required  bool
	member    jsonField
}

// planMultipart returns the plan of the body struct st, the type of t's
// field f, or nil when st has no file member.
func planMultipart(t reflect.Type, f *reflect.StructField, st reflect.Type) (*multipartPlan, error) {
	if st.Kind() != reflect.Struct || !hasFileMember(st) {
		return nil, nil
	}
	mp := &multipartPlan{text: &InPlan{typ: st}}
	for _, jf := range jsonFields(st) {
		if jf.viaPointer {
			return nil, PlanError(st, &jf.f, "a multipart body fills no struct behind a pointer: embed it by value")
		}
		var err error
		switch ft := jf.f.Type; {
		case isFileType(ft) || isFileType(elemOf(ft)):
			err = mp.addFile(st, jf)
		case codecFor(ft) != nil || codecFor(elemOf(ft)) != nil && ft.Elem().Kind() != reflect.Uint8:
			err = mp.addText(st, jf)
		default:
			err = mp.addJSON(st, jf)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(mp.text.params) > maxFields {
		return nil, PlanError(t, f, "%d text parts, more than %d", len(mp.text.params), maxFields)
	}
	mp.text.query = mp.text.params
	return mp, nil
}

// hasFileMember reports whether a member of st has a file type, or is a
// pointer to or a slice of one.
func hasFileMember(st reflect.Type) bool {
	for _, jf := range jsonFields(st) {
		if isFileType(jf.f.Type) || isFileType(elemOf(jf.f.Type)) {
			return true
		}
	}
	return false
}

// elemOf returns the element type of a pointer or slice type, or t.
func elemOf(t reflect.Type) reflect.Type {
	if k := t.Kind(); k == reflect.Pointer || k == reflect.Slice {
		return t.Elem()
	}
	return t
}

func (mp *multipartPlan) addText(st reflect.Type, jf jsonField) error {
	pr := &param{place: inForm, name: jf.name, loc: "body." + jf.name, goName: jf.f.Name,
		off: jf.f.Offset, field: jf.f, index: len(mp.text.params)}
	if err := pr.setType(st, &jf.f); err != nil {
		return err
	}
	if err := pr.setTags(st, &jf.f); err != nil {
		return err
	}
	pr.required = pr.required || requiredMember(jf) && pr.def == nil
	mp.text.params = append(mp.text.params, pr)
	return nil
}

func (mp *multipartPlan) addFile(st reflect.Type, jf jsonField) error {
	f := jf.f
	fm := &fileMember{filePart: filePart{name: jf.name, max: 1<<63 - 1}, loc: "body." + jf.name,
		off: f.Offset, typ: f.Type, elem: elemOf(f.Type), doc: f.Tag.Get("doc"),
		ptr: f.Type.Kind() == reflect.Pointer, multi: f.Type.Kind() == reflect.Slice, minItems: -1, maxItems: defaultMaxItems}
	if isFileType(f.Type) {
		fm.elem = f.Type
	}
	if err := checkTags(f.Tag); err != nil {
		return PlanError(st, &f, "%v", err)
	}
	for _, k := range ruleTags {
		if _, ok := f.Tag.Lookup(k); ok && !(fm.multi && (k == "minItems" || k == "maxItems")) {
			return PlanError(st, &f, "tag %s does not apply to a file: a file takes accept and maxBytes (and a slice of them minItems and maxItems)", k)
		}
	}
	if v, ok := f.Tag.Lookup("maxBytes"); ok {
		n, good := parseSize(v)
		if !good {
			return PlanError(st, &f, "tag maxBytes:%q wants a positive number of bytes, or of KiB, MiB or GiB (\"512KiB\")", v)
		}
		fm.max = n
	}
	if v, ok := f.Tag.Lookup("accept"); ok {
		for _, a := range strings.Split(v, ",") {
			a = strings.ToLower(strings.TrimSpace(a))
			mt, params, err := mime.ParseMediaType(a)
			if err != nil || mt != a || len(params) > 0 || !strings.Contains(a, "/") || strings.HasPrefix(a, "*/") && a != "*/*" {
				return PlanError(st, &f, "tag accept:%q: %q is no media type or range (\"image/png\", \"image/*\")", v, a)
			}
			fm.accept = append(fm.accept, a)
		}
	}
	for _, k := range [...]string{"minItems", "maxItems"} {
		if v, ok := f.Tag.Lookup(k); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return PlanError(st, &f, "tag %s:%q wants a non-negative integer", k, v)
			}
			if k == "minItems" {
				fm.minItems = n
			} else {
				fm.maxItems = n
			}
		}
	}
	req, err := requiredTag(st, &f)
	if err != nil {
		return err
	}
	fm.required = req || !fm.ptr && !fm.multi && !jf.omitEmpty || fm.multi && fm.minItems > 0
	mp.files = append(mp.files, fm)
	return nil
}

func (mp *multipartPlan) addJSON(st reflect.Type, jf jsonField) error {
	f := jf.f
	if bad := undecodable(f.Type, map[reflect.Type]bool{}); bad != nil {
		return PlanError(st, &f, "encoding/json cannot decode a %s, inside the part", bad)
	}
	// The member's node as the body's decoder plans it, rules and all,
	// through a struct node that holds it alone.
	one := &dnode{typ: st}
	pl := newPlanner(false)
	if err := one.addField(jf, pl); err != nil {
		return err
	}
	if pl.selfRules != nil {
		return pl.selfRules
	}
	req, err := requiredTag(st, &f)
	if err != nil {
		return err
	}
	mp.jsons = append(mp.jsons, &jsonMember{name: jf.name, loc: "body." + jf.name, off: f.Offset, typ: f.Type,
		node:     one.fields[0].node,
		required: req || !jf.omitEmpty && f.Type.Kind() != reflect.Pointer, member: jf})
	return nil
}

func requiredTag(st reflect.Type, f *reflect.StructField) (bool, error) {
	v, ok := f.Tag.Lookup("required")
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, PlanError(st, f, "tag required:%q wants true or false", v)
	}
	return b, nil
}

// describe returns the media type object of the multipart body mp: an
// object schema with a property per part, in the order of the members,
// and the media types of each file and JSON part as its encoding.
func (mp *multipartPlan) describe(g *Schemas) *openapi.MediaType {
	s := &openapi.Schema{Type: "object", Properties: openapi.Properties{}}
	mt := &openapi.MediaType{Schema: s, Encoding: map[string]*openapi.Encoding{}}
	// The members in their order in the body type, whichever kind.
	type member struct {
		off  uintptr
		name string
		s    *openapi.Schema
		req  bool
	}
	var ms []member
	for _, pr := range mp.text.params {
		d := pr.document()
		ps := d.Schema
		if pr.doc != "" {
			ps.Description = pr.doc
		}
		if d.Example != nil {
			ps.Examples = []any{d.Example} // the parameter's, which a member has not
		}
		ms = append(ms, member{pr.off, pr.name, ps, pr.required})
	}
	for _, fm := range mp.files {
		fs := &openapi.Schema{Type: "string", Format: "binary", Description: fm.doc}
		if len(fm.accept) == 1 && !strings.Contains(fm.accept[0], "*") {
			fs.ContentMediaType = fm.accept[0]
		}
		doc := fm.doc
		if fm.max < 1<<63-1 {
			// The limit in the extension x-maxBytes, which no keyword
			// says, and in words for a reader.
			n := fm.max
			fs.MaxBytes = &n
			each := "At most "
			if fm.multi {
				each = "Each file at most "
			}
			doc = strings.TrimSpace(strings.TrimSuffix(doc, ".") + ". " + each + sizeWords(n) + ", or the request is refused with 413.")
			doc = strings.TrimPrefix(doc, ". ")
			fs.Description = doc
		}
		if fm.multi {
			fs.Description = ""
			fs = &openapi.Schema{Type: "array", Items: fs, Description: doc, MaxItems: &fm.maxItems}
			if fm.minItems > 0 {
				fs.MinItems = &fm.minItems
			}
		}
		ct := "application/octet-stream"
		if fm.accept != nil {
			ct = strings.Join(fm.accept, ", ")
		}
		mt.Encoding[fm.name] = &openapi.Encoding{ContentType: ct}
		ms = append(ms, member{fm.off, fm.name, fs, fm.required})
	}
	for _, jm := range mp.jsons {
		mt.Encoding[jm.name] = &openapi.Encoding{ContentType: "application/json"}
		ms = append(ms, member{jm.off, jm.name, g.member(jm.member), jm.required})
	}
	slices.SortStableFunc(ms, func(a, b member) int { return cmp.Compare(a.off, b.off) })
	for _, m := range ms {
		s.Properties = append(s.Properties, openapi.Property{Name: m.name, Schema: m.s})
		if m.req {
			s.Required = append(s.Required, m.name)
		}
	}
	return mt
}

// sizeWords returns n bytes in words: "64 KiB (65536 bytes)", or "100
// bytes" for a size of no whole unit.
func sizeWords(n int64) string {
	for _, u := range [...]struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.name + " (" + strconv.FormatInt(n, 10) + " bytes)"
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// HasFiles reports whether p's body has file members, whose binding may
// write temporary files to Input.Temp.
func (p *InPlan) HasFiles() bool { return p.body != nil && p.body.multi != nil }
