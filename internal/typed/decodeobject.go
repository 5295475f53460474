package typed

import (
	"encoding"
	"reflect"
	"strconv"
	"unsafe"
)

// The decoder's objects: structs by member, maps by key, and any values.

// object decodes a JSON object into the struct at p, by its members;
// then fails each required member it lacked and stores the defaults.
func (d *decoder) object(n *dnode, p unsafe.Pointer) {
	if !d.enter() {
		return
	}
	var inline [4]uint64
	seen := inline[:]
	if len(n.fields) > 64*len(inline) {
		seen = make([]uint64, (len(n.fields)+63)/64)
	}
	for first := true; ; first = false {
		key, ok := d.nextKey(first)
		if !ok {
			break
		}
		i := n.field(key)
		if i < 0 {
			if d.strict {
				d.fail("additionalProperties", "has an unknown member "+Quote(string(key)))
			}
			d.skip()
			continue
		}
		f := &n.fields[i]
		d.pushMember(f.loc)
		if seen[i/64]&(1<<(i%64)) != 0 {
			d.repeated()
		}
		seen[i/64] |= 1 << (i % 64)
		d.value(f.node, f.at(p))
		d.pop()
	}
	d.depth--
	if n.must && d.err == "" {
		d.absent(n, p, seen)
	}
}

// field returns the index of the member named key, exactly, or -1.
func (n *dnode) field(key []byte) int {
	if n.names != nil {
		if i, ok := n.names[string(key)]; ok {
			return i
		}
		return -1
	}
	for i := range n.fields {
		if n.fields[i].name == string(key) {
			return i
		}
	}
	return -1
}

// at returns the address of the member f in the struct at p, making the
// embedded structs on the way that are nil, as encoding/json does.
func (f *dfield) at(p unsafe.Pointer) unsafe.Pointer {
	for _, h := range f.hops {
		hp := fieldAt(p, h.off)
		if p = deref(hp); p == nil {
			p = setNew(hp, h.typ)
		}
	}
	return fieldAt(p, f.off)
}

// absent stores the default of each member of n the object lacked, and
// fails each required one.
func (d *decoder) absent(n *dnode, p unsafe.Pointer, seen []uint64) {
	for i := range n.fields {
		f := &n.fields[i]
		if seen[i/64]&(1<<(i%64)) != 0 {
			continue
		}
		switch {
		case f.def != nil:
			q, fn := f.at(p), f.node
			if fn.kind == dPointer {
				q, fn = setNew(q, fn.elem.typ), fn.elem
			}
			_ = fn.codec.store(q, *f.def)
		case f.must:
			d.pushMember(f.loc)
			d.fail("required", "is required")
			d.pop()
		}
	}
}

// mapValue decodes a JSON object into the map at p, by its keys.
func (d *decoder) mapValue(n *dnode, p unsafe.Pointer) {
	if n.typ == mapAnyType {
		d.mapAny(reflect.NewAt(n.typ, p).Interface().(*map[string]any))
		return
	}
	if !d.enter() {
		return
	}
	mv := reflect.NewAt(n.typ, p).Elem()
	if mv.IsNil() && n.codec.kind == kString {
		d.stringMap(n, mv)
		return
	}
	if mv.IsNil() {
		mv.Set(reflect.MakeMap(n.typ))
	}
	ev := reflect.New(n.elem.typ).Elem()
	ep := ev.Addr().UnsafePointer()
	kv := reflect.New(n.typ.Key()).Elem()
	for first := true; ; first = false {
		key, ok := d.nextKey(first)
		if !ok {
			break
		}
		lone := d.lone
		ks := string(key)
		d.push(ks, -1)
		if lone {
			d.failLone()
		}
		if d.mapKey(n.codec, kv, ks) {
			ev.SetZero()
			d.value(n.elem, ep)
			mv.SetMapIndex(kv, ev)
		} else {
			d.skip()
		}
		d.pop()
	}
	d.depth--
}

// mapKey sets kv to the key ks, by the key codec c, or fails it.
func (d *decoder) mapKey(c *codec, kv reflect.Value, ks string) bool {
	switch c.kind {
	case kString:
		kv.SetString(ks)
	case kInt:
		i, err := strconv.ParseInt(ks, 10, int(c.size*8))
		if err != nil {
			d.fail("propertyNames", got(c.notInteger(ks), ks))
			return false
		}
		kv.SetInt(i)
	case kUint:
		u, err := strconv.ParseUint(ks, 10, int(c.size*8))
		if err != nil {
			d.fail("propertyNames", got(c.notInteger(ks), ks))
			return false
		}
		kv.SetUint(u)
	case kText:
		kp := reflect.New(c.typ)
		if err := kp.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(ks)); err != nil {
			d.fail("propertyNames", got("is not valid: "+Clip(err.Error()), ks))
			return false
		}
		kv.Set(kp.Elem())
	}
	return true
}

// stringMap decodes a JSON object into a new map with string keys, set
// in mv: its members are gathered first and the map made at their count,
// which spares it the growing (a third of the time of a map of many
// keys). The keys' text is gathered in one array, which the map's keys
// then share, rather than one allocation a key.
func (d *decoder) stringMap(n *dnode, mv reflect.Value) {
	var text []byte // the keys, one after the other
	var ends []int  // where each key ends in text
	vals := reflect.New(n.vals).Elem()
	for first := true; ; first = false {
		key, ok := d.nextKey(first)
		if !ok {
			break
		}
		lone := d.lone
		start := len(text)
		text = append(text, key...)
		// A view of the key while its value is read, for a failure's
		// location: text may move as it grows, but not until the next
		// key, and the old array lives as long as the view does.
		d.push(bytesString(text[start:]), -1)
		if lone {
			d.failLone()
		}
		i := len(ends)
		if i == vals.Cap() {
			vals.Grow(max(4, i))
		}
		vals.SetLen(i + 1)
		d.value(n.elem, itemAt(vals.UnsafePointer(), i, n.size))
		ends = append(ends, len(text))
		d.pop()
	}
	d.depth--
	if d.err != "" {
		return
	}
	keys := mapKeys{string(text), ends}
	if fill := fillers[n.typ]; fill != nil {
		mv.Set(fill(keys, vals))
		return
	}
	m := reflect.MakeMapWithSize(n.typ, len(ends))
	kv := reflect.New(n.typ.Key()).Elem()
	for i := range ends {
		kv.SetString(keys.at(i))
		m.SetMapIndex(kv, vals.Index(i))
	}
	mv.Set(m)
}

// mapKeys is an object's keys in one string, each ending where ends
// says.
type mapKeys struct {
	text string
	ends []int
}

// at returns key i, a part of k.text.
func (k mapKeys) at(i int) string {
	start := 0
	if i > 0 {
		start = k.ends[i-1]
	}
	return k.text[start:k.ends[i]]
}

// fillers make the maps of the commonest types from their keys and
// values without reflect's cost per member.
var fillers = map[reflect.Type]func(keys mapKeys, vals reflect.Value) reflect.Value{
	reflect.TypeFor[map[string]string]():  fill[string],
	reflect.TypeFor[map[string]int]():     fill[int],
	reflect.TypeFor[map[string]int64]():   fill[int64],
	reflect.TypeFor[map[string]float64](): fill[float64],
	reflect.TypeFor[map[string]bool]():    fill[bool],
}

func fill[V any](keys mapKeys, vals reflect.Value) reflect.Value {
	vs := vals.Interface().([]V)
	m := make(map[string]V, len(keys.ends))
	start := 0
	for i, end := range keys.ends {
		m[keys.text[start:end]] = vs[i]
		start = end
	}
	return reflect.ValueOf(m)
}

var mapAnyType = reflect.TypeFor[map[string]any]()

// mapAny decodes a JSON object into the map[string]any at m.
func (d *decoder) mapAny(mp *map[string]any) {
	m := *mp
	if m == nil {
		m = map[string]any{}
		*mp = m
	}
	d.members(m)
}

// anyValue decodes a value as encoding/json does into an interface:
// objects as map[string]any, arrays as []any, numbers as float64.
func (d *decoder) anyValue() any {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return nil
	}
	switch c := d.s[d.i]; {
	case c == '{':
		m := map[string]any{}
		d.members(m)
		return m
	case c == '[':
		if !d.enter() {
			return nil
		}
		a := []any{}
		for first := true; d.nextItem(first); first = false {
			d.push("", len(a))
			a = append(a, d.anyValue())
			d.pop()
		}
		d.depth--
		return a
	case c == '"':
		text := d.str()
		if d.lone {
			d.failLone()
		}
		return string(text)
	case c == 't':
		return d.lit("true")
	case c == 'f':
		d.lit("false")
		return false
	case c == 'n':
		d.lit("null")
		return nil
	case c == '-' || '0' <= c && c <= '9':
		lit := d.number()
		if d.err != "" {
			return nil
		}
		f, err := strconv.ParseFloat(bytesString(lit), 64)
		if err != nil {
			d.fail("type", got("must be a number a float64 holds", bytesString(lit)))
		}
		return f
	default:
		d.skip() // the syntax error
		return nil
	}
}

// members decodes a JSON object's members into m.
func (d *decoder) members(m map[string]any) {
	if !d.enter() {
		return
	}
	for first := true; ; first = false {
		key, ok := d.nextKey(first)
		if !ok {
			break
		}
		lone := d.lone
		ks := string(key)
		d.push(ks, -1)
		if lone {
			d.failLone()
		}
		m[ks] = d.anyValue()
		d.pop()
	}
	d.depth--
}
