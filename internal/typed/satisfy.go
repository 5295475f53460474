package typed

import (
	"fmt"
	"math/big"
)

// satisfiable returns an error when no value keeps r: bounds that leave
// no number between them (no integer, for an integer field), a
// multipleOf with no multiple between an integer field's bounds, a
// minLength above maxLength, a minItems above maxItems, or an enum value
// that breaks another of the field's rules (the document would offer a
// value the server refuses). Such a field could only ever be a 422, so
// a registration with it is a mistake to name at once.
func (r *rules) satisfiable() error {
	c := r.codec
	if r.hasMin && r.hasMax {
		if r.less(r.max, r.min) {
			return fmt.Errorf("maximum %s is below minimum %s", c.format(r.max), c.format(r.min))
		}
		if lo, hi, ok := r.intBounds(); ok {
			if lo.Cmp(hi) > 0 {
				return fmt.Errorf("no integer is within the bounds %s and %s", r.boundWords(true), r.boundWords(false))
			}
			if r.multipleOf != nil && r.multipleOf.IsInt() {
				// The least multiple at or above lo, against hi.
				m := r.multipleOf.Num()
				q := new(big.Int).Add(lo, new(big.Int).Sub(m, big.NewInt(1)))
				if lo.Sign() <= 0 {
					q.Set(lo)
				}
				q.Quo(q, m).Mul(q, m)
				if q.Cmp(lo) < 0 {
					q.Add(q, m)
				}
				if q.Cmp(hi) > 0 {
					return fmt.Errorf("no multiple of %s is within the bounds %s and %s", m, r.boundWords(true), r.boundWords(false))
				}
			}
		} else if !r.less(r.min, r.max) && (r.exclMin || r.exclMax) {
			return fmt.Errorf("no number is within the bounds %s and %s", r.boundWords(true), r.boundWords(false))
		}
	}
	if r.minLength >= 0 && r.maxLength >= 0 && r.minLength > r.maxLength {
		return fmt.Errorf("minLength %d is above maxLength %d", r.minLength, r.maxLength)
	}
	if r.minItems >= 0 && r.maxItems >= 0 && r.minItems > r.maxItems {
		return fmt.Errorf("minItems %d is above maxItems %d", r.minItems, r.maxItems)
	}
	if r.enum != nil {
		enum := r.enum
		r.enum = nil // each value against the other rules alone
		defer func() { r.enum = enum }()
		r.messages()
		for _, e := range enum {
			if fs := r.check(e, nil); len(fs) > 0 {
				return fmt.Errorf("enum value %q breaks %s: it %s", c.format(e), fs[0].keyword, fs[0].message)
			}
		}
	}
	return nil
}

// intBounds returns the least and the greatest integer r's bounds admit,
// both set, when the field holds integers; ok is false for a float.
func (r *rules) intBounds() (lo, hi *big.Int, ok bool) {
	switch r.codec.kind {
	case kInt:
		lo, hi = big.NewInt(r.min.i), big.NewInt(r.max.i)
	case kUint:
		lo, hi = new(big.Int).SetUint64(r.min.u), new(big.Int).SetUint64(r.max.u)
	default:
		return nil, nil, false
	}
	if r.exclMin {
		lo.Add(lo, big.NewInt(1))
	}
	if r.exclMax {
		hi.Sub(hi, big.NewInt(1))
	}
	return lo, hi, true
}

// boundWords writes the lower (or upper) bound with its keyword, for a
// message: "exclusiveMinimum 3".
func (r *rules) boundWords(lower bool) string {
	switch {
	case lower && r.exclMin:
		return "exclusiveMinimum " + r.codec.format(r.min)
	case lower:
		return "minimum " + r.codec.format(r.min)
	case r.exclMax:
		return "exclusiveMaximum " + r.codec.format(r.max)
	}
	return "maximum " + r.codec.format(r.max)
}
