package apidocs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// document is the part of an OpenAPI 3.1 document (OpenAPI 3.1 section
// 4.8) the page shows. Numbers are kept as the document wrote them
// (json.Number), and a schema's properties in the document's order.
type document struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Title       string `json:"title"`
		Summary     string `json:"summary"`
		Description string `json:"description"`
		Version     string `json:"version"`
		License     *struct {
			Name       string `json:"name"`
			Identifier string `json:"identifier"`
		} `json:"license"`
	} `json:"info"`
	Servers []struct {
		URL         string `json:"url"`
		Description string `json:"description"`
	} `json:"servers"`
	Paths map[string]*pathItem `json:"paths"`
	Tags  []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tags"`
	Security   []map[string][]string `json:"security"`
	Components struct {
		Schemas         map[string]*schema         `json:"schemas"`
		SecuritySchemes map[string]*securityScheme `json:"securitySchemes"`
	} `json:"components"`
}

type pathItem struct {
	Summary     string       `json:"summary"`
	Description string       `json:"description"`
	Parameters  []*parameter `json:"parameters"`
	Get         *operation   `json:"get"`
	Put         *operation   `json:"put"`
	Post        *operation   `json:"post"`
	Delete      *operation   `json:"delete"`
	Options     *operation   `json:"options"`
	Head        *operation   `json:"head"`
	Patch       *operation   `json:"patch"`
	Trace       *operation   `json:"trace"`
}

// methods returns the operations of p with their methods, in the order
// the page lists them: reads first, then writes.
func (p *pathItem) methods() []methodOp {
	all := []methodOp{{"GET", p.Get}, {"POST", p.Post}, {"PUT", p.Put}, {"PATCH", p.Patch},
		{"DELETE", p.Delete}, {"HEAD", p.Head}, {"OPTIONS", p.Options}, {"TRACE", p.Trace}}
	ops := all[:0]
	for _, m := range all {
		if m.op != nil {
			ops = append(ops, m)
		}
	}
	return ops
}

type methodOp struct {
	method string
	op     *operation
}

type operation struct {
	Tags        []string               `json:"tags"`
	Summary     string                 `json:"summary"`
	Description string                 `json:"description"`
	OperationID string                 `json:"operationId"`
	Parameters  []*parameter           `json:"parameters"`
	RequestBody *requestBody           `json:"requestBody"`
	Responses   map[string]*response   `json:"responses"`
	Deprecated  bool                   `json:"deprecated"`
	Security    *[]map[string][]string `json:"security"` // nil: the document's
}

type parameter struct {
	Name        string                `json:"name"`
	In          string                `json:"in"`
	Description string                `json:"description"`
	Required    bool                  `json:"required"`
	Deprecated  bool                  `json:"deprecated"`
	Schema      *schema               `json:"schema"`
	Example     any                   `json:"example"`
	Examples    map[string]*exampleOb `json:"examples"`
}

type exampleOb struct {
	Summary string `json:"summary"`
	Value   any    `json:"value"`
}

type requestBody struct {
	Description string                `json:"description"`
	Required    bool                  `json:"required"`
	Content     map[string]*mediaType `json:"content"`
}

type mediaType struct {
	Schema   *schema               `json:"schema"`
	Example  any                   `json:"example"`
	Examples map[string]*exampleOb `json:"examples"`
}

type response struct {
	Description string                `json:"description"`
	Headers     map[string]*header    `json:"headers"`
	Content     map[string]*mediaType `json:"content"`
}

type header struct {
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Schema      *schema `json:"schema"`
}

type securityScheme struct {
	Type         string `json:"type"`
	Description  string `json:"description"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat"`
	Name         string `json:"name"`
	In           string `json:"in"`
}

// schema is a JSON Schema (draft 2020-12, OpenAPI 3.1's dialect): the
// keywords the page puts in words.
type schema struct {
	Ref         string    `json:"$ref"`
	Type        types     `json:"type"`
	Format      string    `json:"format"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	OneOf       []*schema `json:"oneOf"`
	AnyOf       []*schema `json:"anyOf"`
	AllOf       []*schema `json:"allOf"`

	Properties           props           `json:"properties"`
	Required             []string        `json:"required"`
	AdditionalProperties json.RawMessage `json:"additionalProperties"` // a schema, or a boolean
	Items                *schema         `json:"items"`

	Enum             []any        `json:"enum"`
	Const            any          `json:"const"`
	Minimum          *json.Number `json:"minimum"`
	Maximum          *json.Number `json:"maximum"`
	ExclusiveMinimum *json.Number `json:"exclusiveMinimum"`
	ExclusiveMaximum *json.Number `json:"exclusiveMaximum"`
	MultipleOf       *json.Number `json:"multipleOf"`
	MinLength        *int         `json:"minLength"`
	MaxLength        *int         `json:"maxLength"`
	Pattern          string       `json:"pattern"`
	MinItems         *int         `json:"minItems"`
	MaxItems         *int         `json:"maxItems"`
	UniqueItems      bool         `json:"uniqueItems"`
	MinProperties    *int         `json:"minProperties"`
	MaxProperties    *int         `json:"maxProperties"`
	ContentEncoding  string       `json:"contentEncoding"`
	ContentMediaType string       `json:"contentMediaType"`
	Default          any          `json:"default"`
	Examples         []any        `json:"examples"`
	Example          any          `json:"example"` // OpenAPI 3.0's, still met
	Deprecated       bool         `json:"deprecated"`
	ReadOnly         bool         `json:"readOnly"`
	WriteOnly        bool         `json:"writeOnly"`
}

// types is a schema's type keyword: one name, or several (["string",
// "null"]).
type types []string

func (t *types) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = types{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("type: %w", err)
	}
	*t = many
	return nil
}

// has reports whether name is one of t.
func (t types) has(name string) bool {
	for _, n := range t {
		if n == name {
			return true
		}
	}
	return false
}

// props are a schema's properties in the order the document lists them,
// which for a waltz document is the Go struct's field order.
type props []prop

type prop struct {
	name string
	s    *schema
}

func (ps *props) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("properties: not an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("properties: %w", err)
		}
		name, _ := t.(string)
		s := &schema{}
		if err := dec.Decode(s); err != nil {
			return fmt.Errorf("properties: %q: %w", name, err)
		}
		*ps = append(*ps, prop{name, s})
	}
	return nil
}

// closed reports whether s refuses members it does not list
// (additionalProperties false), and returns the schema of the members it
// does not list when it gives one.
func (s *schema) closed() (bool, *schema) {
	raw := bytes.TrimSpace(s.AdditionalProperties)
	switch {
	case len(raw) == 0, string(raw) == "true":
		return false, nil
	case string(raw) == "false":
		return true, nil
	}
	extra := &schema{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(extra) != nil {
		return false, nil
	}
	return false, extra
}

// refName returns the component name a $ref points at
// ("#/components/schemas/Bookmark" gives "Bookmark"), or "" for none or a
// reference outside the document's components.
func refName(ref string) string {
	name, ok := strings.CutPrefix(ref, "#/components/schemas/")
	if !ok {
		return ""
	}
	// JSON Pointer escapes (RFC 6901 section 4).
	return strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
}

// parse reads an OpenAPI 3.x document written as JSON.
func parse(doc []byte) (*document, error) {
	d := &document{}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(d); err != nil {
		return nil, fmt.Errorf("apidocs: the document is not OpenAPI JSON: %w", err)
	}
	if !strings.HasPrefix(d.OpenAPI, "3.") {
		return nil, fmt.Errorf("apidocs: the document is OpenAPI %q, want 3.x", d.OpenAPI)
	}
	return d, nil
}
