package openapitest

import (
	"bytes"
	"encoding/json"
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
		"GET /api/export exportBookmarks",
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

// TestDocument32Model checks the example's OpenAPI 3.2 document, served
// from the same operations at /openapi-3.2.json: libopenapi builds it as
// a 3.2 model with no error, libopenapi-validator finds it valid against
// the OpenAPI 3.2 schema, and it holds what 3.2 added: the QUERY search
// under query, the export and the feed described item by item
// (itemSchema), the groups as a tag hierarchy; and the 3.1 document
// leaves the search out with a note, as it has no field for QUERY.
func TestDocument32Model(t *testing.T) {
	s := newServer(t)
	doc := s.get(t, "/openapi-3.2.json")
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatalf("libopenapi: %v", err)
	}
	if v := d.GetVersion(); v != "3.2.0" {
		t.Errorf("openapi: got %q, want 3.2.0", v)
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
		t.Errorf("the document breaks the OpenAPI 3.2 schema:%s", describe(verrs))
	}
	var got []string
	for path, item := range m.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			got = append(got, strings.ToUpper(method)+" "+path+" "+op.OperationId)
		}
	}
	if !slices.Contains(got, "QUERY /api/search searchBookmarks") {
		t.Errorf("no QUERY search among the operations: %q", got)
	}
	if n31 := len(operationsOf(t, s.doc)); len(got) != n31+1 {
		t.Errorf("3.2 has %d operations, 3.1 %d: want the QUERY more", len(got), n31)
	}
	search := m.Model.Paths.PathItems.GetOrZero("/api/search")
	if search == nil || search.Query == nil || search.Query.RequestBody == nil ||
		search.Query.RequestBody.Content.GetOrZero("application/json") == nil {
		t.Fatalf("QUERY /api/search: got %+v", search)
	}
	for _, tc := range []struct{ path, mediaType string }{
		{"/api/export", "application/jsonl"},
		{"/api/changes", "text/event-stream"},
	} {
		mt := m.Model.Paths.PathItems.GetOrZero(tc.path).Get.Responses.Codes.GetOrZero("200").Content.GetOrZero(tc.mediaType)
		if mt == nil || mt.ItemSchema == nil || mt.Schema != nil {
			t.Errorf("GET %s: %s has no itemSchema alone: %+v", tc.path, tc.mediaType, mt)
			continue
		}
		if sc, err := mt.ItemSchema.BuildSchema(); err != nil || sc == nil {
			t.Errorf("GET %s: its itemSchema does not build: %v", tc.path, err)
		}
	}
	parents := map[string]string{}
	for _, tag := range m.Model.Tags {
		parents[tag.Name] = tag.Parent
		if tag.Kind != "nav" {
			t.Errorf("tag %s: kind %q, want nav", tag.Name, tag.Kind)
		}
	}
	if p, ok := parents["bookmarks"]; !ok || p != "/api" {
		t.Errorf("tag bookmarks: parent %q, want /api (tags %v)", p, parents)
	}
	var d31 struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(s.doc, &d31); err != nil {
		t.Fatal(err)
	}
	if _, ok := d31.Paths["/api/search"]["query"]; ok || !strings.Contains(string(d31.Paths["/api/search"]["description"]), "QUERY") {
		t.Errorf("the 3.1 document's /api/search: got %s, want no query field and a note", d31.Paths["/api/search"])
	}
}

// operationsOf returns "METHOD path" of every operation libopenapi reads
// in doc.
func operationsOf(t testing.TB, doc []byte) []string {
	t.Helper()
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for path, item := range m.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			ops = append(ops, strings.ToUpper(method)+" "+path)
		}
	}
	return ops
}
