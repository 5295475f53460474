package typed

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// A JSON body's required members are checked on its text, since a
// decoded value cannot tell a member that was absent from one sent as its
// zero value. The check walks the text beside a keyNode tree made at
// registration, which holds only the parts of the type where a member is
// required or has rules. The same walk notes the members with rules that
// are absent or null, whose zero value the rules must not be asked about:
// the schema lets an optional member be left out, and null be sent for a
// pointer, slice or map, and so does the check.

// keyNode is the shape of a body type as far as its required members go.
type keyNode struct {
	kind   reflect.Kind // Struct, Map, Slice, Array, Pointer
	fields []keyField   // a struct's members, all of them, to tell its keys apart
	elem   *keyNode     // an element's, a map value's or a pointer's target
}

type keyField struct {
	name  string
	must  bool     // required: no omitempty, or required:"true"
	ruled bool     // the member or something inside it has rules
	null  string   // "" when null is a value of the member's schema, else what it must be
	node  *keyNode // nil when nothing below is required or has rules
}

// planKeys returns the keyNode of t, or nil when no member of t is
// required; seen holds the nodes being made, for recursive types.
func planKeys(t reflect.Type, seen map[reflect.Type]*keyNode) *keyNode {
	if n, ok := seen[t]; ok {
		return n
	}
	if t == timeType || codecFor(t) != nil || t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return nil
	}
	n := &keyNode{kind: t.Kind()}
	seen[t] = n // a cycle sees n itself, and keeps it
	keep := false
	switch t.Kind() {
	case reflect.Struct:
		for _, jf := range jsonFields(t) {
			kf := keyField{name: jf.name, must: requiredMember(jf) && !jf.viaPointer, node: planKeys(jf.f.Type, seen)}
			kf.ruled = kf.node != nil || hasRuleTags(jf.f.Tag)
			kf.null = notNullKind(jf.f.Type)
			keep = keep || kf.must || kf.ruled
			n.fields = append(n.fields, kf)
		}
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		n.elem = planKeys(t.Elem(), seen)
		keep = n.elem != nil
	}
	if !keep {
		seen[t] = nil
		return nil
	}
	return n
}

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// notNullKind returns "" when the schema of t allows null (a pointer,
// slice, map or interface, or a type that writes its own JSON), else what
// its values are, in words: the decoder takes null for such a member as
// nothing sent, where the schema refuses it.
func notNullKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return ""
	}
	switch {
	case t == timeType:
		return "a string"
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return ""
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return "a string"
	}
	return JSONKind(t)
}

// maxUnchecked is the depth in a body to which members left out are noted.
const maxUnchecked = 32

// hasRuleTags reports whether tag holds a validation keyword.
func hasRuleTags(tag reflect.StructTag) bool {
	for _, k := range ruleTags {
		if _, ok := tag.Lookup(k); ok {
			return true
		}
	}
	return false
}

// requiredMember reports whether the member jf is required, as the schema
// lists it: without omitempty (or omitzero), or tagged required:"true".
func requiredMember(jf jsonField) bool {
	return !jf.omitEmpty || jf.f.Tag.Get("required") == "true"
}

// scan checks the JSON value at the start of j against n, adding a
// failure to b for each required member that is absent.
func (n *keyNode) scan(b *binder, j *jscan) {
	j.ws()
	if j.peek() == 'n' { // null: the decoder left the value as it was
		j.skip()
		return
	}
	switch n.kind {
	case reflect.Pointer:
		n.elem.scan(b, j)
	case reflect.Struct:
		n.object(b, j)
	case reflect.Map:
		j.i++ // '{'
		b.inMap++
		for key, ok := j.key(); ok; key, ok = j.key() {
			b.push(string(key), 0)
			n.elem.scan(b, j)
			b.pop()
			j.next()
		}
		b.inMap--
	case reflect.Slice, reflect.Array:
		j.i++ // '['
		for i := 0; j.item(); i++ {
			b.push("", i)
			n.elem.scan(b, j)
			b.pop()
			j.next()
		}
	default:
		j.skip()
	}
}

// object checks a JSON object against the struct node n.
func (n *keyNode) object(b *binder, j *jscan) {
	// The state of each member, by its last key (encoding/json keeps the
	// last of repeated keys): absent, sent, or sent as null.
	const absent, sent, null = 0, 1, 2
	var inline [64]uint8
	var state []uint8
	if len(n.fields) <= len(inline) {
		state = inline[:len(n.fields)]
	} else {
		state = make([]uint8, len(n.fields))
	}
	j.i++ // '{'
	for key, ok := j.key(); ok; key, ok = j.key() {
		f := n.field(key)
		j.ws()
		switch {
		case f < 0:
			j.skip()
		case j.peek() == 'n':
			if n.fields[f].null != "" && !b.full() {
				b.push(n.fields[f].name, 0)
				b.fail(b.where(), "type", "must be "+n.fields[f].null+", got null")
				b.pop()
			}
			state[f] = null
			j.skip()
		case n.fields[f].node != nil:
			state[f] = sent
			b.push(n.fields[f].name, 0)
			n.fields[f].node.scan(b, j)
			b.pop()
		default:
			state[f] = sent
			j.skip()
		}
		j.next()
	}
	for i, f := range n.fields {
		if state[i] == absent && f.must && !b.full() {
			b.push(f.name, 0)
			b.fail(b.where(), "required", "is required")
			b.pop()
		}
		if state[i] != sent && (f.ruled || f.must) {
			b.unchecked(f.name)
		}
	}
}

// unchecked notes that the member name, where the walk is, is absent or
// null: the rules of its zero value, and of what is inside it, are not
// checked.
//
// Only members named by the type all the way down are noted, within
// maxUnchecked levels: a map's keys are the client's, and the walk writes
// them otherwise (cut, and as Go prints the decoded key), so a key could
// be made to name another value and hide its failures. Members left out
// inside a map's values, or deeper, have the rules of their zero value
// checked.
func (b *binder) unchecked(name string) {
	if b.full() || b.inMap > 0 || b.depth >= maxUnchecked {
		return // no failure will be added, or the place has no unique name
	}
	if b.missing == nil {
		b.missing = map[string]bool{}
	}
	b.push(name, 0)
	b.missing[b.path0(int(^uint(0)>>1))] = true
	b.pop()
}

// field returns the index of the member that key names, as encoding/json
// matches it (the exact name, else one that differs in case only), or -1.
func (n *keyNode) field(key []byte) int {
	for i, f := range n.fields {
		if string(key) == f.name {
			return i
		}
	}
	for i, f := range n.fields {
		if bytes.EqualFold(key, []byte(f.name)) {
			return i
		}
	}
	return -1
}
