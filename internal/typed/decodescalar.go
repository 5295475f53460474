package typed

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// The decoder's scalars: strings, numbers and booleans, stored and checked.

// scalar decodes a string, boolean or number (n.quoted: inside a string)
// into p, and checks its rules.
func (d *decoder) scalar(n *dnode, p unsafe.Pointer, c byte) {
	var lit []byte
	switch {
	case n.quoted:
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		lit = d.str()
		if d.err != "" {
			return
		}
		if string(lit) == "null" {
			// JSON's null as the string's text: encoding/json leaves
			// the value as it was (a pointer's is nil: quotedNull). A
			// typed body's value has no null, nor its pattern "null".
			if n.null != "" {
				d.fail("type", got("must be "+n.want, "null"))
			}
			return
		}
		if !quotedLiteral(n.kind, lit) {
			d.fail("type", got("must be "+n.want, bytesString(lit)))
			return
		}
		if n.kind == dString {
			sub := decoder{s: lit}
			lit = sub.str()
			d.lone = sub.lone
		}
	case n.kind == dString:
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		lit = d.str()
		if d.err != "" {
			return
		}
	case n.kind == dBool:
		switch {
		case c == 't' && d.lit("true"):
			lit = trueLit
		case c == 'f' && d.lit("false"):
			lit = falseLit
		case c == 't' || c == 'f':
			return
		default:
			d.mismatch(n, c)
			return
		}
	case c != '-' && (c < '0' || c > '9'):
		if !n.textNumber || c != '"' {
			d.mismatch(n, c)
			return
		}
		// A json.Number of a bare plan: a string holding a number too.
		if lit = d.str(); d.err != "" {
			return
		}
		if !isJSONNumber(bytesString(lit)) {
			d.fail("type", got("must be "+n.want, bytesString(lit)))
			return
		}
	default:
		lit = d.number()
		if d.err != "" {
			return
		}
	}
	var v scalar
	switch n.kind {
	case dString:
		if d.lone {
			d.failLone()
		}
		if !d.keepAll && (d.unkept || d.failed()) && d.inBody(lit) {
			// The value is only checked, not kept (it is a dropped
			// item's, or the request has failed), and needs no copy
			// while the body is there.
			v.s = bytesString(lit)
			d.cut = true
		} else {
			v.s = string(lit)
		}
	case dBool:
		if lit[0] == 't' {
			v.i = 1
		}
	case dInt, dUint:
		var ok bool
		if v, ok = d.integer(n, lit); !ok {
			return
		}
	case dFloat:
		f, err := strconv.ParseFloat(bytesString(lit), int(n.codec.size*8))
		if err != nil {
			d.fail("type", got("must be a number a "+n.typ.Kind().String()+" holds", bytesString(lit)))
			return
		}
		v.f = f
	case dNumber:
		v.s = string(lit) // the number as written, any size
	}
	_ = n.codec.store(p, v)
	if n.rules != nil {
		d.check(n.rules, v)
	}
}

var trueLit, falseLit = []byte("true"), []byte("false")

// quotedNull reads the string at d.i, of a ,string member's pointer at
// p, when it is "null", and makes the pointer nil, as encoding/json does
// and the member's pattern admits (quotedSchema); another is left unread.
// It reports whether it read the string.
func (d *decoder) quotedNull(p unsafe.Pointer) bool {
	start := d.i
	lit := d.str()
	switch {
	case d.err != "":
		return true // no JSON: the body is a 400
	case string(lit) == "null":
		storeNil(p)
		return true
	}
	d.i = start
	return false
}

// quotedLiteral reports whether lit, the text of a ,string member's
// string, is a JSON value of the kind k, as the member's pattern says
// (quotedSchema): a JSON string for a string, true or false for a bool,
// a JSON number (RFC 8259 section 6) for a float, and for an integer its
// digits alone, without a fraction or an exponent (1e2, 1.0), which
// encoding/json refuses too, and with no minus for an unsigned one.
func quotedLiteral(k dkind, lit []byte) bool {
	switch k {
	case dInt, dUint:
		digits := lit
		if k == dInt && len(digits) > 0 && digits[0] == '-' {
			digits = digits[1:]
		}
		if len(digits) == 0 || digits[0] == '0' && len(digits) > 1 {
			return false
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	case dString:
		sub := decoder{s: lit}
		if len(lit) < 2 || lit[0] != '"' {
			return false
		}
		sub.str()
		return sub.err == "" && sub.i == len(lit)
	case dBool:
		return string(lit) == "true" || string(lit) == "false"
	}
	sub := decoder{s: lit}
	sub.number()
	return len(lit) > 0 && sub.err == "" && sub.i == len(lit)
}

// integer parses lit, a JSON number, as an integer of n's kind and size:
// a whole number written with a fraction or exponent (1.0, 1e2) is one,
// as JSON Schema counts it.
func (d *decoder) integer(n *dnode, lit []byte) (scalar, bool) {
	var v scalar
	bits := n.codec.size * 8
	if len(lit) <= 18 {
		neg := lit[0] == '-'
		digits := lit
		if neg {
			digits = lit[1:]
		}
		var u uint64
		plain := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				plain = false
				break
			}
			u = u*10 + uint64(c-'0')
		}
		if plain {
			if n.kind == dUint {
				if !neg || u == 0 {
					if bits == 64 || u < 1<<bits {
						v.u = u
						return v, true
					}
				}
			} else {
				i := int64(u)
				if neg {
					i = -i
				}
				if bits == 64 || -1<<(bits-1) <= i && i < 1<<(bits-1) {
					v.i = i
					return v, true
				}
			}
			d.fail("type", n.codec.wantRange+", got "+string(lit))
			return v, false
		}
	}
	pv, kw, want := n.codec.parse(string(lit))
	if kw != "" {
		d.fail("type", want+", got "+Clip(string(lit)))
		return v, false
	}
	pv.s = ""
	return pv, true
}

// inBody reports whether b is a part of the body's bytes, d.s, rather
// than of d.scratch.
func (d *decoder) inBody(b []byte) bool { return within(b, d.s) }

// check adds a failure for each rule v breaks. A string that breaks its
// length rules is not matched against its pattern, format or enum: the
// answer is a failure either way, and a long string is where a pattern
// costs most.
func (d *decoder) check(rs *rules, v scalar) {
	if d.capped() {
		return
	}
	var buf [4]failure
	fs := buf[:0]
	if rs.minLength >= 0 || rs.maxLength >= 0 {
		n := utf8.RuneCountInString(v.s)
		if rs.minLength >= 0 && n < rs.minLength {
			fs = append(fs, failure{"minLength", rs.msg[kwMinLength]})
		}
		if rs.maxLength >= 0 && n > rs.maxLength {
			fs = append(fs, failure{"maxLength", rs.msg[kwMaxLength]})
		}
	}
	if len(fs) == 0 {
		fs = rs.check(v, fs)
	}
	for _, f := range fs {
		d.fail(f.keyword, gotValue(f.message, rs.codec, v))
	}
}

// gotValue returns msg followed by v, from the body, bounded.
func gotValue(msg string, c *codec, v scalar) string {
	if c.kind == kString || c.kind == kText {
		return got(msg, v.s)
	}
	return msg + ", got " + c.format(v)
}

// fromString decodes a string into p, a value of n's type that JSON
// writes as a string: a time.Time (RFC 3339), an
// encoding.TextUnmarshaler, or a []byte (base64).
func (d *decoder) fromString(n *dnode, p unsafe.Pointer) {
	text := d.str()
	if d.err != "" {
		return
	}
	switch n.kind {
	case dTime:
		v, kw, want := n.codec.parse(bytesString(text))
		if kw != "" {
			d.fail(kw, got(want, bytesString(text)))
			return
		}
		v.s = "" // the text is the body's, not to be kept
		_ = n.codec.store(p, v)
		if n.rules != nil {
			d.check(n.rules, v)
		}
	case dText:
		if d.lone {
			d.failLone()
		}
		u := reflect.NewAt(n.typ, p).Interface().(encoding.TextUnmarshaler)
		if err := u.UnmarshalText(text); err != nil {
			d.fail("format", got("is not valid: "+Clip(err.Error()), bytesString(text)))
			return
		}
		if n.rules != nil {
			d.check(n.rules, scalar{s: string(text)})
		}
	case dBytes:
		buf := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
		k, err := base64.StdEncoding.Decode(buf, text)
		if err != nil {
			d.fail("contentEncoding", "must be base64 (RFC 4648 section 4), with padding")
			return
		}
		reflect.NewAt(n.typ, p).Elem().SetBytes(buf[:k])
	}
}

// selfDecoding hands the JSON text of the value at d.i, null included,
// to p, a value of n's type that reads its own: a json.Unmarshaler, or a
// json.RawMessage, which keeps a copy.
func (d *decoder) selfDecoding(n *dnode, p unsafe.Pointer) {
	start := d.i
	d.skip()
	if d.err != "" {
		return
	}
	if n.kind == dRaw {
		*reflect.NewAt(n.typ, p).Interface().(*json.RawMessage) = bytes.Clone(d.s[start:d.i])
		return
	}
	u := reflect.NewAt(n.typ, p).Interface().(json.Unmarshaler)
	if err := u.UnmarshalJSON(d.s[start:d.i]); err != nil {
		d.fail("format", "is not valid: "+Clip(err.Error()))
	}
}

// mismatch fails the value where the walk is, of the JSON type that c
// starts, for being no value of n, and skips it.
func (d *decoder) mismatch(n *dnode, c byte) {
	d.fail("type", "must be "+n.want+", got "+jsonKind(c))
	d.skip()
}

// jsonKind names the JSON type of a value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
