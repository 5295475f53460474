package openapi

import (
	"iter"
	"maps"
	"net/http"
	"slices"
)

// PathItem is a path item object (OpenAPI 3.1 section 4.8.9): the
// operations on one path, a field per HTTP method. SetOperation and
// Operations reach the fields by method.
type PathItem struct {
	Summary     string `json:"summary,omitempty"`
	Description string `json:"description,omitempty"`
	// Parameters apply to every operation of the item; an operation's
	// own of the same name and place override them (section 4.8.9.1).
	Parameters []*Parameter `json:"parameters,omitempty"`
	Get        *Operation   `json:"get,omitempty"`
	Put        *Operation   `json:"put,omitempty"`
	Post       *Operation   `json:"post,omitempty"`
	Delete     *Operation   `json:"delete,omitempty"`
	Options    *Operation   `json:"options,omitempty"`
	Head       *Operation   `json:"head,omitempty"`
	Patch      *Operation   `json:"patch,omitempty"`
	Trace      *Operation   `json:"trace,omitempty"`
	// Query is the QUERY operation (RFC 10008), OpenAPI 3.2's (3.2.0
	// section 4.10.1).
	Query *Operation `json:"query,omitempty"`
	// AdditionalOperations, OpenAPI 3.2's, are the operations of methods
	// that have no field of their own, by method as it is sent
	// ("PURGE"); never one of the fields' methods.
	AdditionalOperations map[string]*Operation `json:"additionalOperations,omitempty"`
}

// methods are the HTTP methods a path item has a field for, in the
// fields' order.
var methods = [...]string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete,
	http.MethodOptions, http.MethodHead, http.MethodPatch, http.MethodTrace, methodQuery}

// methodQuery is the QUERY method (RFC 10008), which net/http has no
// name for yet.
const methodQuery = "QUERY"

// field returns the field of p for method, or nil for a method p has no
// field for.
func (p *PathItem) field(method string) **Operation {
	switch method {
	case http.MethodGet:
		return &p.Get
	case http.MethodPut:
		return &p.Put
	case http.MethodPost:
		return &p.Post
	case http.MethodDelete:
		return &p.Delete
	case http.MethodOptions:
		return &p.Options
	case http.MethodHead:
		return &p.Head
	case http.MethodPatch:
		return &p.Patch
	case http.MethodTrace:
		return &p.Trace
	case methodQuery:
		return &p.Query
	}
	return nil
}

// SetOperation sets the operation of p for method, spelt as net/http
// spells it ("GET"), and reports whether p has a field for method: one
// of the eight methods of section 4.8.9.1, or QUERY (3.2's). For another
// method it changes nothing and reports false: such an operation goes in
// AdditionalOperations, in a document of 3.2.
func (p *PathItem) SetOperation(method string, op *Operation) bool {
	f := p.field(method)
	if f == nil {
		return false
	}
	*f = op
	return true
}

// Operations returns an iterator over p's operations and their methods
// ("GET"), in the order of p's fields, which is the order they are
// written in: GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH, TRACE,
// QUERY; then AdditionalOperations, by method.
func (p *PathItem) Operations() iter.Seq2[string, *Operation] {
	return func(yield func(string, *Operation) bool) {
		for _, m := range methods {
			if op := *p.field(m); op != nil && !yield(m, op) {
				return
			}
		}
		for _, m := range slices.Sorted(maps.Keys(p.AdditionalOperations)) {
			if op := p.AdditionalOperations[m]; op != nil && !yield(m, op) {
				return
			}
		}
	}
}

// Operation is an operation object (section 4.8.10): one method on one
// path.
type Operation struct {
	Tags        []string `json:"tags,omitempty"`
	Summary     string   `json:"summary,omitempty"`
	Description string   `json:"description,omitempty"` // CommonMark
	OperationID string   `json:"operationId,omitempty"` // unique in the document
	// Parameters are the operation's params, which override the path
	// item's of the same name and place.
	Parameters  []*Parameter `json:"parameters,omitempty"`
	RequestBody *RequestBody `json:"requestBody,omitempty"`
	// Responses are the answers by status code ("200"), range ("4XX")
	// or "default" (section 4.8.16).
	Responses  map[string]*Response `json:"responses,omitzero"`
	Deprecated bool                 `json:"deprecated,omitempty"`
	// Security lists the alternative requirements, any one of which
	// suffices: nil for the document's Security, empty for none needed
	// (section 4.8.10.1).
	Security []SecurityRequirement `json:"security,omitzero"`
}
