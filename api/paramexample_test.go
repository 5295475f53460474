package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestSliceParamExample checks that a slice param's example tag gives
// its items, comma-separated or as a JSON array, each checked against
// the param's rules at registration, and that the document writes the
// example as the array its schema is, not as one string.
func TestSliceParamExample(t *testing.T) {
	type in struct {
		Tags []string `query:"tag" example:"go,web" maxLength:"5"`
		IDs  []int    `query:"id" explode:"false" example:"[1, 2]"`
	}
	r := waltz.New()
	Op(r, http.MethodGet, "/x", func(c *waltz.Context, _ *in) (*struct{}, error) { return nil, nil }, Operation{})
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name    string          `json:"name"`
				Example json.RawMessage `json:"example"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"tag": `["go","web"]`, "id": `[1,2]`}
	for _, p := range doc.Paths["/x"]["get"].Parameters {
		var b bytes.Buffer
		if err := json.Compact(&b, p.Example); err != nil || b.String() != want[p.Name] {
			t.Errorf("param %s: example %s, want %s", p.Name, p.Example, want[p.Name])
		}
	}

	type bad struct {
		Tags []string `query:"tag" example:"go,website" maxLength:"5"`
	}
	msg := registerPanic(t, func() {
		Op(waltz.New(), http.MethodGet, "/x", func(c *waltz.Context, _ *bad) (*struct{}, error) { return nil, nil }, Operation{})
	})
	if !strings.Contains(msg, `item "website"`) {
		t.Errorf("an item its rules refuse: got %q, want the item named", msg)
	}
}

// TestUploadMemberExample checks that a multipart text member's example
// and doc reach the document, as a JSON body member's do.
func TestUploadMemberExample(t *testing.T) {
	type in struct {
		Body struct {
			Title string   `json:"title" example:"Sunset" doc:"the title"`
			Tags  []string `json:"tags" example:"a,b"`
			Image File     `json:"image"`
		}
	}
	r := waltz.New()
	Op(r, http.MethodPost, "/up", func(c *waltz.Context, _ *in) (*struct{}, error) { return nil, nil }, Operation{})
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]struct {
							Description string `json:"description"`
							Examples    []any  `json:"examples"`
						} `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Paths["/up"]["post"].RequestBody.Content["multipart/form-data"].Schema.Properties
	if p := props["title"]; p.Description != "the title" || len(p.Examples) != 1 || p.Examples[0] != "Sunset" {
		t.Errorf("title: got %+v, want its doc and the example Sunset", p)
	}
	if p := props["tags"]; len(p.Examples) != 1 || fmt.Sprint(p.Examples[0]) != "[a b]" {
		t.Errorf("tags: got %+v, want the example [a b]", p)
	}
}

// TestSliceParamExampleItemsRules checks that a slice param's example
// keeps the param's rules on its items' count and uniqueness too, which
// a request with it is checked against.
func TestSliceParamExampleItemsRules(t *testing.T) {
	type few struct {
		Tags []string `query:"tag" example:"go" minItems:"2"`
	}
	type many struct {
		Tags []string `query:"tag" example:"a,b,c" maxItems:"2"`
	}
	type repeated struct {
		Tags []string `query:"tag" example:"a,a" uniqueItems:"true"`
	}
	for name, reg := range map[string]func(){
		"minItems": func() {
			Op(waltz.New(), http.MethodGet, "/x", func(c *waltz.Context, _ *few) (*struct{}, error) { return nil, nil }, Operation{})
		},
		"maxItems": func() {
			Op(waltz.New(), http.MethodGet, "/x", func(c *waltz.Context, _ *many) (*struct{}, error) { return nil, nil }, Operation{})
		},
		"uniqueItems": func() {
			Op(waltz.New(), http.MethodGet, "/x", func(c *waltz.Context, _ *repeated) (*struct{}, error) { return nil, nil }, Operation{})
		},
	} {
		if msg := registerPanic(t, reg); !strings.Contains(msg, name) {
			t.Errorf("%s: got %q, want the example refused by %s", name, msg, name)
		}
	}
}

// TestSliceParamExampleComma checks that an item of the example of a
// param sent comma-separated (explode false) holds no comma: it would be
// sent, and bound, as two items.
func TestSliceParamExampleComma(t *testing.T) {
	type in struct {
		Tags []string `query:"tag" explode:"false" example:"[\"a,b\", \"c\"]"`
	}
	msg := registerPanic(t, func() {
		Op(waltz.New(), http.MethodGet, "/x", func(c *waltz.Context, _ *in) (*struct{}, error) { return nil, nil }, Operation{})
	})
	if !strings.Contains(msg, `item "a,b" holds a comma`) {
		t.Errorf("got %q, want the item with a comma named", msg)
	}
}
