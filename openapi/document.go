// Package openapi is the OpenAPI 3.1 and 3.2 object model as plain Go types: a
// [Document] and the objects it holds, each named as the specification
// names it, with its fixed fields in the specification's order. It holds
// the fields waltz writes and the ones its readers use; a field it lacks
// is dropped when a document is read.
//
// Package api builds a router's document with it (api.Describe) and
// writes it (api.OpenAPI); package apidocs and the contract test read
// it. The package imports only the standard library.
//
// # Writing
//
// encoding/json writes a Document: the fields in declaration order, a
// map's keys sorted, a schema's properties in their order, bounds as the
// json.Number they hold, so the same model gives the same bytes. An
// empty string, slice or map, a false flag and a nil pointer are left
// out, except where the specification tells an empty value from an
// absent one: an operation's Security (nil: the document's; empty: none
// needed), Paths and Responses (nil: absent; empty: written as {}).
//
// # Reading
//
// json.Unmarshal reads a document (3.0 or 3.1) into a Document. Numbers
// in values (examples, defaults, enums, consts) are read as json.Number,
// as written, and a schema's properties in the document's order. Read a
// Schema or a Document, not a part of one, to keep the numbers so.
//
// # Versions
//
// OpenAPI names the version a Document follows. The fields are those of
// 3.1 (section numbers below are OpenAPI 3.1.1's) and, beside them, the
// ones 3.2 added, each saying so (sections of 3.2.0): a path item's
// Query and AdditionalOperations, a media type's ItemSchema, a tag's
// Summary, Parent and Kind. A writer of 3.1 leaves those empty.
// [PathItem.SetOperation] and [PathItem.Operations] address operations
// by HTTP method, so code that goes through them does not change when a
// version adds a method.
package openapi

import (
	"bytes"
	"encoding/json"
)

// Document is an OpenAPI object (OpenAPI 3.1 section 4.8.1): the root of
// a document.
type Document struct {
	OpenAPI string   `json:"openapi"` // the version of the specification the document follows, such as "3.1.1"
	Info    Info     `json:"info"`
	Servers []Server `json:"servers,omitempty"` // none means "/", the document's own host
	// Paths are the path items by path template, such as "/a/{id}"
	// (section 4.8.8).
	Paths      map[string]*PathItem  `json:"paths,omitzero"`
	Components Components            `json:"components"`
	Security   []SecurityRequirement `json:"security,omitempty"` // what every operation needs unless it says otherwise; any one suffices
	Tags       []Tag                 `json:"tags,omitempty"`     // the tags' order and descriptions
}

// UnmarshalJSON reads a document as encoding/json would, with numbers
// in values as json.Number, as written.
func (d *Document) UnmarshalJSON(b []byte) error {
	type plain Document
	*d = Document{}
	return decode(b, (*plain)(d))
}

// decode reads the JSON value b into v, numbers as json.Number.
func decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// Info is an info object (section 4.8.2): what the document says of the
// API as a whole.
type Info struct {
	Title       string   `json:"title"`
	Summary     string   `json:"summary,omitempty"`     // one line
	Description string   `json:"description,omitempty"` // CommonMark
	License     *License `json:"license,omitempty"`
	Version     string   `json:"version"` // the API's version, not OpenAPI's
}

// License is a license object (section 4.8.4).
type License struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier,omitempty"` // an SPDX license expression, such as "MIT"
	URL        string `json:"url,omitempty"`        // where the license is; not with Identifier
}

// Server is a server object (section 4.8.5): a base URL of the API's
// paths.
type Server struct {
	URL         string `json:"url"` // absolute, or relative to the document's own URL; {name} is a variable's place
	Description string `json:"description,omitempty"`
	// Variables are the values of the URL's {name} places, by name
	// (section 4.8.6).
	Variables map[string]*ServerVariable `json:"variables,omitempty"`
}

// ServerVariable is a server variable object (section 4.8.6): what may
// stand in a server URL's {name} place.
type ServerVariable struct {
	Enum        []string `json:"enum,omitempty"` // the values it takes, when they are few
	Default     string   `json:"default"`        // the value a client sends when given none
	Description string   `json:"description,omitempty"`
}

// Tag is a tag object (section 4.8.22): what a tag that operations carry
// means. The document's list of them orders the tags. Summary, Parent
// and Kind are OpenAPI 3.2's (3.2.0 section 4.25): they nest tags into a
// hierarchy.
type Tag struct {
	Name        string `json:"name"`
	Summary     string `json:"summary,omitempty"` // a short name to show
	Description string `json:"description,omitempty"`
	// Parent is the name of the tag this one is nested under, which the
	// document's list holds; no cycles.
	Parent string `json:"parent,omitempty"`
	// Kind says what sort of tag it is: "nav" for navigation (the
	// registry's value for a tag that groups operations for reading),
	// "badge", "audience", or any other.
	Kind string `json:"kind,omitempty"`
}

// Components is a components object (section 4.8.7): the objects the
// rest of the document refers to by name.
type Components struct {
	// Schemas are referred to as "#/components/schemas/" and the name,
	// which matches ^[a-zA-Z0-9._-]+$.
	Schemas         map[string]*Schema         `json:"schemas,omitempty"`
	SecuritySchemes map[string]*SecurityScheme `json:"securitySchemes,omitempty"`
}

// SchemaRef is the start of a reference to a schema of the components:
// SchemaRef + "Bookmark" refers to Components.Schemas["Bookmark"].
const SchemaRef = "#/components/schemas/"
