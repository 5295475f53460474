package conduit_test

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	lowbase "github.com/pb33f/libopenapi/datamodel/low/base"
	"github.com/pb33f/libopenapi/what-changed/model"
)

// difference is a breaking change libopenapi's what-changed finds from
// the spec to the served document: something of the spec the served
// document lacks or describes otherwise.
type difference struct {
	where string // the change's place in what-changed's model, such as /Paths/PathItems[/user]/Get/Responses
	c     *model.Change
}

func (d difference) String() string {
	return fmt.Sprintf("%s: %s %q -> %q", d.where, d.c.Property, d.c.Original, d.c.New)
}

// deliberate are the differences the served document may have from the
// spec, each with its reason. A rule matches a difference by its place
// (where, in which * stands for any text) and property; nullable rules
// match only a type changed from the spec's T to [T, "null"].
var deliberate = []struct {
	where, property string
	nullable        bool
	reason          string
}{
	{"", "openapi", false, "waltz writes OpenAPI 3.1.1, the spec 3.1.0: the same schema dialect"},
	{"/Server", "servers", false, "the spec names its hosted demo; the served document's paths are the API's own (normalized here to the server /api)"},
	{"/Tag", "*", false, "waltz writes no top-level tags list (it has nowhere to declare one); every operation has the spec's tags"},
	{"/Paths/PathItems[*]/*/Extension", "x-codegen-request-body-name", false, "a code generator's hint waltz cannot write; the body itself is the spec's"},
	{"/Components", "parameters", false, "waltz writes parameters in each operation, not as components; each operation has offset and limit as the spec's do"},
	{"/Components", "requestBodies", false, "waltz writes request bodies in each operation, not as components; the schemas they refer to are compared"},
	{"/Components", "responses", false, "waltz writes responses in each operation, not as components; their schemas are compared"},
	{"/Paths/PathItems[/user]/Get/Responses", "codes", false, "GET /api/user reads no input, so it has no 422 to declare (the spec lists GenericError on every operation)"},
	{"/Paths/PathItems[/tags]/Get/Responses", "codes", false, "GET /api/tags reads no input, so it has no 422 to declare (the spec lists GenericError on every operation)"},
	{"/Components/Schema[Update*]/SchemaProperty[*]", "type", true, "an update's member may also be null, which leaves it as it is (a Go pointer), as leaving it out does"},
	{"/Components/Schema[GenericErrorModel]/SchemaProperty[errors]/SchemaProperty[body]", "type", true, "waltz documents a Go slice in an answer as an array or null; renderError always sends an array"},
	{"/Components/Schema[Article]/SchemaProperty[tagList]", "type", true, "waltz documents a Go slice in an answer as an array or null; this server always sends an array"},
	{"/Paths/PathItems[*]/Get/Responses/Response[200]/Content[application/json]/Schema/SchemaProperty[*]", "type", true, "waltz documents a Go slice in an answer as an array or null; this server always sends an array"},
}

// matches reports whether s matches pattern, in which each * stands for
// any text.
func matches(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p) && len(s) >= len(p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return s == ""
}

// nullableOf reports whether the change made the type T of the spec the
// type [T, "null"].
func nullableOf(c *model.Change) bool {
	s, ok := c.NewObject.(*lowbase.Schema)
	if !ok || !s.Type.Value.IsB() {
		return false
	}
	var types []string
	for _, v := range s.Type.Value.B {
		types = append(types, v.Value)
	}
	return slices.Equal(types, []string{c.Original, "null"})
}

// servedDocument returns the document the API serves at /openapi.json,
// normalized to compare with the spec, whose paths are relative to its
// server .../api: the paths under /api without that prefix, and the
// server /api. A path elsewhere fails the test: the document's own
// routes (itself, its page) are hidden (api.Hide).
func servedDocument(t *testing.T) map[string]any {
	t.Helper()
	s := serve(t, "sqlite", "")
	var doc map[string]any
	s.call(t, "GET", "/openapi.json", "", "").want(t, 200).decode(t, &doc)
	paths := map[string]any{}
	for p, item := range doc["paths"].(map[string]any) {
		rest, ok := strings.CutPrefix(p, "/api/")
		if !ok {
			t.Errorf("the document lists %s, outside the API", p)
		}
		paths["/"+rest] = item
	}
	doc["paths"] = paths
	doc["servers"] = []any{map[string]any{"url": "/api"}}
	return doc
}

// breaking returns the breaking changes what-changed finds from the spec
// to doc.
func breaking(t *testing.T, doc map[string]any) []difference {
	t.Helper()
	spec, err := os.ReadFile("../testdata/openapi.yml")
	if err != nil {
		t.Fatal(err)
	}
	served, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var docs [2]libopenapi.Document
	for i, b := range [][]byte{spec, served} {
		if docs[i], err = libopenapi.NewDocument(b); err != nil {
			t.Fatal(err)
		}
	}
	changes, err := libopenapi.CompareDocuments(docs[0], docs[1])
	if err != nil {
		t.Fatal(err)
	}
	var all []difference
	collect(reflect.ValueOf(changes), "", &all)
	var out []difference
	seen := map[*model.Change]bool{} // a change may be reached by two ways
	for _, d := range all {
		if d.c.Breaking && !seen[d.c] {
			seen[d.c] = true
			out = append(out, d)
		}
	}
	// The walk finds the very changes what-changed lists itself.
	n := 0
	for _, c := range changes.GetAllChanges() {
		if c.Breaking {
			n++
			if !seen[c] {
				t.Fatalf("the walk missed %s %q -> %q", c.Property, c.Original, c.New)
			}
		}
	}
	if n != len(out) {
		t.Fatalf("the walk found %d breaking changes, what-changed lists %d", len(out), n)
	}
	return out
}

var changeType = reflect.TypeFor[model.Change]()

// collect appends to out every change in v, a value of what-changed's
// model, with its place: the fields (without their "Changes" suffix) and
// map keys on the way to it.
func collect(v reflect.Value, where string, out *[]difference) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collect(v.Elem(), where, out)
		}
	case reflect.Struct:
		if v.Type() == changeType {
			*out = append(*out, difference{where, v.Addr().Interface().(*model.Change)})
			return
		}
		if !strings.HasSuffix(v.Type().PkgPath(), "what-changed/model") {
			return
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			w := where
			if name := strings.TrimSuffix(f.Name, "Changes"); !f.Anonymous && name != "" {
				w += "/" + name
			}
			collect(v.Field(i), w, out)
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			collect(v.MapIndex(k), fmt.Sprintf("%s[%v]", where, k), out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			collect(v.Index(i), where, out)
		}
	}
}

// unlisted returns the differences no deliberate rule matches, and marks
// in used the rules that matched one.
func unlisted(diffs []difference, used []bool) []difference {
	var out []difference
	for _, d := range diffs {
		i := slices.IndexFunc(deliberate, func(r struct {
			where, property string
			nullable        bool
			reason          string
		}) bool {
			return matches(r.where, d.where) && matches(r.property, d.c.Property) && (!r.nullable || nullableOf(d.c))
		})
		if i < 0 {
			out = append(out, d)
			continue
		}
		if used != nil {
			used[i] = true
		}
	}
	return out
}

// TestSpec compares the served OpenAPI document with the spec's
// (testdata/openapi.yml) by libopenapi's what-changed: every path,
// method, status code and schema member of the spec must be in the served
// document with a compatible type, save the differences listed in
// deliberate, each of which must still occur.
func TestSpec(t *testing.T) {
	used := make([]bool, len(deliberate))
	for _, d := range unlisted(breaking(t, servedDocument(t)), used) {
		t.Errorf("the served document differs from the spec: %s", d)
	}
	for i, u := range used {
		if !u {
			t.Errorf("deliberate difference %q %q no longer occurs: take it off the list", deliberate[i].where, deliberate[i].property)
		}
	}
}

// TestSpecSecurity holds each operation's security requirement to the
// spec's: Token where the spec requires it, Token or nothing ({}) where
// its description says "Auth is optional", nothing otherwise, save
// readsToken. what-changed does not count an added alternative as
// breaking, so TestSpec would not see the last two apart.
func TestSpecSecurity(t *testing.T) {
	// The operations the spec says need no auth, whose answer this server
	// gives for the token's user when one is sent, as the spec's "Auth is
	// optional" ones do: it lists the token as optional.
	readsToken := map[string]bool{"get /articles/{slug}": true}
	b, err := os.ReadFile("../testdata/openapi.yml")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := libopenapi.NewDocument(b)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	served := servedDocument(t)
	optional := 0
	for path, pi := range m.Model.Paths.PathItems.FromOldest() {
		for method, op := range pi.GetOperations().FromOldest() {
			want := []any{}
			switch {
			case strings.Contains(op.Description, "Auth is optional"):
				optional++
				fallthrough
			case readsToken[method+" "+path]:
				want = []any{map[string]any{"Token": []any{}}, map[string]any{}}
			case len(op.Security) > 0:
				want = []any{map[string]any{"Token": []any{}}}
			}
			got := item(served, path)[method].(map[string]any)["security"]
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: got the security %v, want %v", method, path, got, want)
			}
		}
	}
	if optional != 3 {
		t.Errorf("%d operations of the spec say auth is optional, want 3", optional)
	}
}

// TestSpecFindsDifferences plants differences in the served document
// and checks that TestSpec's comparison finds each: an operation left
// out, a status code, a schema member, a member's type, a parameter.
func TestSpecFindsDifferences(t *testing.T) {
	for _, tc := range []struct {
		name, where, property string
		plant                 func(doc map[string]any)
	}{
		{"no feed", "/Paths", "/articles/feed", func(doc map[string]any) {
			delete(doc["paths"].(map[string]any), "/articles/feed")
		}},
		{"no unfollow", "/Paths/PathItems[/profiles/{username}/follow]", "delete", func(doc map[string]any) {
			delete(item(doc, "/profiles/{username}/follow"), "delete")
		}},
		{"no 201", "/Paths/PathItems[/users]/Post/Responses", "codes", func(doc map[string]any) {
			delete(item(doc, "/users")["post"].(map[string]any)["responses"].(map[string]any), "201")
		}},
		{"no slug", "/Components/Schema[Article]", "properties", func(doc map[string]any) {
			delete(schema(doc, "Article")["properties"].(map[string]any), "slug")
		}},
		{"following a string", "/Components/Schema[Profile]/SchemaProperty[following]", "type", func(doc map[string]any) {
			schema(doc, "Profile")["properties"].(map[string]any)["following"] = map[string]any{"type": "string"}
		}},
		{"no limit", "/Paths/PathItems[/articles]/Get", "limit", func(doc map[string]any) {
			op := item(doc, "/articles")["get"].(map[string]any)
			op["parameters"] = slices.DeleteFunc(op["parameters"].([]any), func(p any) bool { return p.(map[string]any)["name"] == "limit" })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := servedDocument(t)
			tc.plant(doc)
			found := unlisted(breaking(t, doc), nil)
			if !slices.ContainsFunc(found, func(d difference) bool {
				return strings.HasPrefix(d.where, tc.where) && (d.c.Property == tc.property || d.c.Original == tc.property)
			}) {
				t.Errorf("planted %s at %s, found only %v", tc.property, tc.where, found)
			}
		})
	}
}

// item returns the path item of doc at path.
func item(doc map[string]any, path string) map[string]any {
	return doc["paths"].(map[string]any)[path].(map[string]any)
}

// schema returns the component schema of doc named name.
func schema(doc map[string]any, name string) map[string]any {
	return doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
}
