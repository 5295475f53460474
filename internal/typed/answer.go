package typed

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"time"
	"unsafe"
)

// The client's side of an Out plan: a success answer read back into an
// Out value, its status, header fields and body where the plan says the
// server wrote them from.

// Decodable returns an error, naming the type and field, when a field
// of p's Out type cannot be read back: a header field of a type written
// by MarshalText that has no UnmarshalText, a Body that encoding/json
// cannot decode into (an event stream's function).
func (p *OutPlan) Decodable() error {
	if p.body != nil {
		if bad := undecodable(p.body, map[reflect.Type]bool{}); bad != nil {
			f := fieldAtOffset(p.typ, p.bodyOff)
			return PlanError(p.typ, &f, "a client cannot read it: encoding/json cannot decode a %s", bad)
		}
	}
	for _, h := range p.headers {
		t := h.typ
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if headerParse(t) == nil {
			f := fieldAtOffset(p.typ, h.off)
			return PlanError(p.typ, &f, "a client cannot read it: %s has no UnmarshalText method", t)
		}
	}
	return nil
}

// Decode fills out, a zeroed value of p's Out type, from a success
// answer: its Status field with status, each header field from the
// header h (left as it is when h lacks it), and Body from body, JSON, when
// body is not empty. contentType is the answer's Content-Type; a body
// whose media type is not JSON's is refused. The error names the member
// that could not be read ("header Retry-After", "body.items.created") and
// why, quoting at most 64 bytes of the answer.
//
// NOTE: out must point to a value of p's Out type, which stays reachable
// while Decode runs.
func (p *OutPlan) Decode(out unsafe.Pointer, status int, h http.Header, contentType string, body []byte) error {
	if p.hasStatus {
		_ = intCodec.store(fieldAt(out, p.statusOff), scalar{i: int64(status)})
	}
	for _, f := range p.headers {
		vs := h[f.name]
		if len(vs) == 0 {
			continue
		}
		if err := f.read(fieldAt(out, f.off), vs[0]); err != nil {
			return fmt.Errorf("header %s: %w", f.name, err)
		}
	}
	if p.body == nil || len(body) == 0 {
		return nil
	}
	if contentType != "" && !IsJSONType(contentType) {
		return fmt.Errorf("body: the media type is %s, want application/json", Quote(contentType))
	}
	if err := json.Unmarshal(body, reflect.NewAt(p.body, fieldAt(out, p.bodyOff)).Interface()); err != nil {
		return answerError(err)
	}
	return nil
}

// intCodec stores an Out type's Status field.
var intCodec = codecFor(reflect.TypeFor[int]())

// fieldAtOffset returns the field of the struct t at offset off.
func fieldAtOffset(t reflect.Type, off uintptr) reflect.StructField {
	for i := range t.NumField() {
		if f := t.Field(i); f.Offset == off && f.IsExported() {
			return f
		}
	}
	return reflect.StructField{}
}

// read stores s, the value of header field f, at p, its field.
func (f *outHeader) read(p unsafe.Pointer, s string) error {
	t := f.typ
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
		p = setNew(p, t)
	}
	return headerParse(t)(p, s)
}

// headerParse returns the function that reads a header value of type t,
// as headerFormat writes it, or nil when t cannot be read.
func headerParse(t reflect.Type) func(p unsafe.Pointer, s string) error {
	c := codecFor(t)
	switch {
	case t == timeType:
		return func(p unsafe.Pointer, s string) error {
			tm, err := http.ParseTime(s) // RFC 9110 section 5.6.7
			if err != nil {
				return errors.New(got("must be an HTTP-date", s))
			}
			return c.store(p, scalar{t: tm})
		}
	case t == durationType:
		return func(p unsafe.Pointer, s string) error {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 0 || n > int64(1<<63-1)/int64(time.Second) {
				return errors.New(got("must be a number of seconds", s))
			}
			return c.store(p, scalar{i: n * int64(time.Second)})
		}
	case t.Implements(textMarshaler) || c != nil && c.kind == kText:
		if !reflect.PointerTo(t).Implements(textUnmarshaler) {
			return nil
		}
		return func(p unsafe.Pointer, s string) error {
			err := reflect.NewAt(t, p).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
			if err != nil {
				return errors.New(got("is not valid: "+Clip(err.Error()), s))
			}
			return nil
		}
	case c == nil:
		return nil
	}
	return func(p unsafe.Pointer, s string) error {
		v, kw, want := c.parse(s)
		if kw != "" {
			return errors.New(got(want, s))
		}
		return c.store(p, v)
	}
}

// answerError names the member of an answer's body that encoding/json
// could not decode, and why.
func answerError(err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("body: malformed JSON at byte offset %d: %w", max(syn.Offset-1, 0), err)
	case errors.As(err, &typ):
		loc := "body"
		if typ.Field != "" {
			loc += "." + typ.Field
		}
		return fmt.Errorf("%s: must be %s, got a JSON %s: %w", loc, JSONKind(typ.Type), Clip(typ.Value), err)
	}
	return fmt.Errorf("body: %w", err)
}
