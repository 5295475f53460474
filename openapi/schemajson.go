package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The JSON of a schema: its type keyword, one name or several; the
// boolean schemas; properties in order.

// MarshalJSON writes s: false for [False], otherwise an object with the
// keywords set, Type or Types as the keyword type. It fails when both
// Type and Types are set. Its receiver is a pointer, as the model holds
// every schema: write a *Schema, not a Schema.
func (s *Schema) MarshalJSON() ([]byte, error) {
	if s.IsFalse() {
		return []byte("false"), nil
	}
	var typ any
	switch {
	case s.Type != "" && len(s.Types) > 0:
		return nil, fmt.Errorf("openapi: a schema has both Type %q and Types %q: set one", s.Type, s.Types)
	case s.Type != "":
		typ = s.Type
	case len(s.Types) > 0:
		typ = s.Types
	}
	type plain Schema
	// $ref and type come first, as in the struct; the outer $ref hides
	// plain's, which is the same.
	return json.Marshal(struct {
		Ref  string `json:"$ref,omitempty"`
		Type any    `json:"type,omitempty"`
		*plain
	}{s.Ref, typ, (*plain)(s)})
}

// UnmarshalJSON reads a schema: true or false, or an object whose
// keyword type is a name or a list of names. Numbers in its values are
// read as json.Number.
func (s *Schema) UnmarshalJSON(b []byte) error {
	*s = Schema{}
	switch string(bytes.TrimSpace(b)) {
	case "true":
		return nil
	case "false":
		*s = *False()
		return nil
	}
	type plain Schema
	v := struct {
		Ref  string          `json:"$ref"`
		Type json.RawMessage `json:"type"`
		*plain
	}{plain: (*plain)(s)}
	if err := decode(b, &v); err != nil {
		return err
	}
	s.Ref = v.Ref
	t := bytes.TrimSpace(v.Type)
	switch {
	case len(t) == 0:
	case t[0] == '"':
		return json.Unmarshal(t, &s.Type)
	case t[0] == '[':
		return json.Unmarshal(t, &s.Types)
	default:
		return fmt.Errorf("openapi: a schema's type is %s, want a name or a list of names", t)
	}
	return nil
}

// MarshalJSON writes ps as a JSON object, its members in ps's order.
func (ps Properties) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		// The schema's own MarshalJSON, called here rather than through
		// json.Marshal, which would only copy what it writes.
		v := []byte("null")
		if p.Schema != nil {
			var err error
			if v, err = p.Schema.MarshalJSON(); err != nil {
				return nil, err
			}
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object of schemas into ps, in the object's
// order.
func (ps *Properties) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("openapi: a schema's properties are not an object")
	}
	*ps = Properties{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("openapi: properties: %w", err)
		}
		name, _ := t.(string)
		s := &Schema{}
		if err := dec.Decode(s); err != nil {
			return fmt.Errorf("openapi: properties: %q: %w", name, err)
		}
		*ps = append(*ps, Property{Name: name, Schema: s})
	}
	return nil
}
