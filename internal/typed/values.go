package typed

import (
	"encoding"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

// The scalar types a typed operation binds from text, how each is parsed,
// and how values are read and written where they are. The kind and the
// store are chosen at registration; a request only parses and writes
// through an unsafe.Pointer at the field's offset, which reflection
// computed.
//
// This file is the package's one use of unsafe: every conversion of an
// unsafe.Pointer and every pointer arithmetic is here, in store, load,
// fieldAt, itemAt, setNew, deref, sliceAt, intAt and bytesString. The
// other files only carry unsafe.Pointer values from one to another. The
// invariant every one of these relies on, stated once:
//
// NOTE: a pointer handed to them points to a live value of the Go type
// that the plan (or codec) at hand was made from by reflection, an offset
// is one that reflect.StructField.Offset gave for a field of that type,
// and an item size is reflect.Type.Size of the slice's or array's element
// type. So base+off is the address of that field, of that field's type,
// inside the same allocation, which `go vet` and -d=checkptr check hold;
// and the value stays reachable through an ordinary Go pointer (the *In a
// handler gets, a slice reflect made) for as long as the pointer is used.
// bytesString's bytes are not written while its string is used: the
// decoder's views of the body's buffer are parsed and dropped before the
// buffer goes back to its pool.

type scalarKind uint8

const (
	kString scalarKind = iota
	kBool
	kInt
	kUint
	kFloat
	kTime     // time.Time, RFC 3339
	kDuration // time.Duration, time.ParseDuration's syntax
	kText     // an encoding.TextUnmarshaler
	kNumber   // json.Number: a JSON number's text (RFC 8259 section 6), kept as written
)

// scalar is one parsed value: the field of its kind is set.
type scalar struct {
	s string // the text as it came, for every kind
	i int64
	u uint64
	f float64
	t time.Time
}

// codec parses text into a scalar of one Go type and stores it.
type codec struct {
	kind scalarKind
	typ  reflect.Type // the field's type (the element's, for a pointer or slice)
	size uintptr      // typ.Size(), for ints, uints and floats
	// want is what a value of an int or uint that is no integer must
	// be, and wantRange what one past the type's range must be, for the
	// messages: "ten" is told it must be an integer, not the range of
	// an int64, which only a number that does not fit needs to hear.
	want, wantRange string
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
	durationType    = reflect.TypeFor[time.Duration]()
)

// codecFor returns the codec of t, or nil when t is no bindable scalar.
func codecFor(t reflect.Type) *codec {
	c := &codec{typ: t, size: t.Size()}
	switch {
	case t == timeType:
		c.kind = kTime
	case t == durationType:
		c.kind = kDuration
	case t == jsonNumberType:
		c.kind = kNumber
	case reflect.PointerTo(t).Implements(textUnmarshaler):
		c.kind = kText
	default:
		switch t.Kind() {
		case reflect.String:
			c.kind = kString
		case reflect.Bool:
			c.kind = kBool
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			c.kind = kInt
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			c.kind = kUint
		case reflect.Float32, reflect.Float64:
			c.kind = kFloat
		default:
			return nil
		}
	}
	c.integerWants()
	return c
}

// integerWants sets c.want and c.wantRange for an int or uint codec, by
// its size.
func (c *codec) integerWants() {
	bits := c.size * 8
	switch c.kind {
	case kInt:
		c.want = "must be an integer"
		c.wantRange = "must be an integer from " + strconv.FormatInt(-1<<(bits-1), 10) + " to " + strconv.FormatInt(1<<(bits-1)-1, 10)
	case kUint:
		c.want = "must be a non-negative integer"
		c.wantRange = "must be an integer from 0 to " + strconv.FormatUint(math.MaxUint64>>(64-bits), 10)
	}
}

// notInteger returns what s, a value of an int or uint codec that did
// not parse, must be: wantRange when s is a whole number (its digits,
// after a sign), which only its size keeps out, else want.
func (c *codec) notInteger(s string) string {
	digits := strings.TrimLeft(s, "+-")
	if len(s)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return c.want
	}
	if c.kind == kUint && s[0] == '-' && strings.Trim(digits, "0") != "" {
		return c.want
	}
	return c.wantRange
}

// numeric reports whether the codec's values are numbers.
func (c *codec) numeric() bool { return c.kind == kInt || c.kind == kUint || c.kind == kFloat }

// parse parses s. On failure it returns the JSON Schema keyword and what
// the value must be, for the message.
func (c *codec) parse(s string) (v scalar, keyword, want string) {
	v.s = s
	var err error
	switch c.kind {
	case kString, kText:
		// A JSON Schema string is Unicode text: bytes that are no UTF-8
		// (an escape such as %FF) would reach the handler and then the
		// answer as U+FFFD, changed, where a JSON body's are a 400. A
		// TextUnmarshaler's schema is a string too.
		if !validText(s) {
			return v, "type", "must be text in UTF-8"
		}
		return v, "", ""
	case kBool:
		// strconv.ParseBool's words: 1, t, T, TRUE, true, True and their
		// false counterparts, as OpenAPI tools read a boolean param.
		// Matched here rather than by calling it, so that a word it
		// refuses costs no strconv error value.
		switch s {
		case "true", "1", "t", "T", "TRUE", "True":
			v.i = 1
		case "false", "0", "f", "F", "FALSE", "False":
		default:
			return v, "type", "must be true or false"
		}
	case kInt:
		// Checked first, so that a word costs no strconv error value;
		// plain digits, the usual value, skip wholeNumber's look at them.
		if !integer(s, true) {
			if s = wholeNumber(s); !integer(s, true) {
				return v, "type", c.notInteger(s)
			}
		}
		if v.i, err = strconv.ParseInt(s, 10, int(c.size*8)); err != nil {
			return v, "type", c.wantRange
		}
	case kUint:
		if !integer(s, false) {
			if s = wholeNumber(s); !integer(s, false) {
				return v, "type", c.notInteger(s)
			}
		}
		if v.u, err = strconv.ParseUint(s, 10, int(c.size*8)); err != nil {
			return v, "type", c.wantRange
		}
	case kFloat:
		// A JSON Schema number is decimal and finite: no "NaN", "Inf",
		// hex or underscores, which ParseFloat would take.
		if !decimalNumber(s) {
			return v, "type", "must be a decimal number"
		}
		if v.f, err = strconv.ParseFloat(s, int(c.size*8)); err != nil || math.IsInf(v.f, 0) {
			return v, "type", "must be a finite number"
		}
	case kNumber:
		// What encoding/json writes a json.Number as, and so all it may
		// hold: a number as JSON writes one, not "+1", "01" or ".5".
		if !isJSONNumber(s) {
			return v, "type", "must be a number as JSON writes one, such as -1.5e3"
		}
	case kTime:
		var ok bool
		if v.t, ok = readDateTime(s); !ok {
			return v, "format", "must be " + dateTimeWords
		}
	case kDuration:
		var d time.Duration
		if d, err = time.ParseDuration(s); err != nil {
			return v, "type", "must be a duration such as 1.5s or 2h45m"
		}
		v.i = int64(d)
	}
	return v, "", ""
}

// store writes v at p, which points to a value of c.typ. Only a text
// type's UnmarshalText can fail; its error says why.
func (c *codec) store(p unsafe.Pointer, v scalar) error {
	switch c.kind {
	case kString, kNumber:
		*(*string)(p) = v.s
	case kBool:
		*(*bool)(p) = v.i != 0
	case kInt, kDuration:
		storeInt(p, c.size, uint64(v.i))
	case kUint:
		storeInt(p, c.size, v.u)
	case kFloat:
		if c.size == 4 {
			*(*float32)(p) = float32(v.f)
		} else {
			*(*float64)(p) = v.f
		}
	case kTime:
		*(*time.Time)(p) = v.t
	case kText:
		return reflect.NewAt(c.typ, p).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(v.s))
	}
	return nil
}

// storeInt writes the low size bytes of n at p, as an integer of that size.
func storeInt(p unsafe.Pointer, size uintptr, n uint64) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(n)
	case 2:
		*(*uint16)(p) = uint16(n)
	case 4:
		*(*uint32)(p) = uint32(n)
	default:
		*(*uint64)(p) = n
	}
}

// load reads the value at p, which points to a value of c.typ, for the
// rules that check decoded body values. A text type's value is its text,
// when it has a MarshalText.
func (c *codec) load(p unsafe.Pointer) scalar {
	var v scalar
	switch c.kind {
	case kString, kNumber:
		v.s = *(*string)(p)
	case kBool:
		if *(*bool)(p) {
			v.i = 1
		}
	case kInt, kDuration:
		v.i = loadInt(p, c.size)
	case kUint:
		v.u = loadUint(p, c.size)
	case kFloat:
		if c.size == 4 {
			v.f = float64(*(*float32)(p))
		} else {
			v.f = *(*float64)(p)
		}
	case kTime:
		v.t = *(*time.Time)(p)
	case kText:
		if m, ok := reflect.NewAt(c.typ, p).Interface().(encoding.TextMarshaler); ok {
			if b, err := m.MarshalText(); err == nil {
				v.s = string(b)
			}
		}
	}
	return v
}

func loadInt(p unsafe.Pointer, size uintptr) int64 {
	switch size {
	case 1:
		return int64(*(*int8)(p))
	case 2:
		return int64(*(*int16)(p))
	case 4:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

func loadUint(p unsafe.Pointer, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// format returns v as text, as a header or a message shows it.
func (c *codec) format(v scalar) string {
	switch c.kind {
	case kBool:
		return strconv.FormatBool(v.i != 0)
	case kInt:
		return strconv.FormatInt(v.i, 10)
	case kUint:
		return strconv.FormatUint(v.u, 10)
	case kFloat:
		return strconv.FormatFloat(v.f, 'g', -1, int(c.size*8))
	case kTime:
		return v.t.Format(time.RFC3339Nano)
	case kDuration:
		return time.Duration(v.i).String()
	}
	return v.s
}

// fieldAt returns the address of the field at offset off of the struct
// at base.
func fieldAt(base unsafe.Pointer, off uintptr) unsafe.Pointer { return unsafe.Add(base, off) }

// itemAt returns the address of item i of the array of items of size
// bytes at data; i is below the array's length.
func itemAt(data unsafe.Pointer, i int, size uintptr) unsafe.Pointer {
	return unsafe.Add(data, uintptr(i)*size)
}

// setNew stores a new zero value of t in the *t at p, and returns its
// address.
func setNew(p unsafe.Pointer, t reflect.Type) unsafe.Pointer {
	nv := reflect.New(t).UnsafePointer()
	*(*unsafe.Pointer)(p) = nv
	return nv
}

// deref returns the pointer stored at p, which holds a pointer.
func deref(p unsafe.Pointer) unsafe.Pointer { return *(*unsafe.Pointer)(p) }

// sliceAt returns the data and the length of the slice at p.
func sliceAt(p unsafe.Pointer) (data unsafe.Pointer, n int) {
	s := headerAt(p)
	return s.data, s.len
}

// sliceHeader is a slice as the runtime lays it out: its first word is
// its data pointer, its second its length, its third its capacity, the
// layout unsafe.Slice and reflect.SliceHeader document.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// headerAt returns the header of the slice at p, through which the
// decoder reads the capacity and sets the length (within it) of a slice
// it fills, at a fraction of reflect.Value.SetLen's cost; the data and
// capacity change only through reflect (Grow).
func headerAt(p unsafe.Pointer) *sliceHeader { return (*sliceHeader)(p) }

// within reports whether b is a part of the bytes of s.
func within(b, s []byte) bool {
	if len(b) == 0 {
		return true
	}
	off := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return off < uintptr(len(s))
}

// stringAt, boolAt, float32At and float64At return the value of their
// type at p, for the JSON encoder (encjson.go).
func stringAt(p unsafe.Pointer) string   { return *(*string)(p) }
func boolAt(p unsafe.Pointer) bool       { return *(*bool)(p) }
func float32At(p unsafe.Pointer) float32 { return *(*float32)(p) }
func float64At(p unsafe.Pointer) float64 { return *(*float64)(p) }

// intAt returns the int at p.
func intAt(p unsafe.Pointer) int { return *(*int)(p) }

// bytesString returns b as a string without a copy; b is never written
// again.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// storeAny writes v into the interface with no methods at p.
func storeAny(p unsafe.Pointer, v any) { *(*any)(p) = v }

// storeNil writes a nil pointer at p, which holds a pointer.
func storeNil(p unsafe.Pointer) { *(*unsafe.Pointer)(p) = nil }

// setPart stores pt in the value of a file type at p: a struct whose one
// field is a *Part (see isFileType), so the struct's address is the
// field's.
func setPart(p unsafe.Pointer, pt *Part) { *(**Part)(p) = pt }
