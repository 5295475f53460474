package api

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"unsafe"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

// Merge applies patch, a merge patch bound from a request body (a struct,
// or a pointer to one, whose members are [Optional] or plain), to
// *target, a struct, by RFC 7396 section 2, each member matched to
// target's by its JSON name, as encoding/json names members (those of
// embedded structs and pointers to them promoted, a name two fields of
// one depth share dropped, a tag name it refuses ignored), a nil
// embedded pointer of target made when a member behind it is set:
//
//   - an Optional member absent leaves target's member as it is, null
//     sets it to its zero value (removes it: a member with omitempty or
//     omitzero is then left out of its JSON), and a value replaces it;
//   - a plain member replaces target's when it is not its zero value (a
//     member a patch may set but never remove);
//   - a value that is itself a struct with Optional members (or a
//     pointer to one) is merged into target's member the same way, and a
//     map into target's map key by key, a null value (a nil pointer or
//     interface) removing the key, at any depth (section 2: objects merge
//     member by member; a map[string]*string takes null for a key, a
//     map[string]string cannot);
//   - a JSON object held as a map[string]any (a patch's member of any
//     members, as a client sent it) is merged by section 2 into
//     whatever target's member holds that is an object: a struct or a
//     pointer to one member by member (by JSON name; a key that names
//     no member dropped, as encoding/json drops it), a map key by key,
//     a map[string]any or an any by MergePatch itself, a map of
//     another key type (map[int]T) key by key, each key as
//     encoding/json reads one; an any that
//     holds a value of another type (a map[string]string) keeps that
//     type when a value of it holds the merged JSON whole, else holds
//     that JSON as encoding/json decodes it. A key target lacks is made
//     from the patch alone, its nulls removed;
//   - any other value, an array included, replaces target's member
//     whole.
//
// Then Merge checks the merged *target against the rules of T's tags, as
// a request body of type T is checked: the rules a resource must keep
// (a title's minLength) hold for the result of every patch. A failure is
// an [*waltz.HTTPError] 422 that lists each one, located as in the body
// ("body.title"); answer it as it is. On a failure *target holds the
// merged value, so merge into a copy of what is stored: a shallow one
// (p := stored) is enough, as Merge writes through none of target's
// pointers, embedded ones included, but points each it changes at a copy.
//
// A value of the patch's free-form JSON (a member of type any,
// Optional[any] or map[string]any, whose shape the client chose) that the member it
// patches cannot hold, a string for an int, is the client's mistake: an
// [*waltz.HTTPError] 422 locating it ("body.meta.count", an array's
// element "body.meta.sizes[1]", keyword "type"; a key its map's key
// type cannot take, keyword "propertyNames"; an array of another length
// than the Go array it goes into, keyword "minItems" or "maxItems",
// where encoding/json would drop items or add zeros), written as the body's
// own failures' locations are. The error is a plain error (a 500, logged) when a member of
// patch has no member of that JSON name in T, or a typed member holds a
// value that cannot be stored there: that mistake is the handler's.
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
		var pe *patchTypeError
		if errors.As(err, &pe) {
			return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "the patch holds a value its resource cannot",
				Errors: []waltz.FieldError{{Location: pe.location(), Keyword: pe.keyword(), Message: pe.message()}}}
		}
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

// mergeStruct merges the struct value p into the addressable struct t,
// member by member, each matched by its JSON name as encoding/json names
// members (typed.Members: embedded structs and pointers to them, names
// that collide, tag names it refuses).
func mergeStruct(t, p reflect.Value) error {
	names := map[string][]int{}
	for _, m := range typed.Members(t.Type()) {
		names[m.Name] = m.Index
	}
	for _, m := range typed.Members(p.Type()) {
		ti, ok := names[m.Name]
		if !ok {
			return fmt.Errorf("waltz: Merge: %s has no member %q, which %s has", t.Type(), m.Name, p.Type())
		}
		pf, err := p.FieldByIndexErr(m.Index)
		if err != nil {
			continue // behind a nil embedded pointer: absent
		}
		if err := mergeMember(t, ti, pf); err != nil {
			var tf reflect.Value
			if freeForm(sentType(pf.Type())) {
				tf, _ = t.FieldByIndexErr(ti)
			}
			if pe, ok := inPatch(m.Name, tf, err); ok {
				return pe
			}
			return fmt.Errorf("waltz: Merge: member %q: %w", m.Name, err)
		}
	}
	return nil
}

// mergeMember merges pf, a member of a patch, into the member of the
// struct t at index ti: an Optional by its state, a plain member when it
// is not zero.
func mergeMember(t reflect.Value, ti []int, pf reflect.Value) error {
	if pf.CanAddr() {
		if om, ok := pf.Addr().Interface().(optionalMember); ok {
			present, null, v := om.state()
			switch {
			case !present:
			case null:
				return removeMember(t, ti)
			default:
				tf, err := memberAt(t, ti)
				if err != nil {
					return err
				}
				return mergeValue(tf, v)
			}
			return nil
		}
	}
	if pf.IsZero() {
		return nil
	}
	tf, err := memberAt(t, ti)
	if err != nil {
		return err
	}
	return mergeValue(tf, pf)
}

// removeMember sets the member of the struct t at the index path ti to
// its zero value, as a null removes a member (RFC 7396 section 2); one
// behind a nil embedded pointer is absent already.
func removeMember(t reflect.Value, ti []int) error {
	if _, err := t.FieldByIndexErr(ti); err != nil {
		return nil
	}
	tf, err := memberAt(t, ti)
	if err != nil {
		return err
	}
	tf.SetZero()
	return nil
}

// memberAt returns the member of the struct t at the index path ti,
// making the embedded pointers on the way that are nil, as encoding/json
// does when it decodes into one, and pointing those that are not at
// copies of what they point to (see own).
func memberAt(t reflect.Value, ti []int) (reflect.Value, error) {
	v := t
	for i, x := range ti {
		if i > 0 && v.Kind() == reflect.Pointer {
			if !v.CanSet() {
				// An embedded pointer to an unexported type, whose
				// exported members encoding/json promotes: one that is
				// set is owned all the same, through its address (the
				// target is addressable); a nil one cannot be made, as
				// encoding/json cannot make it either.
				if v.IsNil() {
					return reflect.Value{}, fmt.Errorf("cannot set the embedded pointer to unexported %s", v.Type().Elem())
				}
				v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
			}
			own(v)
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, nil
}

// own points the settable pointer p at a copy of what it points to, or
// at a new zero value when it is nil, so that what Merge writes through it
// goes to the copy. Merge never writes through a pointer of the target it
// did not make: a target that is a shallow copy of a stored value (p :=
// stored) shares its pointers and maps with it, and the stored value
// stays as it was whatever the patch, one refused with 422 included.
func own(p reflect.Value) {
	c := reflect.New(p.Type().Elem())
	if !p.IsNil() {
		c.Elem().Set(p.Elem())
	}
	p.Set(c)
}

// mergeValue stores v in t: merged into it when v is a struct with
// Optional members (a patch of its own), else in place of it.
func mergeValue(t, v reflect.Value) error {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct && hasOptional(v.Elem().Type()) {
		v = v.Elem() // a patch of its own, as a map's value or a plain member holds it
	}
	if pm, ok := v.Interface().(map[string]any); ok {
		// A JSON object held as encoding/json decodes one: merged by
		// section 2's MergePatch itself into an interface or a map of
		// any, member by member into a struct.
		switch {
		case t.Kind() == reflect.Interface && v.Type().AssignableTo(t.Type()) || t.Type() == v.Type():
			t.Set(reflect.ValueOf(mergeJSON(t.Interface(), pm)))
			return nil
		case isObject(t.Type()):
			return mergeObject(t, pm)
		case t.Kind() == reflect.Map && t.Type().Key() != v.Type().Key():
			km, err := keyedMap(t.Type(), pm)
			if err != nil {
				return err
			}
			return mergeMap(t, km)
		}
	}
	if v.Kind() == reflect.Map && t.Kind() == reflect.Pointer && t.Type().Elem().Kind() == reflect.Map {
		own(t) // a *map: merged behind a pointer of its own
		t = t.Elem()
	}
	if v.Kind() == reflect.Map && t.Kind() == reflect.Map && v.Type().Key() == t.Type().Key() {
		return mergeMap(t, v)
	}
	if v.Kind() == reflect.Struct && hasOptional(v.Type()) {
		if t.Kind() == reflect.Pointer {
			own(t)
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
		// []Tag): through its JSON, once a free-form array's length is
		// known to fit.
		if err := lengthMismatch(t.Type(), v.Interface()); err != nil {
			return err
		}
		b, err := json.Marshal(v.Interface())
		if err == nil {
			p := reflect.New(t.Type())
			if err = json.Unmarshal(b, p.Interface()); err == nil {
				t.Set(p.Elem())
			}
		}
		if err != nil {
			if ee := elemMismatch(t.Type(), v); ee != nil {
				return ee
			}
			return errors.Join(fmt.Errorf("a %s cannot be stored in a %s", v.Type(), t.Type()), err)
		}
	}
	return nil
}

// mergeMap merges the map v, an object of a patch, into the map t key by
// key, as RFC 7396 section 2 merges objects: a key whose value is null
// (a nil pointer or interface, a null Optional) removes t's, and any other
// value is stored in t's value of that key as mergeValue stores a member's,
// merged into it when it is a patch of its own. t is set to a new map: the
// one it held, which a shallow copy of a stored value shares, is not
// written.
func mergeMap(t, v reflect.Value) error {
	m := reflect.MakeMapWithSize(t.Type(), t.Len()+v.Len())
	for it := t.MapRange(); it.Next(); {
		m.SetMapIndex(it.Key(), it.Value())
	}
	for it := v.MapRange(); it.Next(); {
		pv := it.Value()
		if pv.CanInterface() {
			if _, ok := reflect.New(pv.Type()).Interface().(optionalMember); ok {
				cp := reflect.New(pv.Type())
				cp.Elem().Set(pv)
				present, null, val := cp.Interface().(optionalMember).state()
				switch {
				case !present:
					continue
				case null:
					pv = reflect.Value{}
				default:
					pv = val
				}
			}
		}
		if !pv.IsValid() || (pv.Kind() == reflect.Pointer || pv.Kind() == reflect.Interface) && pv.IsNil() {
			m.SetMapIndex(it.Key(), reflect.Value{}) // null: removed
			continue
		}
		e := reflect.New(t.Type().Elem()).Elem()
		if old := m.MapIndex(it.Key()); old.IsValid() {
			e.Set(old)
		}
		if err := mergeValue(e, pv); err != nil {
			var te reflect.Value
			if freeForm(v.Type().Elem()) {
				te = e
			}
			name := keyName(it.Key())
			if pe, ok := inPatch(name, te, err); ok {
				return pe
			}
			return fmt.Errorf("key %s: %w", name, err)
		}
		m.SetMapIndex(it.Key(), e)
	}
	t.Set(m)
	return nil
}

// isObject reports whether t is a struct or a pointer to one that
// encoding/json writes as an object of its members: one that marshals
// itself (a time.Time, an Optional) is not.
func isObject(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	p := reflect.PointerTo(t)
	return !p.Implements(jsonMarshaler) && !p.Implements(textMarshaler)
}

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// hasOptional reports whether the struct type t has an Optional member.
func hasOptional(t reflect.Type) bool {
	for _, m := range typed.Members(t) {
		if reflect.PointerTo(t.FieldByIndex(m.Index).Type).Implements(optionalType) {
			return true
		}
	}
	return false
}

var optionalType = reflect.TypeFor[optionalMember]()

// keyName returns the map key k as JSON writes it, the name a client
// sent: a string, a TextMarshaler's text, an integer's decimal.
func keyName(k reflect.Value) string {
	if k.Kind() == reflect.String && !k.Type().Implements(textMarshaler) {
		return k.String()
	}
	if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
		if b, err := tm.MarshalText(); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(k.Interface())
}
