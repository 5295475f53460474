package typed

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/waltz-go/waltz/openapi"
)

// The keywords a field's tags add to its schema (doc, the rules,
// example, default), and the schema of a member with the ,string option.

// quotedSchema returns the schema of a member of type t with the ,string
// option: a JSON string holding t's JSON text (a decimal integer, a
// JSON number, true or false, a JSON string), as the decoder takes it
// (quotedLiteral). A pointer's may be null, or "null", which
// encoding/json and the decoder read as null.
func quotedSchema(t reflect.Type) *openapi.Schema {
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
	}
	s := &openapi.Schema{Type: "string"}
	kind := t.Kind()
	if t == jsonNumberType {
		kind = reflect.Float64 // a JSON number, as written
	}
	var text string // the pattern of the text, unanchored
	integer := false
	switch kind {
	case reflect.Bool:
		s.Enum = []any{"true", "false"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		text, integer = integerText(kind, int(t.Size())*8), true
	case reflect.Float32, reflect.Float64:
		text = `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
	case reflect.String:
		text = `"([^"\\]|\\.)*"`
	}
	if !ptr {
		if text != "" {
			s.Pattern = "^" + text + "$"
			if integer { // alternatives, grouped
				s.Pattern = "^(" + text + ")$"
			}
		}
		return s
	}
	if text != "" {
		s.Pattern = "^(" + text + "|null)$"
	}
	if s.Enum != nil {
		s.Enum = append(s.Enum, "null") // and null, which nullable adds
	}
	return nullable(s)
}

// integerText returns the pattern, unanchored and with alternatives at
// its top, of the decimal texts of the integers a type of the kind and
// size in bits holds, as the decoder reads a ,string member's
// (quotedLiteral): digits with no leading zero, a '-' for a signed type
// alone ("-0" is 0), and no '+'. It admits exactly the numbers within
// the type's range (an int8's -128 to 127), so that a text it admits is
// never refused as too large: "-?(0|[1-9][0-9]?|1[01][0-9]|12[0-7])|-128".
func integerText(kind reflect.Kind, bits int) string {
	if kind >= reflect.Uint && kind <= reflect.Uintptr {
		return "0|" + upTo(strconv.FormatUint(math.MaxUint64>>(64-bits), 10))
	}
	top := uint64(1)<<(bits-1) - 1
	return "-?(0|" + upTo(strconv.FormatUint(top, 10)) + ")|-" + strconv.FormatUint(top+1, 10)
}

// upTo returns the alternatives of a pattern that matches the decimal
// texts, with no leading zero, of the integers from 1 to n (n's digits):
// those of fewer digits, then those of n's count of digits that first
// fall below n's at its i-th digit, for each i, then n: for 255,
// "[1-9][0-9]?|1[0-9]{2}|2[0-4][0-9]|25[0-5]".
func upTo(n string) string {
	var alts []string
	k := len(n)
	if k > 1 {
		alts = append(alts, "[1-9]"+digitsRE(k-2, true))
	}
	for i := range k - 1 {
		lo, hi := byte('0'), n[i]-1
		if i == 0 {
			lo = '1'
		}
		if hi < lo {
			continue
		}
		class := string(lo)
		if hi > lo {
			class = "[" + string(lo) + "-" + string(hi) + "]"
		}
		alts = append(alts, n[:i]+class+digitsRE(k-i-1, false))
	}
	// The last digit of n's count at or below n's own, after its others.
	last := n[k-1]
	switch {
	case k == 1 && last == '1':
		alts = append(alts, "1")
	case k == 1:
		alts = append(alts, "[1-"+string(last)+"]")
	case last == '0':
		alts = append(alts, n)
	default:
		alts = append(alts, n[:k-1]+"[0-"+string(last)+"]")
	}
	return strings.Join(alts, "|")
}

// digitsRE returns the pattern of n decimal digits, or of 0 to n of them
// (upto).
func digitsRE(n int, upto bool) string {
	switch {
	case n == 0:
		return ""
	case upto && n == 1:
		return "[0-9]?"
	case upto:
		return "[0-9]{0," + strconv.Itoa(n) + "}"
	case n == 1:
		return "[0-9]"
	}
	return "[0-9]{" + strconv.Itoa(n) + "}"
}

// field returns the schema of the struct field f, with its tags.
func (g *Schemas) field(f reflect.StructField) *openapi.Schema {
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
// option: a string holding the text of its value (quotedSchema), with
// its doc, and its enum, default and example as the texts sent. An enum
// is of an integer or a boolean (the decoder plan refuses another's:
// checkQuoted), whose value has one text, and 0 two: "-0" too. The plan
// refuses the keywords of numbers and strings, which the text would not
// meet as the value does.
func (g *Schemas) quotedField(f reflect.StructField) *openapi.Schema {
	s := quotedSchema(f.Type)
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	c := codecFor(t)
	if d := f.Tag.Get("doc"); d != "" {
		s.Description = d
	}
	if v, ok := f.Tag.Lookup("enum"); ok && c != nil {
		es, _ := EnumValues(v) // checked at registration
		s.Enum = nil
		for _, e := range es {
			text := quotedText(c, e)
			s.Enum = append(s.Enum, text)
			if text == "0" && c.kind == kInt {
				s.Enum = append(s.Enum, "-0")
			}
		}
		if f.Type.Kind() == reflect.Pointer {
			s.Enum = append(s.Enum, "null", nil)
		}
	}
	if v, ok := f.Tag.Lookup("default"); ok && c != nil {
		s.Default = quotedText(c, v)
	}
	if v, ok := f.Tag.Lookup("example"); ok && c != nil {
		s.Examples = []any{quotedText(c, v)}
	}
	return s
}

// quotedText returns the text v of a tag (an enum's value, a default)
// as a ,string member of the codec's type is sent: the JSON text of the
// value, in a JSON string.
func quotedText(c *codec, v string) string {
	switch tv := typedValue(c, v).(type) {
	case json.Number:
		return string(tv)
	case bool:
		return strconv.FormatBool(tv)
	case string:
		if c.kind == kString {
			return string(AppendString(nil, tv, false))
		}
		return tv
	}
	return v
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
func withTags(s *openapi.Schema, tag reflect.StructTag, t reflect.Type) *openapi.Schema {
	cp := *s
	s = &cp
	target := s // the keywords of values go on the items of a slice, the values of a map
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Slice && s.Items != nil:
		it := *s.Items
		s.Items, target = &it, &it
		t = t.Elem()
		if t.Kind() == reflect.Pointer { // []*int: the items' keywords are int's
			t = t.Elem()
		}
	case t.Kind() == reflect.Map && s.AdditionalProperties != nil:
		// A map's values' keywords, as the decoder checks each value.
		ap := *s.AdditionalProperties
		s.AdditionalProperties, target = &ap, &ap
		t = t.Elem()
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
	}
	if d := tag.Get("doc"); d != "" {
		s.Description = d
	}
	c := codecFor(t)
	for _, k := range [...]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if v, ok := tag.Lookup(k); ok && c != nil && c.numeric() && validNumber(v) {
			if k != "multipleOf" {
				v = float32Bound(c, v)
			}
			*bound(target, k) = num(v)
		}
	}
	if v, ok := tag.Lookup("minLength"); ok {
		target.MinLength = intPtr(v)
	}
	if v, ok := tag.Lookup("maxLength"); ok {
		target.MaxLength = intPtr(v)
	}
	target.Pattern = docPattern(tag.Get("pattern"))
	if v := tag.Get("format"); v != "" {
		target.Format = v
	}
	if v, ok := tag.Lookup("enum"); ok && c != nil {
		es, _ := EnumValues(v) // checked at registration
		for _, e := range es {
			target.Enum = append(target.Enum, typedValue(c, e))
		}
		if slices.Contains(target.Types, "null") {
			// A pointer's null is taken beside the listed values (the
			// decoder checks the rules of a value alone), and JSON
			// Schema's enum refuses what it does not list (2020-12
			// Validation section 6.1.2).
			target.Enum = append(target.Enum, nil)
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

func bound(s *openapi.Schema, k string) **json.Number {
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

// float32Bound returns v, a bound of c's values, as the document writes
// it: for a float32, the float32 the check holds values to (rules.number
// reads it in the value's precision), in the fewest digits that name it,
// so that the document and the server agree on which values it keeps
// (exclusiveMaximum "0.99999996" is the float32 0.99999994, and refuses
// the value 0.99999994, which the tag's text would let through); a bound
// beyond the float32 range (1e39) as written, and any other type's as
// written.
func float32Bound(c *codec, v string) string {
	if c.kind != kFloat || c.size != 4 {
		return v
	}
	f, err := strconv.ParseFloat(v, 32)
	if err != nil || math.IsInf(f, 0) {
		return v
	}
	// The shortest text of f, when it reads (as a JSON Schema validator
	// reads numbers, in float64) as another number than v: 0.1 stays,
	// as 1.5e2 does.
	w := strconv.FormatFloat(f, 'g', -1, 32)
	a, _ := strconv.ParseFloat(v, 64)
	b, _ := strconv.ParseFloat(w, 64)
	if a == b {
		return v
	}
	return w
}

// num returns the JSON number v, as written.
func num(v string) *json.Number {
	n := json.Number(v)
	return &n
}

// validNumber reports whether v is a bound a schema may write as it is: a
// finite number as JSON writes one.
func validNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil && isJSONNumber(v)
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
	case kNumber:
		return json.Number(v)
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
func notNull(s *openapi.Schema) *openapi.Schema {
	if tt := s.Types; len(tt) == 2 && tt[1] == "null" {
		cp := *s
		cp.Type, cp.Types = tt[0], nil
		return &cp
	}
	return s
}
