package openapi

import (
	"encoding/json"
	"strings"
	"testing"
)

func number(s string) *json.Number {
	n := json.Number(s)
	return &n
}

func TestSchemaMarshal(t *testing.T) {
	two := 2
	kib := int64(1024)
	for _, tc := range []struct {
		name string
		s    *Schema
		want string
	}{
		{"any value", &Schema{}, `{}`},
		{"false", False(), `false`},
		{"false beside a keyword", &Schema{Not: &Schema{}, Description: "d"}, `{"description":"d","not":{}}`},
		{"one type", &Schema{Type: "string", Format: "uuid"}, `{"type":"string","format":"uuid"}`},
		{"types", &Schema{Types: []string{"array", "null"}, Items: &Schema{Type: "integer"}},
			`{"type":["array","null"],"items":{"type":"integer"}}`},
		{"$ref before type", &Schema{Ref: SchemaRef + "A", Type: "object"}, `{"$ref":"#/components/schemas/A","type":"object"}`},
		{"properties in order", &Schema{Type: "object", Properties: Properties{{"b", &Schema{}}, {"a", &Schema{Type: "boolean"}}},
			Required: []string{"b"}, AdditionalProperties: False()},
			`{"type":"object","properties":{"b":{},"a":{"type":"boolean"}},"required":["b"],"additionalProperties":false}`},
		{"no properties", &Schema{Type: "object", Properties: Properties{}}, `{"type":"object","properties":{}}`},
		{"bounds as spelt", &Schema{Type: "number", Minimum: number("0.50"), ExclusiveMaximum: number("1e3"), MaxItems: &two},
			`{"type":"number","minimum":0.50,"exclusiveMaximum":1e3,"maxItems":2}`},
		{"values", &Schema{Enum: []any{"a", json.Number("1"), true}, Default: "a", Examples: []any{json.RawMessage(`{"z":1,"a":2}`)}},
			`{"enum":["a",1,true],"default":"a","examples":[{"z":1,"a":2}]}`},
		{"html stays escaped", &Schema{Pattern: "<a&b>"}, `{"pattern":"\u003ca\u0026b\u003e"}`},
		{"an extension", &Schema{Type: "string", Format: "binary", MaxBytes: &kib}, `{"type":"string","format":"binary","x-maxBytes":1024}`},
	} {
		b, err := json.Marshal(tc.s)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(b) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, b, tc.want)
		}
	}
}

func TestSchemaMarshalBothTypes(t *testing.T) {
	_, err := json.Marshal(&Schema{Type: "string", Types: []string{"string", "null"}})
	if err == nil || !strings.Contains(err.Error(), "openapi: a schema has both Type") {
		t.Errorf("got %v, want an error naming both", err)
	}
}

// TestSchemaRoundTrip reads schemas and writes them again: the same
// text, numbers as spelt and properties in order.
func TestSchemaRoundTrip(t *testing.T) {
	for _, text := range []string{
		`{}`,
		`false`,
		`{"type":"string","maxLength":10,"pattern":"^[a-z]+$"}`,
		`{"type":["integer","null"],"minimum":-1,"maximum":1.50,"multipleOf":0.25}`,
		`{"type":"object","properties":{"z":{"type":"string"},"a":{"$ref":"#/components/schemas/A"},"m":{}},"required":["z"],"additionalProperties":false}`,
		`{"type":"object","properties":{},"additionalProperties":{"type":"integer"}}`,
		`{"oneOf":[{"$ref":"#/components/schemas/A"},{"type":"null"}]}`,
		`{"title":"T","anyOf":[{"type":"string"}],"allOf":[{}],"not":{"type":"null"}}`,
		`{"enum":[1,2.0,"x",null],"const":3,"default":10000000000000000000001,"examples":[1e400],"example":{"b":1}}`,
		`{"type":"string","contentMediaType":"application/json","contentSchema":{"type":"object"},"xml":{"name":"item"}}`,
		`{"minProperties":1,"maxProperties":3,"deprecated":true,"readOnly":true,"writeOnly":true}`,
	} {
		var s Schema
		if err := json.Unmarshal([]byte(text), &s); err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		b, err := json.Marshal(&s)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if string(b) != text {
			t.Errorf("read and written again:\n got %s\nwant %s", b, text)
		}
	}
}

func TestSchemaRead(t *testing.T) {
	var s Schema
	if err := json.Unmarshal([]byte(`{"items":true,"additionalProperties":false,"enum":[1.0],"properties":{"p":{"default":7}}}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Items == nil || s.Items.IsFalse() || s.Items.Not != nil {
		t.Errorf("items true: got %+v, want &Schema{}", s.Items)
	}
	if !s.AdditionalProperties.IsFalse() {
		t.Errorf("additionalProperties false: got %+v, want False()", s.AdditionalProperties)
	}
	if n, ok := s.Enum[0].(json.Number); !ok || n != "1.0" {
		t.Errorf("enum: got %#v, want json.Number 1.0", s.Enum[0])
	}
	if n, ok := s.Properties[0].Schema.Default.(json.Number); !ok || n != "7" {
		t.Errorf("a property's default: got %#v, want json.Number 7", s.Properties[0].Schema.Default)
	}
	for _, bad := range []string{`{"type":1}`, `{"properties":[]}`, `{"properties":{"a":1}}`} {
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("%s: read with no error", bad)
		}
	}
}

func TestIsFalse(t *testing.T) {
	for _, tc := range []struct {
		s    *Schema
		want bool
	}{
		{False(), true},
		{nil, false},
		{&Schema{}, false},
		{&Schema{Not: &Schema{Type: "string"}}, false},
		{&Schema{Not: &Schema{}, Type: "string"}, false},
		{&Schema{Not: &Schema{}, Properties: Properties{}}, false},
	} {
		if got := tc.s.IsFalse(); got != tc.want {
			t.Errorf("%+v: got %v, want %v", tc.s, got, tc.want)
		}
	}
}
