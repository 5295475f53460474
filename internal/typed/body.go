package typed

import (
	"io"
	"net/http"
	"reflect"
	"unsafe"
)

// bodyPlan is the plan of an In type's Body field: the request body,
// decoded from JSON, or from a form when the body is a flat struct.
type bodyPlan struct {
	off   uintptr
	typ   reflect.Type   // the body's type; the pointed-to type for a pointer
	ptr   bool           // *T: the body is optional, nil when absent
	form  *InPlan        // the body's fields as form fields, for the form kind; nil otherwise
	node  *dnode         // how a JSON body is decoded and checked
	multi *multipartPlan // a body with file members, for the multipart kind; nil otherwise
	media []*mediaKind   // the kinds of body the operation takes (see media.go)
	// needType refuses a request without a Content-Type, whatever its
	// body: a QUERY's (RequireContentType).
	needType bool
	doc      string
}

// planBody plans the field f of t, named Body.
func planBody(t reflect.Type, f reflect.StructField) (*bodyPlan, error) {
	if err := checkTags(f.Tag); err != nil {
		return nil, PlanError(t, &f, "%v", err)
	}
	bp := &bodyPlan{off: f.Offset, typ: f.Type, doc: f.Tag.Get("doc")}
	if f.Type.Kind() == reflect.Pointer {
		bp.typ, bp.ptr = f.Type.Elem(), true
	}
	mp, err := planMultipart(t, &f, bp.typ)
	if err != nil {
		return nil, err
	}
	if mp != nil {
		bp.multi = mp
		if err := bp.planMedia(&f, multipartKind); err != nil {
			return nil, PlanError(t, &f, "%v", err)
		}
		return bp, nil
	}
	if bad := undecodable(bp.typ, map[reflect.Type]bool{}); bad != nil {
		return nil, PlanError(t, &f, "encoding/json cannot decode a %s, inside the body", bad)
	}
	pl := newPlanner(false)
	node, err := planDecode(bp.typ, pl)
	if err != nil {
		return nil, PlanError(t, &f, "%v", err)
	}
	bp.node = node
	def := mediaKinds[0]
	if isMergePatch(bp.typ) {
		def = mergePatchKind
	}
	if err := bp.planMedia(&f, def); err != nil {
		return nil, PlanError(t, &f, "%v", err)
	}
	if pl.selfRules != nil && (bp.takes(mediaKinds[0]) || bp.takes(mergePatchKind)) {
		// A form body alone binds each member by its text, rules checked.
		return nil, PlanError(t, &f, "%v", pl.selfRules)
	}
	return bp, nil
}

// planForm returns the plan of st's fields as form fields, named by their
// JSON names, or nil when a field is no scalar, pointer to one or slice of
// them.
func planForm(st reflect.Type) *InPlan {
	fp := &InPlan{typ: st}
	for _, jf := range jsonFields(st) {
		if jf.viaPointer {
			return nil // a form fills no struct behind a pointer
		}
		pr := &param{place: inForm, name: jf.name, loc: "body." + jf.name, goName: jf.f.Name,
			off: jf.f.Offset, field: jf.f, index: len(fp.params)}
		if pr.setType(st, &jf.f) != nil || pr.setTags(st, &jf.f) != nil {
			return nil
		}
		pr.required = pr.required || requiredMember(jf) && pr.def == nil
		fp.params = append(fp.params, pr)
	}
	if len(fp.params) > maxFields {
		return nil
	}
	fp.query = fp.params
	return fp
}

// bind decodes the request body into the In value of b, by the kind of
// body its Content-Type names: one bp takes, or a 415.
func (bp *bodyPlan) bind(b *binder) error {
	req := b.in.Req
	ct, twice := contentType(req.Header)
	if twice != nil {
		return twice
	}
	if ct == "" {
		if bp.needType {
			return bp.untyped()
		}
		// A body of no bytes has no media type: absent, whether its
		// length was announced or it came chunked.
		empty, err := noBytes(b.in.W, req, b.in.Body.MaxBytes)
		if err != nil {
			return b.bodyError(err)
		}
		if empty {
			if !bp.ptr {
				b.fail("body", "required", "is required")
			}
			return nil
		}
	}
	k := bp.kindOf(ct)
	if ce := coding(req.Header); k == nil || ce != "" {
		return bp.unsupported(ct, ce)
	}
	return bp.bindKind(k, b)
}

// at returns the body value's address in b's In, made for an optional body.
func (bp *bodyPlan) at(b *binder) unsafe.Pointer {
	p := fieldAt(b.base, bp.off)
	if bp.ptr {
		p = setNew(p, bp.typ)
	}
	return p
}

// bindJSON reads a JSON body and decodes it into b's In.
func (bp *bodyPlan) bindJSON(b *binder) error {
	bb := getBuf()
	raw, err := ReadBody(b.in.W, b.in.Req, b.in.Body.MaxBytes, bb.b)
	if err == nil {
		bp.decode(b, raw)
	}
	putBuf(bb, raw)
	if err != nil {
		return b.bodyError(err)
	}
	return nil
}

// undecodable returns a type inside t that encoding/json refuses to
// decode into (a channel, a function, a complex number), or nil; seen
// holds the types looked at, for recursive ones.
func undecodable(t reflect.Type, seen map[reflect.Type]bool) reflect.Type {
	if seen[t] || t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		reflect.PointerTo(t).Implements(textUnmarshaler) && t.Kind() != reflect.Struct {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return t
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return undecodable(t.Elem(), seen)
	case reflect.Map:
		if bad := undecodable(t.Key(), seen); bad != nil {
			return bad
		}
		return undecodable(t.Elem(), seen)
	case reflect.Struct:
		for _, jf := range jsonFields(t) {
			if bad := undecodable(jf.f.Type, seen); bad != nil {
				return bad
			}
		}
	}
	return nil
}

// bindForm reads a form body into the body value at p.
func (bp *bodyPlan) bindForm(b *binder, p unsafe.Pointer) error {
	in := &b.in
	bb := getBuf()
	raw, err := ReadBody(in.W, in.Req, in.Body.MaxBytes, bb.b)
	if err == nil {
		fb := binder{in: *in, base: p, nfails: b.nfails}
		// string(raw) is a copy, which the string values bound keep;
		// raw itself goes back to the pool.
		fb.query("body", bp.form.query, string(raw), in.Body.Strict)
		fb.absent(bp.form.params)
		b.nfails, b.broken = fb.nfails, b.broken || fb.broken
	}
	putBuf(bb, raw)
	return err
}

// bodyError turns ReadBody's error into a failure of b when it is a 400
// (a body that could not be read), or returns it when it is about the
// request as a whole (413, 408).
func (b *binder) bodyError(err error) error {
	be, ok := err.(*BodyError)
	if !ok || be.Status != http.StatusBadRequest {
		return err
	}
	b.broken = true
	b.fail("body", "syntax", be.Message)
	return nil
}

// emptyBody reports whether req has no body bytes, without reading them
// when it does not know.
func emptyBody(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0
}

// noBytes reports whether req's body has no bytes: at once when its
// length is known, else (chunked: ContentLength -1) by reading one
// byte, through OpenBody's limit and read deadline. It is asked only of
// a request with no Content-Type, which a body that has bytes fails
// (415) whatever they are, so the byte read is not put back. Its error
// is ReadError's.
func noBytes(w http.ResponseWriter, req *http.Request, maxBytes int64) (bool, error) {
	switch {
	case emptyBody(req):
		return true, nil
	case req.ContentLength > 0:
		return false, nil
	}
	body, err := OpenBody(w, req, maxBytes)
	if err != nil {
		return false, err
	}
	var one [1]byte
	switch _, err := io.ReadFull(body, one[:]); err {
	case nil:
		return false, nil
	case io.EOF:
		return true, nil
	default:
		return false, ReadError(err)
	}
}
