package api

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Optional is a member of a JSON body that is absent, null or a value: a
// member of a JSON Merge Patch (RFC 7396 section 1), where absent leaves
// the target's member as it is, null removes it, and a value replaces it.
// Its zero value is absent.
//
// In a typed operation's body, a member of type Optional[T] is never
// required, and null is one of its values; the rules of its tags apply to
// a value sent, as they would to a member of type T, and the document
// describes it as T's schema that also allows null. A body struct with an
// Optional member is a merge patch: its operation takes
// application/merge-patch+json (RFC 7396 section 4), and [Merge] applies
// it to the resource it changes.
//
// encoding/json reads an Optional as the typed decoder does
// (UnmarshalJSON: null, or a value of T) and writes a value as T's, and
// absent or null as null; with the json option omitzero an absent one is
// left out (IsZero). A type that a client sends (the client package)
// must tag its Optional members omitzero, or an absent one would go as
// null and remove the member: client.Op panics on one that does not.
// [OptionalOf] and [OptionalNull] make a value and a null.
type Optional[T any] struct {
	value   T
	present bool // the member was sent
	null    bool // as null
}

// OptionalOf returns an Optional holding v: a member sent with a value,
// which in a merge patch replaces the target's.
func OptionalOf[T any](v T) Optional[T] { return Optional[T]{value: v, present: true} }

// OptionalNull returns an Optional that is null: a member sent as null,
// which in a merge patch removes the target's. The zero Optional is
// absent.
func OptionalNull[T any]() Optional[T] { return Optional[T]{present: true, null: true} }

// Present reports whether the member was sent, as null or as a value.
func (o Optional[T]) Present() bool { return o.present }

// Null reports whether the member was sent as null: in a merge patch, the
// target's member is removed.
func (o Optional[T]) Null() bool { return o.present && o.null }

// Value returns the value sent, and whether one was (the member present
// and not null); otherwise the zero T and false.
func (o Optional[T]) Value() (T, bool) { return o.value, o.present && !o.null }

// IsZero reports whether the member is absent, for encoding/json's
// omitzero option.
func (o Optional[T]) IsZero() bool { return !o.present }

// MarshalJSON writes the value as T's JSON, or null when o is null or
// absent.
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if !o.present || o.null {
		return []byte("null"), nil
	}
	return json.Marshal(o.value)
}

// UnmarshalJSON reads null, or a value of T: encoding/json calls it only
// for a member that is present.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	var zero T
	o.value, o.present, o.null = zero, true, bytes.Equal(bytes.TrimSpace(b), []byte("null"))
	if o.null {
		return nil
	}
	return json.Unmarshal(b, &o.value)
}

// WrappedType returns T: the typed body decoder plans a member of type
// Optional[T] as a member of type T, with its tags.
func (o *Optional[T]) WrappedType() reflect.Type { return reflect.TypeFor[T]() }

// Sent marks o present, as null when null is true, for the typed body
// decoder; unless null, it returns the address of o's value, which the
// decoder fills.
func (o *Optional[T]) Sent(null bool) any {
	var zero T
	o.value, o.present, o.null = zero, true, null
	if null {
		return nil
	}
	return &o.value
}

// optionalMember is an Optional as Merge reads it, whatever its T.
type optionalMember interface {
	state() (present, null bool, v reflect.Value)
}

func (o *Optional[T]) state() (bool, bool, reflect.Value) {
	return o.present, o.null, reflect.ValueOf(&o.value).Elem()
}
