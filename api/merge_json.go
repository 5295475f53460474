package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/waltz-go/waltz/internal/typed"
)

// A patch's free-form JSON (RFC 7396 section 2): an object held as
// encoding/json decodes one, merged into what the target holds, and the
// client's values there that the target cannot hold.

// mergeJSON returns patch merged into target, JSON values as
// encoding/json decodes them into an any, by RFC 7396 section 2's
// MergePatch: a member null removes target's, an object merges into
// target's (or into an empty one when target's is not an object, or is
// a nil map), any other value replaces it. A target of another type
// whose JSON is an object (a map[string]string, a struct, a pointer to
// one) is merged as that JSON, and the result keeps target's type when
// a value of it holds the merged JSON whole (see mergeHeld). target is
// not changed.
func mergeJSON(target any, patch map[string]any) any {
	tm, ok := target.(map[string]any)
	if !ok && target != nil {
		if obj := jsonObject(target); obj != nil {
			merged := mergeJSON(obj, patch)
			if held, ok := mergeHeld(target, patch, merged); ok {
				return held
			}
			return merged
		}
	}
	if tm = maps.Clone(tm); tm == nil {
		tm = make(map[string]any, len(patch))
	}
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(tm, k)
		case map[string]any:
			tm[k] = mergeJSON(tm[k], pv)
		default:
			tm[k] = v
		}
	}
	return tm
}

// jsonObject returns v's JSON as encoding/json decodes it into a
// map[string]any, or nil when that JSON is not an object.
func jsonObject(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// mergeHeld merges patch into a copy of target, a value of a type of
// its own held in an interface, as into a member of that type, and
// returns it when its JSON is the merged JSON want: a map[string]string
// stays one when the patch sets strings and nulls only, and a value
// that cannot hold the result (a number for a map of strings, a member
// its struct lacks) is reported not held, so that the caller keeps the
// JSON instead.
func mergeHeld(target any, patch map[string]any, want any) (any, bool) {
	tv := reflect.ValueOf(target)
	c := reflect.New(tv.Type()).Elem()
	c.Set(tv)
	if mergeValue(c, reflect.ValueOf(patch)) != nil {
		return nil, false
	}
	got, w := jsonObject(c.Interface()), jsonObject(want)
	if got == nil || !reflect.DeepEqual(got, w) {
		return nil, false
	}
	return c.Interface(), true
}

// mergeObject merges pm, a JSON object as encoding/json decodes one,
// into t, a struct or a pointer to one (a nil one made, one set pointed
// at a copy first: see own), member by member matched by JSON name
// (RFC 7396 section 2): null sets a member to its zero value, an object
// merges into it, any other value replaces it. A key that names no
// member of t is dropped, as encoding/json drops it when it decodes into
// t. Keys are taken in order, so that an error names the first.
func mergeObject(t reflect.Value, pm map[string]any) error {
	if t.Kind() == reflect.Pointer {
		own(t)
		t = t.Elem()
	}
	names := map[string][]int{}
	for _, m := range typed.Members(t.Type()) {
		names[m.Name] = m.Index
	}
	for _, k := range slices.Sorted(maps.Keys(pm)) {
		ti, ok := names[k]
		if !ok {
			continue
		}
		var err error
		if pm[k] == nil {
			err = removeMember(t, ti)
		} else {
			var tf reflect.Value
			if tf, err = memberAt(t, ti); err == nil {
				err = mergeValue(tf, reflect.ValueOf(pm[k]))
			}
		}
		if err != nil {
			tf, _ := t.FieldByIndexErr(ti)
			if pe, ok := inPatch(k, tf, err); ok {
				return pe
			}
			return fmt.Errorf("member %q: %w", k, err)
		}
	}
	return nil
}

// patchTypeError is a value of a patch's free-form JSON (what encoding/
// json decoded into an any or a map[string]any: its shape is the
// client's) that the member of the target it patches cannot hold, such
// as a string for an int: the client's mistake, which Merge answers 422.
type patchTypeError struct {
	// path is the members and keys (strings) and indexes (ints) from the
	// value up to the patch's top, innermost first: each level appends
	// its own as the error goes up, so a value n levels deep costs n
	// steps, not n² (a client's free-form JSON nests up to 10,000 deep).
	path []any
	want reflect.Type // the type of the member that cannot hold it
	key  bool         // the last of path is a key that want, a map's key type, cannot take
	// sent, when want is an array type, is the number of items the
	// value has, not want's length: encoding/json would drop the items
	// past it, or leave those missing zero.
	sent int
}

func (e *patchTypeError) Error() string {
	return e.location() + ": " + e.message()
}

// location returns the value's location as the body's failures write
// theirs: "body.meta.count", outermost first.
func (e *patchTypeError) location() string {
	out := slices.Clone(e.path)
	slices.Reverse(out)
	return typed.Location(out)
}

// keyword returns the JSON Schema keyword the value fails: the type of
// the member, or the propertyNames of a map whose key type cannot take
// the key, as the body's failures name them.
func (e *patchTypeError) keyword() string {
	if e.key {
		return "propertyNames"
	}
	if e.want.Kind() == reflect.Array {
		k, _ := typed.LengthFailure(e.want.Len(), e.sent)
		return k
	}
	return "type"
}

// message says what the value must be, for the client: never a Go type.
func (e *patchTypeError) message() string {
	if e.want.Kind() == reflect.Array && !e.key {
		_, m := typed.LengthFailure(e.want.Len(), e.sent)
		return m
	}
	if !e.key {
		return "must be " + jsonKind(e.want)
	}
	switch e.want.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "must be an integer"
	}
	return "is not a valid key"
}

// inPatch returns err, a failure to merge the patch's member, key or
// index name into t, as the *patchTypeError it is, name added to its
// path; or, when t is valid (the patch's value there is free-form) and
// err is none, a new one, whose value t cannot hold. ok is false for any
// other error, which the caller wraps as its own. A patchTypeError goes
// up unwrapped, so that each level finds it at once.
func inPatch(name any, t reflect.Value, err error) (pe *patchTypeError, ok bool) {
	if pe, ok = err.(*patchTypeError); ok || errors.As(err, &pe) {
		pe.path = append(pe.path, name)
		return pe, true
	}
	if t.IsValid() {
		return &patchTypeError{path: []any{name}, want: t.Type()}, true
	}
	return nil, false
}

// freeForm reports whether a patch's value of type t holds JSON as
// encoding/json decodes it where the type says nothing of its shape: an
// interface, or a map or slice of them.
func freeForm(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Map, reflect.Slice:
		return t.Elem().Kind() == reflect.Interface
	}
	return false
}

// jsonKind names the JSON a value of type t is written as, for a message
// to the client: "an integer", "an object".
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch p := reflect.PointerTo(t); {
	case p.Implements(textUnmarshaler):
		return "a string" // a time.Time, a netip.Addr
	case p.Implements(jsonUnmarshaler):
		return "of the JSON form the member reads" // not its Go type's name: the client's message
	}
	return typed.JSONKind(t) // the decoder's own words
}

// sentType is the type of the value a patch's member of type t holds as
// the client sent it: T for an Optional[T], t itself otherwise.
func sentType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(optionalType) {
		return t.Field(0).Type // Optional's value
	}
	return t
}

// keyedMap returns pm, a patch's JSON object for t, a map whose key type
// is not string (a map[int]T, a map of a named string or TextUnmarshaler
// key), as a map of t's key type with pm's values, each key as
// encoding/json decodes a map key of that type, so that pm is merged
// key by key (RFC 7396 section 2) rather than in place of t's whole. A
// key the type cannot take is a patchTypeError locating it.
func keyedMap(t reflect.Type, pm map[string]any) (reflect.Value, error) {
	kt := t.Key()
	m := reflect.MakeMapWithSize(reflect.MapOf(kt, reflect.TypeFor[any]()), len(pm))
	one := reflect.New(reflect.MapOf(kt, reflect.TypeFor[struct{}]()))
	for _, k := range slices.Sorted(maps.Keys(pm)) {
		b, _ := json.Marshal(map[string]any{k: nil})
		one.Elem().SetZero()
		if json.Unmarshal(b, one.Interface()) != nil || one.Elem().Len() != 1 {
			return reflect.Value{}, &patchTypeError{path: []any{k}, want: kt, key: true}
		}
		v := reflect.ValueOf(pm[k])
		if !v.IsValid() {
			v = reflect.Zero(reflect.TypeFor[any]()) // null: removes the key
		}
		m.SetMapIndex(one.Elem().MapKeys()[0], v)
	}
	return m, nil
}

// elemMismatch returns the failure to store the element of v, a patch's
// free-form array ([]any), that an element of t, a slice or an array,
// cannot hold, located at its index; nil when each can be.
func elemMismatch(t reflect.Type, v reflect.Value) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Interface || t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
		return nil
	}
	for i := range v.Len() {
		e := reflect.New(t.Elem()).Elem()
		ev := v.Index(i)
		if ev.IsNil() {
			continue // null: encoding/json leaves the element zero
		}
		if err := mergeValue(e, ev); err != nil {
			pe, _ := inPatch(i, e, err) // e is valid: always one
			return pe
		}
	}
	return nil
}

// lengthMismatch returns the failure of v, a patch's free-form JSON as
// encoding/json decodes it, for t, the type of the member it patches,
// where an array of v's holds another number of items than the Go array
// of t's it goes into (at any depth: in an array's items, an object's
// members and values), located there: encoding/json would drop the
// items past the array's length, or leave those missing zero, so the
// merged resource would not hold what the client sent. nil when every
// length fits, or v holds no such array.
func lengthMismatch(t reflect.Type, v any) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var pe *patchTypeError
	switch v := v.(type) {
	case []any:
		if t.Kind() != reflect.Array && t.Kind() != reflect.Slice {
			return nil
		}
		if t.Kind() == reflect.Array && len(v) != t.Len() {
			return &patchTypeError{want: t, sent: len(v)}
		}
		for i, e := range v {
			if err := lengthMismatch(t.Elem(), e); err != nil {
				pe = err.(*patchTypeError)
				pe.path = append(pe.path, i)
				return pe
			}
		}
	case map[string]any:
		switch t.Kind() {
		case reflect.Map:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if err := lengthMismatch(t.Elem(), v[k]); err != nil {
					pe = err.(*patchTypeError)
					pe.path = append(pe.path, k)
					return pe
				}
			}
		case reflect.Struct:
			for _, m := range typed.Members(t) {
				if err := lengthMismatch(t.FieldByIndex(m.Index).Type, v[m.Name]); err != nil {
					pe = err.(*patchTypeError)
					pe.path = append(pe.path, m.Name)
					return pe
				}
			}
		}
	}
	return nil
}
