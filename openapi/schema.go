package openapi

import (
	"encoding/json"
	"reflect"
)

// Schema is a schema object (OpenAPI 3.1 section 4.8.24): a JSON Schema
// of draft 2020-12, OpenAPI 3.1's dialect, with the keywords waltz writes
// and its readers use. A keyword left at its zero value is absent (so a
// default, const or example of null cannot be said), and &Schema{}
// admits every value.
//
// The boolean schemas of JSON Schema 2020-12 section 4.3.2 are
// &Schema{}, written {}, which is true; and [False], written false. A
// schema read as true is &Schema{}, as false [False]'s.
type Schema struct {
	Ref string `json:"$ref,omitempty"` // another schema, such as SchemaRef + "Bookmark"; the other keywords still apply
	// Type is the one JSON type of the values ("string"), and Types the
	// several ("string", "null"), written as the keyword type in place
	// of Type. At most one of the two is set.
	Type        string    `json:"-"`
	Types       []string  `json:"-"`
	Title       string    `json:"title,omitempty"`
	Format      string    `json:"format,omitempty"` // such as "date-time", "uuid", "int64", "binary"
	Description string    `json:"description,omitempty"`
	OneOf       []*Schema `json:"oneOf,omitempty"`
	AnyOf       []*Schema `json:"anyOf,omitempty"`
	AllOf       []*Schema `json:"allOf,omitempty"`
	Not         *Schema   `json:"not,omitempty"`

	Properties    Properties `json:"properties,omitzero"`     // nil: absent; empty: written as {}
	PropertyNames *Schema    `json:"propertyNames,omitempty"` // the schema of every member's name
	Required      []string   `json:"required,omitempty"`
	// AdditionalProperties is the schema of the members Properties does
	// not list: [False] refuses them.
	AdditionalProperties *Schema `json:"additionalProperties,omitempty"`
	Items                *Schema `json:"items,omitempty"`

	Enum []any `json:"enum,omitempty"`
	// Const is the one value allowed.
	Const any `json:"const,omitempty"`
	// The bounds are JSON numbers, written as they are spelt: "10",
	// "0.5", "1e3".
	Minimum          *json.Number `json:"minimum,omitempty"`
	Maximum          *json.Number `json:"maximum,omitempty"`
	ExclusiveMinimum *json.Number `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum *json.Number `json:"exclusiveMaximum,omitempty"`
	MultipleOf       *json.Number `json:"multipleOf,omitempty"`
	MinLength        *int         `json:"minLength,omitempty"` // in characters (code points)
	MaxLength        *int         `json:"maxLength,omitempty"`
	Pattern          string       `json:"pattern,omitempty"` // an ECMA-262 regular expression, unanchored
	MinItems         *int         `json:"minItems,omitempty"`
	MaxItems         *int         `json:"maxItems,omitempty"`
	UniqueItems      bool         `json:"uniqueItems,omitempty"`
	MinProperties    *int         `json:"minProperties,omitempty"`
	MaxProperties    *int         `json:"maxProperties,omitempty"`
	ContentEncoding  string       `json:"contentEncoding,omitempty"`  // how a string holds bytes, such as "base64"
	ContentMediaType string       `json:"contentMediaType,omitempty"` // the media type of a string's content
	ContentSchema    *Schema      `json:"contentSchema,omitempty"`    // the schema of a string's content, once decoded
	XML              *XML         `json:"xml,omitempty"`
	Default          any          `json:"default,omitempty"`
	Examples         []any        `json:"examples,omitempty"`
	Example          any          `json:"example,omitempty"` // OpenAPI 3.0's single example, deprecated in 3.1 for Examples
	Deprecated       bool         `json:"deprecated,omitempty"`
	ReadOnly         bool         `json:"readOnly,omitempty"`  // sent in answers, never in requests
	WriteOnly        bool         `json:"writeOnly,omitempty"` // sent in requests, never in answers

	// MaxBytes is waltz's extension keyword x-maxBytes (OpenAPI 3.1
	// section 4.9): the most bytes of a file a string of binary content
	// stands for, such as a multipart body's file part (a File member's
	// maxBytes tag), which no JSON Schema keyword says: maxLength counts
	// characters. A tool that does not know it ignores it.
	MaxBytes *int64 `json:"x-maxBytes,omitempty"`
}

// False returns the schema no value is valid against, the boolean schema
// false of JSON Schema 2020-12 section 4.3.2: {"not": {}}, which is
// written false. As AdditionalProperties it refuses every member that
// Properties does not list.
func False() *Schema { return &Schema{Not: &Schema{}} }

// IsFalse reports whether s is the schema [False] returns: no value is
// valid against it.
func (s *Schema) IsFalse() bool {
	if s == nil || s.Not == nil {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero() && reflect.ValueOf(*s.Not).IsZero()
}

// Properties are the members an object schema lists (JSON Schema 2020-12
// section 10.3.2.1), in order, each name once: written as a JSON object
// with the members in this order, and read in the document's order.
type Properties []Property

// Property is a member an object schema lists: its name and the schema
// of its value.
type Property struct {
	Name   string
	Schema *Schema
}

// XML is an XML object (section 4.8.26): how a schema's value is
// written in XML.
type XML struct {
	Name string `json:"name,omitempty"` // the element's name
}
