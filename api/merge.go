package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

// Merge applies patch, a merge patch bound from a request body (a struct,
// or a pointer to one, whose members are [Optional] or plain), to
// *target, a struct, by RFC 7396 section 2, each member matched to
// target's by its JSON name:
//
//   - an Optional member absent leaves target's member as it is, null
//     sets it to its zero value (removes it: a member with omitempty or
//     omitzero is then left out of its JSON), and a value replaces it;
//   - a plain member replaces target's when it is not its zero value (a
//     member a patch may set but never remove);
//   - a value that is itself a struct with Optional members is merged
//     into target's member the same way, at any depth (section 2: objects
//     merge member by member); any other value, an array included,
//     replaces target's member whole.
//
// Then Merge checks the merged *target against the rules of T's tags, as
// a request body of type T is checked: the rules a resource must keep
// (a title's minLength) hold for the result of every patch. A failure is
// an [*waltz.HTTPError] 422 that lists each one, located as in the body
// ("body.title"); answer it as it is. On a failure *target holds the
// merged value, so merge into a copy of what is stored.
//
// The error is a plain error (a 500, logged) when a member of patch has
// no member of that JSON name in T, or holds a value that cannot be
// stored there: the mistake is the handler's, not the client's.
func Merge[T any](target *T, patch any) error {
	pv := reflect.ValueOf(patch)
	for pv.Kind() == reflect.Pointer && !pv.IsNil() {
		pv = pv.Elem()
	}
	tv := reflect.ValueOf(target).Elem()
	if pv.Kind() != reflect.Struct || tv.Kind() != reflect.Struct {
		return fmt.Errorf("waltz: Merge: a %s into a %s: both must be structs", pv.Type(), tv.Type())
	}
	if !pv.CanAddr() { // a patch passed by value: Optional's state is read through its pointer
		cp := reflect.New(pv.Type()).Elem()
		cp.Set(pv)
		pv = cp
	}
	if err := mergeStruct(tv, pv); err != nil {
		return err
	}
	var fails fieldFailures
	ok, err := typed.Check(target, &fails)
	switch {
	case err != nil:
		return fmt.Errorf("waltz: Merge: checking the merged %s: %w", tv.Type(), err)
	case !ok:
		return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "the patch leaves the resource breaking its rules", Errors: fails}
	}
	return nil
}

// fieldFailures keeps the failures of a check, as FieldErrors.
type fieldFailures []waltz.FieldError

// Fail keeps one failure.
func (fs *fieldFailures) Fail(location, keyword, message string) {
	*fs = append(*fs, waltz.FieldError{Location: location, Keyword: keyword, Message: message})
}

// mergeStruct merges the struct value p into the addressable struct t.
func mergeStruct(t, p reflect.Value) error {
	names := jsonNames(t.Type(), nil, nil)
	for name, pi := range jsonNames(p.Type(), nil, nil) {
		ti, ok := names[name]
		if !ok {
			return fmt.Errorf("waltz: Merge: %s has no member %q, which %s has", t.Type(), name, p.Type())
		}
		pf, tf := p.FieldByIndex(pi), t.FieldByIndex(ti)
		if pf.CanAddr() {
			if om, ok := pf.Addr().Interface().(optionalMember); ok {
				present, null, v := om.state()
				switch {
				case !present:
				case null:
					tf.SetZero()
				default:
					if err := mergeValue(tf, v); err != nil {
						return fmt.Errorf("waltz: Merge: member %q: %w", name, err)
					}
				}
				continue
			}
		}
		if !pf.IsZero() {
			if err := mergeValue(tf, pf); err != nil {
				return fmt.Errorf("waltz: Merge: member %q: %w", name, err)
			}
		}
	}
	return nil
}

// mergeValue stores v in t: merged into it when v is a struct with
// Optional members (a patch of its own), else in place of it.
func mergeValue(t, v reflect.Value) error {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if pm, ok := v.Interface().(map[string]any); ok && (t.Kind() == reflect.Interface || t.Type() == v.Type()) {
		// A JSON object held as encoding/json decodes one: merged by
		// section 2's MergePatch itself.
		t.Set(reflect.ValueOf(mergeJSON(t.Interface(), pm)))
		return nil
	}
	if v.Kind() == reflect.Struct && hasOptional(v.Type()) {
		if t.Kind() == reflect.Pointer {
			if t.IsNil() {
				t.Set(reflect.New(t.Type().Elem()))
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return fmt.Errorf("a patch %s for a %s", v.Type(), t.Type())
		}
		if !v.CanAddr() { // Optional's state is read through its pointer
			cp := reflect.New(v.Type()).Elem()
			cp.Set(v)
			v = cp
		}
		return mergeStruct(t, v)
	}
	switch {
	case v.Type().AssignableTo(t.Type()):
		t.Set(v)
	case t.Kind() == reflect.Pointer && v.Type().AssignableTo(t.Type().Elem()):
		p := reflect.New(t.Type().Elem())
		p.Elem().Set(v)
		t.Set(p)
	default:
		// Another type of the same JSON (a patch's []TagPatch for a
		// []Tag): through its JSON.
		b, err := json.Marshal(v.Interface())
		if err == nil {
			p := reflect.New(t.Type())
			if err = json.Unmarshal(b, p.Interface()); err == nil {
				t.Set(p.Elem())
			}
		}
		if err != nil {
			return errors.Join(fmt.Errorf("a %s cannot be stored in a %s", v.Type(), t.Type()), err)
		}
	}
	return nil
}

// mergeJSON returns patch merged into target, JSON values as
// encoding/json decodes them into an any, by RFC 7396 section 2's
// MergePatch: a member null removes target's, an object merges into
// target's (or into an empty one when target's is not an object), any
// other value replaces it. target is not changed.
func mergeJSON(target any, patch map[string]any) any {
	tm, ok := target.(map[string]any)
	if ok {
		tm = maps.Clone(tm)
	} else {
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

// hasOptional reports whether the struct type t has an Optional member.
func hasOptional(t reflect.Type) bool {
	for _, idx := range jsonNames(t, nil, nil) {
		if reflect.PointerTo(t.FieldByIndex(idx).Type).Implements(optionalType) {
			return true
		}
	}
	return false
}

var optionalType = reflect.TypeFor[optionalMember]()

// jsonNames returns the exported members of the struct type t by their
// JSON names (a json tag's name, else the field's), with the members of
// embedded structs without a tag promoted, as encoding/json names them;
// "-" is left out. A name at a shallower depth wins.
func jsonNames(t reflect.Type, at []int, m map[string][]int) map[string][]int {
	if m == nil {
		m = map[string][]int{}
	}
	var embedded []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			embedded = append(embedded, f)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, ok := m[name]; !ok {
			m[name] = append(append([]int(nil), at...), i)
		}
	}
	for _, f := range embedded {
		jsonNames(f.Type, append(append([]int(nil), at...), f.Index...), m)
	}
	return m
}
