package typed

import (
	"reflect"
	"strings"
)

// A struct's members as encoding/json sees them, for the schema, the
// rules inside a body and its required members alike.

// jsonField is an exported struct field as encoding/json sees it.
type jsonField struct {
	f         reflect.StructField
	name      string
	omitEmpty bool
	// viaPointer marks a field promoted through an embedded pointer: its
	// Offset is within the pointed-to struct, and it is absent when the
	// pointer is nil.
	viaPointer bool
}

// jsonFields returns st's fields as encoding/json encodes them, the fields
// that embedded structs (and pointers to them) promote included, with
// offsets from st's start; a field of st itself hides a promoted one of
// the same name, as in encoding/json.
func jsonFields(st reflect.Type) []jsonField {
	own := map[string]bool{}
	for i := range st.NumField() {
		f := st.Field(i)
		if name, ok := fieldName(f); ok && !promotes(f) {
			own[name] = true
		}
	}
	var out []jsonField
	for i := range st.NumField() {
		f := st.Field(i)
		name, ok := fieldName(f)
		if !ok {
			continue
		}
		if promotes(f) {
			et, ptr := f.Type, f.Type.Kind() == reflect.Pointer
			if ptr {
				et = et.Elem()
			}
			for _, jf := range jsonFields(et) {
				if own[jf.name] || containsField(out, jf.name) {
					continue
				}
				if ptr {
					jf.viaPointer = true
				} else {
					jf.f.Offset += f.Offset
				}
				out = append(out, jf)
			}
			continue
		}
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, jsonField{f: f, name: name, omitEmpty: hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero")})
	}
	return out
}

// fieldName returns the JSON name of f, and whether encoding/json sees f
// at all (an embedded struct counts, for the fields it promotes).
func fieldName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if promotes(f) {
		return "", true
	}
	if !f.IsExported() {
		return "", false
	}
	if name == "" {
		name = f.Name
	}
	return name, true
}

// promotes reports whether f is an embedded struct, or pointer to one,
// whose fields encoding/json promotes: one without a JSON name of its own.
func promotes(f reflect.StructField) bool {
	if !f.Anonymous {
		return false
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return name == "" && t.Kind() == reflect.Struct
}

func containsField(fs []jsonField, name string) bool {
	for _, f := range fs {
		if f.name == name {
			return true
		}
	}
	return false
}

func hasOpt(opts, name string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}
