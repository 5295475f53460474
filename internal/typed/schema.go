package typed

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Schema is a JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as
// the OpenAPI document writes it: only the keywords this package derives
// from Go types and tags.
type Schema struct {
	Ref         string    `json:"$ref,omitempty"`
	Type        any       `json:"type,omitempty"` // a name, or [name, "null"]
	Format      string    `json:"format,omitempty"`
	Description string    `json:"description,omitempty"`
	OneOf       []*Schema `json:"oneOf,omitempty"`

	Properties           *props   `json:"properties,omitempty"`
	PropertyNames        *Schema  `json:"propertyNames,omitempty"`
	Required             []string `json:"required,omitempty"`
	AdditionalProperties any      `json:"additionalProperties,omitempty"` // a *Schema, or false
	Items                *Schema  `json:"items,omitempty"`

	Enum             []any   `json:"enum,omitempty"`
	Minimum          *number `json:"minimum,omitempty"`
	Maximum          *number `json:"maximum,omitempty"`
	ExclusiveMinimum *number `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum *number `json:"exclusiveMaximum,omitempty"`
	MultipleOf       *number `json:"multipleOf,omitempty"`
	MinLength        *int    `json:"minLength,omitempty"`
	MaxLength        *int    `json:"maxLength,omitempty"`
	Pattern          string  `json:"pattern,omitempty"`
	MinItems         *int    `json:"minItems,omitempty"`
	MaxItems         *int    `json:"maxItems,omitempty"`
	UniqueItems      bool    `json:"uniqueItems,omitempty"`
	ContentEncoding  string  `json:"contentEncoding,omitempty"`
	ContentMediaType string  `json:"contentMediaType,omitempty"`
	ContentSchema    *Schema `json:"contentSchema,omitempty"`
	XML              *XML    `json:"xml,omitempty"`
	Default          any     `json:"default,omitempty"`
	Examples         []any   `json:"examples,omitempty"`
}

// XML is an OpenAPI XML object (section 4.8.26): how a schema's value is
// written in XML.
type XML struct {
	Name string `json:"name,omitempty"` // the element's name
}

// number is a bound as the tag wrote it, sent as a JSON number.
type number string

func (n number) MarshalJSON() ([]byte, error) { return []byte(n), nil }

func num(s string) *number {
	n := number(s)
	return &n
}

// SetMinimum sets the schema's inclusive minimum to the JSON number v, as
// written ("0"): for a bound that comes from elsewhere than a tag, such as
// a route param's constraint.
func (s *Schema) SetMinimum(v string) { s.Minimum = num(v) }

// props are a schema's properties in field order.
type props []prop

type prop struct {
	name string
	s    *Schema
}

func (ps props) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.name)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(p.s)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Schemas makes the schemas of Go types, named struct types as
// components with a $ref to them.
type Schemas struct {
	defs    map[string]*Schema
	names   map[reflect.Type]string
	reserve map[string]reflect.Type // see Reserve
	along   map[reflect.Type]bool   // the named slice, array, map and pointer types being described (see of)

	// closed makes every struct's schema refuse members it does not
	// list, as a Router with DisallowUnknownFields refuses them in bodies.
	closed bool
}

// NewSchemas returns an empty set of schemas. With closed, every struct's
// schema refuses members it does not list (additionalProperties false).
func NewSchemas(closed bool) *Schemas {
	return &Schemas{defs: map[string]*Schema{}, names: map[reflect.Type]string{}, reserve: map[string]reflect.Type{},
		along: map[reflect.Type]bool{}, closed: closed}
}

// Defs returns the component schemas made so far, by name.
func (g *Schemas) Defs() map[string]*Schema { return g.defs }

// Of returns the schema of values of t as encoding/json writes them:
// named struct types as a $ref to a component (see Defs).
func (g *Schemas) Of(t reflect.Type) *Schema { return g.of(t) }

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
func (g *Schemas) of(t reflect.Type) *Schema {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer:
		if t.Name() == "" {
			break
		}
		if name, ok := g.names[t]; ok {
			return &Schema{Ref: "#/components/schemas/" + name}
		}
		if g.along[t] {
			name := g.nameFor(t)
			g.names[t] = name
			g.defs[name] = &Schema{} // filled below, once the outer schema is made
			return &Schema{Ref: "#/components/schemas/" + name}
		}
		g.along[t] = true
		s := g.of1(t)
		delete(g.along, t)
		if name, ok := g.names[t]; ok {
			*g.defs[name] = *s
			return &Schema{Ref: "#/components/schemas/" + name}
		}
		return s
	}
	return g.of1(t)
}

// of1 is of for a type that is not met again inside its own schema.
func (g *Schemas) of1(t reflect.Type) *Schema {
	if t.Kind() == reflect.Pointer {
		return nullable(g.of(t.Elem()))
	}
	if wt := wrappedOf(t); wt != nil {
		return nullable(g.of(wt))
	}
	switch {
	case t == timeType:
		return &Schema{Type: "string", Format: "date-time"}
	case t == rawMessage:
		return &Schema{}
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return &Schema{}
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return &Schema{Type: "string"}
	}
	switch t.Kind() {
	case reflect.Struct:
		return g.named(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &Schema{Type: []string{"string", "null"}, ContentEncoding: "base64"}
		}
		return &Schema{Type: []string{"array", "null"}, Items: g.of(t.Elem())}
	case reflect.Array:
		n := t.Len()
		return &Schema{Type: "array", Items: g.of(t.Elem()), MinItems: &n, MaxItems: &n}
	case reflect.Map:
		if k := t.Key().Kind(); k != reflect.String && !(k >= reflect.Int && k <= reflect.Uint64) &&
			!reflect.PointerTo(t.Key()).Implements(textMarshaler) {
			return &Schema{}
		}
		return &Schema{Type: []string{"object", "null"}, AdditionalProperties: g.of(t.Elem()), PropertyNames: keyNames(t.Key())}
	case reflect.Interface:
		return &Schema{}
	}
	return scalarSchema(t)
}

// scalarSchema returns the schema of a bool, number or string type.
func scalarSchema(t reflect.Type) *Schema {
	if t == durationType {
		return &Schema{Type: "integer", Format: "int64", Description: "A duration in nanoseconds."}
	}
	switch t.Kind() {
	case reflect.Bool:
		return &Schema{Type: "boolean"}
	case reflect.String:
		return &Schema{Type: "string"}
	case reflect.Float32:
		return &Schema{Type: "number", Format: "float"}
	case reflect.Float64:
		return &Schema{Type: "number", Format: "double"}
	case reflect.Int64, reflect.Int:
		return &Schema{Type: "integer", Format: "int64"}
	case reflect.Int32:
		return &Schema{Type: "integer", Format: "int32"}
	case reflect.Int8, reflect.Int16:
		bits := t.Size() * 8
		return &Schema{Type: "integer", Minimum: num(strconv.FormatInt(-1<<(bits-1), 10)),
			Maximum: num(strconv.FormatInt(1<<(bits-1)-1, 10))}
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return &Schema{Type: "integer", Minimum: num("0"),
			Maximum: num(strconv.FormatUint(1<<(t.Size()*8)-1, 10))}
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return &Schema{Type: "integer", Minimum: num("0")}
	}
	return &Schema{}
}

// nullable returns s allowing null too.
func nullable(s *Schema) *Schema {
	switch tt := s.Type.(type) {
	case string:
		cp := *s
		cp.Type = []string{tt, "null"}
		return &cp
	case []string:
		return s
	}
	if s.Ref != "" {
		return &Schema{OneOf: []*Schema{s, {Type: "null"}}}
	}
	return s
}

// named returns a $ref to the component schema of the struct type t,
// making it on first use; an anonymous struct is written in place.
func (g *Schemas) named(t reflect.Type) *Schema {
	if t.Name() == "" {
		return g.object(t)
	}
	if name, ok := g.names[t]; ok {
		return &Schema{Ref: "#/components/schemas/" + name}
	}
	name := g.nameFor(t)
	g.names[t] = name
	g.defs[name] = &Schema{} // taken, for a recursive reference
	*g.defs[name] = *g.object(t)
	return &Schema{Ref: "#/components/schemas/" + name}
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
// as encoding/json reads them: a decimal integer for an integer type (a
// sign allowed where strconv.ParseInt takes one), nil for strings and
// text keys.
func keyNames(k reflect.Type) *Schema {
	if reflect.PointerTo(k).Implements(textUnmarshaler) && k.Kind() != reflect.String {
		return nil
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &Schema{Pattern: "^[+-]?[0-9]+$"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &Schema{Pattern: "^[0-9]+$"}
	}
	return nil
}

// quotedSchema returns the schema of a member of type t with the ,string
// option: a JSON string holding t's JSON text (a decimal integer, a
// JSON number, true or false, a JSON string), as the decoder takes it.
func quotedSchema(t reflect.Type) *Schema {
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
	}
	s := &Schema{Type: "string"}
	switch t.Kind() {
	case reflect.Bool:
		s.Enum = []any{"true", "false"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s.Pattern = "^-?(0|[1-9][0-9]*)$"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		s.Pattern = "^(0|[1-9][0-9]*)$"
	case reflect.Float32, reflect.Float64:
		s.Pattern = `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`
	case reflect.String:
		s.Pattern = `^"([^"\\]|\\.)*"$`
	}
	if ptr {
		return nullable(s)
	}
	return s
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
func (g *Schemas) object(t reflect.Type) *Schema {
	s := &Schema{Type: "object", Properties: &props{}}
	if g.closed {
		s.AdditionalProperties = false
	}
	for _, jf := range jsonFields(t) {
		var fs *Schema
		if jf.quoted {
			fs = g.quotedField(jf.f)
		} else {
			fs = g.field(jf.f)
		}
		if k := jf.f.Type.Kind(); jf.omitEmpty && (k == reflect.Slice || k == reflect.Map) {
			fs = notNull(fs) // encoding/json leaves a nil one out
		}
		*s.Properties = append(*s.Properties, prop{jf.name, fs})
		// A member with a default may be left out: the decoder stores it.
		_, def := jf.f.Tag.Lookup("default")
		if req, _ := strconv.ParseBool(jf.f.Tag.Get("required")); (req || !jf.omitEmpty) && !def && !jf.viaPointer && wrappedOf(jf.f.Type) == nil {
			s.Required = append(s.Required, jf.name)
		}
	}
	return s
}

// field returns the schema of the struct field f, with its tags.
func (g *Schemas) field(f reflect.StructField) *Schema {
	if wt := wrappedOf(f.Type); wt != nil {
		// The tags are the wrapped value's; null is one of the member's values.
		s := g.of(wt)
		if tagged(f.Tag) {
			s = withTags(s, f.Tag, wt)
		}
		return nullable(s)
	}
	s := g.of(f.Type)
	if tagged(f.Tag) {
		s = withTags(s, f.Tag, f.Type)
	}
	return s
}

// quotedField returns the schema of f, a member with the ,string
// option: a string, with the tags a string shows (its doc, examples,
// enum and default as strings) and the pattern of the text it holds.
func (g *Schemas) quotedField(f reflect.StructField) *Schema {
	s := quotedSchema(f.Type)
	if !tagged(f.Tag) {
		return s
	}
	st := reflect.TypeFor[string]()
	if f.Type.Kind() == reflect.Pointer {
		st = reflect.PointerTo(st)
	}
	ts := withTags(s, f.Tag, st)
	if ts.Pattern == "" {
		ts.Pattern = s.Pattern
	}
	return ts
}

// tagged reports whether tag holds a keyword that schemas show.
func tagged(tag reflect.StructTag) bool {
	for _, k := range append(ruleTags[:len(ruleTags):len(ruleTags)], "doc", "example", "default") {
		if _, ok := tag.Lookup(k); ok {
			return true
		}
	}
	return false
}

// withTags returns a copy of s, the schema of t, with the keywords of tag.
// A $ref stays beside them, as 2020-12 allows. The tags were checked at
// registration, when t is an In type's; an ill-formed bound on another
// type is left out.
func withTags(s *Schema, tag reflect.StructTag, t reflect.Type) *Schema {
	cp := *s
	s = &cp
	target := s // the keywords of values go on the items of a slice
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && s.Items != nil {
		it := *s.Items
		s.Items, target = &it, &it
		t = t.Elem()
		if t.Kind() == reflect.Pointer { // []*int: the items' keywords are int's
			t = t.Elem()
		}
	}
	if d := tag.Get("doc"); d != "" {
		s.Description = d
	}
	c := codecFor(t)
	for _, k := range [...]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if v, ok := tag.Lookup(k); ok && c != nil && c.numeric() && validNumber(v) {
			*bound(target, k) = num(v)
		}
	}
	if v, ok := tag.Lookup("minLength"); ok {
		target.MinLength = intPtr(v)
	}
	if v, ok := tag.Lookup("maxLength"); ok {
		target.MaxLength = intPtr(v)
	}
	target.Pattern = tag.Get("pattern")
	if v := tag.Get("format"); v != "" {
		target.Format = v
	}
	if v, ok := tag.Lookup("enum"); ok && c != nil {
		es, _ := EnumValues(v) // checked at registration
		for _, e := range es {
			target.Enum = append(target.Enum, typedValue(c, e))
		}
	}
	if v, ok := tag.Lookup("minItems"); ok {
		s.MinItems = intPtr(v)
	}
	if v, ok := tag.Lookup("maxItems"); ok {
		s.MaxItems = intPtr(v)
	}
	if v, _ := strconv.ParseBool(tag.Get("uniqueItems")); v {
		s.UniqueItems = true
	}
	if v, ok := tag.Lookup("default"); ok && c != nil {
		s.Default = typedValue(c, v)
	}
	if v, ok := tag.Lookup("example"); ok {
		if c != nil {
			s.Examples = []any{typedValue(c, v)}
		} else {
			s.Examples = []any{json.RawMessage(exampleJSON(v))}
		}
	}
	return s
}

func bound(s *Schema, k string) **number {
	switch k {
	case "minimum":
		return &s.Minimum
	case "maximum":
		return &s.Maximum
	case "exclusiveMinimum":
		return &s.ExclusiveMinimum
	case "exclusiveMaximum":
		return &s.ExclusiveMaximum
	}
	return &s.MultipleOf
}

func validNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil && decimalNumber(v)
}

func intPtr(v string) *int {
	n, err := count(v)
	if err != nil || n < 0 {
		return nil
	}
	return &n
}

// typedValue returns the text v as the JSON value of the codec's type: a
// number, a boolean or a string.
func typedValue(c *codec, v string) any {
	s, kw, _ := c.parse(v)
	if kw != "" {
		return v
	}
	switch c.kind {
	case kBool:
		return s.i != 0
	case kInt:
		return json.Number(strconv.FormatInt(s.i, 10))
	case kUint:
		return json.Number(strconv.FormatUint(s.u, 10))
	case kFloat:
		return json.Number(strconv.FormatFloat(s.f, 'g', -1, 64))
	case kDuration:
		return json.Number(strconv.FormatInt(s.i, 10))
	case kTime:
		return s.t.Format(time.RFC3339Nano)
	}
	return v
}

// exampleJSON returns v when it is JSON, else v as a JSON string.
func exampleJSON(v string) []byte {
	if json.Valid([]byte(v)) {
		return []byte(v)
	}
	b, _ := json.Marshal(v)
	return b
}

// notNull returns s without the null that a slice or map type allows.
func notNull(s *Schema) *Schema {
	if tt, ok := s.Type.([]string); ok && len(tt) == 2 && tt[1] == "null" {
		cp := *s
		cp.Type = tt[0]
		return &cp
	}
	return s
}
