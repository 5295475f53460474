package contracttest

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
)

// The values the generator makes, as a request carries them:
//
//	nil       JSON null
//	bool      true, false
//	number    a JSON number, as its text ("3", "-1.5")
//	string    a string
//	[]any     an array of these
//	object    an object, its members in the document's order
//
// A request's param or form field is the text of a scalar (see text); a
// JSON body is the encoding of the value (see appendJSON).

// number is a JSON number as it is written, so that a bound such as 100
// goes out as 100 and not as 1e+02.
type number string

// member is one member of an object.
type member struct {
	name string
	v    any
}

// object is a JSON object whose members keep their order.
type object []member

// get returns the value of the member named name and reports whether
// there is one.
func (o object) get(name string) (any, bool) {
	for _, m := range o {
		if m.name == name {
			return m.v, true
		}
	}
	return nil, false
}

// with returns a copy of o with the member named name set to v (added at
// the end when o has none).
func (o object) with(name string, v any) object {
	c := make(object, 0, len(o)+1)
	found := false
	for _, m := range o {
		if m.name == name {
			m.v, found = v, true
		}
		c = append(c, m)
	}
	if !found {
		c = append(c, member{name, v})
	}
	return c
}

// without returns a copy of o without the member named name.
func (o object) without(name string) object {
	c := make(object, 0, len(o))
	for _, m := range o {
		if m.name != name {
			c = append(c, m)
		}
	}
	return c
}

// appendJSON appends the JSON text of v to b.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case number:
		return append(b, v...)
	case string:
		return appendString(b, v)
	case file:
		// A file is a binary string to a schema (multipart.go).
		return appendString(b, "a file of "+v.ctype)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case object:
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.name)
			b = append(b, ':')
			b = appendJSON(b, m.v)
		}
		return append(b, '}')
	}
	panic("contracttest: no JSON for a value of this kind") // only this file's kinds are made
}

// appendString appends s as a JSON string, leaving <, > and & as they
// are, so that a curl line shows the value a reader expects.
func appendString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// text returns the text of a scalar as a param, a header or a form field
// carries it, and reports whether v is a scalar.
func text(v any) (string, bool) {
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v), true
	case number:
		return string(v), true
	case string:
		return v, true
	}
	return "", false
}

// same reports whether a and b are the same JSON value.
func same(a, b any) bool {
	return bytes.Equal(appendJSON(nil, a), appendJSON(nil, b))
}

// fromJSON returns the value of decoded JSON (as encoding/json decodes it
// with UseNumber), or of a YAML scalar decoded into any.
func fromJSON(v any) any {
	switch v := v.(type) {
	case json.Number:
		return number(v)
	case float64:
		return number(strconv.FormatFloat(v, 'g', -1, 64))
	case int:
		return number(strconv.Itoa(v))
	case int64:
		return number(strconv.FormatInt(v, 10))
	case uint64:
		return number(strconv.FormatUint(v, 10))
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = fromJSON(e)
		}
		return a
	case map[string]any:
		// Key order does not matter to a value read from the document
		// (an enum's or a default's): sort for the same bytes each run.
		o := object{}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			o = append(o, member{k, fromJSON(v[k])})
		}
		return o
	}
	return v
}
