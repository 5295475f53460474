package openapi

// RequestBody is a request body object (OpenAPI 3.1 section 4.8.13): the
// bodies an operation takes, by media type.
type RequestBody struct {
	Description string `json:"description,omitempty"`
	// Content is the bodies' schemas by media type or range
	// ("application/json", "image/*").
	Content  map[string]*MediaType `json:"content"`
	Required bool                  `json:"required,omitempty"`
}

// Response is a response object (section 4.8.17): one answer of an
// operation, its header fields and its bodies by media type.
type Response struct {
	Description string                `json:"description"`
	Headers     map[string]*Header    `json:"headers,omitempty"` // by field name
	Content     map[string]*MediaType `json:"content,omitempty"` // none: no body
}

// MediaType is a media type object (section 4.8.14): the body of one
// media type.
type MediaType struct {
	Schema *Schema `json:"schema,omitempty"` // the whole body
	// ItemSchema, OpenAPI 3.2's (3.2.0 section 4.14.1), is the schema of
	// each item of a sequential media type (text/event-stream,
	// application/jsonl …), applied to the items one by one as they are
	// read (section 4.14.3.1.1).
	ItemSchema *Schema             `json:"itemSchema,omitempty"`
	Example    any                 `json:"example,omitempty"`
	Examples   map[string]*Example `json:"examples,omitempty"` // by name; not with Example
	// Encoding says, for a multipart or form body, how each part is
	// written, by the part's name.
	Encoding map[string]*Encoding `json:"encoding,omitempty"`
}

// Encoding is an encoding object (section 4.8.15): how one part of a
// multipart or form body is written.
type Encoding struct {
	ContentType string `json:"contentType,omitempty"` // the part's media types, comma-separated
}
