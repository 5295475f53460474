package apidocs

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/openapi"
)

// The document as the page reads it: the model of package openapi,
// read from the JSON a router serves, with numbers kept as the document
// wrote them (json.Number) and a schema's properties in the document's
// order; and what the page asks of it.

// parse reads an OpenAPI 3.x document written as JSON.
func parse(doc []byte) (*openapi.Document, error) {
	d := &openapi.Document{}
	if err := json.Unmarshal(doc, d); err != nil {
		return nil, fmt.Errorf("apidocs: the document is not OpenAPI JSON: %w", err)
	}
	if !strings.HasPrefix(d.OpenAPI, "3.") {
		return nil, fmt.Errorf("apidocs: the document is OpenAPI %q, want 3.x", d.OpenAPI)
	}
	return d, nil
}

// readingOrder is the order the page lists a path's methods in: reads
// first, then writes.
var readingOrder = []string{http.MethodGet, waltz.MethodQuery, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodHead, http.MethodOptions, http.MethodTrace}

// methods returns the operations of p with their methods, in reading
// order; a method not in it last.
func methods(p *openapi.PathItem) []methodOp {
	var ops []methodOp
	for m, op := range p.Operations() {
		ops = append(ops, methodOp{m, op})
	}
	rank := func(m string) int {
		if i := slices.Index(readingOrder, m); i >= 0 {
			return i
		}
		return len(readingOrder)
	}
	slices.SortStableFunc(ops, func(a, b methodOp) int { return cmp.Compare(rank(a.method), rank(b.method)) })
	return ops
}

type methodOp struct {
	method string
	op     *openapi.Operation
}

// types returns the names of s's type keyword: one, several (["string",
// "null"]), or none.
func types(s *openapi.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// closed reports whether s refuses members it does not list
// (additionalProperties false), and returns the schema of the members it
// does not list when it gives one.
func closed(s *openapi.Schema) (bool, *openapi.Schema) {
	switch extra := s.AdditionalProperties; {
	case extra == nil:
		return false, nil
	case extra.IsFalse():
		return true, nil
	default:
		return false, extra
	}
}

// refName returns the component name a $ref points at
// ("#/components/schemas/Bookmark" gives "Bookmark"), or "" for none or a
// reference outside the document's components.
func refName(ref string) string {
	name, ok := strings.CutPrefix(ref, openapi.SchemaRef)
	if !ok {
		return ""
	}
	// JSON Pointer escapes (RFC 6901 section 4).
	return strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
}
