package typed

import (
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"unsafe"
)

// The JSON body decoder of typed operations: one pass over the body's
// bytes, led by the body's plan (decplan.go). Each value is checked as it
// is read, stored where it goes, and checked against its rules there; a
// struct's required members and defaults are settled at the end of its
// object. So a body costs time linear in its size, whatever its type and
// tags: no second walk of the decoded value, no text scanned twice.
//
// What is JSON at all is RFC 8259's: a body that breaks its grammar, has
// data after its value, holds invalid UTF-8 inside a string (section
// 8.1) or nests deeper than maxDepth is a 400, and the failures found
// before are dropped. Everything else wrong is a failure of the member
// where it is, located, and the decoding goes on, so that all of a body's
// failures come in one answer (the first MaxFailures).
//
// Members are found as encoding/json finds them (jsonfields.go), except
// that a key matches a member's name exactly, in letter case too, as
// JSON Schema's properties do: a key that differs in case is an unknown
// key, ignored (a failure with Body.Strict).
//
// The decoder's files, in the order a body's walk enters them, each
// calling only the ones after it:
//
//   - decode.go: where a body comes in (bodyPlan.decode), and value,
//     which hands each value to the reader of its plan's kind;
//   - decodeobject.go: structs by member, maps by key, any values;
//   - decodearray.go: slices and arrays, item by item;
//   - decodescalar.go: strings, numbers and booleans, the values read
//     from a string (times, text, base64) or from their own JSON text,
//     and the rules of each;
//   - jsonscan.go: the grammar, token by token;
//   - decodefail.go: the failures, held until the body is known to be
//     JSON, and where the walk is, for their locations.
//
// Below them all: values.go stores (the package's unsafe code) and
// rules.go checks. The one call back up is JSON's own recursion: an
// object's members and an array's items are values, read by value.

// maxDepth is how deep objects and arrays may nest in a body, as
// encoding/json's limit: a deeper body is a 400 (RFC 8259 section 9 lets
// a parser set one).
const maxDepth = 10000

// decoder is the state of decoding one body.
type decoder struct {
	bodyPath // where the decoder is
	s        []byte
	i        int
	strict   bool
	had      int // the failures the binder held before
	depth    int
	err      string // the first reason the body is no JSON, "" while it is
	errAt    int
	fails    pending
	scratch  []byte // an escaped string's text
	lone     bool   // the last string read held a lone surrogate escape
	unkept   bool   // the value being read is checked but not kept: a dropped item's
	keepAll  bool   // keep every value, as a second reading does (see again)
	cut      bool   // some value was not kept, or kept as a view of s
	whole    int    // the slices and arrays around the value whose uniqueItems reads their items whole
	untold   bool   // a failure may have gone untold, at MaxFailures
}

// decode decodes the JSON text s, a whole request body, into the body
// value of b, and sends b its failures: one "syntax" failure when s is no
// JSON, else each member's.
func (bp *bodyPlan) decode(b *binder, s []byte) {
	d := decoder{s: s, had: b.nfails, strict: b.in.Body.Strict}
	d.ws()
	switch {
	case d.i < len(s):
	case len(s) > 0:
		// White space alone is no JSON text (RFC 8259 section 2), where
		// a body of no bytes is no body.
		b.broken = true
		b.fail("body", "syntax", "malformed JSON: white space alone, and no JSON value")
		return
	case !bp.ptr:
		b.fail("body", "required", "is required: send a JSON value")
		return
	default:
		return
	}
	p := fieldAt(b.base, bp.off)
	if bp.ptr && s[d.i] == 'n' && d.lit("null") {
		// An optional body sent as null is no body.
		if d.ws(); d.i < len(s) {
			d.syntax("data after the JSON value")
		}
	} else {
		bp.read(&d, p)
		if d.again() {
			if !bp.ptr {
				reflect.NewAt(bp.typ, p).Elem().SetZero()
			}
			d = decoder{s: s, had: b.nfails, strict: b.in.Body.Strict, keepAll: true}
			d.ws()
			bp.read(&d, p)
		}
	}
	if d.err != "" {
		if bp.ptr {
			storeNil(p)
		}
		b.broken = true
		b.fail("body", "syntax", fmt.Sprintf("malformed JSON at byte offset %d: %s", d.errAt, d.err))
		return
	}
	d.fails.send(b)
}

// read decodes the body's value, from d.i, into the body member at p (a
// pointer's new target), and then fails any data after it.
func (bp *bodyPlan) read(d *decoder, p unsafe.Pointer) {
	if bp.ptr {
		p = setNew(p, bp.typ)
	}
	d.value(bp.node, p)
	d.end()
}

// end notes data after the value just read, as the body's last.
func (d *decoder) end() {
	if d.err != "" {
		return
	}
	end := d.i
	if d.ws(); d.i < len(d.s) {
		d.syntax(fmt.Sprintf("data after the JSON value, which ends at byte offset %d", end))
	}
}

// bindPlans are the plans of Context.Bind's destination types, made on
// the first Bind of each: reflect.Type → *dnode, a bare plan (see
// planner.bare).
var bindPlans sync.Map

// DecodeJSON decodes the JSON body of req into v, a non-nil pointer, as
// Context.Bind documents it, by the decoder of typed bodies and a plan of
// v's type alone (see planner.bare), made on the first call for the
// type: keys match members exactly, letter case included, as in a typed
// body. A Content-Type other than JSON's (unless b.JSONChecked), or a
// Content-Encoding, is a 415; a body past b.MaxBytes a 413, a read
// deadline passing a 408 (see ReadBody); an empty body, malformed JSON
// or data after the value a 400: each a *BodyError. A body that is JSON but whose values do not fit
// v (a value of another JSON type than its member's, a key no member has
// with b.Strict) sends each failure, located as in a typed body, to sink
// (the first MaxFailures) and returns ErrInvalid. On any error v may hold
// a part of the body. A v that is not a non-nil pointer is a plain error.
func DecodeJSON(w http.ResponseWriter, req *http.Request, b Body, v any, sink FailureSink) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		return fmt.Errorf("waltz: Bind: want a non-nil pointer, got %T", v)
	}
	if rv.IsNil() {
		return fmt.Errorf("waltz: Bind: want a non-nil pointer, got a nil %T", v)
	}
	t := rv.Type().Elem()
	n, ok := bindPlans.Load(t)
	if !ok {
		// A bare plan takes any type (see planner.bare).
		plan, _ := planDecode(t, newPlanner(true))
		n, _ = bindPlans.LoadOrStore(t, plan)
	}
	if err := checkJSONRequest(req.Header, b.JSONChecked); err != nil {
		return err
	}
	bb := getBuf()
	raw, err := ReadBody(w, req, b.MaxBytes, bb.b)
	if err == nil {
		err = decodeBare(raw, n.(*dnode), rv.UnsafePointer(), b.Strict, sink)
	}
	putBuf(bb, raw)
	return err
}

// decodeBare decodes s, a whole body, into p, a value of n's type, for
// DecodeJSON. Every value is kept, a string copied out of s, whether the
// body fails or not (keepAll): p is the caller's, and outlives s, which
// goes back to its pool.
func decodeBare(s []byte, n *dnode, p unsafe.Pointer, strict bool, sink FailureSink) error {
	d := decoder{s: s, strict: strict, keepAll: true}
	d.ws()
	if d.i == len(s) {
		return &BodyError{Status: http.StatusBadRequest, Reason: ReasonEmpty, Message: "empty body, want a JSON value"}
	}
	d.value(n, p)
	end := d.i
	if d.err == "" {
		if d.ws(); d.i < len(s) {
			return &BodyError{Status: http.StatusBadRequest, Reason: ReasonSyntax,
				Message: fmt.Sprintf("data after the JSON value, which ends at byte offset %d", end)}
		}
	}
	if d.err != "" {
		return &BodyError{Status: http.StatusBadRequest, Reason: ReasonSyntax,
			Message: fmt.Sprintf("malformed JSON at byte offset %d: %s", d.errAt, d.err)}
	}
	if d.fails.n == 0 {
		return nil
	}
	var b binder
	b.in.Fails = sink
	d.fails.send(&b)
	return ErrInvalid
}

// value decodes the value at d.i into p, a value of n's type: the one
// place the decoder's files meet, which each kind of value is handed on
// from, and which an object's members and an array's items come back to.
func (d *decoder) value(n *dnode, p unsafe.Pointer) {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return
	}
	c := d.s[d.i]
	if n.kind == dWrapper {
		d.wrapped(n, p, c)
		return
	}
	if c == 'n' && n.kind != dJSON && n.kind != dRaw {
		if d.lit("null") {
			d.null(n, p)
		}
		return
	}
	switch n.kind {
	case dString, dBool, dInt, dUint, dFloat, dNumber:
		d.scalar(n, p, c)
	case dTime, dText, dBytes:
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		d.fromString(n, p)
	case dJSON, dRaw:
		d.selfDecoding(n, p)
	case dAny:
		v := d.anyValue()
		if d.err == "" {
			storeAny(p, v)
		}
	case dIface:
		d.mismatch(n, c)
	case dStruct:
		if c != '{' {
			d.mismatch(n, c)
			return
		}
		d.object(n, p)
	case dMap:
		if c != '{' {
			d.mismatch(n, c)
			return
		}
		d.mapValue(n, p)
	case dSlice:
		if c != '[' {
			d.mismatch(n, c)
			return
		}
		d.slice(n, p)
	case dArray:
		if c != '[' {
			d.mismatch(n, c)
			return
		}
		d.array(n, p)
	case dPointer:
		if n.elem.quoted && c == '"' && d.quotedNull(p) {
			return
		}
		q := deref(p)
		if q == nil {
			q = setNew(p, n.elem.typ)
		}
		d.value(n.elem, q)
	}
}

// wrapped decodes the value at d.i, which starts with c, into the Wrapper
// at p: it is told whether the value is null, and else gives the address
// of the value it wraps, decoded by n.elem.
func (d *decoder) wrapped(n *dnode, p unsafe.Pointer, c byte) {
	w := reflect.NewAt(n.typ, p).Interface().(Wrapper)
	if c == 'n' {
		if d.lit("null") {
			w.Sent(true)
		}
		return
	}
	v := w.Sent(false)
	q := reflect.ValueOf(v)
	if !q.IsValid() || q.Type() != reflect.PointerTo(n.elem.typ) || q.IsNil() {
		panic(fmt.Sprintf("waltz: %s.Sent(false) returned %T, want a non-nil *%s", n.typ, v, n.elem.typ))
	}
	d.value(n.elem, q.UnsafePointer())
}

// null stores JSON's null at p, as encoding/json does: a pointer, slice,
// map or interface becomes nil, and other values are left as they are;
// for a value whose schema has no null (n.null: a number, a string, an
// omitempty member's slice or map), that is a failure.
func (d *decoder) null(n *dnode, p unsafe.Pointer) {
	switch {
	case n.null != "":
		d.fail("type", "must be "+n.null+", got null")
	case n.kind == dPointer:
		storeNil(p)
	case n.kind == dSlice, n.kind == dMap, n.kind == dBytes, n.kind == dAny, n.kind == dIface:
		reflect.NewAt(n.typ, p).Elem().SetZero()
	}
}
