package apidocs

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/waltz-go/waltz/openapi"
)

// schemaOf reads a schema written as JSON, as the page reads one.
func schemaOf(t testing.TB, js string) *openapi.Schema {
	t.Helper()
	s := &openapi.Schema{}
	if err := json.Unmarshal([]byte(js), s); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return s
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   []string
	}{
		{`{"type":"string","minLength":3}`, []string{"at least 3 characters"}},
		{`{"type":"string","minLength":1}`, []string{"at least 1 character"}},
		{`{"type":"string","minLength":0}`, nil}, // no rule at all
		{`{"type":"string","maxLength":200}`, []string{"at most 200 characters"}},
		{`{"type":"string","maxLength":1}`, []string{"at most 1 character"}},
		{`{"type":"string","minLength":1,"maxLength":200}`, []string{"from 1 to 200 characters"}},
		{`{"type":"string","minLength":4,"maxLength":4}`, []string{"exactly 4 characters"}},
		{`{"type":"string","enum":["new","old"]}`, []string{"one of: new, old"}},
		{`{"type":"string","enum":["a b","", "c,d"]}`, []string{`one of: "a b", "", "c,d"`}},
		{`{"enum":[1,2.5,true,null]}`, []string{"one of: 1, 2.5, true, null"}},
		{`{"type":"string","enum":["a <b>","x&y"]}`, []string{`one of: "a <b>", x&y`}}, // not "a \u003cb\u003e"
		{`{"const":"v1"}`, []string{"exactly v1"}},
		{`{"type":"integer","minimum":1}`, []string{"at least 1"}},
		{`{"type":"integer","maximum":100}`, []string{"at most 100"}},
		{`{"type":"integer","minimum":1,"maximum":100}`, []string{"from 1 to 100"}},
		{`{"type":"number","exclusiveMinimum":0}`, []string{"greater than 0"}},
		{`{"type":"number","exclusiveMaximum":1.5}`, []string{"less than 1.5"}},
		{`{"type":"number","minimum":1e3}`, []string{"at least 1e3"}}, // as the document wrote it
		{`{"type":"integer","multipleOf":5}`, []string{"a multiple of 5"}},
		{`{"type":"string","pattern":"^[a-z]+$"}`, []string{"matches the regular expression ^[a-z]+$"}},
		{`{"type":"string","format":"email"}`, []string{"an email address such as name@example.com"}},
		{`{"type":"string","format":"date-time"}`, []string{"a date and time as RFC 3339 writes it, such as 2006-01-02T15:04:05Z"}},
		{`{"type":"string","format":"uri"}`, []string{"an absolute URI such as https://example.com/a"}},
		{`{"type":"string","format":"uuid"}`, []string{"a UUID such as 123e4567-e89b-12d3-a456-426614174000"}},
		{`{"type":"integer","format":"int64"}`, nil}, // in the type
		{`{"type":"string","contentEncoding":"base64"}`, []string{"base64-encoded bytes"}},
		{`{"type":"string","contentMediaType":"image/png"}`, []string{"holds image/png"}},
		{`{"type":"array","minItems":1}`, []string{"at least 1 item"}},
		{`{"type":"array","maxItems":8}`, []string{"at most 8 items"}},
		{`{"type":"array","minItems":2,"maxItems":2}`, []string{"exactly 2 items"}},
		{`{"type":"array","minItems":1,"maxItems":8,"uniqueItems":true}`, []string{"from 1 to 8 items", "no item repeated"}},
		{`{"type":"object","minProperties":1}`, []string{"at least 1 member"}},
		{`{"type":"object","maxProperties":3}`, []string{"at most 3 members"}},
		{`{"type":"object","properties":{"a":{}},"additionalProperties":false}`, []string{"no members but these"}},
		{`{"type":"object","additionalProperties":false}`, []string{"no members"}},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, nil},
		{`{"readOnly":true}`, []string{"read-only: answers carry it, requests leave it out"}},
		{`{"writeOnly":true}`, []string{"write-only: requests carry it, answers leave it out"}},
		{`{"deprecated":true}`, []string{"deprecated"}},
		{`{"type":"integer","default":20}`, []string{"default: 20"}},
		{`{"type":"string","default":"new"}`, []string{"default: new"}},
		{`{"type":"string","default":""}`, []string{`default: ""`}},
		{`{"type":"integer","minimum":1,"maximum":100,"default":20}`, []string{"from 1 to 100", "default: 20"}},
		{`{"type":"string"}`, nil},
		{`{"$ref":"#/components/schemas/Page"}`, nil}, // the schema's own section gives its rules
	} {
		t.Run(tc.schema, func(t *testing.T) {
			if got := rules(schemaOf(t, tc.schema)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTypeOf(t *testing.T) {
	for _, tc := range []struct {
		schema string
		want   []part
	}{
		{`{"type":"string"}`, []part{{Text: "string"}}},
		{`{"type":"string","format":"uri"}`, []part{{Text: "string (uri)"}}},
		{`{"type":["string","null"],"contentEncoding":"base64"}`, []part{{Text: "string (base64) or null"}}},
		{`{"type":"integer","format":"int64"}`, []part{{Text: "integer (int64)"}}},
		{`{"type":"number"}`, []part{{Text: "number"}}},
		{`{"type":"boolean"}`, []part{{Text: "boolean"}}},
		{`{"type":"null"}`, []part{{Text: "null"}}},
		{`{}`, []part{{Text: "any value"}}},
		{`{"type":"array"}`, []part{{Text: "array"}}},
		{`{"type":"array","items":{"type":"string"}}`, []part{{Text: "array of string"}}},
		{`{"type":["array","null"],"items":{"$ref":"#/components/schemas/Bookmark"}}`,
			[]part{{Text: "array of "}, {Text: "Bookmark", Anchor: "schema-Bookmark"}, {Text: " or null"}}},
		{`{"$ref":"#/components/schemas/a~1b"}`, []part{{Text: "a/b", Anchor: "schema-a-b"}}},
		{`{"$ref":"https://example.com/s.json"}`, []part{{Text: "https://example.com/s.json"}}}, // text, never a link
		{`{"type":"object","additionalProperties":{"type":"integer"}}`, []part{{Text: "object of integer values"}}},
		{`{"properties":{"a":{}}}`, []part{{Text: "object"}}},
		{`{"type":["string","integer"]}`, []part{{Text: "string or integer"}}},
		{`{"oneOf":[{"type":"string"},{"$ref":"#/components/schemas/X"}]}`,
			[]part{{Text: "one of string or "}, {Text: "X", Anchor: "schema-X"}}},
		{`{"allOf":[{"type":"object"}]}`, []part{{Text: "all of object"}}},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			if got := typeOf(schemaOf(t, tc.schema)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestArrayWords checks that an array query param says how its items
// are sent: repeated, or comma-separated when explode is false.
func TestArrayWords(t *testing.T) {
	arr := schemaOf(t, `{"type":"array","items":{"type":"string"}}`)
	yes, no := true, false
	for _, tc := range []struct {
		p    *openapi.Parameter
		want string
	}{
		{&openapi.Parameter{Name: "tag", In: "query", Schema: arr}, "each item a parameter of its own: tag=a&tag=b"},
		{&openapi.Parameter{Name: "tag", In: "query", Style: "form", Explode: &yes, Schema: arr}, "each item a parameter of its own: tag=a&tag=b"},
		{&openapi.Parameter{Name: "not", In: "query", Style: "form", Explode: &no, Schema: arr}, "items comma-separated: not=a,b"},
		{&openapi.Parameter{Name: "n", In: "query", Schema: &openapi.Schema{Type: "integer"}}, ""},
	} {
		got := paramOf(exampler{request: true}, tc.p).Rules
		if tc.want == "" && len(got) > 0 || tc.want != "" && !slices.Contains(got, tc.want) {
			t.Errorf("%s (explode %v): rules %q, want %q among them", tc.p.Name, tc.p.Explode, got, tc.want)
		}
	}
}

func TestExampleValue(t *testing.T) {
	defs := map[string]*openapi.Schema{
		"Node": schemaOf(t, `{"type":"object","properties":{"name":{"type":"string"},"next":{"$ref":"#/components/schemas/Node"}},"required":["name","next"]}`),
	}
	for _, tc := range []struct {
		schema  string
		request bool
		want    string
	}{
		{`{"type":"string"}`, false, `"string"`},
		{`{"type":"string","minLength":10}`, false, `"stringssss"`},
		{`{"type":"string","maxLength":3}`, false, `"str"`},
		{`{"type":"string","format":"email"}`, false, `"name@example.com"`},
		{`{"type":"string","examples":["x"],"default":"y"}`, false, `"x"`},
		{`{"type":"string","default":"y","enum":["z","y"]}`, false, `"y"`},
		{`{"type":"string","enum":["z","y"]}`, false, `"z"`},
		{`{"type":"integer","minimum":5}`, false, `5`},
		{`{"type":"integer","exclusiveMinimum":5}`, false, `6`},
		{`{"type":"integer","maximum":-3}`, false, `-3`},
		{`{"type":"integer"}`, false, `1`},
		{`{"type":"number","minimum":0.5}`, false, `0.5`},
		{`{"type":"integer","multipleOf":5}`, false, `5`},
		{`{"type":"integer","minimum":7,"multipleOf":5}`, false, `10`},
		{`{"type":"integer","minimum":1,"maximum":4,"multipleOf":5}`, false, `0`}, // none fits: the nearest multiple below
		{`{"type":"integer","exclusiveMaximum":1}`, false, `0`},
		{`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}`, false, `0.5`}, // not 1
		{`{"type":"number","exclusiveMinimum":0,"maximum":0.5}`, false, `0.25`},
		{`{"type":"number","minimum":0,"exclusiveMaximum":0.5}`, false, `0`},
		{`{"type":"number","exclusiveMinimum":0}`, false, `1`},
		{`{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":2}`, false, `1`},
		{`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1,"multipleOf":0.75}`, false, `0.75`}, // not 0
		{`{"type":"integer","minimum":1,"maximum":5,"multipleOf":2.5}`, false, `5`},                      // not 3
		{`{"type":"number","minimum":0.25,"multipleOf":0.1}`, false, `0.3`},                              // not 0.30000000000000004
		{`{"type":"number","exclusiveMaximum":0.35,"multipleOf":0.1}`, false, `-0.6`},                    // not -0.7000000000000001
		{`{"type":"boolean"}`, false, `true`},
		{`{"type":["array","null"],"items":{"type":"integer"},"minItems":2}`, false, `[1,1]`},
		{`{"type":"array","items":{"type":"integer"},"maxItems":0}`, false, `[]`},
		{`{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"string","readOnly":true}}}`, false, `{"b":1,"a":"string"}`},
		// A request: required members and those with an example, none read-only.
		{`{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"string","readOnly":true},"c":{"type":"string"},"d":{"default":3}},"required":["a","c"]}`, true, `{"c":"string","d":3}`},
		{`{"type":"object","properties":{"w":{"type":"string","writeOnly":true}}}`, false, `{}`},
		{`{"$ref":"#/components/schemas/Node"}`, false, `{"name":"string","next":null}`}, // a cycle ends in null
		{`{"$ref":"#/components/schemas/Missing"}`, false, `null`},
		{`{"oneOf":[{"type":"boolean"},{"type":"string"}]}`, false, `true`},
		// <, > and & as they are, not as json.Marshal escapes them for HTML.
		{`{"type":"string","examples":["https://example.com/?a=1&b=<2>"]}`, false, `"https://example.com/?a=1&b=<2>"`},
		{`{"type":"object","properties":{"a&b":{"type":"string","examples":["<x>"]}}}`, false, `{"a&b":"<x>"}`},
	} {
		t.Run(tc.schema, func(t *testing.T) {
			got := jsonText(exampler{defs: defs, request: tc.request}.value(schemaOf(t, tc.schema)), false)
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
