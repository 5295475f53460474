package openapitest

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
)

// TestDocumentModel checks that the example's document is one that
// libopenapi builds as an OpenAPI 3.1 model with no error, that it passes
// libopenapi-validator's check against the OpenAPI 3.1 schema, and that it
// describes every operation the example registers, under the IDs it gives.
func TestDocumentModel(t *testing.T) {
	s := newServer(t)
	d, err := libopenapi.NewDocument(s.doc)
	if err != nil {
		t.Fatalf("libopenapi: %v", err)
	}
	if v := d.GetVersion(); !strings.HasPrefix(v, "3.1.") {
		t.Errorf("openapi: got %q, want 3.1.x", v)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		t.Fatalf("BuildV3Model: %v", err)
	}
	v, errs := validator.NewValidator(d)
	if len(errs) > 0 {
		t.Fatalf("libopenapi-validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		t.Errorf("the document breaks the OpenAPI 3.1 schema:%s", describe(verrs))
	}
	var got []string
	for path, item := range m.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			got = append(got, strings.ToUpper(method)+" "+path+" "+op.OperationId)
		}
	}
	slices.Sort(got)
	want := []string{
		"DELETE /api/bookmarks/{id} deleteBookmark",
		"GET /api/bookmarks listBookmarks",
		"GET /api/bookmarks/{id} getBookmark",
		"GET /api/bookmarks/{id}/image getBookmarkImage",
		"GET /api/changes listChanges",
		"GET /docs get-docs",
		"GET /openapi.json get-openapi.json",
		"PATCH /api/bookmarks/{id} editBookmark",
		"POST /api/bookmarks createBookmark",
		"PUT /api/bookmarks/{id}/image putBookmarkImage",
	}
	if !slices.Equal(got, want) {
		t.Errorf("operations:\n got %q\nwant %q", got, want)
	}
}

// TestDocumentDeterministic checks that two routers built alike serve the
// same document, byte for byte, so a team can commit it and diff it.
func TestDocumentDeterministic(t *testing.T) {
	a, b := newServer(t), newServer(t)
	if !bytes.Equal(a.doc, b.doc) {
		t.Errorf("two builds of the document differ:\n%s\n%s", a.doc, b.doc)
	}
}
