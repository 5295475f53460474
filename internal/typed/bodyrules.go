package typed

import (
	"reflect"
	"strconv"
)

// valNode checks the rules inside a decoded body value, walking it by
// the offsets and kinds found at registration.
type valNode struct {
	kind   reflect.Kind // Struct, Slice, Array, Pointer, Map; Invalid for a scalar
	typ    reflect.Type
	codec  *codec // a scalar's
	rules  *rules // a scalar's rules, or a slice's items rules and its elements'
	fields []valField
	elem   *valNode

	scalarItems bool // a slice or array of scalars
}

type valField struct {
	off  uintptr
	name string // the JSON name
	node *valNode
}

// planValue returns the node that checks values of t; seen holds the
// nodes being made, so a recursive type refers to itself.
func planValue(t reflect.Type, seen map[reflect.Type]*valNode) (*valNode, error) {
	if n := seen[t]; n != nil {
		return n, nil
	}
	n := &valNode{typ: t}
	// A time or a text type is a scalar here, as its JSON is a string,
	// even when it is a struct.
	if c := codecFor(t); c != nil && (t.Kind() != reflect.Struct || t == timeType || c.kind == kText) {
		n.codec = c
		return n, nil
	}
	seen[t] = n
	switch t.Kind() {
	case reflect.Struct:
		n.kind = reflect.Struct
		for _, jf := range jsonFields(t) {
			if jf.viaPointer {
				continue // not at an offset of t: its rules are not checked
			}
			if err := n.addField(jf, seen); err != nil {
				return nil, err
			}
		}
	case reflect.Slice, reflect.Array, reflect.Pointer, reflect.Map:
		n.kind = t.Kind()
		n.scalarItems = codecFor(t.Elem()) != nil
		e, err := planValue(t.Elem(), seen)
		if err != nil {
			return nil, err
		}
		n.elem = e
	}
	return n, nil
}

// addField adds the struct field jf to n, with its tags' rules.
func (n *valNode) addField(jf jsonField, seen map[reflect.Type]*valNode) error {
	f := jf.f
	fn, err := planValue(f.Type, seen)
	if err != nil {
		return err
	}
	vf := valField{off: f.Offset, name: jf.name, node: fn}
	if v, ok := f.Tag.Lookup("required"); ok {
		if _, err := strconv.ParseBool(v); err != nil {
			return PlanError(n.typ, &f, "tag required:%q wants true or false", v)
		}
	}
	ft, slice := f.Type, false
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array {
		ft, slice = ft.Elem(), true
	}
	c := codecFor(ft)
	if c == nil {
		c = &codec{kind: kString, typ: ft} // only the items keywords can apply
	}
	rs, err := parseRules(f.Tag, c, slice)
	if err != nil {
		return PlanError(n.typ, &f, "%v", err)
	}
	if rs != nil {
		if codecFor(ft) == nil && hasScalarRules(f.Tag) {
			return PlanError(n.typ, &f, "value rules apply to scalars and slices of scalars")
		}
		vf.node = withRules(fn, rs)
	}
	n.fields = append(n.fields, vf)
	return nil
}

// hasScalarRules reports whether tag has a keyword about values rather
// than items.
func hasScalarRules(tag reflect.StructTag) bool {
	for _, k := range ruleTags {
		if _, ok := tag.Lookup(k); ok && k != "minItems" && k != "maxItems" && k != "uniqueItems" {
			return true
		}
	}
	return false
}

// prune returns n, or nil when nothing under it has a rule; memo holds the
// answers so far (true while a node is being decided, so a cycle keeps it).
func (n *valNode) prune(memo map[*valNode]bool) *valNode {
	if keep, ok := memo[n]; ok {
		if keep {
			return n
		}
		return nil
	}
	memo[n] = true
	keep := n.rules != nil
	if n.elem != nil {
		if n.elem = n.elem.prune(memo); n.elem != nil {
			keep = true
		}
	}
	fs := make([]valField, 0, len(n.fields))
	for _, f := range n.fields {
		if f.node = f.node.prune(memo); f.node != nil {
			fs = append(fs, f)
		}
	}
	n.fields = fs
	keep = keep || len(fs) > 0
	memo[n] = keep
	if !keep {
		return nil
	}
	return n
}

// withRules returns a copy of n with rs, through pointers: a node of its
// own, since the same type elsewhere has other rules.
func withRules(n *valNode, rs *rules) *valNode {
	cp := *n
	if n.kind == reflect.Pointer {
		cp.elem = withRules(n.elem, rs)
		return &cp
	}
	cp.rules = rs
	return &cp
}
