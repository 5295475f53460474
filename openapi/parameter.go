package openapi

// Parameter is a parameter object (OpenAPI 3.1 section 4.8.12): one
// value of a request outside its body, in its path, query, a header or a
// cookie.
type Parameter struct {
	Name        string `json:"name"` // case-sensitive, except a header's
	In          string `json:"in"`   // "path", "query", "header" or "cookie"
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"` // always true in the path
	Deprecated  bool   `json:"deprecated,omitempty"`
	// Style and Explode say how an array or object is written (section
	// 4.8.12.4): "" and nil are the defaults of In ("form" and true in
	// the query and a cookie, "simple" and false in the path and a
	// header). A query array of comma-separated items is "form" and
	// false.
	Style    string              `json:"style,omitempty"`
	Explode  *bool               `json:"explode,omitempty"`
	Schema   *Schema             `json:"schema,omitempty"`
	Example  any                 `json:"example,omitempty"`
	Examples map[string]*Example `json:"examples,omitempty"` // by name; not with Example
}

// Header is a header object (section 4.8.21): a header field of an
// answer (or of a multipart body's part), named by the map that holds
// it.
type Header struct {
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
}

// Example is an example object (section 4.8.19): a value with a name of
// its own.
type Example struct {
	Summary     string `json:"summary,omitempty"`
	Description string `json:"description,omitempty"`
	Value       any    `json:"value,omitempty"`
}
