package typed

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/waltz-go/waltz/openapi"
)

type keysDoc struct {
	ID    int               `json:"id"`
	Note  string            `json:"note,omitempty"`
	Must  string            `json:"must,omitempty" required:"true"`
	Kids  []keysDoc         `json:"kids,omitempty"`
	Bykey map[string]keysKV `json:"byKey,omitempty"`
	Ptr   *keysKV           `json:"ptr"`
	Any   any               `json:"any,omitempty"`
	Raw   json.RawMessage   `json:"raw,omitempty"`
}

type keysKV struct {
	K string `json:"k"`
}

type keysIn struct {
	Body keysDoc
}

// requiredOf binds text as a body of keysDoc and returns the locations
// of its "required" failures.
func requiredOf(t testing.TB, text string) []string {
	t.Helper()
	_, err := bindInto[keysIn](t, nil, nil, post(js, text), Body{})
	var got []string
	if fs, ok := err.(*failed); ok {
		for _, e := range fs.list {
			if e.keyword == "required" {
				got = append(got, e.loc)
			}
		}
	}
	return got
}

func TestRequiredMembers(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{`{"id":1,"must":"x","ptr":null}`, nil},
		{`{}`, []string{"body.id", "body.must", "body.ptr"}},
		{` { "id" : 1 , "must":"x" , "p\u0074r" : {"k":"v"} } `, nil},
		{`{"ID":1,"MUST":"x","ptr":null}`, []string{"body.id", "body.must"}}, // keys match in case too
		{`{"id":1,"must":"x","ptr":{}}`, []string{"body.ptr.k"}},
		{`{"id":1,"must":"x","ptr":null,"kids":[{"id":2,"must":"","ptr":null},{"must":"y","ptr":null,"kids":[]}]}`,
			[]string{"body.kids[1].id"}},
		{`{"id":1,"must":"x","ptr":null,"byKey":{"a":{"k":""},"b":{}}}`, []string{"body.byKey.b.k"}},
		{`{"id":1,"must":"x","ptr":null,"byKey":{"a.b":{}}}`, []string{`body.byKey["a.b"].k`}},
		{`{"note":"}{][,\"","id":1,"must":"x","ptr":null,"extra":[{"id":[1,{"a":"]"}]}]}`, nil},
		{`{"id":1,"must":"x","ptr":null,"any":{"id":[{}]},"raw":{"kids":[{}]}}`, nil},
	} {
		if got := requiredOf(t, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// FuzzDecode holds the decoder to RFC 8259 as encoding/json's scanner
// reads it: a body is refused as no JSON (400) exactly when json.Valid
// refuses it or it holds invalid UTF-8, and decoding never panics.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"kids":[{},{"kids":[{}]}],"byKey":{"x":{}}}`, `{"ptr":{"k":"\"}"}}`, `[]`,
		`{"id":1.0,"must":"\ud800","any":[1e400,{"a":null}],"raw":[1,2]}`, "{\"note\":\"\xff\"}", `{"id":1}x`,
		`{"at":"2026-01-02T03:04:05Z","id":"!","up":"a","data":"aGk=","n":"5","kids":[{"age":-1}],"m":{"a.b":{}},` +
			`"byN":{"x":""},"patch":null,"objs":[{"x":1},{"x":1}],"tags":["a","a"],"level":9,"Z":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, err := bindInto[keysIn](t, nil, nil, post(js, text), Body{})
		fs, _ := err.(*failed)
		broken := fs != nil && fs.broken
		valid := json.Valid([]byte(text)) && utf8.ValidString(text)
		if broken == valid && !isSpace(text) {
			t.Fatalf("%q: 400 is %v, json.Valid and utf8.Valid say %v", text, broken, valid)
		}
		if err != nil && fs == nil {
			if be, ok := err.(*BodyError); !ok || be.Status == http.StatusInternalServerError {
				t.Fatalf("%q: got %v", text, err)
			}
		}
		// The same text into a type of every kind the decoder reads.
		_, err = bindInto[decIn](t, nil, nil, post(js, text), Body{Strict: true})
		fs, _ = err.(*failed)
		if broken := fs != nil && fs.broken; broken == valid && !isSpace(text) {
			t.Fatalf("%q into decDoc: 400 is %v, json.Valid and utf8.Valid say %v", text, broken, valid)
		}
	})
}

func isSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
			return false
		}
	}
	return true
}

// nullDoc has a member of each kind whose schema may or may not allow
// null.
type nullDoc struct {
	Tags     []string          `json:"tags,omitempty"`
	Zero     []string          `json:"zero,omitzero"`
	Must     []string          `json:"must"`
	Labels   map[string]string `json:"labels,omitempty"`
	Plain    map[string]string `json:"plain"`
	PtrTags  *[]string         `json:"ptrTags,omitempty"`
	Data     []byte            `json:"data,omitempty"`
	RawData  []byte            `json:"rawData"`
	Count    *int              `json:"count,omitempty"`
	N        int               `json:"n,omitempty"`
	Name     string            `json:"name,omitempty"`
	Any      any               `json:"any,omitempty"`
	Required []string          `json:"required,omitempty" required:"true"`
}

// TestNullAgreesWithSchema: a member takes JSON null exactly when its
// schema allows null. An omitempty (or omitzero) slice or map is an
// array or object alone in the schema, since encoding/json never writes
// null for it; the decoder refused nothing for it, reading null as
// absent, so a request the document forbids succeeded.
func TestNullAgreesWithSchema(t *testing.T) {
	g := NewSchemas(false)
	s := g.object(reflectType[nullDoc]())
	type in struct{ Body nullDoc }
	for _, p := range s.Properties {
		allows := slices.Contains(p.Schema.Types, "null") || p.Schema.Type == "" && p.Schema.Ref == "" && p.Schema.Types == nil
		body := map[string]any{"must": []int{}, "plain": map[string]int{}, "rawData": "", "required": []int{}}
		body[p.Name] = nil
		text, _ := json.Marshal(body)
		_, err := bindInto[in](t, nil, nil, post(js, string(text)), Body{})
		var typeFail bool
		if fs, ok := err.(*failed); ok {
			for _, f := range fs.list {
				if f.loc == "body."+p.Name && f.keyword == "type" {
					typeFail = true
				}
			}
		}
		if typeFail == allows {
			t.Errorf("%s: null refused %v, schema %s allows null %v", p.Name, typeFail, schemaJSON(t, p.Schema), allows)
		}
	}
	_, err := bindInto[in](t, nil, nil, post(js, `{"tags":null,"labels":null,"must":null,"plain":null,"rawData":null,"required":[]}`), Body{})
	if got, _ := failures(err); !slices.Equal(got, []string{"body.labels type", "body.tags type"}) {
		t.Errorf("got %q, want the omitempty slice and map refused, located", got)
	}
}

func schemaJSON(t testing.TB, s *openapi.Schema) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
