package typed

import (
	"encoding/json"
	"reflect"
)

// Which members of a body are required, and which may be null, as the
// decoder checks them and the schema lists them.

var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// notNullKind returns "" when the schema of t allows null (a pointer,
// slice, map or interface, or a type that writes its own JSON), else what
// its values are, in words: encoding/json takes null for such a member as
// nothing sent, where the schema refuses it, and so does the decoder.
func notNullKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return ""
	}
	switch {
	case t == timeType:
		return "a string"
	case t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler):
		return ""
	case t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler):
		return "a string"
	}
	return JSONKind(t)
}

// requiredMember reports whether the member jf is required, as the schema
// lists it: without omitempty (or omitzero), or tagged required:"true";
// never a wrapped member (an Optional).
func requiredMember(jf jsonField) bool {
	if wrappedOf(jf.f.Type) != nil {
		return false // an Optional: absent is one of its states
	}
	return !jf.omitEmpty || jf.f.Tag.Get("required") == "true"
}
