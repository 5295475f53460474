package contracttest

import (
	"math"
	"slices"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// What the generator reads of a JSON Schema (draft 2020-12, OpenAPI 3.1's
// dialect, with OpenAPI 3.0's nullable and boolean exclusive bounds read
// too): its type, its rules, and the keywords it does not handle.

// mode is how a value travels: as JSON (a body), as text (a param, a
// header, a cookie, a form field), where every value is a string on the
// wire and null cannot be said, or as the parts of a multipart body
// (multipart.go), each as its encoding says.
type mode int

const (
	asJSON mode = iota
	asText
	asParts
)

// kindOf returns the type a value of s is made as: the first of its types
// other than "null", or the one its keywords imply, or "" for a schema
// that admits any value.
func kindOf(s *base.Schema) string {
	for _, t := range s.Type {
		if t != "null" {
			return t
		}
	}
	switch {
	case len(s.Type) > 0:
		return "null"
	case s.Properties != nil || s.Required != nil:
		return "object"
	case s.Items != nil:
		return "array"
	case s.MinLength != nil || s.MaxLength != nil || s.Pattern != "" || s.Format != "":
		return "string"
	case s.Minimum != nil || s.Maximum != nil:
		return "number"
	}
	return ""
}

// nullable reports whether null is a value of s.
func nullable(s *base.Schema) bool {
	if len(s.Type) == 0 {
		return s.Enum == nil && s.Const == nil && kindOf(s) == ""
	}
	return slices.Contains(s.Type, "null") || s.Nullable != nil && *s.Nullable
}

// unsupported is why a schema's values cannot be made: a keyword the
// generator does not handle, or rules it cannot meet together.
type unsupported string

func (u unsupported) Error() string { return string(u) }

// unhandled returns the first keyword of s that the generator does not
// handle, or "".
func unhandled(s *base.Schema) string {
	switch {
	case len(s.AllOf) > 0:
		return "allOf"
	case len(s.OneOf) > 0:
		return "oneOf"
	case len(s.AnyOf) > 0:
		return "anyOf"
	case s.Not != nil:
		return "not"
	case s.If != nil:
		return "if"
	case len(s.PrefixItems) > 0:
		return "prefixItems"
	case s.Contains != nil:
		return "contains"
	case s.PatternProperties != nil:
		return "patternProperties"
	case s.DependentRequired != nil || s.DependentSchemas != nil:
		return "dependentRequired"
	case s.PropertyNames != nil:
		return "propertyNames"
	case s.MinProperties != nil || s.MaxProperties != nil:
		return "minProperties"
	case s.BooleanSchema != nil:
		return "a boolean schema"
	}
	return ""
}

// enumOf returns the values s allows by enum or const, or nil when it
// names none.
func enumOf(s *base.Schema) []any {
	if s.Const != nil {
		var v any
		if s.Const.Decode(&v) == nil {
			return []any{fromJSON(v)}
		}
	}
	var vs []any
	for _, n := range s.Enum {
		var v any
		if n.Decode(&v) == nil {
			vs = append(vs, fromJSON(v))
		}
	}
	return vs
}

// items returns the schema of an array's items, or nil for any item.
func items(s *base.Schema) *base.Schema {
	if s.Items != nil && s.Items.IsA() && s.Items.A != nil {
		return s.Items.A.Schema()
	}
	return nil
}

// closed reports whether s refuses members it does not list.
func closed(s *base.Schema) bool {
	return s.AdditionalProperties != nil && s.AdditionalProperties.IsB() && !s.AdditionalProperties.B
}

// bounds are a number's limits, each inclusive or not.
type bounds struct {
	lo, hi       float64
	hasLo, hasHi bool
	exLo, exHi   bool // the bound itself is outside
}

// boundsOf returns the limits of s.
func boundsOf(s *base.Schema) bounds {
	var b bounds
	if s.Minimum != nil {
		b.lo, b.hasLo = *s.Minimum, true
	}
	if s.Maximum != nil {
		b.hi, b.hasHi = *s.Maximum, true
	}
	if e := s.ExclusiveMinimum; e != nil {
		switch {
		case e.IsA() && e.A && b.hasLo: // OpenAPI 3.0: a flag on minimum
			b.exLo = true
		case e.IsB() && (!b.hasLo || e.B >= b.lo):
			b.lo, b.hasLo, b.exLo = e.B, true, true
		}
	}
	if e := s.ExclusiveMaximum; e != nil {
		switch {
		case e.IsA() && e.A && b.hasHi:
			b.exHi = true
		case e.IsB() && (!b.hasHi || e.B <= b.hi):
			b.hi, b.hasHi, b.exHi = e.B, true, true
		}
	}
	return b
}

// maxSafe is the largest integer a float64 holds exactly, 2^53.
const maxSafe = 1 << 53

// intRange returns the smallest and largest integers within b (and within
// the range of format int32), and reports whether there is one.
func intRange(b bounds, format string) (lo, hi int64, ok bool) {
	lo, hi = -maxSafe, maxSafe
	if format == "int32" {
		lo, hi = math.MinInt32, math.MaxInt32
	}
	if b.hasLo {
		l := math.Ceil(b.lo)
		if b.exLo && l == b.lo {
			l++
		}
		lo = max(lo, int64(max(l, -maxSafe)))
	}
	if b.hasHi {
		h := math.Floor(b.hi)
		if b.exHi && h == b.hi {
			h--
		}
		hi = min(hi, int64(min(h, maxSafe)))
	}
	return lo, hi, lo <= hi
}

// keyword names the bound of b at the low end ("minimum" or
// "exclusiveMinimum") or the high end.
func (b bounds) keyword(low bool) string {
	switch {
	case low && b.exLo:
		return "exclusiveMinimum"
	case low:
		return "minimum"
	case b.exHi:
		return "exclusiveMaximum"
	}
	return "maximum"
}

// lengths returns a string's or an array's length limits: lo, and hi or
// -1 for none.
func lengths(minimum, maximum *int64) (lo, hi int) {
	hi = -1
	if minimum != nil {
		lo = int(*minimum)
	}
	if maximum != nil {
		hi = int(*maximum)
	}
	return lo, hi
}
