package typed

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// The JSON body decoder of typed operations: one pass over the body's
// bytes, led by the body's plan (decplan.go). Each value is checked as it
// is read, stored where it goes, and checked against its rules there; a
// struct's required members and defaults are settled at the end of its
// object. So a body costs time linear in its size, whatever its type and
// tags: no second walk of the decoded value, no text scanned twice.
//
// What is JSON at all is RFC 8259's: a body that breaks its grammar, has
// data after its value, holds invalid UTF-8 inside a string (section
// 8.1) or nests deeper than maxDepth is a 400, and the failures found
// before are dropped. Everything else wrong is a failure of the member
// where it is, located, and the decoding goes on, so that all of a body's
// failures come in one answer (the first MaxFailures).
//
// Members are found as encoding/json finds them (jsonfields.go), except
// that a key matches a member's name exactly, in letter case too, as
// JSON Schema's properties do: a key that differs in case is an unknown
// key, ignored (a failure with Body.Strict).

// maxDepth is how deep objects and arrays may nest in a body, as
// encoding/json's limit: a deeper body is a 400 (RFC 8259 section 9 lets
// a parser set one).
const maxDepth = 10000

// decoder is the state of decoding one body.
type decoder struct {
	bodyPath // where the decoder is
	s        []byte
	i        int
	strict   bool
	had      int // the failures the binder held before
	depth    int
	err      string // the first reason the body is no JSON, "" while it is
	errAt    int
	fails    pending
	scratch  []byte // an escaped string's text
	lone     bool   // the last string read held a lone surrogate escape
	unkept   bool   // the value being read is checked but not kept: a dropped item's
	keepAll  bool   // keep every value, as a second reading does (see again)
	cut      bool   // some value was not kept, or kept as a view of s
	whole    int    // the slices and arrays around the value whose uniqueItems reads their items whole
	untold   bool   // a failure may have gone untold, at MaxFailures
}

// pendingFail is a member's failure, kept until the body is known to be
// JSON: a body that is not is one 400, not its 422s and a 400.
type pendingFail struct{ loc, keyword, msg string }

// pending is a body's failures, in order: the first few in the decoder
// itself, so that a failing body of a few members allocates nothing to
// hold them (a slice of the decoder's own array would move the decoder
// to the heap), the rest in more.
type pending struct {
	first [4]pendingFail
	n     int // the failures held
	more  []pendingFail
}

func (p *pending) at(i int) *pendingFail {
	if i < len(p.first) {
		return &p.first[i]
	}
	return &p.more[i-len(p.first)]
}

func (p *pending) add(f pendingFail) {
	if p.n < len(p.first) {
		p.first[p.n] = f
	} else {
		p.more = append(p.more, f)
	}
	p.n++
}

// drop drops the failures located at loc or inside it, keeping the
// others in order.
func (p *pending) drop(loc string) {
	n := 0
	for i := range p.n {
		f := p.at(i)
		if rest, ok := strings.CutPrefix(f.loc, loc); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			continue
		}
		*p.at(n) = *f
		n++
	}
	if n > len(p.first) {
		p.more = p.more[:n-len(p.first)]
	} else {
		p.more = p.more[:0]
	}
	p.n = n
}

// send sends the failures to b.
func (p *pending) send(b *binder) {
	for i := range p.n {
		f := p.at(i)
		b.fail(f.loc, f.keyword, f.msg)
	}
}

// capped reports whether the request has MaxFailures, while the body is
// JSON, and marks that a failure may go untold (see repeated).
func (d *decoder) capped() bool {
	if d.err == "" && d.had+d.fails.n >= MaxFailures {
		d.untold = true
		return true
	}
	return d.err != ""
}

// fail adds a failure of the value where the walk is.
func (d *decoder) fail(keyword, msg string) {
	if d.capped() {
		return
	}
	d.fails.add(pendingFail{d.where(), keyword, msg})
}

// syntax notes that the body is no JSON, and ends the decoding.
func (d *decoder) syntax(msg string) {
	if d.err == "" {
		d.err, d.errAt = msg, d.i
	}
	d.i = len(d.s)
}

func (d *decoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// eof notes a body that ends inside a value.
func (d *decoder) eof() { d.syntax("the body ends inside a value") }

// lit reads the literal w, which the next byte starts.
func (d *decoder) lit(w string) bool {
	if len(d.s)-d.i >= len(w) && string(d.s[d.i:d.i+len(w)]) == w {
		d.i += len(w)
		return true
	}
	d.syntax("want " + w)
	return false
}

// enter steps into an object or array, one level deeper.
func (d *decoder) enter() bool {
	if d.depth++; d.depth > maxDepth {
		d.syntax(fmt.Sprintf("objects and arrays nest deeper than %d levels", maxDepth))
		return false
	}
	d.i++
	return true
}

// nextKey reads the next member's key and its ':', after the object's
// '{' (first) or a member's value; it reports false at the object's '}'
// or when the body is no JSON. The key is valid until the next string.
func (d *decoder) nextKey(first bool) ([]byte, bool) {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return nil, false
	}
	c := d.s[d.i]
	if c == '}' {
		d.i++
		return nil, false
	}
	if !first {
		if c != ',' {
			d.syntax("want , or } after an object member")
			return nil, false
		}
		d.i++
		d.ws()
		if d.i >= len(d.s) {
			d.eof()
			return nil, false
		}
		c = d.s[d.i]
	}
	if c != '"' {
		d.syntax("want a string, an object member's key")
		return nil, false
	}
	key := d.str()
	d.ws()
	if d.err != "" || d.i >= len(d.s) || d.s[d.i] != ':' {
		d.syntax("want : after an object member's key")
		return nil, false
	}
	d.i++
	return key, true
}

// nextItem steps to an array's next item, after its '[' (first) or an
// item; it reports false at the array's ']' or when the body is no JSON.
func (d *decoder) nextItem(first bool) bool {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return false
	}
	switch c := d.s[d.i]; {
	case c == ']':
		d.i++
		return false
	case first:
		return true
	case c == ',':
		d.i++
		return true
	}
	d.syntax("want , or ] after an array item")
	return false
}

// inBody reports whether b is a part of the body's bytes, d.s, rather
// than of d.scratch.
func (d *decoder) inBody(b []byte) bool { return within(b, d.s) }

// str reads a string, its quotes included, and returns its text,
// unescaped: a part of the body, or of d.scratch until the next string.
func (d *decoder) str() []byte {
	d.i++ // '"'
	start := d.i
	d.lone = false
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			return d.s[start : d.i-1]
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			d.syntax("a control character inside a string")
			return nil
		case c < utf8.RuneSelf:
			d.i++
		default:
			r, size := utf8.DecodeRune(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				d.syntax("invalid UTF-8 inside a string (RFC 8259 section 8.1)")
				return nil
			}
			d.i += size
		}
	}
	d.eof()
	return nil
}

// escaped reads the rest of a string that has an escape at d.i, whose
// text began at start.
func (d *decoder) escaped(start int) []byte {
	out := append(d.scratch[:0], d.s[start:d.i]...)
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			d.scratch = out
			return out
		case c == '\\':
			if d.i+1 >= len(d.s) {
				d.eof()
				return nil
			}
			switch e := d.s[d.i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(d.s, d.i+2)
				if !ok {
					d.syntax("want four hex digits after \\u")
					return nil
				}
				d.i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(d.s, d.i+2); ok && r < 0xdc00 && d.s[d.i] == '\\' && d.s[d.i+1] == 'u' && 0xdc00 <= r2 && r2 < 0xe000 {
						r = utf16.DecodeRune(r, r2)
						d.i += 6
					} else {
						d.lone, r = true, utf8.RuneError
					}
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				d.syntax("an invalid escape inside a string")
				return nil
			}
			d.i += 2
		case c < 0x20:
			d.syntax("a control character inside a string")
			return nil
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.s[d.i:])
			if r == utf8.RuneError && size == 1 {
				d.syntax("invalid UTF-8 inside a string (RFC 8259 section 8.1)")
				return nil
			}
			out = append(out, d.s[d.i:d.i+size]...)
			d.i += size
		}
	}
	d.eof()
	return nil
}

// hex4 reads the four hex digits at s[i:], or reports false.
func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number, as RFC 8259 section 6 writes one, and returns
// its text.
func (d *decoder) number() []byte {
	s, i := d.s, d.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		d.i = i
		d.syntax("want a digit in a number")
		return nil
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			d.syntax("want a digit after a number's point")
			return nil
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			d.i = i
			d.syntax("want a digit in a number's exponent")
			return nil
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	d.i = i
	return s[start:i]
}

// skip reads one value, checking that it is JSON, and drops it.
func (d *decoder) skip() {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return
	}
	switch c := d.s[d.i]; {
	case c == '{':
		if !d.enter() {
			return
		}
		for first := true; ; first = false {
			if _, ok := d.nextKey(first); !ok {
				break
			}
			d.skip()
		}
		d.depth--
	case c == '[':
		if !d.enter() {
			return
		}
		for first := true; d.nextItem(first); first = false {
			d.skip()
		}
		d.depth--
	case c == '"':
		d.str()
	case c == 't':
		d.lit("true")
	case c == 'f':
		d.lit("false")
	case c == 'n':
		d.lit("null")
	case c == '-' || '0' <= c && c <= '9':
		d.number()
	default:
		d.syntax("want a JSON value, got " + strconv.QuoteRune(rune(c)))
	}
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

// mismatch fails the value where the walk is, of the JSON type that c
// starts, for being no value of n, and skips it.
func (d *decoder) mismatch(n *dnode, c byte) {
	d.fail("type", "must be "+n.want+", got "+jsonKind(c))
	d.skip()
}

// failLone fails a string that held a lone surrogate escape, which
// stands for no character (RFC 8259 section 8.2).
func (d *decoder) failLone() {
	d.fail("type", "must be Unicode text, got a lone UTF-16 surrogate escape")
}

// value decodes the value at d.i into p, a value of n's type.
func (d *decoder) value(n *dnode, p unsafe.Pointer) {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return
	}
	c := d.s[d.i]
	if n.kind == dWrapper {
		w := reflect.NewAt(n.typ, p).Interface().(Wrapper)
		if c == 'n' {
			if d.lit("null") {
				w.Sent(true)
			}
			return
		}
		v := w.Sent(false)
		q := reflect.ValueOf(v)
		if !q.IsValid() || q.Type() != reflect.PointerTo(n.elem.typ) || q.IsNil() {
			panic(fmt.Sprintf("waltz: %s.Sent(false) returned %T, want a non-nil *%s", n.typ, v, n.elem.typ))
		}
		d.value(n.elem, q.UnsafePointer())
		return
	}
	if c == 'n' && n.kind != dJSON && n.kind != dRaw {
		if d.lit("null") {
			d.null(n, p)
		}
		return
	}
	switch n.kind {
	case dString, dBool, dInt, dUint, dFloat:
		d.scalar(n, p, c)
	case dTime:
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		text := d.str()
		if d.err != "" {
			return
		}
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
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		text := d.str()
		if d.err != "" {
			return
		}
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
	case dJSON:
		start := d.i
		d.skip()
		if d.err != "" {
			return
		}
		u := reflect.NewAt(n.typ, p).Interface().(json.Unmarshaler)
		if err := u.UnmarshalJSON(d.s[start:d.i]); err != nil {
			d.fail("format", "is not valid: "+Clip(err.Error()))
		}
	case dRaw:
		start := d.i
		d.skip()
		if d.err == "" {
			*reflect.NewAt(n.typ, p).Interface().(*json.RawMessage) = bytes.Clone(d.s[start:d.i])
		}
	case dBytes:
		if c != '"' {
			d.mismatch(n, c)
			return
		}
		text := d.str()
		if d.err != "" {
			return
		}
		buf := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
		k, err := base64.StdEncoding.Decode(buf, text)
		if err != nil {
			d.fail("contentEncoding", "must be base64 (RFC 4648 section 4), with padding")
			return
		}
		reflect.NewAt(n.typ, p).Elem().SetBytes(buf[:k])
	case dAny:
		v := d.anyValue()
		if d.err == "" {
			storeAny(p, v)
		}
	case dIface:
		d.mismatch(n, c)
	case dStruct:
		if c != '{' {
			d.mismatch(n, c)
			return
		}
		d.object(n, p)
	case dMap:
		if c != '{' {
			d.mismatch(n, c)
			return
		}
		d.mapValue(n, p)
	case dSlice:
		if c != '[' {
			d.mismatch(n, c)
			return
		}
		d.slice(n, p)
	case dArray:
		if c != '[' {
			d.mismatch(n, c)
			return
		}
		d.array(n, p)
	case dPointer:
		q := deref(p)
		if q == nil {
			q = setNew(p, n.elem.typ)
		}
		d.value(n.elem, q)
	}
}

// null stores JSON's null at p, as encoding/json does: a pointer, slice,
// map or interface becomes nil, and other values are left as they are;
// for a value whose schema has no null, that is a failure.
func (d *decoder) null(n *dnode, p unsafe.Pointer) {
	switch n.kind {
	case dPointer:
		storeNil(p)
	case dSlice, dMap, dBytes, dAny, dIface:
		reflect.NewAt(n.typ, p).Elem().SetZero()
	default:
		if n.null != "" {
			d.fail("type", "must be "+n.null+", got null")
		}
	}
}

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
		if string(lit) == "null" && n.kind != dString {
			return // encoding/json leaves the value as it was
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
	default:
		if c != '-' && (c < '0' || c > '9') {
			d.mismatch(n, c)
			return
		}
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
	}
	_ = n.codec.store(p, v)
	if n.rules != nil {
		d.check(n.rules, v)
	}
}

var trueLit, falseLit = []byte("true"), []byte("false")

// quotedLiteral reports whether lit, the text of a ,string member's
// string, is a JSON value of the kind k: a JSON string for a string.
func quotedLiteral(k dkind, lit []byte) bool {
	switch k {
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
			d.fail("type", n.codec.want+", got "+string(lit))
			return v, false
		}
	}
	pv, kw, _ := n.codec.parse(string(lit))
	if kw != "" {
		d.fail("type", n.codec.want+", got "+Clip(string(lit)))
		return v, false
	}
	pv.s = ""
	return pv, true
}

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

// object decodes a JSON object into the struct at p, by its members;
// then fails each required member it lacked and stores the defaults.
func (d *decoder) object(n *dnode, p unsafe.Pointer) {
	if !d.enter() {
		return
	}
	var inline [4]uint64
	seen := inline[:]
	if len(n.fields) > 64*len(inline) {
		seen = make([]uint64, (len(n.fields)+63)/64)
	}
	for first := true; ; first = false {
		key, ok := d.nextKey(first)
		if !ok {
			break
		}
		i := n.field(key)
		if i < 0 {
			if d.strict {
				d.fail("additionalProperties", "has an unknown member "+Quote(string(key)))
			}
			d.skip()
			continue
		}
		f := &n.fields[i]
		d.pushMember(f.loc)
		if seen[i/64]&(1<<(i%64)) != 0 {
			d.repeated()
		}
		seen[i/64] |= 1 << (i % 64)
		d.value(f.node, f.at(p))
		d.pop()
	}
	d.depth--
	if n.must && d.err == "" {
		d.absent(n, p, seen)
	}
}

// repeated drops the failures of the member where the decoder is, met
// again: encoding/json keeps the last of repeated keys, and so does the
// decoder, the value and its failures both.
//
// It drops none when a failure may have gone untold at MaxFailures, or
// when the location is cut at MaxLocation, where other members' failures
// may read the same: the request must not pass on failures dropped for a
// value that was not the repeated one. Such a body is told the failures
// of a value it replaced, rather than let through.
func (d *decoder) repeated() {
	if d.fails.n == 0 || d.untold {
		return
	}
	loc, cut := d.whereCut()
	if cut {
		return
	}
	d.fails.drop(loc)
}

// at returns the address of the member f in the struct at p, making the
// embedded structs on the way that are nil, as encoding/json does.
func (f *dfield) at(p unsafe.Pointer) unsafe.Pointer {
	for _, h := range f.hops {
		hp := fieldAt(p, h.off)
		if p = deref(hp); p == nil {
			p = setNew(hp, h.typ)
		}
	}
	return fieldAt(p, f.off)
}

// absent stores the default of each member of n the object lacked, and
// fails each required one.
func (d *decoder) absent(n *dnode, p unsafe.Pointer, seen []uint64) {
	for i := range n.fields {
		f := &n.fields[i]
		if seen[i/64]&(1<<(i%64)) != 0 {
			continue
		}
		switch {
		case f.def != nil:
			q, fn := f.at(p), f.node
			if fn.kind == dPointer {
				q, fn = setNew(q, fn.elem.typ), fn.elem
			}
			_ = fn.codec.store(q, *f.def)
		case f.must:
			d.pushMember(f.loc)
			d.fail("required", "is required")
			d.pop()
		}
	}
}

// slice decodes a JSON array into the slice at p, and checks its items'
// rules.
func (d *decoder) slice(n *dnode, p unsafe.Pointer) {
	if !d.enter() {
		return
	}
	sv := reflect.NewAt(n.typ, p).Elem()
	if !sv.IsNil() {
		sv.SetZero() // a repeated key: the last one's items only
	}
	h := headerAt(p)
	count := 0
	for first := true; d.nextItem(first); first = false {
		slot := count
		if count >= h.cap { // once items are dropped, count passes cap
			switch {
			case !d.dropItems(n, count):
				sv.Grow(max(4, count)) // at least doubled: a few allocations for any count
			case count == 0:
				sv.Grow(1)
			default:
				slot = h.len - 1 // over the last item kept, which no one reads
			}
		}
		if slot == count {
			h.len = count + 1
			d.wholeItem(n, itemAt(h.data, slot, n.size), count)
		} else if n.elem.kind == dString && !n.elem.quoted && !n.itemRules && d.skipString() {
			d.cut = true // a string no rule reads, not kept: only read
		} else {
			if n.elem.kind > dFloat {
				// A struct, map or slice would be read into over what
				// it held; a scalar is stored whole or not at all, and
				// then not checked.
				reflect.NewAt(n.elem.typ, itemAt(h.data, slot, n.size)).Elem().SetZero()
			}
			unkept := d.unkept
			d.unkept, d.cut = true, true
			d.item(n, itemAt(h.data, slot, n.size), count)
			d.unkept = unkept
		}
		count++
	}
	d.depth--
	if d.err != "" {
		return
	}
	if sv.IsNil() {
		sv.Set(reflect.MakeSlice(n.typ, 0, 0))
	}
	if n.rules != nil {
		d.items(n, h.data, count, h.len)
	}
}

// skipString reads an item that is a string, as a dropped item of a
// slice of strings without item rules, whose value nothing reads; false,
// having read nothing, when the item is not a string or holds a lone
// surrogate escape, for the item's full reading to fail it where it is.
func (d *decoder) skipString() bool {
	d.ws()
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return false
	}
	start := d.i
	d.str()
	if d.lone && d.err == "" {
		d.i = start
		return false
	}
	return true
}

// dropItems reports whether the items of a slice of n past the count it
// holds need not be kept, so that each is decoded, checked and located
// but not stored: when the slice has more items than its maxItems (its
// uniqueItems, the one rule that reads them all, is then not checked),
// or when the request has already failed and no rule reads them all. No
// handler sees a failed request's values; their checks still run, so
// that every failure is told.
func (d *decoder) dropItems(n *dnode, count int) bool {
	if d.keepAll || d.whole > 0 {
		// An item of a slice or array whose uniqueItems compares its
		// items whole, nested slices and all, drops none of them.
		return false
	}
	rs := n.rules
	if rs != nil && rs.maxItems >= 0 && count > rs.maxItems {
		return true
	}
	return d.failed() && (rs == nil || !rs.uniqueItems)
}

// failed reports whether the request has failed, in this body or before.
func (d *decoder) failed() bool { return d.had+d.fails.n > 0 }

// again reports whether the value just read must be read again with
// keepAll set: some of its values were not kept, or not copied, because
// the request had failed, and then it had not: the failures were a
// repeated key's, dropped with its earlier value (see repeated). Only
// such a body pays a second reading.
func (d *decoder) again() bool { return d.err == "" && d.cut && !d.failed() }

// array decodes a JSON array into the array at p: items past its length
// are read and dropped, as encoding/json does.
func (d *decoder) array(n *dnode, p unsafe.Pointer) {
	if !d.enter() {
		return
	}
	length, count := n.typ.Len(), 0
	for first := true; d.nextItem(first); first = false {
		if count < length {
			d.wholeItem(n, itemAt(p, count, n.size), count)
		} else {
			d.skip()
		}
		count++
	}
	d.depth--
	if count < length {
		// As encoding/json does: the items the array lacked are zero,
		// not what a repeated key's earlier array left there.
		for i := count; i < length; i++ {
			reflect.NewAt(n.elem.typ, itemAt(p, i, n.size)).Elem().SetZero()
		}
	}
	if d.err == "" && n.rules != nil {
		d.items(n, p, min(count, length), min(count, length))
	}
}

// wholeItem is item for an item the slice or array keeps: when its
// uniqueItems is to compare the items, the slices inside the item keep
// every item of theirs (see dropItems).
func (d *decoder) wholeItem(n *dnode, p unsafe.Pointer, i int) {
	if n.rules == nil || !n.rules.uniqueItems || n.scalarItems {
		d.item(n, p, i)
		return
	}
	d.whole++
	d.item(n, p, i)
	d.whole--
}

// item decodes item i of a slice or array of n into p, and checks the
// rules of its value when it is a scalar that was read.
func (d *decoder) item(n *dnode, p unsafe.Pointer, i int) {
	d.push("", i)
	had := d.fails.n
	d.value(n.elem, p)
	// An item that failed as a value (a number for a string, say) has
	// no value of its own to check.
	if n.itemRules && d.err == "" && d.fails.n == had {
		d.check(n.rules, n.elem.codec.load(p))
	}
	d.pop()
}

// items checks the rules on the count items of a slice or array of n as
// a whole: their count, and, unless the count failed, whether they are
// unique, at O(n log n) cost. held of them are at data: all of them, but
// for a slice whose items past some were dropped (dropItems), which is
// then not checked for uniqueness (dropItems drops none where that
// would be checked).
func (d *decoder) items(n *dnode, data unsafe.Pointer, count, held int) {
	rs := n.rules
	var distinct func() bool
	if held == count {
		distinct = func() bool {
			if n.scalarItems {
				c := n.elem.codec
				vals := make([]scalar, count)
				for i := range vals {
					vals[i] = c.load(itemAt(data, i, n.size))
				}
				return rs.distinctScalars(vals)
			}
			return distinctValues(n.typ.Elem(), data, count)
		}
	}
	var buf [3]failure
	for _, f := range rs.checkItems(count, distinct, buf[:0]) {
		d.fail(f.keyword, f.message)
	}
}

// mapValue decodes a JSON object into the map at p, by its keys.
func (d *decoder) mapValue(n *dnode, p unsafe.Pointer) {
	if n.typ == mapAnyType {
		d.mapAny(reflect.NewAt(n.typ, p).Interface().(*map[string]any))
		return
	}
	if !d.enter() {
		return
	}
	mv := reflect.NewAt(n.typ, p).Elem()
	if mv.IsNil() && n.codec.kind == kString {
		d.stringMap(n, mv)
		return
	}
	if mv.IsNil() {
		mv.Set(reflect.MakeMap(n.typ))
	}
	ev := reflect.New(n.elem.typ).Elem()
	ep := ev.Addr().UnsafePointer()
	kv := reflect.New(n.typ.Key()).Elem()
	for first := true; ; first = false {
		key, ok := d.nextKey(first)
		if !ok {
			break
		}
		lone := d.lone
		ks := string(key)
		d.push(ks, -1)
		if lone {
			d.failLone()
		}
		if d.mapKey(n.codec, kv, ks) {
			ev.SetZero()
			d.value(n.elem, ep)
			mv.SetMapIndex(kv, ev)
		} else {
			d.skip()
		}
		d.pop()
	}
	d.depth--
}

// stringMap decodes a JSON object into a new map with string keys, set
// in mv: its members are gathered first and the map made at their count,
// which spares it the growing (a third of the time of a map of many
// keys). The keys' text is gathered in one array, which the map's keys
// then share, rather than one allocation a key.
func (d *decoder) stringMap(n *dnode, mv reflect.Value) {
	var text []byte // the keys, one after the other
	var ends []int  // where each key ends in text
	vals := reflect.New(n.vals).Elem()
	for first := true; ; first = false {
		key, ok := d.nextKey(first)
		if !ok {
			break
		}
		lone := d.lone
		start := len(text)
		text = append(text, key...)
		// A view of the key while its value is read, for a failure's
		// location: text may move as it grows, but not until the next
		// key, and the old array lives as long as the view does.
		d.push(bytesString(text[start:]), -1)
		if lone {
			d.failLone()
		}
		i := len(ends)
		if i == vals.Cap() {
			vals.Grow(max(4, i))
		}
		vals.SetLen(i + 1)
		d.value(n.elem, itemAt(vals.UnsafePointer(), i, n.size))
		ends = append(ends, len(text))
		d.pop()
	}
	d.depth--
	if d.err != "" {
		return
	}
	keys := mapKeys{string(text), ends}
	if fill := fillers[n.typ]; fill != nil {
		mv.Set(fill(keys, vals))
		return
	}
	m := reflect.MakeMapWithSize(n.typ, len(ends))
	kv := reflect.New(n.typ.Key()).Elem()
	for i := range ends {
		kv.SetString(keys.at(i))
		m.SetMapIndex(kv, vals.Index(i))
	}
	mv.Set(m)
}

// mapKeys is an object's keys in one string, each ending where ends
// says.
type mapKeys struct {
	text string
	ends []int
}

// at returns key i, a part of k.text.
func (k mapKeys) at(i int) string {
	start := 0
	if i > 0 {
		start = k.ends[i-1]
	}
	return k.text[start:k.ends[i]]
}

// fillers make the maps of the commonest types from their keys and
// values without reflect's cost per member.
var fillers = map[reflect.Type]func(keys mapKeys, vals reflect.Value) reflect.Value{
	reflect.TypeFor[map[string]string]():  fill[string],
	reflect.TypeFor[map[string]int]():     fill[int],
	reflect.TypeFor[map[string]int64]():   fill[int64],
	reflect.TypeFor[map[string]float64](): fill[float64],
	reflect.TypeFor[map[string]bool]():    fill[bool],
}

func fill[V any](keys mapKeys, vals reflect.Value) reflect.Value {
	vs := vals.Interface().([]V)
	m := make(map[string]V, len(keys.ends))
	start := 0
	for i, end := range keys.ends {
		m[keys.text[start:end]] = vs[i]
		start = end
	}
	return reflect.ValueOf(m)
}

var mapAnyType = reflect.TypeFor[map[string]any]()

// mapAny decodes a JSON object into the map[string]any at m.
func (d *decoder) mapAny(mp *map[string]any) {
	m := *mp
	if m == nil {
		m = map[string]any{}
		*mp = m
	}
	d.members(m)
}

// mapKey sets kv to the key ks, by the key codec c, or fails it.
func (d *decoder) mapKey(c *codec, kv reflect.Value, ks string) bool {
	switch c.kind {
	case kString:
		kv.SetString(ks)
	case kInt:
		i, err := strconv.ParseInt(ks, 10, int(c.size*8))
		if err != nil {
			d.fail("propertyNames", got(c.want, ks))
			return false
		}
		kv.SetInt(i)
	case kUint:
		u, err := strconv.ParseUint(ks, 10, int(c.size*8))
		if err != nil {
			d.fail("propertyNames", got(c.want, ks))
			return false
		}
		kv.SetUint(u)
	case kText:
		kp := reflect.New(c.typ)
		if err := kp.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(ks)); err != nil {
			d.fail("propertyNames", got("is not valid: "+Clip(err.Error()), ks))
			return false
		}
		kv.Set(kp.Elem())
	}
	return true
}

// anyValue decodes a value as encoding/json does into an interface:
// objects as map[string]any, arrays as []any, numbers as float64.
func (d *decoder) anyValue() any {
	d.ws()
	if d.i >= len(d.s) {
		d.eof()
		return nil
	}
	switch c := d.s[d.i]; {
	case c == '{':
		m := map[string]any{}
		d.members(m)
		return m
	case c == '[':
		if !d.enter() {
			return nil
		}
		a := []any{}
		for first := true; d.nextItem(first); first = false {
			d.push("", len(a))
			a = append(a, d.anyValue())
			d.pop()
		}
		d.depth--
		return a
	case c == '"':
		text := d.str()
		if d.lone {
			d.failLone()
		}
		return string(text)
	case c == 't':
		return d.lit("true")
	case c == 'f':
		d.lit("false")
		return false
	case c == 'n':
		d.lit("null")
		return nil
	case c == '-' || '0' <= c && c <= '9':
		lit := d.number()
		if d.err != "" {
			return nil
		}
		f, err := strconv.ParseFloat(bytesString(lit), 64)
		if err != nil {
			d.fail("type", got("must be a number a float64 holds", bytesString(lit)))
		}
		return f
	default:
		d.skip() // the syntax error
		return nil
	}
}

// members decodes a JSON object's members into m.
func (d *decoder) members(m map[string]any) {
	if !d.enter() {
		return
	}
	for first := true; ; first = false {
		key, ok := d.nextKey(first)
		if !ok {
			break
		}
		lone := d.lone
		ks := string(key)
		d.push(ks, -1)
		if lone {
			d.failLone()
		}
		m[ks] = d.anyValue()
		d.pop()
	}
	d.depth--
}

// decode decodes the JSON text s, a whole request body, into the body
// value of b, and sends b its failures: one "syntax" failure when s is no
// JSON, else each member's.
func (bp *bodyPlan) decode(b *binder, s []byte) {
	d := decoder{s: s, had: b.nfails, strict: b.in.Body.Strict}
	d.ws()
	if d.i == len(s) {
		if !bp.ptr {
			b.fail("body", "required", "is required: send a JSON value")
		}
		return
	}
	p := fieldAt(b.base, bp.off)
	if bp.ptr && s[d.i] == 'n' && d.lit("null") {
		// An optional body sent as null is no body.
		if d.ws(); d.i < len(s) {
			d.syntax("data after the JSON value")
		}
	} else {
		bp.read(&d, p)
		if d.again() {
			if !bp.ptr {
				reflect.NewAt(bp.typ, p).Elem().SetZero()
			}
			d = decoder{s: s, had: b.nfails, strict: b.in.Body.Strict, keepAll: true}
			d.ws()
			bp.read(&d, p)
		}
	}
	if d.err != "" {
		if bp.ptr {
			storeNil(p)
		}
		b.broken = true
		b.fail("body", "syntax", fmt.Sprintf("malformed JSON at byte offset %d: %s", d.errAt, d.err))
		return
	}
	d.fails.send(b)
}

// read decodes the body's value, from d.i, into the body member at p (a
// pointer's new target), and then fails any data after it.
func (bp *bodyPlan) read(d *decoder, p unsafe.Pointer) {
	if bp.ptr {
		p = setNew(p, bp.typ)
	}
	d.value(bp.node, p)
	if d.err == "" {
		if d.ws(); d.i < len(d.s) {
			d.syntax(fmt.Sprintf("data after the JSON value, which ends at byte offset %d", d.i))
		}
	}
}

// gotValue returns msg followed by v, from the body, bounded.
func gotValue(msg string, c *codec, v scalar) string {
	if c.kind == kString || c.kind == kText {
		return got(msg, v.s)
	}
	return msg + ", got " + c.format(v)
}

// emptyBody reports whether req has no body bytes, without reading them
// when it does not know.
func emptyBody(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0
}
