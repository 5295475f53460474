package contracttest

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/pb33f/libopenapi/datamodel/high/base"
)

// gen makes values of schemas from one seeded source: the same seed, the
// same document and the same count give the same values, in the same
// order.
type gen struct {
	rnd  *rand.Rand
	made map[string]bool // the strings made so far (str)
}

// maxDepth is how deep values nest before the generator gives up.
const maxDepth = 8

// value returns a value of s for m. With full set, an object has every
// member the document lists and nothing is null; otherwise optional
// members and nulls (where allowed) come at random.
func (g *gen) value(s *base.Schema, m mode, full bool, depth int) (any, error) {
	if s == nil {
		return "any", nil
	}
	if k := unhandled(s); k != "" {
		return nil, unsupported("the keyword " + k)
	}
	if depth > maxDepth {
		return nil, unsupported("values nested deeper than 8")
	}
	if e := enumOf(s); e != nil {
		return e[g.rnd.IntN(len(e))], nil
	}
	if !full && m == asJSON && nullable(s) && g.rnd.IntN(8) == 0 {
		return nil, nil
	}
	switch kindOf(s) {
	case "null":
		if m == asText {
			return nil, unsupported("null in a param or form field")
		}
		return nil, nil
	case "boolean":
		return g.rnd.IntN(2) == 0, nil
	case "integer":
		return g.integer(s)
	case "number":
		return g.number(s)
	case "string":
		return g.str(s, m, -1)
	case "array":
		return g.array(s, m, full, depth, -1)
	case "object":
		return g.object(s, m, full, depth)
	}
	return "any", nil
}

// body returns a value of the body md: of its schema, or of its parts.
func (g *gen) body(md *media, full bool) (any, error) {
	if md.m == asParts {
		return g.parts(md, full)
	}
	return g.value(md.schema, md.m, full, 0)
}

// bodyVariants returns the variants of v, a valid value of the body md.
func (g *gen) bodyVariants(md *media, v any) []variant {
	if md.m == asParts {
		return g.partVariants(md, v)
	}
	return g.variants(md.schema, v, "body", md.m, 0)
}

// integer returns an integer within s's bounds, a multiple of its
// multipleOf, near the low end when the bounds are wide.
func (g *gen) integer(s *base.Schema) (any, error) {
	lo, hi, ok := intRange(boundsOf(s), s.Format)
	if !ok {
		return nil, unsupported("no integer within the bounds")
	}
	switch {
	case lo <= -1000 && hi >= 1000:
		lo, hi = 0, 100
	case lo <= -1000:
		lo = hi - 100
	default:
		hi = min(hi, lo+100)
	}
	if k := s.MultipleOf; k != nil && *k >= 1 && *k == math.Trunc(*k) {
		step := int64(*k)
		first := ceilDiv(lo, step) * step
		if first > hi {
			return nil, unsupported("no multiple of multipleOf within the bounds")
		}
		return intNum(first + step*g.rnd.Int64N((hi-first)/step+1)), nil
	}
	return intNum(lo + g.rnd.Int64N(hi-lo+1)), nil
}

// number returns a number within s's bounds, a multiple of its
// multipleOf.
func (g *gen) number(s *base.Schema) (any, error) {
	b := boundsOf(s)
	lo, hi := -100.0, 100.0
	if b.hasLo {
		lo = b.lo
		if b.exLo {
			lo += delta(lo)
		}
		hi = lo + 100
	}
	if b.hasHi {
		hi = b.hi
		if b.exHi {
			hi -= delta(hi)
		}
		if !b.hasLo {
			lo = hi - 100
		}
	}
	if lo > hi {
		return nil, unsupported("no number within the bounds")
	}
	if k := s.MultipleOf; k != nil && *k > 0 {
		n0, n1 := math.Ceil(lo / *k), math.Floor(hi / *k)
		if n0 > n1 {
			return nil, unsupported("no multiple of multipleOf within the bounds")
		}
		return floatNum((n0 + math.Floor(g.rnd.Float64()*(n1-n0+1))) * *k), nil
	}
	v := math.Round((lo+g.rnd.Float64()*(hi-lo))*100) / 100
	return floatNum(min(max(v, lo), hi)), nil
}

// array returns an array of s: n items, or when n < 0 a count within its
// bounds (at least one item, when allowed, so that the items' rules are
// exercised).
func (g *gen) array(s *base.Schema, m mode, full bool, depth, n int) (any, error) {
	it := items(s)
	if m == asText && it != nil {
		if k := kindOf(it); k == "object" || k == "array" {
			return nil, unsupported("an array of " + k + "s in a param or form field")
		}
	}
	lo, hi := lengths(s.MinItems, s.MaxItems)
	if n < 0 {
		n = max(lo, 1)
		if !full {
			n = lo + g.rnd.IntN(3)
		}
		if hi >= 0 {
			n = min(n, hi)
		}
	}
	unique := s.UniqueItems != nil && *s.UniqueItems
	out := []any{}
	for tries := 0; len(out) < n && tries < 20*n+20; tries++ {
		v, err := g.value(it, m, full, depth+1)
		if err != nil {
			return nil, err
		}
		if unique && slices.ContainsFunc(out, func(e any) bool { return same(e, v) }) {
			continue
		}
		out = append(out, v)
	}
	if len(out) < n {
		return nil, unsupported("no " + strconv.Itoa(n) + " distinct items")
	}
	return out, nil
}

// object returns an object of s: its required members, and its optional
// ones when full (or at random). A readOnly member is never sent.
func (g *gen) object(s *base.Schema, m mode, full bool, depth int) (any, error) {
	if m == asText && depth > 0 {
		return nil, unsupported("an object inside a param or form field")
	}
	o := object{}
	for name, p := range s.Properties.FromOldest() {
		ps := p.Schema()
		req := slices.Contains(s.Required, name)
		if ps == nil {
			if req {
				return nil, unsupported("member " + name + " has a schema libopenapi cannot resolve")
			}
			continue
		}
		if ps.ReadOnly != nil && *ps.ReadOnly || !req && !full && g.rnd.IntN(2) == 0 {
			continue
		}
		v, err := g.value(ps, m, full, depth+1)
		if err != nil {
			if req {
				return nil, err
			}
			continue
		}
		o = append(o, member{name, v})
	}
	for _, r := range s.Required {
		if _, ok := o.get(r); !ok && (s.Properties == nil || s.Properties.GetOrZero(r) == nil) {
			o = append(o, member{r, "any"})
		}
	}
	if s.Properties == nil && s.AdditionalProperties != nil && s.AdditionalProperties.IsA() {
		v, err := g.value(s.AdditionalProperties.A.Schema(), m, full, depth+1)
		if err != nil {
			return nil, err
		}
		o = append(o, member{"key1", v})
	}
	return o, nil
}

// delta is the step past a number bound x: small, but large enough that a
// float32 on the server still tells x and x±delta apart.
func delta(x float64) float64 { return max(math.Abs(x), 1) / (1 << 16) }

func intNum(v int64) number { return number(strconv.FormatInt(v, 10)) }

// floatNum writes v as a JSON number, without an exponent where it is of
// an everyday size.
func floatNum(v float64) number {
	if a := math.Abs(v); a == 0 || a >= 1e-6 && a < 1e15 {
		return number(strconv.FormatFloat(v, 'f', -1, 64))
	}
	return number(strconv.FormatFloat(v, 'g', -1, 64))
}

// ceilDiv returns a/b rounded up, for b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}
