package typed

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/openapi"
)

// Schemas makes the schemas of Go types, named struct types as
// components with a $ref to them.
type Schemas struct {
	defs    map[string]*openapi.Schema
	names   map[reflect.Type]string
	events  map[reflect.Type]string // the event sets described as one event's component (EventPlan.Ref)
	reserve map[string]reflect.Type // see Reserve
	along   map[reflect.Type]bool   // the named slice, array, map and pointer types being described (see of)

	// closed makes every struct's schema refuse members it does not
	// list, as a Router with DisallowUnknownFields refuses them in bodies.
	closed bool
}

// NewSchemas returns an empty set of schemas. With closed, every struct's
// schema refuses members it does not list (additionalProperties false).
func NewSchemas(closed bool) *Schemas {
	return &Schemas{defs: map[string]*openapi.Schema{}, names: map[reflect.Type]string{}, events: map[reflect.Type]string{},
		reserve: map[string]reflect.Type{}, along: map[reflect.Type]bool{}, closed: closed}
}

// Defs returns the component schemas made so far, by name.
func (g *Schemas) Defs() map[string]*openapi.Schema { return g.defs }

// Of returns the schema of values of t as encoding/json writes them:
// named struct types as a $ref to a component (see Defs).
func (g *Schemas) Of(t reflect.Type) *openapi.Schema { return g.of(t) }

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	rawMessage    = reflect.TypeFor[json.RawMessage]()
)

// wrappedOf returns the type that t, a Wrapper through its pointer (an
// Optional: absent, null or a value of that type), stands for; or nil.
func wrappedOf(t reflect.Type) reflect.Type {
	if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(wrapperType) {
		return reflect.New(t).Interface().(Wrapper).WrappedType()
	}
	return nil
}

// of returns the schema of values of t as encoding/json writes them.
//
// A named slice, array, map or pointer type met again inside its own
// schema (type L []L) becomes a component, as a named struct always is,
// and is written as a $ref to it: its schema would otherwise never end.
func (g *Schemas) of(t reflect.Type) *openapi.Schema {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer:
		if t.Name() == "" {
			break
		}
		if name, ok := g.names[t]; ok {
			return &openapi.Schema{Ref: openapi.SchemaRef + name}
		}
		if g.along[t] {
			name := g.nameFor(t)
			g.names[t] = name
			g.defs[name] = &openapi.Schema{} // filled below, once the outer schema is made
			return &openapi.Schema{Ref: openapi.SchemaRef + name}
		}
		g.along[t] = true
		s := g.of1(t)
		delete(g.along, t)
		if name, ok := g.names[t]; ok {
			*g.defs[name] = *s
			return &openapi.Schema{Ref: openapi.SchemaRef + name}
		}
		return s
	}
	return g.of1(t)
}

// of1 is of for a type that is not met again inside its own schema.
func (g *Schemas) of1(t reflect.Type) *openapi.Schema {
	if t.Kind() == reflect.Pointer {
		return nullable(g.of(t.Elem()))
	}
	if wt := wrappedOf(t); wt != nil {
		return nullable(g.of(wt))
	}
	switch {
	case t == timeType:
		return &openapi.Schema{Type: "string", Format: "date-time"}
	case t == rawMessage:
		return &openapi.Schema{}
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return &openapi.Schema{}
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return &openapi.Schema{Type: "string"}
	}
	switch t.Kind() {
	case reflect.Struct:
		return g.named(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &openapi.Schema{Types: []string{"string", "null"}, ContentEncoding: "base64"}
		}
		return &openapi.Schema{Types: []string{"array", "null"}, Items: g.of(t.Elem())}
	case reflect.Array:
		n := t.Len()
		return &openapi.Schema{Type: "array", Items: g.of(t.Elem()), MinItems: &n, MaxItems: &n}
	case reflect.Map:
		if k := t.Key().Kind(); k != reflect.String && !(k >= reflect.Int && k <= reflect.Uint64) &&
			!reflect.PointerTo(t.Key()).Implements(textMarshaler) {
			return &openapi.Schema{}
		}
		return &openapi.Schema{Types: []string{"object", "null"}, AdditionalProperties: g.of(t.Elem()), PropertyNames: keyNames(t.Key())}
	case reflect.Interface:
		return &openapi.Schema{}
	}
	return scalarSchema(t)
}

// scalarSchema returns the schema of a bool, number or string type.
func scalarSchema(t reflect.Type) *openapi.Schema {
	switch t {
	case durationType:
		s := intSchema(reflect.Int64, 64)
		s.Description = "A duration in nanoseconds."
		return s
	case jsonNumberType:
		return &openapi.Schema{Type: "number"} // any JSON number, as written
	}
	switch k := t.Kind(); k {
	case reflect.Bool:
		return &openapi.Schema{Type: "boolean"}
	case reflect.String:
		return &openapi.Schema{Type: "string"}
	case reflect.Float32:
		return &openapi.Schema{Type: "number", Format: "float"}
	case reflect.Float64:
		return &openapi.Schema{Type: "number", Format: "double"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return intSchema(k, int(t.Size())*8)
	}
	return &openapi.Schema{}
}

// intSchema returns the schema of an integer type of the kind and size
// in bits: its range as minimum and maximum, which the decoder holds a
// value to (an int8's -128 to 127, a uint64's 0 to 18446744073709551615,
// written exactly, as a float64 could not hold 2^63-1), and OpenAPI's
// format int32 or int64 for a signed type of that size (OpenAPI 3.1
// section 4.2, whose formats name signed integers alone).
func intSchema(k reflect.Kind, bits int) *openapi.Schema {
	s := &openapi.Schema{Type: "integer"}
	if k >= reflect.Uint && k <= reflect.Uintptr {
		s.Minimum, s.Maximum = num("0"), num(strconv.FormatUint(math.MaxUint64>>(64-bits), 10))
		return s
	}
	if bits == 32 || bits == 64 {
		// Its format says its range: bounds as well would make every
		// example on the docs page (apidocs: the least value the
		// bounds admit) -9223372036854775808.
		s.Format = "int" + strconv.Itoa(bits)
		return s
	}
	top := uint64(1)<<(bits-1) - 1
	s.Minimum, s.Maximum = num("-"+strconv.FormatUint(top+1, 10)), num(strconv.FormatUint(top, 10))
	return s
}

// nullable returns s allowing null too: in its types, and in its enum
// when it has one (JSON Schema's enum refuses what it does not list,
// 2020-12 Validation section 6.1.2).
func nullable(s *openapi.Schema) *openapi.Schema {
	switch {
	case s.Type != "":
		cp := *s
		cp.Type, cp.Types = "", []string{s.Type, "null"}
		if cp.Enum != nil {
			cp.Enum = append(slices.Clip(cp.Enum), nil)
		}
		return &cp
	case s.Types != nil:
		return s
	case s.Ref != "":
		return &openapi.Schema{OneOf: []*openapi.Schema{s, {Type: "null"}}}
	}
	return s
}

// named returns a $ref to the component schema of the struct type t,
// making it on first use; an anonymous struct is written in place.
func (g *Schemas) named(t reflect.Type) *openapi.Schema {
	if t.Name() == "" {
		return g.object(t)
	}
	if name, ok := g.names[t]; ok {
		return &openapi.Schema{Ref: openapi.SchemaRef + name}
	}
	name := g.nameFor(t)
	g.names[t] = name
	g.defs[name] = &openapi.Schema{} // taken, for a recursive reference
	*g.defs[name] = *g.object(t)
	return &openapi.Schema{Ref: openapi.SchemaRef + name}
}

// nameFor returns the component name of the named type t: its own, or
// the one reserved for it, with a number after it when another type has
// it.
func (g *Schemas) nameFor(t reflect.Type) string {
	name := componentName(t)
	for rn, rt := range g.reserve {
		if rt == t {
			name = rn
		}
	}
	for i := 2; g.defs[name] != nil || g.reserved(t, name); i++ {
		name = componentName(t) + strconv.Itoa(i)
	}
	return name
}

// reserved reports whether name is a component that belongs to another
// type than t: Reserve's.
func (g *Schemas) reserved(t reflect.Type, name string) bool {
	rt, ok := g.reserve[name]
	return ok && rt != t
}

// Reserve keeps the component name for the type t, which takes it: another
// type of the same name gets a name with a number after it, whichever is
// described first. The router reserves "Problem" for its problem details, whose
// $ref every error response writes.
func (g *Schemas) Reserve(name string, t reflect.Type) { g.reserve[name] = t }

// keyNames returns the schema of the keys of a map whose key type is k,
// as encoding/json and the decoder (mapKey) read them: for an integer
// type, the decimal texts strconv.ParseInt or ParseUint takes within
// the type's range (a sign where ParseInt takes one, leading zeros,
// "300" refused for a uint8); nil for strings and text keys.
func keyNames(k reflect.Type) *openapi.Schema {
	if reflect.PointerTo(k).Implements(textUnmarshaler) && k.Kind() != reflect.String {
		return nil
	}
	bits := int(k.Size()) * 8
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		top := uint64(1)<<(bits-1) - 1
		return &openapi.Schema{Pattern: "^([+-]?0*(0|" + upTo(strconv.FormatUint(top, 10)) + ")|-0*" + strconv.FormatUint(top+1, 10) + ")$"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &openapi.Schema{Pattern: "^0*(0|" + upTo(strconv.FormatUint(math.MaxUint64>>(64-bits), 10)) + ")$"}
	}
	return nil
}

// componentName is t's name as a component key may spell it
// (^[a-zA-Z0-9._-]+$): "Page[main.Item]" becomes "Page_main.Item".
func componentName(t reflect.Type) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, t.Name())
	return strings.TrimRight(name, "_")
}

// object returns the schema of the struct type t: its JSON fields, the
// ones without omitempty (or with required:"true") required.
func (g *Schemas) object(t reflect.Type) *openapi.Schema {
	s := &openapi.Schema{Type: "object", Properties: openapi.Properties{}}
	if g.closed {
		s.AdditionalProperties = openapi.False()
	}
	for _, jf := range jsonFields(t) {
		s.Properties = append(s.Properties, openapi.Property{Name: jf.name, Schema: g.member(jf)})
		// A member with a default may be left out: the decoder stores it.
		_, def := jf.f.Tag.Lookup("default")
		if req, _ := strconv.ParseBool(jf.f.Tag.Get("required")); (req || !jf.omitEmpty) && !def && !jf.viaPointer && wrappedOf(jf.f.Type) == nil {
			s.Required = append(s.Required, jf.name)
		}
	}
	return s
}

// member returns the schema of the struct member jf, with its tags. An
// omitempty (or omitzero) slice or map has no null: encoding/json leaves
// a nil one out rather than write null, and the decoder refuses a null
// sent for it.
func (g *Schemas) member(jf jsonField) *openapi.Schema {
	var fs *openapi.Schema
	if jf.quoted {
		fs = g.quotedField(jf.f)
	} else {
		fs = g.field(jf.f)
	}
	if k := jf.f.Type.Kind(); jf.omitEmpty && (k == reflect.Slice || k == reflect.Map) {
		fs = notNull(fs)
	}
	return fs
}
