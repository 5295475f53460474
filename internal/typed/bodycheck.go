package typed

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unsafe"
)

// walk checks the value at p, at the location at, against n's rules and
// those under it, adding each failure to b.
func (n *valNode) walk(b *binder, p unsafe.Pointer) {
	switch n.kind {
	case reflect.Invalid:
		if n.rules != nil {
			n.checkScalar(b, p)
		}
	case reflect.Pointer:
		if q := deref(p); q != nil && n.elem != nil {
			n.elem.walk(b, q)
		}
	case reflect.Struct:
		for i := range n.fields {
			f := &n.fields[i]
			fp := fieldAt(p, f.off)
			b.push(f.name, 0)
			f.node.walk(b, fp)
			b.pop()
		}
	case reflect.Slice:
		data, n0 := sliceAt(p)
		n.walkItems(b, data, n0)
	case reflect.Array:
		n.walkItems(b, p, n.typ.Len())
	case reflect.Map:
		n.walkMap(b, p)
	}
}

// checkScalar checks the scalar at p against n's rules.
func (n *valNode) checkScalar(b *binder, p unsafe.Pointer) {
	v := n.rules.codec.load(p)
	var buf [4]failure
	for _, f := range n.rules.check(v, buf[:0]) {
		b.failValue(f.keyword, gotValue(f.message, n.rules.codec, v))
	}
}

// gotValue returns msg followed by v, from the body, bounded.
func gotValue(msg string, c *codec, v scalar) string {
	if c.kind == kString || c.kind == kText {
		return got(msg, v.s)
	}
	return msg + ", got " + c.format(v)
}

// walkItems checks the count items of a slice or array at data.
func (n *valNode) walkItems(b *binder, data unsafe.Pointer, count int) {
	size := n.typ.Elem().Size()
	if rs := n.rules; rs != nil {
		scalars := n.scalarItems
		var vals []scalar
		if rs.uniqueItems && scalars {
			vals = make([]scalar, 0, count)
		}
		for i := 0; i < count && scalars; i++ {
			v := rs.codec.load(itemAt(data, i, size))
			var buf [4]failure
			if fs := rs.check(v, buf[:0]); len(fs) > 0 {
				b.push("", i)
				for _, f := range fs {
					b.failValue(f.keyword, gotValue(f.message, rs.codec, v))
				}
				b.pop()
			}
			if vals != nil {
				vals = append(vals, v)
			}
		}
		distinct := func() bool { return rs.distinctScalars(vals) }
		if !scalars {
			distinct = func() bool { return distinctValues(n.typ.Elem(), data, count) }
		}
		var buf [2]failure
		for _, f := range rs.checkItems(count, distinct, buf[:0]) {
			b.failValue(f.keyword, f.message)
		}
	}
	if n.elem == nil {
		return
	}
	for i := range count {
		b.push("", i)
		n.elem.walk(b, itemAt(data, i, size))
		b.pop()
	}
}

// walkMap checks each value of the map at p, by reflection: values of a
// map have no address to walk.
func (n *valNode) walkMap(b *binder, p unsafe.Pointer) {
	if n.elem == nil {
		return
	}
	m := reflect.NewAt(n.typ, p).Elem()
	keys := m.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	for _, k := range keys {
		v := reflect.New(n.typ.Elem())
		v.Elem().Set(m.MapIndex(k))
		b.push(Clip(fmt.Sprint(k)), 0)
		n.elem.walk(b, v.UnsafePointer())
		b.pop()
	}
}

// failValue adds a failure of the value where the walk is, unless that
// value, or one it is inside, was absent from the body: its zero value
// breaks no rule the client can be told of beside "required".
func (b *binder) failValue(keyword, msg string) {
	if b.full() {
		return
	}
	if b.missing != nil && b.depth <= maxUnchecked+4 {
		// Locations noted by unchecked are whole, never cut, so that
		// two values cannot share one; below the depth where they are
		// noted, an absent member's zero value ends within a few levels.
		loc := b.path0(int(^uint(0) >> 1))
		for i := len("body"); i <= len(loc); i++ {
			if (i == len(loc) || loc[i] == '.' || loc[i] == '[') && b.missing[loc[:i]] {
				return
			}
		}
	}
	b.fail(b.where(), keyword, msg)
}
