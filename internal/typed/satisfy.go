package typed

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
)

// satisfiable returns an error when no value keeps r: bounds that leave
// no number between them (no integer the field's type holds, for an
// integer field: exclusiveMaximum 0 on a uint, minimum 300 on a uint8;
// no float of its size, for two neighbours both excluded or a minimum
// beyond its range, 1e39 on a float32), a multipleOf
// with no multiple within an integer field's bounds and type, a
// minLength above maxLength, a minItems above maxItems or above the
// distinct values of unique items (uniqueRoom), or an enum value
// that breaks another of the field's rules (the document would offer a
// value the server refuses). Such a field could only ever be a 422, so
// a registration with it is a mistake to name at once.
func (r *rules) satisfiable() error {
	c := r.codec
	if r.hasMin && r.hasMax && r.less(r.max, r.min) {
		return fmt.Errorf("maximum %s is below minimum %s", r.boundText(false), r.boundText(true))
	}
	if lo, hi, ok := r.intBounds(); ok {
		if lo.Cmp(hi) > 0 {
			return fmt.Errorf("no integer is within %s", r.rangeWords())
		}
		if r.multipleOf != nil {
			// The integers among the multiples of p/q (in lowest terms)
			// are the multiples of p: the least at or above lo, against
			// hi.
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
				return fmt.Errorf("no multiple of %s is within %s", r.multipleOf.FloatString(decimals(r.multipleOf)), r.rangeWords())
			}
		}
	} else if (r.hasMin || r.hasMax) && c.kind == kFloat {
		if lo, hi := r.floatBounds(); lo > hi {
			return fmt.Errorf("no %s is within %s", c.typ, r.rangeWords())
		}
	}
	if r.minLength >= 0 && r.maxLength >= 0 && r.minLength > r.maxLength {
		return fmt.Errorf("minLength %d is above maxLength %d", r.minLength, r.maxLength)
	}
	if r.minItems >= 0 && r.maxItems >= 0 && r.minItems > r.maxItems {
		return fmt.Errorf("minItems %d is above maxItems %d", r.minItems, r.maxItems)
	}
	if err := r.uniqueRoom("minItems "+strconv.Itoa(r.minItems), r.minItems, r.codec.kind == kBool, false); err != nil {
		return err
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

// floatBounds returns the least and the greatest float of the field's
// size that r's bounds admit, within its finite range (a float32's
// ±3.4028235e38): lo is above hi when there is none, as between two
// neighbours both excluded, or above a minimum beyond the range (1e39 on
// a float32, read as +Inf).
func (r *rules) floatBounds() (lo, hi float64) {
	top := math.MaxFloat64
	if r.codec.size == 4 {
		top = math.MaxFloat32
	}
	lo, hi = -top, top
	// Each bound is stepped past when exclusive, then held to the
	// range: an exclusiveMaximum beyond it (1e39 on a float32) keeps
	// the largest value, which stepping from the range's edge left out.
	if r.hasMin {
		lo = r.min.f
		if r.exclMin {
			lo = r.nextFloat(lo, math.Inf(1))
		}
		lo = max(lo, -top)
	}
	if r.hasMax {
		hi = r.max.f
		if r.exclMax {
			hi = r.nextFloat(hi, math.Inf(-1))
		}
		hi = min(hi, top)
	}
	return lo, hi
}

// nextFloat returns the float of the field's size after x toward y.
func (r *rules) nextFloat(x, y float64) float64 {
	if r.codec.size == 4 {
		return float64(math.Nextafter32(float32(x), float32(y)))
	}
	return math.Nextafter(x, y)
}

// uniqueRoom returns an error when r's uniqueItems asks for more than
// the distinct values an item can take: least items (said as what, for
// the message: "minItems 3", or an array's length), of an enum's
// distinct values, or a bool's two (bools); a pointer item's null is one
// more (null), which the decoder takes beside them and counts as a
// value of its own. It returns nil for items of more values.
func (r *rules) uniqueRoom(what string, least int, bools, null bool) error {
	if !r.uniqueItems || least < 2 {
		return nil
	}
	var n int
	var of string
	switch {
	case r.enum != nil:
		// Counted by sorting in the order uniqueItems compares by.
		sorted := slices.SortedFunc(slices.Values(r.enum), r.compare)
		n, of = len(slices.CompactFunc(sorted, func(a, b scalar) bool { return r.compare(a, b) == 0 })), "values of the enum"
	case bools:
		n, of = 2, "values of a bool, true and false"
	default:
		return nil
	}
	if null {
		n, of = n+1, of+", and null"
	}
	if least > n {
		return fmt.Errorf("%s with uniqueItems is above the %d %s: no items keep it", what, n, of)
	}
	return nil
}

// uniqueItemsOf is uniqueRoom for the items of type et of a body's
// slice, or of an array of length items (-1 for a slice), with what
// parseRules did not see: the array's length, which its items' count
// must be, and a pointer item's null, a value of its own.
func (r *rules) uniqueItemsOf(et reflect.Type, length int) error {
	what := "an array of " + items(length)
	if length < 0 || r.minItems > length {
		what = "minItems " + strconv.Itoa(r.minItems)
	}
	null := et.Kind() == reflect.Pointer
	if null {
		et = et.Elem()
	}
	c := codecFor(et)
	return r.uniqueRoom(what, max(r.minItems, length), c != nil && c.kind == kBool, null)
}

// intBounds returns the least and the greatest integer that r's bounds
// admit and the field's type holds (an int8 from -128 to 127), when the
// field holds integers; ok is false for another kind.
func (r *rules) intBounds() (lo, hi *big.Int, ok bool) {
	if k := r.codec.kind; k != kInt && k != kUint {
		return nil, nil, false
	}
	lo, hi = r.typeRange()
	if r.hasMin {
		lo = maxInt(lo, r.bound(r.min))
	}
	if r.hasMax {
		hi = minInt(hi, r.bound(r.max))
	}
	// An exclusive bound beyond the type's range excludes nothing the
	// type holds; within it, it excludes itself.
	if r.exclMin && r.hasMin && lo.Cmp(r.bound(r.min)) == 0 {
		lo.Add(lo, big.NewInt(1))
	}
	if r.exclMax && r.hasMax && hi.Cmp(r.bound(r.max)) == 0 {
		hi.Sub(hi, big.NewInt(1))
	}
	return lo, hi, true
}

// typeRange returns the least and the greatest value of r's integer
// type.
func (r *rules) typeRange() (lo, hi *big.Int) {
	bits := uint(r.codec.size * 8)
	if bits == 0 || bits > 64 {
		bits = 64
	}
	one := big.NewInt(1)
	if r.codec.kind == kUint {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, bits), one)
	}
	top := new(big.Int).Lsh(one, bits-1)
	return new(big.Int).Neg(top), top.Sub(top, one)
}

// bound returns the integer bound b as a big.Int.
func (r *rules) bound(b scalar) *big.Int {
	if r.codec.kind == kUint {
		return new(big.Int).SetUint64(b.u)
	}
	return big.NewInt(b.i)
}

func maxInt(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

func minInt(a, b *big.Int) *big.Int {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

// boundText writes the lower (or upper) bound as the field's type reads
// it, or as the tag wrote it when it is beyond a float's range (1e39 for
// a float32, read as +Inf).
func (r *rules) boundText(lower bool) string {
	b, text := r.max, r.maxText
	if lower {
		b, text = r.min, r.minText
	}
	if r.codec.kind == kFloat && math.IsInf(b.f, 0) {
		return text
	}
	return r.codec.format(b)
}

// rangeWords writes the bounds r has, with their keywords, and the range
// of an integer type when a bound is missing or beyond it, for a
// message: "the bounds exclusiveMinimum 3 and maximum 3", "minimum 300
// and the range of uint8, 0 to 255".
func (r *rules) rangeWords() string {
	var parts []string
	if r.hasMin {
		parts = append(parts, r.boundWords(true))
	}
	if r.hasMax {
		parts = append(parts, r.boundWords(false))
	}
	if c := r.codec; c.kind == kInt || c.kind == kUint {
		lo, hi := r.typeRange()
		if !r.hasMin || !r.hasMax || r.bound(r.min).Cmp(lo) < 0 || r.bound(r.max).Cmp(hi) > 0 {
			parts = append(parts, "the range of "+c.typ.String()+", "+lo.String()+" to "+hi.String())
		}
	}
	switch len(parts) {
	case 1:
		return parts[0]
	case 2:
		if r.hasMin && r.hasMax {
			return "the bounds " + parts[0] + " and " + parts[1]
		}
		return parts[0] + " and " + parts[1]
	}
	return "the bounds " + parts[0] + " and " + parts[1] + ", and " + parts[2]
}

// boundWords writes the lower (or upper) bound with its keyword, for a
// message: "exclusiveMinimum 3".
func (r *rules) boundWords(lower bool) string {
	text := r.boundText(lower)
	switch {
	case lower && r.exclMin:
		return "exclusiveMinimum " + text
	case lower:
		return "minimum " + text
	case r.exclMax:
		return "exclusiveMaximum " + text
	}
	return "maximum " + text
}

// readsItself reports whether the values the rules of a field of node n
// apply to (n's, or its items', or its map's values, behind pointers and
// wrappers) are json.Unmarshalers, which decode themselves unchecked:
// a json.RawMessage too, kept as its text.
func readsItself(n *dnode) bool {
	for n.elem != nil && (n.kind == dPointer || n.kind == dWrapper || n.kind == dMap || n.kind == dSlice || n.kind == dArray) {
		n = n.elem
	}
	return n.kind == dJSON || n.kind == dRaw
}

// isBytes reports whether n, behind pointers and wrappers, is a []byte,
// decoded from one base64 string.
func isBytes(n *dnode) bool {
	for n.elem != nil && (n.kind == dPointer || n.kind == dWrapper) {
		n = n.elem
	}
	return n.kind == dBytes
}
