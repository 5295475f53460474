package apidocs

import (
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// handWritten is a document with what a waltz router does not write but
// another OpenAPI 3.1 document may hold: tags declared with an order and
// descriptions, an absolute server, path-level params, oneOf, a map, an
// inline object in an answer, a security requirement for the whole
// document, an operation that opts out of it and one that makes it
// optional, an ID that needs another anchor.
const handWritten = `{
  "openapi": "3.1.0",
  "info": {"title": "Shop", "version": "3", "summary": "Buy things.", "license": {"name": "Apache 2.0"}},
  "servers": [{"url": "https://shop.example.com/v3/"}, {"url": "http://localhost:8080"}],
  "tags": [{"name": "orders", "description": "What was bought."}, {"name": "carts"}],
  "security": [{"key": []}],
  "paths": {
    "/carts/{cart}/items": {
      "parameters": [{"name": "cart", "in": "path", "required": true, "schema": {"type": "string", "format": "uuid"}}],
      "put": {
        "tags": ["carts"], "operationId": "put items!", "summary": "Replace the items",
        "requestBody": {"required": true, "content": {"application/merge-patch+json": {"schema": {"type": "object",
          "properties": {"items": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}}}}}}},
        "responses": {"2XX": {"description": "Done"}, "default": {"description": "Trouble"}}
      }
    },
    "/orders": {
      "get": {
        "tags": ["orders", "carts"], "operationId": "listOrders",
        "security": [],
        "parameters": [{"name": "when", "in": "query", "required": true, "schema": {"oneOf": [{"type": "string", "format": "date"}, {"type": "integer"}]},
          "examples": {"a": {"value": "2026-12-01"}}}],
        "responses": {"200": {"description": "The orders", "content": {"application/json": {"schema": {
          "type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer", "description": "its number"}}}}}}}}
      }
    },
    "/zeta": {"get": {"operationId": "zeta", "responses": {"200": {"description": "OK"}}},
      "post": {"operationId": "zetaPost", "security": [{}, {"key": []}], "responses": {"200": {"description": "OK"}}}}
  },
  "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key", "description": "Ask us for one."}}}
}`

func TestHandWritten(t *testing.T) {
	b, err := render([]byte(handWritten))
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(b))
	for _, want := range []string{
		"<title>Shop 3</title>", `<p class="lead">Buy things.</p>`, "<dd>Apache 2.0</dd>",
		"<dd><code>https://shop.example.com/v3/</code></dd><dd><code>http://localhost:8080</code></dd>",
		`<section id="tag-orders" class="group">` + "\n<h2>orders</h2>\n<p>What was bought.</p>",
		`<article id="op-put-items-" class="op">`, // an ID made an anchor
		"<code>put items!</code>",
		"<td>path</td>\n<td>string (uuid)</td>", // the path item's param
		"one of string (date) or integer", "Example: <code>2026-12-01</code>",
		"object of integer values", "<code>application/merge-patch+json</code>",
		`<span class="status">2XX</span> Done`, `<dt class="other"><span class="status">default</span> Trouble`,
		"<code>n</code></td>\n<td>integer</td>\n<td><p>its number</p>", // an inline item's members
		`Needs <a href="#auth-key">key</a>.`, "Needs no credentials.",
		"an API key in the header X-Key. Ask us for one.",
		// The first server is the curl lines' base; no $API then.
		"curl -i -X PUT 'https://shop.example.com/v3/carts/123e4567-e89b-12d3-a456-426614174000/items' \\\n" +
			"    -H \"X-Key: $API_KEY\" \\\n    -H 'Content-Type: application/merge-patch+json' \\\n    -d '{}'",
		"curl -i 'https://shop.example.com/v3/orders?when=2026-12-01'",
		"<code>$API_KEY</code>: the API key",
		`Takes <a href="#auth-key">key</a>, or no credentials.`,                             // {} first, still the scheme named
		"curl -i -X POST 'https://shop.example.com/v3/zeta' \\\n    -H \"X-Key: $API_KEY\"", // and its credentials sent
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not hold %q", want)
		}
	}
	if strings.Contains(page, "<code>$API</code>") {
		t.Error("the page explains $API, which no curl line uses")
	}
	// Groups: orders, then carts (the document's order), then no tag.
	order := regexp.MustCompile(`<section id="(tag-[^"]+)"`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, m := range order {
		got = append(got, m[1])
	}
	if want := "tag-orders tag-carts tag-other"; strings.Join(got, " ") != want {
		t.Errorf("groups: got %q, want %q", got, want)
	}
	// listOrders is in full under orders and a link under carts.
	if n := strings.Count(page, `<article id="op-listOrders"`); n != 1 {
		t.Errorf("listOrders: %d articles, want 1", n)
	}
	if !strings.Contains(page, `<p class="again"><a href="#op-listOrders">`) {
		t.Error("listOrders: no link under its second tag")
	}
}

func TestRenderRefuses(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"not JSON", `{"openapi": `, "not OpenAPI JSON"},
		{"Swagger 2.0", `{"swagger": "2.0", "paths": {}}`, `OpenAPI "", want 3.x`},
		{"a bad type", `{"openapi": "3.1.0", "components": {"schemas": {"A": {"type": 7}}}}`, "type"},
		{"bad properties", `{"openapi": "3.1.0", "components": {"schemas": {"A": {"properties": []}}}}`, "properties"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error about %q", err, tc.want)
			}
		})
	}
}

// TestRenderFailure checks that a document the page cannot be made of
// gets a plain 500, which says nothing of why, on every request.
func TestRenderFailure(t *testing.T) {
	h := &handler{doc: func() []byte { return []byte(`{"openapi": "3.1.0", "paths": 1}`) }, css: newAsset(stylesheet, "text/css")}
	for range 2 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/docs", nil))
		if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "paths") {
			t.Errorf("got %d %q, want 500 and no detail", w.Code, w.Body)
		}
	}
}

// TestConcurrentFirstRequests has many first requests race to make the
// page (under -race): each gets the same bytes, made once.
func TestConcurrentFirstRequests(t *testing.T) {
	var calls int
	var mu sync.Mutex
	h := &handler{doc: func() []byte {
		mu.Lock()
		calls++
		mu.Unlock()
		return []byte(handWritten)
	}, css: newAsset(stylesheet, "text/css")}
	bodies := make([]string, 16)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/docs", nil))
			bodies[i] = w.Body.String()
		}()
	}
	wg.Wait()
	for i, b := range bodies {
		if b != bodies[0] || !strings.Contains(b, "<title>Shop 3</title>") {
			t.Fatalf("request %d got another page", i)
		}
	}
	if calls != 1 {
		t.Errorf("the document was made %d times, want 1", calls)
	}
}
