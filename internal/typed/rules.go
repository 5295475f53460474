package typed

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rules are the JSON Schema keywords of one value, read from its field's
// tags at registration and checked against each request's value.
type rules struct {
	codec *codec

	hasMin, hasMax, exclMin, exclMax bool
	min, max                         scalar   // by the codec's kind: i, u or f (±Inf: a float bound beyond the type's range)
	minText, maxText                 string   // the bounds as the tags write them
	multipleOf                       *big.Rat // exact, from the tag's decimal text; nil when unset
	multipleInt                      uint64   // multipleOf when it is a whole number that fits, else 0

	minLength, maxLength int // in characters; -1 when unset
	pattern              *regexp.Regexp
	format               string
	enum                 []scalar

	// For a slice: the items' count and whether they must differ.
	minItems, maxItems int // -1 when unset
	uniqueItems        bool

	// The message of each keyword, made once; see messages.
	msg [nKeywords]string
}

// The keywords whose messages rules keep.
const (
	kwMin = iota
	kwMax
	kwMultiple
	kwMinLength
	kwMaxLength
	kwPattern
	kwFormat
	kwEnum
	kwMinItems
	kwMaxItems
	nKeywords
)

// messages makes the message of each keyword r has, so that a failing
// request pays only for its quoted value.
func (r *rules) messages() {
	c := r.codec
	if r.hasMin {
		word := "at least "
		if r.exclMin {
			word = "more than "
		}
		r.msg[kwMin] = "must be " + word + c.format(r.min)
	}
	if r.hasMax {
		word := "at most "
		if r.exclMax {
			word = "less than "
		}
		r.msg[kwMax] = "must be " + word + c.format(r.max)
	}
	if r.multipleOf != nil {
		r.msg[kwMultiple] = "must be a multiple of " + r.multipleOf.FloatString(decimals(r.multipleOf))
	}
	r.msg[kwMinLength] = "must be at least " + chars(r.minLength)
	r.msg[kwMaxLength] = "must be at most " + chars(r.maxLength)
	if r.pattern != nil {
		r.msg[kwPattern] = "must match " + strconv.Quote(r.pattern.String())
	}
	r.msg[kwFormat] = "must be " + formatWords[r.format]
	r.msg[kwEnum] = "must be one of " + r.enumList()
	r.msg[kwMinItems] = "must have at least " + items(r.minItems)
	r.msg[kwMaxItems] = "must have at most " + items(r.maxItems)
}

// ruleTags are the tags that make rules; each value is checked where the
// field's kind is known.
var ruleTags = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "pattern", "format", "enum", "minItems", "maxItems", "uniqueItems"}

// parseRules reads the keyword tags of a field of type t (a scalar, or a
// slice whose elements c decodes), for values that c decodes.
func parseRules(tag reflect.StructTag, c *codec, slice bool) (*rules, error) {
	if err := checkTags(tag); err != nil {
		return nil, err
	}
	r := &rules{codec: c, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	any := false
	for _, k := range ruleTags {
		v, ok := tag.Lookup(k)
		if !ok {
			continue
		}
		any = true
		if c.kind == kNumber && !(slice && (k == "minItems" || k == "maxItems")) {
			// Bounds and equality of numbers of any size and precision
			// would need arithmetic a client could make unbounded (1e999999999).
			return nil, fmt.Errorf("tag %s:%q: a json.Number holds any JSON number, as its text, and takes no rule: "+
				"give the field an integer or float type to check one", k, v)
		}
		if err := r.set(k, v, slice); err != nil {
			return nil, fmt.Errorf("tag %s:%q: %v", k, v, err)
		}
	}
	if !any {
		return nil, nil
	}
	if err := r.satisfiable(); err != nil {
		return nil, err
	}
	r.messages()
	return r, nil
}

// set sets the keyword k from its tag value v.
func (r *rules) set(k, v string, slice bool) error {
	c := r.codec
	switch k {
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if !c.numeric() {
			return fmt.Errorf("applies to numbers, and the field holds %s", c.typ)
		}
		n, err := r.number(v)
		if err != nil {
			return err
		}
		// JSON Schema would apply both of minimum and exclusiveMinimum
		// (2020-12 Validation sections 6.2.4, 6.2.5); one bound a side
		// is all a field needs, and all the check keeps.
		switch k {
		case "minimum", "exclusiveMinimum":
			if r.hasMin {
				return fmt.Errorf("bounds the value from below, as minimum does: keep one of the two")
			}
			r.hasMin, r.min, r.minText, r.exclMin = true, n, v, k == "exclusiveMinimum"
		default:
			if r.hasMax {
				return fmt.Errorf("bounds the value from above, as maximum does: keep one of the two")
			}
			r.hasMax, r.max, r.maxText, r.exclMax = true, n, v, k == "exclusiveMaximum"
		}
	case "multipleOf":
		m, ok := new(big.Rat).SetString(v)
		if !c.numeric() || !ok || !isJSONNumber(v) || m.Sign() <= 0 {
			return fmt.Errorf("wants a positive number, on a number field")
		}
		r.multipleOf = m
		if m.IsInt() && m.Num().IsUint64() {
			r.multipleInt = m.Num().Uint64()
		}
	case "minLength", "maxLength":
		n, err := count(v)
		if err != nil || c.kind != kString && c.kind != kText {
			return fmt.Errorf("wants a count, on a string field")
		}
		if k == "minLength" {
			r.minLength = n
		} else {
			r.maxLength = n
		}
	case "pattern":
		expr, err := ecmaPattern(v)
		if err != nil {
			return fmt.Errorf("wants a regular expression ECMA-262 and Go read alike: %v", err)
		}
		re, err := regexp.Compile(expr)
		if err != nil || c.kind != kString && c.kind != kText {
			return fmt.Errorf("wants a regular expression (%v), on a string field", err)
		}
		r.pattern = re
	case "format":
		if formats[v] == nil && !annotationFormats[v] {
			return fmt.Errorf("is no format this package checks: use one of %s (or %s, which the document shows and nothing checks)",
				strings.Join(formatNames(), ", "), strings.Join(slices.Sorted(maps.Keys(annotationFormats)), ", "))
		}
		if c.kind != kString && c.kind != kText && !(v == "date-time" && c.kind == kTime) {
			return fmt.Errorf("applies to strings, and the field holds %s", c.typ)
		}
		if formats[v] != nil {
			r.format = v
		}
	case "enum":
		es, err := EnumValues(v)
		if err != nil {
			return err
		}
		for _, e := range es {
			s, kw, want := c.parse(e)
			if kw != "" {
				return fmt.Errorf("value %q %s", e, want)
			}
			r.enum = append(r.enum, s)
		}
	case "minItems", "maxItems", "uniqueItems":
		if !slice {
			return fmt.Errorf("applies to slices")
		}
		return r.setItems(k, v)
	}
	return nil
}

func (r *rules) setItems(k, v string) error {
	if k == "uniqueItems" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("wants true or false")
		}
		r.uniqueItems = b
		return nil
	}
	n, err := count(v)
	if err != nil {
		return err
	}
	if k == "minItems" {
		r.minItems = n
	} else {
		r.maxItems = n
	}
	return nil
}

// count parses a non-negative count: digits, or a whole number written
// with a fraction or exponent (2.0), as JSON Schema allows.
func count(v string) (int, error) {
	n, err := strconv.Atoi(wholeNumber(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("wants a non-negative integer")
	}
	return n, nil
}

// number parses a bound in the codec's kind; an int field takes only
// integer bounds. The bound is written as JSON writes a number, as the
// document will show it: not "00", "+1", ".5", "NaN" or "0x10", which
// strconv would take.
func (r *rules) number(v string) (scalar, error) {
	var n scalar
	var err error
	if !isJSONNumber(v) {
		return n, fmt.Errorf("is no number as JSON writes one, such as 10, -2.5 or 1e3")
	}
	switch r.codec.kind {
	case kInt:
		n.i, err = strconv.ParseInt(v, 10, 64)
	case kUint:
		n.u, err = strconv.ParseUint(v, 10, 64)
	default:
		// A float32 value is read in its own precision (0.1 is
		// 0.100000001490116…): the bound is too, so that 0.1 is not
		// above maximum 0.1; and straight from its text, as the value
		// is, not through a float64, which can round it to the other
		// float32 (1.00000005960464477539062501 is a float64 halfway
		// between two float32s, then rounded down, where the value is
		// rounded up).
		bits := 64
		if r.codec.size == 4 {
			bits = 32
		}
		n.f, err = strconv.ParseFloat(v, bits)
		if _, err64 := strconv.ParseFloat(v, 64); bits == 32 && err64 == nil && math.IsInf(n.f, 0) {
			// Beyond the largest float32 (1e39), and a float64 still,
			// which the document writes as it is: a bound on the side
			// away from it holds every value, one on the side toward it
			// none (satisfiable refuses that). Beyond a float64's, it
			// is refused: readers of the document that hold numbers as
			// float64s could not read it.
			err = nil
		}
	}
	if err != nil {
		return n, fmt.Errorf("is not a number the field can hold (%s)", r.codec.typ)
	}
	return n, nil
}

// less reports whether a < b in the codec's kind.
func (r *rules) less(a, b scalar) bool {
	switch r.codec.kind {
	case kInt:
		return a.i < b.i
	case kUint:
		return a.u < b.u
	}
	return a.f < b.f
}

// failure is one broken rule: its keyword and what the value must be.
type failure struct{ keyword, message string }

// check appends to fs each rule v breaks.
func (r *rules) check(v scalar, fs []failure) []failure {
	c := r.codec
	if r.hasMin && (r.less(v, r.min) || r.exclMin && !r.less(r.min, v)) {
		kw := "minimum"
		if r.exclMin {
			kw = "exclusiveMinimum"
		}
		fs = append(fs, failure{kw, r.msg[kwMin]})
	}
	if r.hasMax && (r.less(r.max, v) || r.exclMax && !r.less(v, r.max)) {
		kw := "maximum"
		if r.exclMax {
			kw = "exclusiveMaximum"
		}
		fs = append(fs, failure{kw, r.msg[kwMax]})
	}
	if r.multipleOf != nil && !r.multiple(v) {
		fs = append(fs, failure{"multipleOf", r.msg[kwMultiple]})
	}
	if r.minLength >= 0 || r.maxLength >= 0 {
		n := utf8.RuneCountInString(v.s)
		if r.minLength >= 0 && n < r.minLength {
			fs = append(fs, failure{"minLength", r.msg[kwMinLength]})
		}
		if r.maxLength >= 0 && n > r.maxLength {
			fs = append(fs, failure{"maxLength", r.msg[kwMaxLength]})
		}
	}
	if r.pattern != nil && !r.pattern.MatchString(v.s) {
		fs = append(fs, failure{"pattern", r.msg[kwPattern]})
	}
	if r.format != "" && c.kind != kTime && !formats[r.format](v.s) {
		fs = append(fs, failure{"format", r.msg[kwFormat]})
	}
	if r.enum != nil && !r.inEnum(v) {
		fs = append(fs, failure{"enum", r.msg[kwEnum]})
	}
	return fs
}

// inEnum reports whether v is one of r's enum values.
func (r *rules) inEnum(v scalar) bool {
	for _, e := range r.enum {
		if r.same(e, v) {
			return true
		}
	}
	return false
}

// same reports whether a and b are the same value of the codec's kind.
func (r *rules) same(a, b scalar) bool {
	switch r.codec.kind {
	case kString, kText:
		return a.s == b.s
	case kTime:
		return a.t.Equal(b.t)
	case kFloat:
		return a.f == b.f
	case kUint:
		return a.u == b.u
	}
	return a.i == b.i
}

func (r *rules) enumList() string {
	var b strings.Builder
	for i, e := range r.enum {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(r.codec.format(e)))
	}
	return b.String()
}

// checkItems appends to fs each rule on the count of n items that they
// break, and then, unless the count already failed (the answer is a
// failure either way), whether the items are unique: distinct reports
// that, at O(n log n) cost, and is not called when the count failed or
// uniqueItems is unset.
func (r *rules) checkItems(n int, distinct func() bool, fs []failure) []failure {
	k := len(fs)
	if r.minItems >= 0 && n < r.minItems {
		fs = append(fs, failure{"minItems", r.msg[kwMinItems]})
	}
	if r.maxItems >= 0 && n > r.maxItems {
		fs = append(fs, failure{"maxItems", r.msg[kwMaxItems]})
	}
	if r.uniqueItems && len(fs) == k && distinct != nil && !distinct() {
		fs = append(fs, failure{"uniqueItems", "must not repeat an item"})
	}
	return fs
}

// multiple reports whether v is a whole multiple of r's multipleOf,
// exactly: an integer by integer arithmetic, a float by the shortest
// decimal that reads back as it (the number the client wrote), never
// through a float64 quotient.
func (r *rules) multiple(v scalar) bool {
	c := r.codec
	switch {
	case c.kind == kInt && r.multipleInt > 0:
		a := uint64(v.i)
		if v.i < 0 {
			a = -a
		}
		return a%r.multipleInt == 0
	case c.kind == kUint && r.multipleInt > 0:
		return v.u%r.multipleInt == 0
	}
	var x big.Rat
	switch c.kind {
	case kInt:
		x.SetInt64(v.i)
	case kUint:
		x.SetUint64(v.u)
	default:
		if _, ok := x.SetString(strconv.FormatFloat(v.f, 'g', -1, int(c.size*8))); !ok {
			return false
		}
	}
	return x.Quo(&x, r.multipleOf).IsInt()
}

// decimals returns how many digits after the point write m exactly; m
// came from a decimal tag, so some power of ten is a multiple of its
// denominator.
func decimals(m *big.Rat) int {
	p, ten := big.NewInt(1), big.NewInt(10)
	var rem big.Int
	for n := 0; n < 400; n++ {
		if rem.Mod(p, m.Denom()).Sign() == 0 {
			return n
		}
		p.Mul(p, ten)
	}
	return 400
}

func chars(n int) string {
	if n == 1 {
		return "1 character long"
	}
	return strconv.Itoa(n) + " characters long"
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return strconv.Itoa(n) + " items"
}

// EnumValues splits an enum tag into its values as text. The tag is
// either a comma-separated list (`enum:"red,green"`), whose values hold
// no comma, or a JSON array of strings, numbers and booleans
// (`enum:"[\"a,b\", \"c\"]"`), whose strings may hold anything; a number
// or boolean stands for its JSON text. The error says why a JSON array
// cannot be read.
func EnumValues(v string) ([]string, error) {
	if !strings.HasPrefix(strings.TrimSpace(v), "[") {
		return strings.Split(v, ","), nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(v), &raw); err != nil || len(raw) == 0 {
		return nil, fmt.Errorf("wants a JSON array of values, or values separated by commas")
	}
	out := make([]string, len(raw))
	for i, m := range raw {
		var s string
		switch {
		case len(m) > 0 && (m[0] == '{' || m[0] == '[' || string(m) == "null"):
			return nil, fmt.Errorf("value %s is no string, number or boolean", m)
		case json.Unmarshal(m, &s) == nil:
			out[i] = s
		default:
			out[i] = string(m)
		}
	}
	return out, nil
}
