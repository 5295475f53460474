package typed

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// A struct's members as encoding/json sees them, for the schema, the
// decoder and the form binder alike: which fields exist, by which name,
// and which of two fields of one name wins, by encoding/json's rules
// (its typeFields): a field of a shallower struct hides a promoted one;
// among fields of one name at the same depth, the one with a JSON name in
// its tag wins, and when none or several have one, every one of them is
// dropped, so that the name decodes into nothing.

// jsonField is an exported struct field as encoding/json sees it.
type jsonField struct {
	// f is the Go field; its Offset is from the start of st, or, for a
	// field promoted through embedded pointers, from the start of the
	// struct the last of them points to.
	f         reflect.StructField
	name      string
	omitEmpty bool
	tagged    bool // the name comes from a json tag
	// quoted is the ,string option on a field that takes it (a string,
	// boolean or number, or a pointer to one): the value is sent as a
	// JSON string holding its JSON text.
	quoted bool
	// viaPointer marks a field promoted through an embedded pointer: it is
	// absent when the pointer is nil, and hops says how to reach it.
	viaPointer bool
	hops       []embedHop
	index      []int // the field's index path from st, as reflect's FieldByIndex takes it
}

// embedHop is an embedded pointer on the way to a promoted field: at off
// from the struct reached so far, pointing to a typ.
type embedHop struct {
	off uintptr
	typ reflect.Type
}

// jsonFields returns st's fields as encoding/json decodes and encodes them,
// the fields that embedded structs (and pointers to them) promote included,
// in the order of their declaration.
func jsonFields(st reflect.Type) []jsonField {
	type level struct {
		typ   reflect.Type
		index []int
		off   uintptr
		hops  []embedHop
	}
	var fields []jsonField
	next := []level{{typ: st}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := range lv.typ.NumField() {
				sf := lv.typ.Field(i)
				if sf.Anonymous {
					t := sf.Type
					if t.Kind() == reflect.Pointer {
						t = t.Elem()
					}
					if !sf.IsExported() && t.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTagName(name) {
					name = "" // ignored, as encoding/json ignores it
				}
				index := append(slices.Clip(lv.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					jf := jsonField{f: sf, name: name, tagged: name != "", index: index,
						omitEmpty:  hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero"),
						viaPointer: len(lv.hops) > 0, hops: lv.hops}
					if jf.name == "" {
						jf.name = sf.Name
					}
					jf.f.Offset += lv.off
					if hasOpt(opts, "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64, reflect.String:
							jf.quoted = true
						}
					}
					fields = append(fields, jf)
					if count[lv.typ] > 1 {
						// The struct was reached twice at this depth: its
						// fields collide with themselves and are dropped.
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					nl := level{typ: ft, index: index, off: lv.off + sf.Offset, hops: lv.hops}
					if sf.Type.Kind() == reflect.Pointer {
						nl.hops = append(slices.Clip(lv.hops), embedHop{off: lv.off + sf.Offset, typ: ft})
						nl.off = 0
					}
					next = append(next, nl)
				}
			}
		}
	}
	// By name, then depth, then tagged first, then declaration order; the
	// first of each name wins, unless it is no better than the second.
	slices.SortStableFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		if j-i == 1 || len(fields[i+1].index) > len(fields[i].index) || fields[i].tagged && !fields[i+1].tagged {
			out = append(out, fields[i])
		}
		i = j
	}
	slices.SortFunc(out, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	return out
}

// validTagName reports whether name is a JSON name that encoding/json
// takes from a tag (its isValidTag): not empty, and made of letters,
// digits, spaces and the punctuation marks other than the quotes, the
// backslash and the comma. A tag name it refuses is ignored: the field
// keeps its Go name and counts as untagged.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

func hasOpt(opts, name string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// Member is a struct's member as encoding/json sees it: its JSON name, and
// its field's index path from the struct, as reflect.Value.FieldByIndex
// takes it, through the embedded structs (and pointers to them) that
// promote it.
type Member struct {
	Name  string
	Index []int
}

// Members returns the members of the struct type t as encoding/json
// decodes and encodes them, and as the decoder, the schema and forms
// name them: embedded structs' and pointers' members promoted, a name
// two fields of one depth share dropped (unless one is tagged), a tag
// name encoding/json refuses ignored, json:"-" left out; in the order of
// their declaration.
func Members(t reflect.Type) []Member {
	jfs := jsonFields(t)
	ms := make([]Member, len(jfs))
	for i, jf := range jfs {
		ms[i] = Member{Name: jf.name, Index: jf.index}
	}
	return ms
}
