package typed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// The JSON Schema Test Suite's cases (testdata/jsonschema, see its
// README) run through the binder. A group's schema becomes one field with
// tags: its "type" picks the Go type (integer int64, number float64,
// string, boolean bool); without one, the keywords do (numbers float64,
// lengths, patterns and formats string, item counts and uniqueItems
// []any, an enum the type of its values; properties of any value and
// required a struct of any members, required:"true" on the required
// ones). Each instance is sent as a JSON
// body {"v": instance}, and a scalar one also as the query ?v=text; the
// verdict must be the suite's. An instance of another JSON type than the
// field's, which the suite expects a keyword to ignore, must be refused
// by the field's Go type: a type failure, never a keyword's.

// suiteFiles are the files the test runs, under testdata/jsonschema.
var suiteFiles = []string{
	"minimum.json", "maximum.json", "exclusiveMinimum.json", "exclusiveMaximum.json", "multipleOf.json",
	"minLength.json", "maxLength.json", "pattern.json", "enum.json",
	"minItems.json", "maxItems.json", "uniqueItems.json", "required.json", "default.json",
	"optional/format/date-time.json", "optional/format/date.json", "optional/format/time.json",
	"optional/format/email.json", "optional/format/uri.json", "optional/format/ipv4.json",
	"optional/format/ipv6.json", "optional/format/uuid.json",
}

// unexpressible are the groups ("file: group") and cases ("file: group:
// case") that tags cannot express, each with the reason.
var unexpressible = map[string]string{
	"multipleOf.json: float division = inf: always invalid, but naive implementations may raise an overflow error": "1e308 is a JSON integer no Go integer field holds; the decoder refuses it",
	"pattern.json: pattern with Unicode property escape requires unicode mode":                                     "Go's regexp names Unicode classes by short names (\\p{L}), not \\p{Letter}: the tag is refused at registration",
	"enum.json: heterogeneous enum validation":                                                                     "values of several JSON types: a Go field holds one type",
	"enum.json: heterogeneous enum-with-null validation":                                                           "null among the values: a Go scalar field has no null",
	"enum.json: enums in properties":                                                                               "an object schema with properties: a struct, not one tag",
	"enum.json: enum with [false] does not match [0]":                                                              "array values in an enum: enum applies to scalars",
	"enum.json: enum with [true] does not match [1]":                                                               "array values in an enum: enum applies to scalars",
	"enum.json: enum with [0] does not match [false]":                                                              "array values in an enum: enum applies to scalars",
	"enum.json: enum with [1] does not match [true]":                                                               "array values in an enum: enum applies to scalars",
	"enum.json: empty enum":                                                                                        "an enum of no values: a tag lists at least one",
	"uniqueItems.json: uniqueItems with an array of items":                                                         "prefixItems (a tuple): a Go slice has one item type",
	"uniqueItems.json: uniqueItems with an array of items and additionalItems=false":                               "prefixItems (a tuple): a Go slice has one item type",
	"uniqueItems.json: uniqueItems=false with an array of items":                                                   "prefixItems (a tuple): a Go slice has one item type",
	"uniqueItems.json: uniqueItems=false with an array of items and additionalItems=false":                         "prefixItems (a tuple): a Go slice has one item type",
	"required.json: required with escaped characters":                                                              "member names holding a line break, a quote or a backslash: encoding/json takes no such name in a json tag",
	"default.json: invalid type for default":                                                                       "a default that is no value of its member's type is refused at registration (a panic), by design",
	"default.json: invalid string value for default":                                                               "a default that breaks its member's rules (minLength) is refused at registration (a panic), by design",
	"default.json: the default keyword does not do anything if the property is missing":                            "a default that breaks its member's rules (maximum) is refused at registration (a panic), by design; and a member left out gets its default",
}

type suiteGroup struct {
	Description string
	Schema      map[string]json.RawMessage
	Tests       []struct {
		Description string
		Data        json.RawMessage
		Valid       bool
	}
}

func TestSuite(t *testing.T) {
	used := map[string]bool{}
	var ran, typed, skipped, total int
	for _, file := range suiteFiles {
		raw, err := os.ReadFile(filepath.Join("testdata", "jsonschema", file))
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(raw, &groups); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, g := range groups {
			gkey := file + ": " + g.Description
			total += len(g.Tests)
			if _, ok := unexpressible[gkey]; ok {
				used[gkey] = true
				skipped += len(g.Tests)
				continue
			}
			typ, tag, err := suiteField(g.Schema)
			if err != nil {
				t.Errorf("%s: %v, and the group is not listed as unexpressible", gkey, err)
				continue
			}
			for _, c := range g.Tests {
				ckey := gkey + ": " + c.Description
				if _, ok := unexpressible[ckey]; ok {
					used[ckey] = true
					skipped++
					continue
				}
				if !jsonFits(typ, c.Data) {
					typed++
					if got := bindBody(t, typ, tag, c.Data); got != "type" {
						t.Errorf("%s: %s into %s: got %q, want a type failure", ckey, c.Data, typ, got)
					}
					continue
				}
				ran++
				want := ""
				if !c.Valid {
					want = "invalid"
				}
				if got := verdict(bindBody(t, typ, tag, c.Data)); got != want {
					t.Errorf("%s: body %s with %s `%s`: got %q, want %q", ckey, c.Data, typ, tag, got, want)
				}
				if text, ok := queryText(c.Data); ok && typ.Kind() != reflect.Slice {
					if got := verdict(bindQuery(t, typ, tag, text)); got != want {
						t.Errorf("%s: query %q with %s `%s`: got %q, want %q", ckey, text, typ, tag, got, want)
					}
					if tag == `format:"date-time"` {
						if got := verdict(bindQuery(t, reflect.TypeFor[time.Time](), "", text)); got != want {
							t.Errorf("%s: query %q into a time.Time: got %q, want %q", ckey, text, got, want)
						}
					}
				}
			}
		}
	}
	for k := range unexpressible {
		if !used[k] {
			t.Errorf("listed as unexpressible, and no such group or case: %s", k)
		}
	}
	// The list stays small: most of the suite's cases are run.
	if skipped*5 > total {
		t.Errorf("%d of %d cases skipped as unexpressible, more than a fifth", skipped, total)
	}
	t.Logf("%d cases: %d run, %d refused by the Go type as the suite's keyword ignores them, %d unexpressible", total, ran, typed, skipped)
}

// verdict maps a failure keyword to "" (bound) or "invalid".
func verdict(kw string) string {
	if kw == "" {
		return ""
	}
	return "invalid"
}

// suiteField returns the Go type and the tags of a field that expresses
// schema, or why none does.
func suiteField(schema map[string]json.RawMessage) (reflect.Type, string, error) {
	var typ reflect.Type
	var tags []string
	keys := make([]string, 0, len(schema))
	for k := range schema {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	pick := func(t reflect.Type) {
		if typ == nil {
			typ = t
		}
	}
	if v, ok := schema["type"]; ok {
		var name string
		_ = json.Unmarshal(v, &name)
		switch name {
		case "integer":
			typ = reflect.TypeFor[int64]()
		case "number":
			typ = reflect.TypeFor[float64]()
		case "string":
			typ = reflect.TypeFor[string]()
		case "boolean":
			typ = reflect.TypeFor[bool]()
		default:
			return nil, "", fmt.Errorf("type %s", v)
		}
	}
	var props, required []string
	for _, k := range keys {
		v := schema[k]
		switch k {
		case "properties":
			// Members of any value ({}), as a struct's fields of type any.
			var ps map[string]json.RawMessage
			_ = json.Unmarshal(v, &ps)
			for name, s := range ps {
				if string(bytes.TrimSpace(s)) != "{}" {
					return nil, "", fmt.Errorf("property %s with keywords", name)
				}
				props = append(props, name)
			}
			slices.Sort(props)
		case "required":
			_ = json.Unmarshal(v, &required)
		case "$schema", "type":
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			pick(reflect.TypeFor[float64]())
			tags = append(tags, k+":"+strconv.Quote(string(v)))
		case "minLength", "maxLength", "pattern", "format":
			pick(reflect.TypeFor[string]())
			var s any
			_ = json.Unmarshal(v, &s)
			tags = append(tags, k+":"+strconv.Quote(fmt.Sprint(s)))
		case "minItems", "maxItems", "uniqueItems":
			pick(reflect.TypeFor[[]any]())
			tags = append(tags, k+":"+strconv.Quote(string(v)))
		case "enum":
			var vals []any
			_ = json.Unmarshal(v, &vals)
			var texts []string
			comma := false
			for _, e := range vals {
				switch e.(type) {
				case string:
					pick(reflect.TypeFor[string]())
				case float64:
					pick(reflect.TypeFor[float64]())
				case bool:
					pick(reflect.TypeFor[bool]())
				}
				s := fmt.Sprint(e)
				comma = comma || strings.Contains(s, ",")
				texts = append(texts, s)
			}
			if comma {
				tags = append(tags, k+":"+strconv.Quote(string(v)))
			} else {
				tags = append(tags, k+":"+strconv.Quote(strings.Join(texts, ",")))
			}
		default:
			return nil, "", fmt.Errorf("keyword %s", k)
		}
	}
	if props != nil || required != nil {
		if typ != nil {
			return nil, "", errors.New("properties beside keywords of another type")
		}
		st, err := suiteStruct(props, required)
		return st, "", err
	}
	if typ == nil {
		return nil, "", errors.New("no keyword that picks a type")
	}
	return typ, strings.Join(tags, " "), nil
}

// suiteStruct returns a struct with a member of type any for each name of
// props and required: required:"true" for a name in required, omitempty
// for the others, which waltz would require otherwise.
func suiteStruct(props, required []string) (reflect.Type, error) {
	names := slices.Clone(props)
	for _, r := range required {
		if !slices.Contains(names, r) {
			names = append(names, r)
		}
	}
	var fields []reflect.StructField
	for i, name := range names {
		if strings.ContainsAny(name, "\"\\`,\x00\n\r\t\f") {
			return nil, fmt.Errorf("member name %q: no json tag holds it", name)
		}
		tag := `json:"` + name + `,omitempty"`
		if slices.Contains(required, name) {
			tag += ` required:"true"`
		}
		fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(i), Type: reflect.TypeFor[any](), Tag: reflect.StructTag(tag)})
	}
	return reflect.StructOf(fields), nil
}

// jsonFits reports whether the JSON value data is of the kind t holds.
func jsonFits(t reflect.Type, data json.RawMessage) bool {
	d := bytes.TrimSpace(data)
	switch t.Kind() {
	case reflect.String:
		return d[0] == '"'
	case reflect.Bool:
		return d[0] == 't' || d[0] == 'f'
	case reflect.Slice:
		return d[0] == '['
	case reflect.Struct:
		return d[0] == '{'
	case reflect.Int64:
		// JSON Schema counts 1.0 as an integer; a number with a fraction
		// is of another type.
		var n json.Number
		if json.Unmarshal(d, &n) != nil {
			return false
		}
		return wholeNumber(string(n)) != string(n) || integer(string(n), true)
	}
	return d[0] == '-' || '0' <= d[0] && d[0] <= '9'
}

// queryText returns a scalar JSON value as a query param's text.
func queryText(data json.RawMessage) (string, bool) {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case float64, bool:
		return string(bytes.TrimSpace(data)), true
	}
	return "", false
}

// bindBody binds {"v": data} into a body field of type t with tags, and
// returns "" when it binds, or the first failure's keyword.
func bindBody(t testing.TB, typ reflect.Type, tags string, data json.RawMessage) string {
	t.Helper()
	inner := reflect.StructOf([]reflect.StructField{{Name: "V", Type: typ, Tag: reflect.StructTag(`json:"v" ` + tags)}})
	in := reflect.StructOf([]reflect.StructField{{Name: "Body", Type: inner}})
	body := append(append([]byte(`{"v":`), data...), '}')
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return bindWith(t, in, req)
}

// bindQuery binds ?v=text into a query field of type t with tags.
func bindQuery(t testing.TB, typ reflect.Type, tags, text string) string {
	t.Helper()
	in := reflect.StructOf([]reflect.StructField{{Name: "V", Type: typ, Tag: reflect.StructTag(`query:"v" ` + tags)}})
	req := httptest.NewRequest(http.MethodGet, "/?v="+url.QueryEscape(text), nil)
	return bindWith(t, in, req)
}

func bindWith(t testing.TB, in reflect.Type, req *http.Request) string {
	t.Helper()
	plan, err := PlanIn(in, nil)
	if err != nil {
		t.Errorf("%s: %v", in, err)
		return "error"
	}
	v := reflect.New(in)
	var fs failed
	err = plan.Bind(&Input{Req: req, W: httptest.NewRecorder(), Fails: &fs}, unsafe.Pointer(v.Pointer()))
	switch {
	case err == nil:
		return ""
	case (err == ErrInvalid || err == ErrUnreadable) && len(fs.list) > 0:
		return fs.list[0].keyword
	}
	return "error: " + err.Error()
}
