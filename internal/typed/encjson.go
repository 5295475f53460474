package typed

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unsafe"
)

// The JSON encoder of typed answers: for a Body of plain data (structs,
// strings, booleans, numbers, and pointers to and slices of them), a tree
// of enodes planned once writes the bytes json.Marshal would write, byte
// for byte, without its reflection and its cache lookups per value. A
// type that holds anything else (a map, an interface, a type that
// marshals itself, json.Number, []byte, a ,string member, a recursive
// type) is not planned, and its values go to encoding/json.

// ekind is how an enode's values are written.
type ekind uint8

const (
	eString ekind = iota
	eBool
	eInt
	eUint
	eFloat32
	eFloat64
	ePointer
	eSlice
	eStruct
)

// enode writes the values of one Go type.
type enode struct {
	kind   ekind
	typ    reflect.Type
	size   uintptr  // the item size, for a slice's elem
	elem   *enode   // a pointer's target, a slice's items
	fields []efield // a struct's members, in encoding/json's order
}

// efield is a struct member as encoding/json writes it.
type efield struct {
	key       string // `"name":`, escaped as encoding/json escapes it
	off       uintptr
	hops      []embedHop // embedded pointers on the way: a nil one leaves the member out
	node      *enode
	omitEmpty bool // omitempty: false, 0, "", a nil pointer, an empty slice
	omitZero  bool // omitzero: the type's zero value
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
)

// planEncode returns the enode of t, or nil when its values are left to
// encoding/json; along holds the types being planned, above t.
func planEncode(t reflect.Type, along map[reflect.Type]bool) *enode {
	if t == jsonNumberType {
		return nil // a string that json.Marshal writes as the number it holds
	}
	for _, mt := range []reflect.Type{t, reflect.PointerTo(t)} {
		if mt.Implements(jsonMarshalerType) || mt.Implements(textMarshalerType) {
			return nil
		}
	}
	// A type met again below itself is recursive: a struct holding a
	// slice of itself, or a named slice or pointer type of itself
	// (type L []L), whose planning would never end.
	if along[t] {
		return nil
	}
	along[t] = true
	defer delete(along, t)
	n := &enode{typ: t}
	switch t.Kind() {
	case reflect.String:
		n.kind = eString
	case reflect.Bool:
		n.kind = eBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind = eInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind = eUint
	case reflect.Float32:
		n.kind = eFloat32
	case reflect.Float64:
		n.kind = eFloat64
	case reflect.Pointer:
		n.kind = ePointer
		if n.elem = planEncode(t.Elem(), along); n.elem == nil {
			return nil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64, or a Marshaler's items
		}
		n.kind, n.size = eSlice, t.Elem().Size()
		if n.elem = planEncode(t.Elem(), along); n.elem == nil {
			return nil
		}
	case reflect.Struct:
		n.kind = eStruct
		for _, jf := range jsonFields(t) {
			if jf.quoted {
				return nil
			}
			_, opts, _ := strings.Cut(jf.f.Tag.Get("json"), ",")
			f := efield{key: string(AppendString(nil, jf.name, true)) + ":", off: jf.f.Offset, hops: jf.hops,
				omitEmpty: hasOpt(opts, "omitempty"), omitZero: hasOpt(opts, "omitzero")}
			if f.omitZero && hasIsZero(jf.f.Type) {
				return nil
			}
			if f.node = planEncode(jf.f.Type, along); f.node == nil {
				return nil
			}
			n.fields = append(n.fields, f)
		}
	default:
		return nil
	}
	return n
}

// hasIsZero reports whether t or *t has the IsZero method omitzero asks.
func hasIsZero(t reflect.Type) bool {
	for _, mt := range []reflect.Type{t, reflect.PointerTo(t)} {
		if m, ok := mt.MethodByName("IsZero"); ok && m.Type.NumIn() == 1 && m.Type.NumOut() == 1 &&
			m.Type.Out(0).Kind() == reflect.Bool {
			return true
		}
	}
	return false
}

// appendJSON appends the value of n's type at p to b, as json.Marshal
// writes it; false when a float is NaN or infinite, which json.Marshal
// refuses with an error of its own.
func appendJSON(b []byte, n *enode, p unsafe.Pointer) ([]byte, bool) {
	switch n.kind {
	case eString:
		return AppendString(b, stringAt(p), true), true
	case eBool:
		if boolAt(p) {
			return append(b, "true"...), true
		}
		return append(b, "false"...), true
	case eInt:
		return strconv.AppendInt(b, loadInt(p, n.typ.Size()), 10), true
	case eUint:
		return strconv.AppendUint(b, loadUint(p, n.typ.Size()), 10), true
	case eFloat32:
		return appendFloat(b, float64(float32At(p)), 32)
	case eFloat64:
		return appendFloat(b, float64At(p), 64)
	case ePointer:
		q := deref(p)
		if q == nil {
			return append(b, "null"...), true
		}
		return appendJSON(b, n.elem, q)
	case eSlice:
		data, length := sliceAt(p)
		if data == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i := range length {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, n.elem, itemAt(data, i, n.size)); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	b = append(b, '{')
	first := true
	for i := range n.fields {
		f := &n.fields[i]
		q := p
		for _, h := range f.hops {
			if q = deref(fieldAt(q, h.off)); q == nil {
				break
			}
		}
		if q == nil {
			continue // promoted through a nil embedded pointer
		}
		q = fieldAt(q, f.off)
		if f.omitEmpty && emptyValue(f.node, q) || f.omitZero && reflect.NewAt(f.node.typ, q).Elem().IsZero() {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.key...)
		var ok bool
		if b, ok = appendJSON(b, f.node, q); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// emptyValue reports whether the value at p is empty as omitempty means
// it: false, 0, "", a nil pointer, a slice of no items. A struct never is.
func emptyValue(n *enode, p unsafe.Pointer) bool {
	switch n.kind {
	case eString:
		return stringAt(p) == ""
	case eBool:
		return !boolAt(p)
	case eInt:
		return loadInt(p, n.typ.Size()) == 0
	case eUint:
		return loadUint(p, n.typ.Size()) == 0
	case eFloat32:
		return float32At(p) == 0
	case eFloat64:
		return float64At(p) == 0
	case ePointer:
		return deref(p) == nil
	case eSlice:
		_, length := sliceAt(p)
		return length == 0
	}
	return false
}

// appendFloat appends f as encoding/json writes a float of bits bits:
// the shortest text that reads back as f, in exponent form below 1e-6
// and from 1e21, with a one-digit negative exponent unpadded (1e-7, not
// 1e-07); false for NaN and the infinities, which JSON has no text for.
func appendFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 {
		if bits == 64 && (a < 1e-6 || a >= 1e21) || bits == 32 && (float32(a) < 1e-6 || float32(a) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}
