package typed

import (
	"encoding"
	"encoding/json"
	"net/http"
	"net/textproto"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/waltz-go/waltz/internal/cond"
	"github.com/waltz-go/waltz/internal/header"
)

// OutPlan is the plan of an Out type: where its status, headers and body
// are.
type OutPlan struct {
	typ       reflect.Type
	status    int     // the success status when the Status field is 0 or absent
	statusOff uintptr // the Status field's offset; see hasStatus
	hasStatus bool
	statuses  []int // the Status field's enum, sorted; nil when it has none (outstatus.go)
	headers   []outHeader
	names     []string     // the headers' names, for HeaderNames
	body      reflect.Type // the Body field's type; nil when there is none
	bodyOff   uintptr
	enc       *enode // how the body is written as JSON; nil: by encoding/json
	bodyDoc   string
	etag      *validatorField // the field tagged header:"ETag"; nil when there is none
	modified  *validatorField // the field tagged header:"Last-Modified"; nil when there is none
	opaque    bool            // the body is sent as it is (a download, events): no JSON schema of its type
}

// validatorField is where an Out type keeps one of its validators (RFC
// 9110 section 8.8): its ETag or its Last-Modified header field.
type validatorField struct {
	off uintptr
	ptr bool // a *string or *time.Time
	c   *codec
}

// outHeader is a field of Out tagged header:"Name".
type outHeader struct {
	name   string // canonical
	shown  string // as the tag spells it, for the document (Spellings)
	off    uintptr
	typ    reflect.Type
	doc    string
	format func(p unsafe.Pointer) (string, bool)
}

// PlanOut makes the plan of the Out type t, a struct, whose success status
// is status when its Status field is 0 or absent; status 0 means 200, or
// 204 when t has no Body field. The error names the type and the field
// that cannot be planned, and why.
func PlanOut(t reflect.Type, status int) (*OutPlan, error) {
	p, err := planOut(t, status)
	if err != nil {
		return nil, err
	}
	if err := p.checkDefault(status); err != nil {
		return nil, err
	}
	return p, nil
}

// PlanAnswer makes the plan of the Out type t, a struct, for a reader of
// its answers (the typed client), which reads whatever success status
// the server sends into Out. The server's Operation.Status is not known
// there, so unlike PlanOut it requires no default status in the enum of
// t's Status field: an Out whose enum is "202" alone plans. The error
// names the type and the field that cannot be planned, and why.
func PlanAnswer(t reflect.Type) (*OutPlan, error) {
	p, err := planOut(t, 0)
	if err != nil {
		return nil, err
	}
	if p.statuses != nil && !slices.Contains(p.statuses, p.status) {
		p.status = p.statuses[0]
	}
	return p, nil
}

// planOut is PlanOut without the check of the default status against
// the Status field's enum.
func planOut(t reflect.Type, status int) (*OutPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, PlanError(t, nil, "the output type must be a struct with a Body field, header fields or a Status field")
	}
	p := &OutPlan{typ: t, status: status}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if err := checkTags(f.Tag); err != nil {
			return nil, PlanError(t, &f, "%v", err)
		}
		name, isHeader := f.Tag.Lookup("header")
		switch {
		case isHeader:
			h, err := planHeader(t, f, name)
			if err != nil {
				return nil, err
			}
			p.headers = append(p.headers, h)
			p.names = append(p.names, h.name)
			if err := p.planValidator(t, f, h.name); err != nil {
				return nil, err
			}
		case f.Name == "Body":
			p.body, p.bodyOff, p.bodyDoc = f.Type, f.Offset, f.Tag.Get("doc")
			p.enc = planEncode(f.Type, map[reflect.Type]bool{})
		case f.Name == "Status":
			if f.Type.Kind() != reflect.Int {
				return nil, PlanError(t, &f, "a Status field must be an int")
			}
			p.statusOff, p.hasStatus = f.Offset, true
			if err := p.planStatuses(t, f); err != nil {
				return nil, err
			}
		default:
			return nil, PlanError(t, &f, "an output field is Body, Status, or tagged header:\"Name\"")
		}
	}
	if p.status == 0 {
		p.status = http.StatusOK
		if p.body == nil {
			p.status = http.StatusNoContent
		}
	}
	if p.status < 100 || p.status > 399 {
		return nil, PlanError(t, nil, "Operation.Status %d is no success status", status)
	}
	return p, nil
}

// planValidator keeps where the Out field f is when it is one of the
// validators a conditional request compares with: the header field ETag,
// a string (an entity tag quoted as RFC 9110 section 8.8.3 writes it),
// or Last-Modified, a time.Time (section 8.8.2); either may be a pointer.
// name is f's header name, canonical.
func (p *OutPlan) planValidator(t reflect.Type, f reflect.StructField, name string) error {
	ft, ptr := f.Type, false
	if ft.Kind() == reflect.Pointer {
		ft, ptr = ft.Elem(), true
	}
	switch name {
	case "Etag":
		if ft.Kind() != reflect.String {
			return PlanError(t, &f, "the ETag header field must be a string, the entity tag quoted (`\"v7\"` or `W/\"v7\"`)")
		}
		p.etag = &validatorField{off: f.Offset, ptr: ptr, c: codecFor(ft)}
	case "Last-Modified":
		if ft != timeType {
			return PlanError(t, &f, "the Last-Modified header field must be a time.Time")
		}
		p.modified = &validatorField{off: f.Offset, ptr: ptr, c: codecFor(ft)}
	}
	return nil
}

// load returns the value of the validator v in out, a non-nil *Out, and
// whether it has one (v is not nil, nor its pointer).
func (v *validatorField) load(out unsafe.Pointer) (scalar, bool) {
	if v == nil {
		return scalar{}, false
	}
	p := fieldAt(out, v.off)
	if v.ptr {
		if p = deref(p); p == nil {
			return scalar{}, false
		}
	}
	return v.c.load(p), true
}

// HasValidators reports whether p's Out type has an ETag or a
// Last-Modified header field, which a conditional request compares with.
func (p *OutPlan) HasValidators() bool { return p.etag != nil || p.modified != nil }

// Validators returns the entity tag and the modification time that out, a
// non-nil *Out of p's type, carries in its ETag and Last-Modified header
// fields: "" and the zero time for a field p's type does not have or out
// leaves empty.
func (p *OutPlan) Validators(out unsafe.Pointer) (etag string, modified time.Time) {
	if v, ok := p.etag.load(out); ok {
		etag = v.s
	}
	if v, ok := p.modified.load(out); ok {
		modified = v.t
	}
	return etag, modified
}

// planHeader plans the Out field f, tagged header:name.
func planHeader(t reflect.Type, f reflect.StructField, name string) (outHeader, error) {
	if !header.IsToken(name) {
		return outHeader{}, PlanError(t, &f, "tag header:%q is no header name", name)
	}
	h := outHeader{name: textproto.CanonicalMIMEHeaderKey(name), shown: name, off: f.Offset, typ: f.Type, doc: f.Tag.Get("doc")}
	ft, ptr := f.Type, false
	if ft.Kind() == reflect.Pointer {
		ft, ptr = ft.Elem(), true
	}
	format := headerFormat(ft)
	if format == nil {
		return outHeader{}, PlanError(t, &f, "cannot write this type as a header: use a string, bool, "+
			"an integer, a float, time.Time (an HTTP-date), time.Duration (seconds) or an encoding.TextMarshaler")
	}
	if h.name == "Last-Modified" && ft == timeType {
		format = lastModifiedFormat(ft)
	}
	h.format = format
	if ptr {
		h.format = func(p unsafe.Pointer) (string, bool) {
			if q := deref(p); q != nil {
				return format(q)
			}
			return "", false
		}
	}
	return h, nil
}

// lastModifiedFormat returns the function that writes a Last-Modified
// field of t, time.Time: an HTTP-date, sent only once the second it
// names has ended (cond.Settled). A date names a second, and a
// representation changed in this one may change again within it and keep
// its date, so a client holding it could not tell the two versions
// apart (RFC 9110 section 8.8.2.2); a time in the future is not sent
// either (section 8.8.2.1). An ETag still tells them apart.
func lastModifiedFormat(t reflect.Type) func(p unsafe.Pointer) (string, bool) {
	tc := codecFor(t)
	return func(p unsafe.Pointer) (string, bool) {
		tm := tc.load(p).t
		if tm.IsZero() || !cond.Settled(tm, time.Now()) {
			return "", false
		}
		return tm.UTC().Format(http.TimeFormat), true
	}
}

// headerFormat returns the function that writes a header value of type t,
// and whether to send it: a zero time or an empty string is not sent.
func headerFormat(t reflect.Type) func(p unsafe.Pointer) (string, bool) {
	switch {
	case t == timeType:
		tc := codecFor(t)
		return func(p unsafe.Pointer) (string, bool) {
			tm := tc.load(p).t
			// RFC 9110 section 5.6.7: an HTTP-date is in GMT.
			return tm.UTC().Format(http.TimeFormat), !tm.IsZero()
		}
	case t == durationType:
		// As Retry-After and Age give it: whole seconds (RFC 9110 section 10.2.3).
		dc := codecFor(t)
		return func(p unsafe.Pointer) (string, bool) {
			return strconv.FormatInt(dc.load(p).i/int64(time.Second), 10), true
		}
	case t.Implements(textMarshaler):
		return func(p unsafe.Pointer) (string, bool) {
			b, err := reflect.NewAt(t, p).Elem().Interface().(encoding.TextMarshaler).MarshalText()
			return string(b), err == nil && len(b) > 0
		}
	}
	c := codecFor(t)
	if c == nil || c.kind == kText {
		return nil
	}
	return func(p unsafe.Pointer) (string, bool) {
		s := c.format(c.load(p))
		return s, s != ""
	}
}

// Status returns the status of the answer out, a non-nil *Out of p's
// type: its Status field when that is not 0, else the success status;
// and whether the Status field's enum lists it (true when the field has
// no enum).
func (p *OutPlan) Status(out unsafe.Pointer) (int, bool) {
	if p.hasStatus {
		// NOTE: out points to a value of p's Out type, whose int Status
		// field is at statusOff.
		if s := intAt(fieldAt(out, p.statusOff)); s != 0 {
			return s, p.statuses == nil || slices.Contains(p.statuses, s)
		}
	}
	return p.status, true
}

// SetHeaders sets in h each header field of out, a non-nil *Out of p's
// type, that has a value (a zero time, an empty string or a nil pointer
// has none).
func (p *OutPlan) SetHeaders(out unsafe.Pointer, h http.Header) {
	if len(p.headers) > 0 { // inlined: an Out without header fields costs no call
		p.setHeaders(out, h)
	}
}

func (p *OutPlan) setHeaders(out unsafe.Pointer, h http.Header) {
	for _, f := range p.headers {
		if v, ok := f.format(fieldAt(out, f.off)); ok {
			h[f.name] = []string{v}
		}
	}
}

// HeaderNames returns the names, canonical, of the header fields of p's
// Out type, in its order: those SetHeaders may set. The slice is p's:
// the caller must not change it.
func (p *OutPlan) HeaderNames() []string { return p.names }

// HasBody reports whether p's Out type has a Body field.
func (p *OutPlan) HasBody() bool { return p.body != nil }

// MarshalBody returns the Body field of out, a non-nil *Out of p's type,
// as encoding/json writes it.
func (p *OutPlan) MarshalBody(out unsafe.Pointer) ([]byte, error) { return p.AppendBody(nil, out) }

// AppendBody appends the Body field of out, a non-nil *Out of p's type,
// to b as json.Marshal writes it, byte for byte: through the body's
// encoding plan when its type has one (plain data: structs, strings,
// booleans, numbers, pointers and slices), else through json.Marshal,
// whose error it returns (a NaN, say).
func (p *OutPlan) AppendBody(b []byte, out unsafe.Pointer) ([]byte, error) {
	at := fieldAt(out, p.bodyOff)
	if p.enc != nil {
		if nb, ok := appendJSON(b, p.enc, at); ok {
			return nb, nil
		}
	}
	j, err := json.Marshal(reflect.NewAt(p.body, at).Interface())
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

// BodyType returns the type of p's Body field, nil when it has none.
func (p *OutPlan) BodyType() reflect.Type { return p.body }

// Body returns a pointer to the Body field of out, a non-nil *Out of p's
// type, as an interface value (which costs no allocation: it holds a
// pointer).
func (p *OutPlan) Body(out unsafe.Pointer) any {
	return reflect.NewAt(p.body, fieldAt(out, p.bodyOff)).Interface()
}

// Opaque marks p's body as one the caller sends as it is, a download or
// a stream of events, whose type has no JSON schema: [OutPlan.Response]
// leaves the content out, for the caller to describe.
func (p *OutPlan) Opaque() { p.opaque = true }

// CheckBody returns an error naming the Out type, and a type inside its
// Body that encoding/json cannot encode (a channel, a function, a complex
// number, an unsafe pointer, a map whose keys are none of string, integer
// or text), or nil: such a Body would fail every answer with a 500, so
// it is refused at registration. A body type that marshals itself is
// taken as it is.
func (p *OutPlan) CheckBody() error {
	if p.body == nil {
		return nil
	}
	if bad := unencodable(p.body, map[reflect.Type]bool{}); bad != nil {
		f, _ := p.typ.FieldByName("Body")
		return PlanError(p.typ, &f, "encoding/json cannot encode a %s, inside the body", bad)
	}
	return nil
}

// CheckItem returns an error naming t, the type of a stream's items (a
// JSON Lines answer's), and a type inside it that encoding/json cannot
// encode, or nil: as CheckBody for a Body.
func CheckItem(t reflect.Type) error {
	if bad := unencodable(t, map[reflect.Type]bool{}); bad != nil {
		return PlanError(t, nil, "encoding/json cannot encode a %s, inside the items", bad)
	}
	return nil
}

// unencodable returns a type inside t that encoding/json refuses to
// encode, or nil; seen holds the types looked at, for recursive ones.
func unencodable(t reflect.Type, seen map[reflect.Type]bool) reflect.Type {
	if seen[t] || t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return t
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return unencodable(t.Elem(), seen)
	case reflect.Map:
		switch k := t.Key(); {
		case k.Kind() == reflect.String, k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr,
			k.Implements(textMarshaler):
		default:
			return t
		}
		return unencodable(t.Elem(), seen)
	case reflect.Struct:
		for _, jf := range jsonFields(t) {
			if bad := unencodable(jf.f.Type, seen); bad != nil {
				return bad
			}
		}
	}
	return nil
}
