package contracttest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// A variant is a valid value with one thing changed: a boundary of a rule
// reached (still valid), a rule broken, a member left out, a wrong type.
// Every variant is checked against its schema by libopenapi-validator
// before it is sent (see checkValues), so that the test never calls a
// value invalid that the document allows, nor the reverse.
type variant struct {
	loc   string // where the change is: "query.limit", "body.tags[0]"
	rule  string // what it is: "at maxLength", "over maxLength", "left out"
	kw    string // the keyword of the rule: "maxLength", "required" (see Known)
	v     any    // the whole value at the variant's place
	omit  bool   // the value is left out
	valid bool   // whether the document admits it
	// byEncoding: the variant is of a part's media type, which a
	// multipart body's encoding says and no schema does: the run judges
	// it by the encoding, and libopenapi-validator does not.
	byEncoding bool
}

// maxVariantDepth is how deep inside a value variants are made.
const maxVariantDepth = 5

// variants returns the variants of v, a valid value of s at loc.
func (g *gen) variants(s *base.Schema, v any, loc string, m mode, depth int) []variant {
	if s == nil || depth > maxVariantDepth || unhandled(s) != "" {
		return nil
	}
	var out []variant
	add := func(kw, rule string, v any, valid bool) {
		out = append(out, variant{loc: loc, rule: rule, kw: kw, v: v, valid: valid})
	}
	kind := kindOf(s)
	if e := enumOf(s); e != nil {
		for i, ev := range e[:min(len(e), 8)] {
			if _, scalar := text(ev); scalar || m == asJSON {
				add("enum", "enum value "+strconv.Itoa(i+1), ev, true)
			}
		}
		if x, ok := notIn(e); ok {
			add("enum", "not in enum", x, false)
		}
	} else {
		switch kind {
		case "integer", "number":
			out = append(out, g.numberVariants(s, v, loc)...)
		case "string":
			out = append(out, g.stringVariants(s, v, loc, m)...)
		case "array":
			out = append(out, g.arrayVariants(s, v, loc, m, depth)...)
		case "object":
			out = append(out, g.objectVariants(s, v, loc, m, depth)...)
		}
	}
	if m == asJSON && kind != "" && !nullable(s) {
		add("type", "null", nil, false)
	}
	if w, name, ok := wrongType(kind, v, m); ok {
		add("type", "wrong type ("+name+")", w, false)
	}
	return out
}

// numberVariants returns the boundaries of s's bounds, a value past each,
// and a value that is no multiple of its multipleOf.
func (g *gen) numberVariants(s *base.Schema, v any, loc string) []variant {
	var out []variant
	add := func(kw, rule string, v any, valid bool) {
		out = append(out, variant{loc: loc, rule: rule, kw: kw, v: v, valid: valid})
	}
	b := boundsOf(s)
	integer := kindOf(s) == "integer"
	edge := func(low bool, at, past float64) {
		kw := b.keyword(low)
		in, out := "at "+kw, "below "+kw
		if !low {
			out = "above " + kw
		}
		if kw == "exclusiveMinimum" || kw == "exclusiveMaximum" {
			in, out = "next to "+kw, "at "+kw
		}
		add(kw, in, floatNum(at), true)
		add(kw, out, floatNum(past), false)
	}
	lo, hi, ok := intRange(b, s.Format)
	switch {
	case integer && ok:
		if b.hasLo && lo > -maxSafe {
			edge(true, float64(lo), float64(lo-1))
		}
		if b.hasHi && hi < maxSafe {
			edge(false, float64(hi), float64(hi+1))
		}
	case !integer:
		if b.hasLo {
			at, past := b.lo, b.lo-delta(b.lo)
			if b.exLo {
				at, past = b.lo+delta(b.lo), b.lo
			}
			edge(true, at, past)
		}
		if b.hasHi {
			at, past := b.hi, b.hi+delta(b.hi)
			if b.exHi {
				at, past = b.hi-delta(b.hi), b.hi
			}
			edge(false, at, past)
		}
	}
	base, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	if err != nil {
		return out
	}
	if k := s.MultipleOf; k != nil && *k > 0 && (!integer || *k > 1) {
		step := *k / 2
		if integer {
			step = 1
		}
		add("multipleOf", "not a multipleOf", floatNum(base+step), false)
	}
	if integer {
		add("type", "a fraction", floatNum(base+0.5), false)
	}
	return out
}

// stringVariants returns strings at and past each length bound, one
// against the pattern, and one not of the format.
func (g *gen) stringVariants(s *base.Schema, v any, loc string, m mode) []variant {
	var out []variant
	add := func(kw, rule string, v any, valid bool) {
		out = append(out, variant{loc: loc, rule: rule, kw: kw, v: v, valid: valid})
	}
	lo, hi := lengths(s.MinLength, s.MaxLength)
	// of returns a string of n characters of s's pattern or format, or
	// plain letters when no such string has that length.
	of := func(n int) string {
		if x, err := g.str(s, m, n); err == nil {
			return x
		}
		return g.letters(n)
	}
	if lo > 0 {
		add("minLength", "at minLength", of(lo), true)
		if m == asJSON || lo > 1 {
			add("minLength", "under minLength", of(lo-1), false)
		}
	}
	if s.MaxLength != nil && hi <= 1<<16 {
		if hi > 0 {
			add("maxLength", "at maxLength", of(hi), true)
		}
		add("maxLength", "over maxLength", of(hi+1), false)
	}
	cur, _ := v.(string)
	if s.Pattern != "" {
		if x := breakPattern(s.Pattern, cur, max(lo, 1), hi); x != "" {
			add("pattern", "against pattern", x, false)
		}
	}
	if x := notFormat(s.Format); x != "" {
		add("format", "not "+article(s.Format)+" "+s.Format, x, false)
	}
	return out
}

// arrayVariants returns the variants of the first item, arrays at and
// past the item count bounds, and one that repeats an item.
func (g *gen) arrayVariants(s *base.Schema, v any, loc string, m mode, depth int) []variant {
	var out []variant
	add := func(kw, rule string, v any, valid bool) {
		out = append(out, variant{loc: loc, rule: rule, kw: kw, v: v, valid: valid})
	}
	arr, _ := v.([]any)
	if it := items(s); it != nil && len(arr) > 0 {
		for _, iv := range g.variants(it, arr[0], loc+"[0]", m, depth+1) {
			a := slices.Clone(arr)
			a[0] = iv.v
			iv.v = a
			out = append(out, iv)
		}
	}
	lo, hi := lengths(s.MinItems, s.MaxItems)
	sized := func(n int) any {
		a, err := g.array(s, m, true, depth, n)
		if err != nil {
			return nil
		}
		return a
	}
	if lo > 0 {
		if a := sized(lo); a != nil {
			add("minItems", "at minItems", a, true)
		}
		if a := sized(lo - 1); a != nil && (m == asJSON || lo > 1) {
			add("minItems", "under minItems", a, false)
		}
	}
	if s.MaxItems != nil && hi <= 1000 {
		if a := sized(hi); a != nil && hi > 0 {
			add("maxItems", "at maxItems", a, true)
		}
		if a := sized(hi + 1); a != nil {
			add("maxItems", "over maxItems", a, false)
		}
	}
	if s.UniqueItems != nil && *s.UniqueItems && len(arr) > 0 && (hi < 0 || hi >= 2) {
		add("uniqueItems", "not unique", append([]any{arr[0]}, arr...), false)
	}
	return out
}

// objectVariants returns the variants of each member, each member left
// out, and an unknown member where the object admits none.
func (g *gen) objectVariants(s *base.Schema, v any, loc string, m mode, depth int) []variant {
	var out []variant
	o, _ := v.(object)
	for name, p := range s.Properties.FromOldest() {
		cur, present := o.get(name)
		ps := p.Schema()
		if !present || ps == nil {
			continue
		}
		at := loc + "." + name
		for _, mv := range g.variants(ps, cur, at, m, depth+1) {
			mv.v = o.with(name, mv.v)
			out = append(out, mv)
		}
		out = append(out, variant{loc: at, rule: "left out", kw: "required", v: o.without(name), valid: !slices.Contains(s.Required, name)})
	}
	if closed(s) {
		name := "unknownMember"
		for s.Properties != nil && s.Properties.GetOrZero(name) != nil {
			name += "X"
		}
		out = append(out, variant{loc: loc, rule: "unknown member", kw: "additionalProperties", v: o.with(name, "x"), valid: false})
	}
	return out
}

// wrongType returns a value of another type than kind, near v, and names
// its type. In text mode only a value that is not text of kind counts.
func wrongType(kind string, v any, m mode) (any, string, bool) {
	if m == asText {
		switch kind {
		case "integer", "number":
			return "abc", "a word", true
		case "boolean":
			return "maybe", "a word", true
		}
		return nil, "", false
	}
	switch kind {
	case "string":
		return number("12345"), "number", true
	case "integer", "number", "boolean":
		t, _ := text(v)
		return t, "string", true
	case "object":
		return []any{}, "array", true
	case "array":
		if a, _ := v.([]any); len(a) > 0 {
			if _, scalar := text(a[0]); scalar {
				return a[0], "an item alone", true
			}
		}
		return "x", "string", true
	}
	return nil, "", false
}

// notIn returns a value of the enum's type that is not one of e.
func notIn(e []any) (any, bool) {
	var cands []any
	switch e[0].(type) {
	case string:
		cands = []any{"notInEnum", "notInEnumX", "notInEnumXX"}
	case number:
		cands = []any{number("987654321"), number("-987654321"), number("987654322")}
	case bool:
		cands = []any{true, false}
	default:
		return nil, false
	}
	for _, c := range cands {
		if !slices.ContainsFunc(e, func(x any) bool { return same(x, c) }) {
			return c, true
		}
	}
	return nil, false
}

// article returns "an" before a word that starts with a vowel sound (of
// the format names: a, e, i, o; u is said "you"), else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeio", rune(word[0])) {
		return "an"
	}
	return "a"
}
