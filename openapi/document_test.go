package openapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// doc is a document with what a reader meets: numbers in values, a
// security requirement for the whole document and an operation that opts
// out, one that says nothing, path-level params, properties out of
// alphabetical order, fields the model has no place for.
const doc = `{
  "openapi": "3.1.0",
  "info": {"title": "Shop", "version": "3", "license": {"name": "MIT", "identifier": "MIT"}, "contact": {"name": "dropped"}},
  "servers": [{"url": "https://shop.example.com", "description": "live"}],
  "tags": [{"name": "orders", "description": "What was bought."}],
  "security": [{"key": []}],
  "paths": {
    "/orders/{id}": {
      "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer", "minimum": 1}, "example": 10.0}],
      "get": {"operationId": "getOrder", "security": [], "responses": {"200": {"description": "OK",
        "content": {"application/json": {"schema": {"type": "object", "properties": {"z": {}, "a": {}}}, "example": {"n": 1.50}}}}}},
      "delete": {"operationId": "deleteOrder", "responses": {"204": {"description": "Gone"}}},
      "x-ignored": {}
    }
  },
  "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}}
}`

func TestDocumentRead(t *testing.T) {
	var d Document
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	if d.OpenAPI != "3.1.0" || d.Info.Title != "Shop" || d.Info.License.Identifier != "MIT" || d.Servers[0].Description != "live" || d.Tags[0].Name != "orders" {
		t.Errorf("the document's head: got %+v", d)
	}
	item := d.Paths["/orders/{id}"]
	if item == nil {
		t.Fatal("no path item /orders/{id}")
	}
	if ex, ok := item.Parameters[0].Example.(json.Number); !ok || ex != "10.0" {
		t.Errorf("a param's example: got %#v, want json.Number 10.0", item.Parameters[0].Example)
	}
	var ms []string
	for m := range item.Operations() {
		ms = append(ms, m)
	}
	if want := []string{http.MethodGet, http.MethodDelete}; !slices.Equal(ms, want) {
		t.Errorf("operations: got %q, want %q", ms, want)
	}
	get := item.Get
	if get.Security == nil || len(get.Security) != 0 {
		t.Errorf("getOrder's security: got %#v, want empty, not nil: it needs none", get.Security)
	}
	if item.Delete.Security != nil {
		t.Errorf("deleteOrder's security: got %#v, want nil: the document's", item.Delete.Security)
	}
	mt := get.Responses["200"].Content["application/json"]
	if got := mt.Schema.Properties; len(got) != 2 || got[0].Name != "z" || got[1].Name != "a" {
		t.Errorf("properties: got %+v, want z then a", got)
	}
	if ex, ok := mt.Example.(map[string]any); !ok || ex["n"] != json.Number("1.50") {
		t.Errorf("a media type's example: got %#v, want n as json.Number 1.50", mt.Example)
	}
	if s := d.Components.SecuritySchemes["key"]; s == nil || s.Name != "X-Key" || s.In != "header" {
		t.Errorf("the security scheme: got %+v", s)
	}
}

// TestDocumentWrite checks what is written of values the specification
// tells from absent ones.
func TestDocumentWrite(t *testing.T) {
	d := &Document{OpenAPI: "3.1.1", Info: Info{Title: "API", Version: "1"}, Paths: map[string]*PathItem{}}
	item := &PathItem{}
	item.SetOperation(http.MethodGet, &Operation{OperationID: "a", Responses: map[string]*Response{}, Security: []SecurityRequirement{}})
	item.SetOperation(http.MethodPost, &Operation{OperationID: "b", Security: []SecurityRequirement{{"key": {}}}})
	d.Paths["/a"] = item
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"openapi":"3.1.1","info":{"title":"API","version":"1"},"paths":{"/a":{"get":{"operationId":"a","responses":{},"security":[]},` +
		`"post":{"operationId":"b","security":[{"key":[]}]}}},"components":{}}`
	if string(b) != want {
		t.Errorf("\n got %s\nwant %s", b, want)
	}
}

func TestSetOperation(t *testing.T) {
	item := &PathItem{}
	all := []string{"QUERY", http.MethodTrace, http.MethodPatch, http.MethodHead, http.MethodOptions,
		http.MethodDelete, http.MethodPost, http.MethodPut, http.MethodGet}
	for _, m := range all {
		if !item.SetOperation(m, &Operation{OperationID: m}) {
			t.Errorf("SetOperation(%s) reports no field", m)
		}
	}
	for _, m := range []string{http.MethodConnect, "PURGE", "query", "get", ""} {
		if item.SetOperation(m, &Operation{}) {
			t.Errorf("SetOperation(%q) reports a field", m)
		}
	}
	// OpenAPI 3.2's operations of other methods come after the fields',
	// by method.
	item.AdditionalOperations = map[string]*Operation{"PURGE": {OperationID: "PURGE"}, "LINK": {OperationID: "LINK"}}
	var got []string
	for m, op := range item.Operations() {
		if op.OperationID != m {
			t.Errorf("%s holds %s's operation", m, op.OperationID)
		}
		got = append(got, m)
	}
	slices.Reverse(all)
	all = append(all, "LINK", "PURGE")
	if !slices.Equal(got, all) {
		t.Errorf("Operations: got %q, want %q", got, all)
	}
	for m := range item.Operations() {
		if m == http.MethodPost {
			break // an iterator stopped early stops
		}
	}
	item.SetOperation(http.MethodGet, nil)
	if item.Get != nil {
		t.Error("SetOperation(GET, nil) left the operation")
	}
}

// TestDocumentRead32 reads what OpenAPI 3.2 added: a QUERY operation,
// additional operations, an item schema, a tag hierarchy.
func TestDocumentRead32(t *testing.T) {
	const doc32 = `{
  "openapi": "3.2.0",
  "info": {"title": "Shop", "version": "3"},
  "tags": [{"name": "shop", "kind": "nav"}, {"name": "orders", "summary": "Orders", "parent": "shop", "kind": "nav"}],
  "paths": {
    "/orders": {
      "query": {"operationId": "findOrders", "responses": {"200": {"description": "OK",
        "content": {"application/jsonl": {"itemSchema": {"type": "object"}}}}}},
      "additionalOperations": {"PURGE": {"operationId": "purgeOrders", "responses": {"204": {"description": "Gone"}}}},
      "get": {"operationId": "listOrders", "responses": {"200": {"description": "OK"}}}
    }
  }
}`
	var d Document
	if err := json.Unmarshal([]byte(doc32), &d); err != nil {
		t.Fatal(err)
	}
	if d.OpenAPI != "3.2.0" || len(d.Tags) != 2 || d.Tags[1].Parent != "shop" || d.Tags[1].Kind != "nav" || d.Tags[1].Summary != "Orders" {
		t.Errorf("the document's head: got %+v", d)
	}
	item := d.Paths["/orders"]
	var ids []string
	for m, op := range item.Operations() {
		ids = append(ids, m+" "+op.OperationID)
	}
	if want := []string{"GET listOrders", "QUERY findOrders", "PURGE purgeOrders"}; !slices.Equal(ids, want) {
		t.Errorf("operations: got %q, want %q", ids, want)
	}
	if mt := item.Query.Responses["200"].Content["application/jsonl"]; mt == nil || mt.ItemSchema == nil || mt.ItemSchema.Type != "object" || mt.Schema != nil {
		t.Errorf("the QUERY's answer: got %+v", mt)
	}
	b, err := json.Marshal(&d)
	if err != nil {
		t.Fatal(err)
	}
	var again Document
	if err := json.Unmarshal(b, &again); err != nil || again.Paths["/orders"].AdditionalOperations["PURGE"].OperationID != "purgeOrders" {
		t.Errorf("written and read again: %v, %s", err, b)
	}
}
