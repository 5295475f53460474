package apidocs

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/openapi"
)

// exampleDepth bounds how deep an example follows nested schemas.
const exampleDepth = 6

// formatExamples are the example strings of formats, the ones formatWords
// gives.
var formatExamples = map[string]string{
	"date-time":     "2006-01-02T15:04:05Z",
	"date":          "2006-01-02",
	"time":          "15:04:05Z",
	"duration":      "P3DT4H",
	"email":         "name@example.com",
	"hostname":      "example.com",
	"ipv4":          "192.0.2.1",
	"ipv6":          "2001:db8::1",
	"uri":           "https://example.com/a",
	"uri-reference": "/a?b",
	"uuid":          "123e4567-e89b-12d3-a456-426614174000",
}

// exampler makes example values from schemas, following $refs into the
// document's components.
type exampler struct {
	defs    map[string]*openapi.Schema
	request bool // for a request: only members required or given an example, none read-only; else none write-only
}

// value returns an example value of s: the schema's own example or
// default when it has one, else one made from its type and rules. Objects
// are ordered values that keep the properties' order when marshalled.
func (e exampler) value(s *openapi.Schema) any {
	return e.of(s, 0, map[string]bool{})
}

func (e exampler) of(s *openapi.Schema, depth int, seen map[string]bool) any {
	if s == nil || depth > exampleDepth {
		return nil
	}
	if name := refName(s.Ref); name != "" {
		if seen[name] || e.defs[name] == nil {
			return nil
		}
		seen[name] = true
		defer delete(seen, name)
		return e.of(e.defs[name], depth+1, seen)
	}
	switch {
	case len(s.Examples) > 0:
		return s.Examples[0]
	case s.Example != nil:
		return s.Example
	case s.Const != nil:
		return s.Const
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.OneOf) > 0:
		return e.of(s.OneOf[0], depth+1, seen)
	case len(s.AnyOf) > 0:
		return e.of(s.AnyOf[0], depth+1, seen)
	case len(s.AllOf) > 0:
		return e.of(s.AllOf[0], depth+1, seen)
	}
	t := ""
	for _, n := range types(s) {
		if n != "null" {
			t = n
			break
		}
	}
	if t == "" && len(s.Properties) > 0 {
		t = "object"
	}
	return e.ofType(s, t, depth, seen)
}

// ofType returns an example value of s made from its JSON type t and
// its rules.
func (e exampler) ofType(s *openapi.Schema, t string, depth int, seen map[string]bool) any {
	switch t {
	case "object":
		obj := ordered{}
		for _, p := range s.Properties {
			if e.request && (p.Schema.ReadOnly || !slices.Contains(s.Required, p.Name) && !hasExample(p.Schema)) ||
				!e.request && p.Schema.WriteOnly {
				continue // a request shows what it must send and what the document gives an example of
			}
			obj = append(obj, member{p.Name, e.of(p.Schema, depth+1, seen)})
		}
		return obj
	case "array":
		n := 1
		if s.MinItems != nil && *s.MinItems > 1 {
			n = min(*s.MinItems, 3)
		}
		if s.MaxItems != nil && *s.MaxItems < n {
			n = *s.MaxItems
		}
		items := make([]any, n)
		for i := range items {
			items[i] = e.of(s.Items, depth+1, seen)
		}
		return items
	case "string":
		return exampleString(s)
	case "integer", "number":
		return exampleNumber(s, t == "integer")
	case "boolean":
		return true
	}
	return nil
}

// hasExample reports whether s gives an example value of its own.
func hasExample(s *openapi.Schema) bool {
	return len(s.Examples) > 0 || s.Example != nil || s.Default != nil || s.Const != nil
}

// exampleString returns a string of s's format, or "string" stretched
// or cut to its length bounds. A pattern is not followed.
func exampleString(s *openapi.Schema) string {
	if v, ok := formatExamples[s.Format]; ok {
		return v
	}
	v := "string"
	if s.MinLength != nil && len(v) < *s.MinLength {
		v += strings.Repeat("s", min(*s.MinLength, 64)-len(v))
	}
	if s.MaxLength != nil && len(v) > *s.MaxLength {
		v = v[:*s.MaxLength]
	}
	return v
}

// exampleNumber returns a number within s's bounds and a multiple of its
// multipleOf: the lowest such number from the lower bound up, else from
// 1 up, else the highest below the upper bound.
func exampleNumber(s *openapi.Schema, integer bool) json.Number {
	f := func(n *json.Number) (float64, bool) {
		if n == nil {
			return 0, false
		}
		v, err := n.Float64()
		return v, err == nil
	}
	lo, hasLo := f(s.Minimum)
	loOpen, hiOpen := false, false
	if x, ok := f(s.ExclusiveMinimum); ok && (!hasLo || x >= lo) {
		lo, hasLo, loOpen = x, true, true
	}
	hi, hasHi := f(s.Maximum)
	if x, ok := f(s.ExclusiveMaximum); ok && (!hasHi || x <= hi) {
		hi, hasHi, hiOpen = x, true, true
	}
	top := hi // the upper bound as it is, which a multiple is kept within
	// An exclusive bound moves in by 1, or for a number between bounds
	// closer than 2 by half the gap: 0.5 for 0 < x < 1, where 1 would
	// break the upper bound.
	step := 1.0
	if !integer && hasLo && hasHi && hi-lo < 2 {
		step = (hi - lo) / 2
	}
	if loOpen {
		lo += step
	}
	if hiOpen {
		hi -= step
	}
	v := 1.0
	switch {
	case hasLo:
		v = lo
	case hasHi && hi < v:
		v = hi
	}
	if m, ok := f(s.MultipleOf); ok && m > 0 {
		mt := *s.MultipleOf
		if r, ok := new(big.Rat).SetString(string(mt)); ok && integer && !r.IsInt() {
			// The integers among the multiples of p/q (in lowest terms)
			// are the multiples of p: 5 for 2.5.
			mt = json.Number(r.Num().String())
			m, _ = mt.Float64()
		}
		// The least multiple from v up (v is above an exclusive lower
		// bound), else the greatest within the upper bound itself, not
		// the one moved in: 0.75 for 0 < x < 1.
		k := math.Ceil(v / m)
		if hasHi && (k*m > top || hiOpen && k*m >= top) {
			if k = math.Floor(top / m); hiOpen && k*m >= top {
				k--
			}
		}
		v = multiple(mt, m, k)
	}
	if integer {
		return json.Number(strconv.FormatInt(int64(math.Ceil(v)), 10))
	}
	return json.Number(strconv.FormatFloat(v, 'g', -1, 64))
}

// multiple returns k times m exactly, as the float64 nearest it: 0.3 for
// 3 times 0.1, which the float product writes 0.30000000000000004, not a
// multiple of 0.1 to a server that checks the number as written.
func multiple(m json.Number, mf, k float64) float64 {
	r, ok := new(big.Rat).SetString(string(m))
	if !ok || math.IsInf(k, 0) || math.IsNaN(k) {
		return k * mf
	}
	v, _ := r.Mul(r, new(big.Rat).SetFloat64(k)).Float64()
	return v
}

// ordered is a JSON object whose members marshal in their order.
type ordered []member

type member struct {
	name  string
	value any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(m.name, false)
		if err != nil {
			return nil, err
		}
		v, err := marshal(m.value, false)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonText returns v as JSON, indented when indent is set; "" when it
// cannot be written.
func jsonText(v any, indent bool) string {
	b, err := marshal(v, indent)
	if err != nil {
		return ""
	}
	return string(b)
}

// marshal returns v as JSON with <, > and & as they are: the page shows
// it as text (html/template escapes it there), and a reader or a curl
// line would get "\u003c" from json.Marshal, which escapes them for
// JSON written into HTML unescaped.
func marshal(v any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// plainText returns v as it is written in a path, query or header: a
// string as it is, anything else as JSON, an array as its first item.
func plainText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if len(x) > 0 {
			return plainText(x[0])
		}
		return ""
	case nil:
		return ""
	}
	return jsonText(v, false)
}
