package typed

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
)

// The plan of a JSON body, made at registration from its Go type: one
// dnode per type (and per field whose tags give it rules or ,string),
// which the decoder (decode.go) follows in its one pass over the body's
// bytes, storing each value where it goes and checking its rules there.

// dkind is how a dnode's values are read.
type dkind uint8

const (
	dString  dkind = iota // a string kind
	dBool                 // a bool kind
	dInt                  // a signed integer kind
	dUint                 // an unsigned integer kind
	dFloat                // a float kind
	dNumber               // json.Number: a JSON number, kept as its text
	dTime                 // time.Time: an RFC 3339 date-time string
	dText                 // an encoding.TextUnmarshaler: a JSON string, through UnmarshalText
	dJSON                 // a json.Unmarshaler: the member's JSON text, null included, through UnmarshalJSON
	dRaw                  // json.RawMessage: the member's JSON text, copied
	dBytes                // []byte: a base64 string (RFC 4648 section 4), as encoding/json writes it
	dAny                  // an interface with no methods: what encoding/json makes of the value
	dIface                // an interface with methods: only null
	dStruct               // a struct: a JSON object, by its members
	dSlice                // a slice: a JSON array
	dArray                // an array: a JSON array of its length (a bare plan's: extra items ignored)
	dMap                  // a map: a JSON object, by its keys
	dPointer              // a pointer: null, or its target's value
	dWrapper              // a Wrapper: told it was sent, then its wrapped value, by elem
)

// Wrapper is implemented, through its pointer, by a body member type that
// stands for one value of another type and must know whether its member
// was sent at all: a JSON Merge Patch member (RFC 7396), which tells a
// member left out, sent as null, and sent with a value apart.
//
// At registration the decoder asks the zero value for WrappedType, and
// plans that type as it would a member's, with the member's tags (rules,
// ,string) applying to it. For each request whose object has the
// member's key, it calls Sent on the member's address, with null true
// when the value is JSON's null; unless null, Sent returns a pointer to
// the wrapped value (a *T, T being WrappedType), which the decoder fills
// and checks by that plan. When the key is absent nothing is called and
// the member stays as it was (zero). A Wrapper member is never required,
// and null is one of its values.
type Wrapper interface {
	WrappedType() reflect.Type
	Sent(null bool) any
}

var wrapperType = reflect.TypeFor[Wrapper]()

// dnode is how the values of one type (in one place, for its rules) are
// decoded and checked.
type dnode struct {
	kind   dkind
	typ    reflect.Type
	codec  *codec // the scalar kinds', dTime's and dText's; a map's key codec for dMap
	rules  *rules // a scalar's rules; a slice's or array's items rules and its scalar items' rules
	quoted bool   // ,string: the JSON value is a string holding the value's JSON text
	null   string // "" when null is one of the value's values, else what the value must be
	want   string // what the value must be, for a type failure
	elem   *dnode // a slice's, array's, map's or pointer's element
	fields []dfield
	names  map[string]int // the fields by name, for a struct with many
	size   uintptr        // an element's size, for slices, arrays and maps
	vals   reflect.Type   // a map's values as a slice, gathered before the map is made
	// scalarItems marks a slice or array whose items' values the rules
	// read (for uniqueItems), being scalars.
	scalarItems bool
	// itemRules marks a slice or array of scalars whose items have rules
	// of their own (not only minItems, maxItems, uniqueItems).
	itemRules bool
	// must marks a struct with a required or defaulted member, which the
	// end of its object looks for.
	must bool
	// exact marks an array of a typed body, which takes a JSON array of
	// its length alone, as its schema's minItems and maxItems say; a
	// bare plan's takes any, as encoding/json does.
	exact bool
	// textNumber marks a json.Number of a bare plan, which takes a JSON
	// string holding a number too, as encoding/json does.
	textNumber bool
}

// dfield is a member of a struct's dnode.
type dfield struct {
	name string
	loc  string     // "body" and the member as a location writes it: body.name, body["a.b"]
	off  uintptr    // from the struct reached after hops
	hops []embedHop // embedded pointers on the way, made as the member is met
	node *dnode
	must bool    // required: absent is a failure
	def  *scalar // default:"...", stored when absent
}

// manyFields is the member count from which a struct finds its members
// by a map rather than by comparing names one by one.
const manyFields = 12

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// planner is what making the dnodes of one body needs.
type planner struct {
	// seen holds the nodes of types being planned, so that a recursive
	// type refers to itself.
	seen map[reflect.Type]*dnode
	// bare plans a destination of Context.Bind rather than a typed body:
	// the Go type alone, as encoding/json reads it, without what a typed
	// operation's tags and schema add (rules, required members,
	// defaults, null refused). A type encoding/json cannot decode into
	// (a channel, a function, a complex number, a map with other keys)
	// takes null only, rather than refusing the plan, as encoding/json
	// refuses only a value sent for it.
	bare bool
	// selfRules is the refusal of the first member whose value rules a
	// json.Unmarshaler would keep from being checked (readsItself): an
	// error where the plan decodes JSON, and none where the plan serves
	// a form body alone, which binds the member by its UnmarshalText and
	// checks it.
	selfRules error
}

func newPlanner(bare bool) *planner {
	return &planner{seen: map[reflect.Type]*dnode{}, bare: bare}
}

// planDecode returns the dnode of t.
func planDecode(t reflect.Type, pl *planner) (*dnode, error) {
	if n := pl.seen[t]; n != nil {
		return n, nil
	}
	n, err := planNode(t, pl)
	if err != nil && pl.bare {
		// See planner.bare. A map whose keys it refused is seen already.
		n, err = &dnode{kind: dIface, typ: t, want: "null"}, nil
		pl.seen[t] = n
	}
	if n != nil && pl.bare {
		n.null = "" // null leaves the value as it is
	}
	return n, err
}

// planNode makes the dnode of t, which pl has not seen.
func planNode(t reflect.Type, pl *planner) (*dnode, error) {
	seen := pl.seen
	n := &dnode{typ: t, null: notNullKind(t), want: JSONKind(t)}
	pt := reflect.PointerTo(t)
	switch {
	case t == timeType:
		n.kind, n.codec, n.want = dTime, codecFor(t), "a string"
		return n, nil
	case t == rawMessageType:
		n.kind, n.null = dRaw, ""
		return n, nil
	case t == jsonNumberType:
		// A JSON number, as the schema says and encoding/json writes it;
		// a bare plan takes a string holding one too, as encoding/json
		// reads one.
		n.kind, n.codec, n.textNumber = dNumber, codecFor(t), pl.bare
		return n, nil
	case t.Kind() != reflect.Pointer && pt.Implements(wrapperType):
		wt := reflect.New(t).Interface().(Wrapper).WrappedType()
		if wt == nil || wt == t {
			return nil, fmt.Errorf("%s: WrappedType must name another type", t)
		}
		n.kind, n.null, n.want = dWrapper, "", JSONKind(wt)
		seen[t] = n
		e, err := planDecode(wt, pl)
		if err != nil {
			return nil, err
		}
		n.elem = e
		return n, nil
	case t.Kind() != reflect.Pointer && (t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler)):
		n.kind, n.null = dJSON, ""
		return n, nil
	case pt.Implements(textUnmarshaler) && t.Kind() != reflect.Pointer:
		n.kind, n.codec, n.want, n.null = dText, codecFor(t), "a string", "a string"
		return n, nil
	}
	seen[t] = n
	switch t.Kind() {
	case reflect.String:
		n.kind = dString
	case reflect.Bool:
		n.kind = dBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind = dInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n.kind = dUint
	case reflect.Float32, reflect.Float64:
		n.kind = dFloat
	case reflect.Interface:
		n.kind, n.want = dIface, "null" // encoding/json fills no interface with methods
		if t.NumMethod() == 0 {
			n.kind = dAny
		}
	case reflect.Struct:
		n.kind = dStruct
		for _, jf := range jsonFields(t) {
			if err := n.addField(jf, pl); err != nil {
				return nil, err
			}
		}
		if len(n.fields) >= manyFields {
			n.names = make(map[string]int, len(n.fields))
			for i, f := range n.fields {
				n.names[f.name] = i
			}
		}
	case reflect.Slice, reflect.Array, reflect.Pointer, reflect.Map:
		n.kind = map[reflect.Kind]dkind{reflect.Slice: dSlice, reflect.Array: dArray, reflect.Pointer: dPointer, reflect.Map: dMap}[t.Kind()]
		et := t.Elem()
		if t.Kind() == reflect.Slice && et.Kind() == reflect.Uint8 &&
			!reflect.PointerTo(et).Implements(jsonUnmarshaler) && !reflect.PointerTo(et).Implements(textUnmarshaler) {
			n.kind, n.want = dBytes, "a base64 string"
			return n, nil
		}
		if t.Kind() == reflect.Map {
			kc, err := mapKey(t.Key())
			if err != nil {
				return nil, err
			}
			n.codec, n.vals = kc, reflect.SliceOf(t.Elem())
		}
		n.size = et.Size()
		e, err := planDecode(et, pl)
		if err != nil {
			return nil, err
		}
		n.elem = e
		n.scalarItems = codecFor(et) != nil
		n.exact = n.kind == dArray && !pl.bare
	default:
		return nil, fmt.Errorf("encoding/json cannot decode a %s, inside the body", t)
	}
	// A number's codec, for its rules and its text: the node's own kind
	// stays what the Go kind says (a time.Duration is a number of
	// nanoseconds in JSON, as encoding/json reads it).
	switch n.kind {
	case dString, dBool, dInt, dUint, dFloat:
		n.codec = &codec{kind: map[dkind]scalarKind{dString: kString, dBool: kBool, dInt: kInt, dUint: kUint, dFloat: kFloat}[n.kind],
			typ: t, size: t.Size()}
		if c := codecFor(t); c != nil && c.kind == n.codec.kind {
			n.codec = c
		} else {
			n.codec.integerWants()
		}
	}
	return n, nil
}

// mapKey returns the codec of a map's key type k: a string, an integer,
// or a TextUnmarshaler, as encoding/json takes them.
func mapKey(k reflect.Type) (*codec, error) {
	if reflect.PointerTo(k).Implements(textUnmarshaler) {
		return &codec{kind: kText, typ: k}, nil
	}
	c := &codec{typ: k, size: k.Size()}
	switch k.Kind() {
	case reflect.String:
		c.kind = kString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.kind = kInt
		c.integerWants()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.kind = kUint
		c.integerWants()
	default:
		return nil, fmt.Errorf("encoding/json cannot decode a map keyed by %s, inside the body", k)
	}
	return c, nil
}

// addField adds the member jf to the struct node n, with its tags: its
// rules, ,string, required and default (only ,string for a bare plan).
func (n *dnode) addField(jf jsonField, pl *planner) error {
	f := jf.f
	fn, err := planDecode(f.Type, pl)
	if err != nil {
		return err
	}
	df := dfield{name: jf.name, loc: memberLoc(jf.name), off: f.Offset, hops: jf.hops}
	if pl.bare {
		if jf.quoted {
			fn = fn.with(nil, true, false)
		}
		df.node = fn
		n.fields = append(n.fields, df)
		return nil
	}
	if v, ok := f.Tag.Lookup("required"); ok {
		if _, err := strconv.ParseBool(v); err != nil {
			return PlanError(n.typ, &f, "tag required:%q wants true or false", v)
		}
	}
	ft, slice := f.Type, false
	if fn.kind == dWrapper {
		ft = fn.elem.typ // the tags are the wrapped value's
	}
	if ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	length := -1 // an array's, which its items' count must be
	switch ft.Kind() {
	case reflect.Array:
		length = ft.Len()
		ft, slice = ft.Elem(), true
	case reflect.Slice:
		ft, slice = ft.Elem(), true
	case reflect.Map:
		// The rules are each value's (JSON Schema's additionalProperties),
		// a value's pointer being its own.
		if ft = ft.Elem(); ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
	}
	c := codecFor(ft)
	if c == nil {
		c = &codec{kind: kString, typ: ft} // only the items keywords can apply
	}
	rs, err := parseRules(f.Tag, c, slice)
	if err != nil {
		return PlanError(n.typ, &f, "%v", err)
	}
	if rs != nil && length >= 0 && (rs.minItems > length || rs.maxItems >= 0 && rs.maxItems < length) {
		return PlanError(n.typ, &f, "an array of %d items cannot keep minItems %d and maxItems %d (-1: unset)", length, rs.minItems, rs.maxItems)
	}
	if rs != nil && codecFor(ft) == nil && hasScalarRules(f.Tag) {
		return PlanError(n.typ, &f, "value rules apply to scalars, and to slices and maps of them")
	}
	if rs != nil && slice {
		if err := rs.uniqueItemsOf(ft, length); err != nil {
			return PlanError(n.typ, &f, "%v", err)
		}
	}
	if jf.quoted {
		if err := checkQuoted(f.Tag, ft); err != nil {
			return PlanError(n.typ, &f, "%v", err)
		}
	}
	if rs != nil && isBytes(fn) {
		return PlanError(n.typ, &f, "a []byte is one base64 string, whose bytes and count the rules of its tags would never see: "+
			"check it in the input's Validate method")
	}
	if rs != nil && hasScalarRules(f.Tag) && readsItself(fn) && pl.selfRules == nil {
		pl.selfRules = PlanError(n.typ, &f, "a json.Unmarshaler reads its own value, which the rules of its tags would never see: "+
			"check the value in its UnmarshalJSON, or in the input's Validate method")
	}
	if rs != nil || jf.quoted {
		fn = fn.with(rs, jf.quoted, hasScalarRules(f.Tag))
	}
	if jf.omitEmpty && (fn.kind == dSlice || fn.kind == dMap || fn.kind == dBytes) {
		// encoding/json never writes null for it, and so the schema
		// has no null (notNull): a null sent is refused, located,
		// rather than read as nothing, as for a member of any other
		// type whose schema refuses null.
		cp := *fn
		cp.null = cp.want
		fn = &cp
	}
	df.node = fn
	// A member promoted through an embedded pointer is never required:
	// the pointer may be nil (and the schema lists it so).
	df.must = requiredMember(jf) && !jf.viaPointer && fn.kind != dWrapper
	if v, ok := f.Tag.Lookup("default"); ok {
		d, err := memberDefault(fn, v)
		if err != nil {
			return PlanError(n.typ, &f, "tag default:%q %v", v, err)
		}
		df.def, df.must = d, false
	}
	if v, ok := f.Tag.Lookup("example"); ok && scalarMember(fn) {
		// OpenAPI 3.1 section 4.8.24.1: an example SHOULD match its
		// schema; one the member refuses would teach a client wrong.
		if _, err := memberDefault(fn, v); err != nil {
			return PlanError(n.typ, &f, "tag example:%q %v", v, err)
		}
	}
	n.must = n.must || df.must || df.def != nil
	n.fields = append(n.fields, df)
	return nil
}

// scalarMember reports whether node n is a scalar or a pointer to one,
// whose default or example memberDefault reads.
func scalarMember(n *dnode) bool {
	if n.kind == dPointer {
		n = n.elem
	}
	return n.codec != nil && n.kind != dJSON && n.kind != dRaw && n.kind <= dText
}

// memberDefault parses the default text v of a member of node n, a
// scalar or a pointer to one, and checks it against the member's rules.
func memberDefault(n *dnode, v string) (*scalar, error) {
	sn := n
	if sn.kind == dPointer {
		sn = sn.elem
	}
	if sn.codec == nil || sn.kind == dJSON || sn.kind == dRaw || sn.kind > dText {
		return nil, fmt.Errorf("applies to a member that holds a string, number, boolean or time, or a pointer to one")
	}
	c := sn.codec
	d, kw, want := c.parse(v)
	if kw == "" && sn.rules != nil {
		if fs := sn.rules.check(d, nil); len(fs) > 0 {
			kw, want = fs[0].keyword, fs[0].message
		}
	}
	if kw == "" && c.kind == kText {
		if err := c.store(reflect.New(c.typ).UnsafePointer(), d); err != nil {
			kw, want = "format", "is not valid: "+err.Error()
		}
	}
	if kw != "" {
		return nil, fmt.Errorf("%s", want)
	}
	return &d, nil
}

// with returns a copy of n with the rules rs (values: rs has keywords
// about values, which a slice's items are checked against) and the
// ,string option, through a pointer, and on a map's values: a node of
// its own, since the same type elsewhere has other rules.
func (n *dnode) with(rs *rules, quoted, values bool) *dnode {
	cp := *n
	switch n.kind {
	case dPointer, dWrapper:
		cp.elem = n.elem.with(rs, quoted, values)
		return &cp
	case dMap:
		cp.elem = n.elem.with(rs, false, values) // each value's rules
		return &cp
	}
	cp.rules = rs
	cp.itemRules = cp.scalarItems && rs != nil && values
	if quoted && cp.kind <= dNumber {
		cp.quoted = true
		cp.want = "a string holding " + cp.want
	}
	return &cp
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

// JSONKind names the JSON type that decodes into t, so that messages speak
// JSON rather than Go.
func JSONKind(t reflect.Type) string {
	switch t {
	case nil:
		return "a JSON value"
	case jsonNumberType:
		return "a number"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.Kind().String()
}
