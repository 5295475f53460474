package typed

import (
	"encoding/json"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz/openapi"
)

type quotedDoc struct {
	N  int     `json:"n,string"`
	U  uint8   `json:"u,string"`
	F  float64 `json:"f,string"`
	B  bool    `json:"b,string"`
	S  string  `json:"s,string"`
	P  *int    `json:"p,string,omitempty"`
	D  int     `json:"d,string" doc:"a count" default:"7"`
	PB *bool   `json:"pb,string,omitempty"`
	E  int     `json:"e,string,omitempty" enum:"+2,0"`
	EB bool    `json:"eb,string,omitempty" enum:"t"`
	DS string  `json:"ds,string,omitempty" default:"x"`
	Or int     `json:"or" default:"2" minimum:"1"`
}

// intText is the text of an int's value sent as a ,string member, the
// integers from -9223372036854775808 to 9223372036854775807.
const intText = `-?(0|[1-9][0-9]{0,17}|[1-8][0-9]{18}|9[0-1][0-9]{17}|92[0-1][0-9]{16}|922[0-2][0-9]{15}|9223[0-2][0-9]{14}|92233[0-6][0-9]{13}|922337[0-1][0-9]{12}|92233720[0-2][0-9]{10}|922337203[0-5][0-9]{9}|9223372036[0-7][0-9]{8}|92233720368[0-4][0-9]{7}|922337203685[0-3][0-9]{6}|9223372036854[0-6][0-9]{5}|92233720368547[0-6][0-9]{4}|922337203685477[0-4][0-9]{3}|9223372036854775[0-7][0-9]{2}|922337203685477580[0-7])|-9223372036854775808`

// TestQuotedSchema checks that a ,string member is described as the
// string it is sent as, and that a text its pattern admits is one the
// server binds, and one it refuses is refused: a client that follows the
// document is never refused for the form of the value, and the server
// takes no other.
func TestQuotedSchema(t *testing.T) {
	g := NewSchemas(false)
	g.Of(reflectType[quotedDoc]())
	b, err := json.Marshal(g.Defs()["quotedDoc"])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"properties/n", `{"pattern":"^(` + intText + `)$","type":"string"}`},
		{"properties/u", `{"pattern":"^(0|[1-9][0-9]?|1[0-9]{2}|2[0-4][0-9]|25[0-5])$","type":"string"}`},
		{"properties/b", `{"enum":["true","false"],"type":"string"}`},
		{"properties/p", `{"pattern":"^(` + intText + `|null)$","type":["string","null"]}`},
		{"properties/pb", `{"enum":["true","false","null",null],"type":["string","null"]}`},
		{"properties/e", `{"enum":["2","0","-0"],"pattern":"^(` + intText + `)$","type":"string"}`},
		{"properties/eb", `{"enum":["true"],"type":"string"}`},
		{"properties/ds", `{"default":"\"x\"","pattern":"^\"([^\"\\\\]|\\\\.)*\"$","type":"string"}`},
		{"properties/d", `{"default":"7","description":"a count","pattern":"^(` + intText + `)$","type":"string"}`},
		{"required", `["n","u","f","b","s"]`},
	} {
		if got := pointer(t, b, tc.path); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
	type in struct{ Body quotedDoc }
	for _, tc := range []struct {
		member, pattern string
		texts           []string
	}{
		{"n", `^(` + intText + `)$`, []string{"5", "-5", "0", "-0", "12345", "1.5", "05", "+5", "", "x", "1e2", "1.0", "null", " 5"}},
		{"u", `^(0|[1-9][0-9]?|1[0-9]{2}|2[0-4][0-9]|25[0-5])$`, []string{"5", "255", "256", "300", "-1", "1.0", "1e2", "-0", "null"}},
		{"f", `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`, []string{"0.5", "-1e3", "1E+2", ".5", "1.", "NaN", "5", "null"}},
		{"s", `^"([^"\\]|\\.)*"$`, []string{`"a"`, `"a\"b"`, `""`, `a`, `"a`, "null"}},
		{"p", `^(` + intText + `|null)$`, []string{"5", "null", "1e2", "Null", ""}},
		{"pb", `^(true|false|null)$`, []string{"true", "null", "1"}},
	} {
		re := regexp.MustCompile(tc.pattern)
		for _, text := range tc.texts {
			body := `{"n":"1","u":"1","f":"1","b":"true","s":"\"x\"","` + tc.member + `":` + strconv.Quote(text) + `}`
			v, err := bindInto[in](t, nil, nil, post(js, body), Body{})
			got, _ := failures(err)
			switch {
			case re.MatchString(text) && err != nil:
				t.Errorf("%s %q matches the documented pattern and is refused: %v %q", tc.member, text, err, got)
			case !re.MatchString(text) && err == nil:
				t.Errorf("%s %q does not match the documented pattern and is taken", tc.member, text)
			case text == "null" && err == nil && (v.Body.P != nil || v.Body.PB != nil):
				t.Errorf("%s %q: got a pointer, want nil, as encoding/json has it", tc.member, text)
			}
		}
	}
	// Context.Bind's decoder reads "null" as encoding/json does: a
	// value other than a pointer is left as it was.
	v := quotedDoc{N: 3, S: "y"}
	if err, fs := decodeJSON(t, &v, `{"n":"null","s":"null"}`, Body{}); err != nil || v.N != 3 || v.S != "y" {
		t.Errorf(`Context.Bind's "null": got %v %q %d %q, want 3 and "y" left as they were`, err, fs, v.N, v.S)
	}
}

type quotedOne[T any] struct {
	V T `json:"v,string"`
}

// TestQuotedIntegerRange checks that the pattern of a ,string integer
// member admits exactly the texts the server takes: the decimal integers
// within its type's range, with no leading zero or '+', "-0" for a
// signed type alone. A text the pattern admits beyond the range was a
// 422 a client that followed the document could not foresee.
func TestQuotedIntegerRange(t *testing.T) {
	quotedAgrees[int8](t, "-128", "127")
	quotedAgrees[int16](t, "-32768", "32767")
	quotedAgrees[int32](t, "-2147483648", "2147483647")
	quotedAgrees[int64](t, "-9223372036854775808", "9223372036854775807")
	quotedAgrees[int](t, "-9223372036854775808", "9223372036854775807")
	quotedAgrees[*int8](t, "-128", "127")
	quotedAgrees[uint8](t, "0", "255")
	quotedAgrees[uint16](t, "0", "65535")
	quotedAgrees[uint32](t, "0", "4294967295")
	quotedAgrees[uint64](t, "0", "18446744073709551615")
	quotedAgrees[uint](t, "0", "18446744073709551615")
	quotedAgrees[*uint8](t, "0", "255")
}

// quotedAgrees checks texts near the range lo to hi of T, a ,string
// member's type, against its pattern and the server: each both matches
// and binds, or neither.
func quotedAgrees[T any](t *testing.T, lo, hi string) {
	t.Helper()
	pattern := quotedSchema(reflectType[T]()).Pattern
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("%s: %v", reflectType[T](), err)
	}
	near := func(s string, d int64) string {
		n, _ := new(big.Int).SetString(s, 10)
		return n.Add(n, big.NewInt(d)).String()
	}
	texts := []string{"0", "-0", "1", "-1", "+1", "01", "-01", "00", "9", "10", "99", "100", "1e2", "", "-", "x1",
		lo, hi, near(lo, -1), near(lo, 1), near(hi, -1), near(hi, 1), near(hi, 10), near(hi, 100), near(hi, 1000),
		hi + "0", "9" + hi[1:], "99999999999999999999", "-99999999999999999999", "100000000000000000000"}
	for i := 1; i < len(hi); i++ {
		texts = append(texts, hi[:i]+"9"+hi[i+1:], strings.Repeat("9", i), "1"+strings.Repeat("0", i))
	}
	for _, text := range texts {
		body := `{"v":` + strconv.Quote(text) + `}`
		_, err := bindInto[struct{ Body quotedOne[T] }](t, nil, nil, post(js, body), Body{})
		switch matched := re.MatchString(text); {
		case matched && err != nil:
			t.Errorf("%s %q matches %s and is refused: %v", reflectType[T](), text, pattern, err)
		case !matched && err == nil:
			t.Errorf("%s %q does not match %s and is taken", reflectType[T](), text, pattern)
		}
	}
}

type left struct{ X, L int }
type right struct{ X, R int }
type tagged2 struct {
	X int `json:"X"`
}
type collide struct {
	left
	right
}
type collideTagged struct {
	left
	tagged2
}

// TestSchemaCollisions checks that embedded members of one name follow
// encoding/json's rules in the schema: two untagged at one depth are both
// dropped (neither listed nor required), a tagged one wins.
func TestSchemaCollisions(t *testing.T) {
	g := NewSchemas(false)
	g.Of(reflectType[collide]())
	g.Of(reflectType[collideTagged]())
	for _, tc := range []struct{ name, want string }{
		{"collide", `{"type":"object","properties":{"L":{"type":"integer","format":"int64"},"R":{"type":"integer","format":"int64"}},"required":["L","R"]}`},
		{"collideTagged", `{"type":"object","properties":{"L":{"type":"integer","format":"int64"},"X":{"type":"integer","format":"int64"}},"required":["L","X"]}`},
	} {
		b, _ := json.Marshal(g.Defs()[tc.name])
		if string(b) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, b, tc.want)
		}
	}
}

// TestSchemaMapKeys checks propertyNames against encoding/json's reading
// of map keys: every key the pattern admits decodes.
func TestSchemaMapKeys(t *testing.T) {
	for _, tc := range []struct {
		s    *openapi.Schema
		keys []string
		into func(key string) error
	}{
		{NewSchemas(false).Of(reflectType[map[int]string]()), []string{"1", "-1", "+1", "007", "1.0", "x", "", "0", "-0", "+", "-",
			"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
			"+0009223372036854775807", "-0009223372036854775808", "19223372036854775807", "99999999999999999999"},
			func(k string) error {
				var m map[int]string
				return json.Unmarshal([]byte(`{`+strconv.Quote(k)+`:"v"}`), &m)
			}},
		{NewSchemas(false).Of(reflectType[map[uint16]string]()), []string{"1", "-1", "+1", "65535", "65536", "0065535", "70000", "0", "00", "-0"},
			func(k string) error {
				var m map[uint16]string
				return json.Unmarshal([]byte(`{`+strconv.Quote(k)+`:"v"}`), &m)
			}},
		{NewSchemas(false).Of(reflectType[map[int8]string]()), []string{"127", "128", "-128", "-129", "+127", "-00128", "200", "99", "1000"},
			func(k string) error {
				var m map[int8]string
				return json.Unmarshal([]byte(`{`+strconv.Quote(k)+`:"v"}`), &m)
			}},
		{NewSchemas(false).Of(reflectType[map[uint64]string]()), []string{"18446744073709551615", "18446744073709551616", "+1", "0018446744073709551615"},
			func(k string) error {
				var m map[uint64]string
				return json.Unmarshal([]byte(`{`+strconv.Quote(k)+`:"v"}`), &m)
			}},
	} {
		if tc.s.PropertyNames == nil {
			t.Fatalf("no propertyNames in %+v", tc.s)
		}
		re := regexp.MustCompile(tc.s.PropertyNames.Pattern)
		for _, k := range tc.keys {
			if err := tc.into(k); (err == nil) != re.MatchString(k) {
				t.Errorf("key %q: encoding/json says %v, the pattern %s matches %v", k, err, re, re.MatchString(k))
			}
		}
	}
	if s := NewSchemas(false).Of(reflectType[map[string]int]()); s.PropertyNames != nil {
		t.Errorf("string keys: got propertyNames %+v", s.PropertyNames)
	}
}

// TestSchemaReserve checks that a reserved component name stays its
// type's, whichever type is described first.
func TestSchemaReserve(t *testing.T) {
	type Problem struct{ Mine string }
	type frameworkProblem struct{ Theirs string }
	g := NewSchemas(false)
	g.Reserve("Problem", reflectType[frameworkProblem]())
	mine := g.Of(reflectType[Problem]())
	theirs := g.Of(reflectType[frameworkProblem]())
	if mine.Ref != "#/components/schemas/Problem2" || theirs.Ref != "#/components/schemas/Problem" {
		t.Errorf("got %q and %q", mine.Ref, theirs.Ref)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range g.Defs() {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(names, []string{"Problem", "Problem2"}) {
		t.Errorf("components: got %q", names)
	}
}

type audit struct {
	By    string `json:"by" minLength:"3"`
	Shown int    `json:"shown"`
}
type withPtr struct {
	*audit
	ID int `json:"id"`
}

// TestSchemaEmbeddedPointer checks that an embedded pointer's fields are
// members, as encoding/json encodes and decodes them, with their rules,
// and not required: the pointer may be nil, and then they are left out.
func TestSchemaEmbeddedPointer(t *testing.T) {
	g := NewSchemas(false)
	g.Of(reflectType[withPtr]())
	b, _ := json.Marshal(g.Defs()["withPtr"])
	want := `{"type":"object","properties":{"by":{"type":"string","minLength":3},"shown":{"type":"integer","format":"int64"},"id":{"type":"integer","format":"int64"}},"required":["id"]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	// encoding/json writes them only when the pointer is set.
	for _, v := range []withPtr{{ID: 1}, {audit: &audit{By: "bob"}, ID: 1}} {
		out, _ := json.Marshal(v)
		var m map[string]any
		_ = json.Unmarshal(out, &m)
		if _, has := m["by"]; has != (v.audit != nil) {
			t.Errorf("%s: by written %v, want %v", out, has, v.audit != nil)
		}
	}
}

// TestEmbeddedPointerRules checks that the rules the schema shows for an
// embedded pointer's fields are the ones binding enforces.
func TestEmbeddedPointerRules(t *testing.T) {
	type in struct{ Body withPtr }
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"id":1}`, nil},
		{`{"id":1,"by":"bob"}`, nil},
		{`{"id":1,"by":"x"}`, []string{"body.by minLength"}},
	} {
		_, err := bindInto[in](t, nil, nil, post(js, tc.body), Body{})
		if got, _ := failures(err); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q (%v), want %q", tc.body, got, err, tc.want)
		}
	}
}

type recList []recList

type recPtr *recPtr

type recMap map[string]recMap

// TestSchemaRecursiveNamed holds that a named slice, pointer or map type
// of itself is described as a component that refers to itself, as a
// recursive struct is, rather than without end; and that a body of one
// binds.
func TestSchemaRecursiveNamed(t *testing.T) {
	g := NewSchemas(false)
	for _, tc := range []struct {
		typ  reflect.Type
		name string
	}{
		{reflect.TypeFor[recList](), "recList"},
		{reflect.TypeFor[recPtr](), "recPtr"},
		{reflect.TypeFor[recMap](), "recMap"},
	} {
		s := g.Of(tc.typ)
		ref := "#/components/schemas/" + tc.name
		def := g.Defs()[tc.name]
		if s.Ref != ref || def == nil {
			t.Fatalf("%v: got %+v, want a $ref to %s", tc.typ, s, tc.name)
		}
		b, _ := json.Marshal(def)
		if !strings.Contains(string(b), `"$ref":"`+ref+`"`) {
			t.Errorf("%v: the component %s does not refer to itself", tc.typ, b)
		}
	}
	// A named slice type that is not recursive stays inline.
	type tags []string
	if s := g.Of(reflect.TypeFor[tags]()); s.Ref != "" {
		t.Errorf("tags: got %+v, want an inline array", s)
	}
	type in struct {
		Body recList
	}
	v, err := bindInto[in](t, nil, nil, post(js, `[[],[[]]]`), Body{})
	if err != nil || len(v.Body) != 2 || len(v.Body[1]) != 1 {
		t.Errorf("got %v %v", v, err)
	}
}

type refChange struct {
	Created *refItem `event:"created"`
}

type refItem struct {
	ID int `json:"id"`
}

// TestEventRef checks that an event set's one event is a component named
// after the set's type, made once, apart from a JSON value of that type
// (another component), and in place for an anonymous set.
func TestEventRef(t *testing.T) {
	g := NewSchemas(false)
	p, err := PlanEvents(reflect.TypeFor[refChange]())
	if err != nil {
		t.Fatal(err)
	}
	first, second := p.Ref(g), p.Ref(g)
	if first.Ref != openapi.SchemaRef+"refChange" || second.Ref != first.Ref {
		t.Fatalf("refs: got %q and %q, want both to refChange", first.Ref, second.Ref)
	}
	if ev := g.Defs()["refChange"]; ev == nil || len(ev.OneOf) != 1 {
		t.Fatalf("component refChange: got %+v, want the oneOf of one event", ev)
	}
	if v := g.Of(reflect.TypeFor[refChange]()); v.Ref != openapi.SchemaRef+"refChange2" || g.Defs()["refChange2"].Type != "object" {
		t.Errorf("the set's type as a JSON value: got %+v, want its object under refChange2", v)
	}
	anon, err := PlanEvents(reflect.TypeFor[struct {
		Created *refItem `event:"created"`
	}]())
	if err != nil {
		t.Fatal(err)
	}
	if s := anon.Ref(g); s.Ref != "" || len(s.OneOf) != 1 {
		t.Errorf("an anonymous set: got %+v, want its oneOf in place", s)
	}
}

type refSelf struct {
	Full *refSelf `event:"full"`
}

// TestEventRefSameName checks that an event's data type of the set's
// own name (here the set itself) keeps its schema: the events take the
// name first, and the data another.
func TestEventRefSameName(t *testing.T) {
	g := NewSchemas(false)
	p, err := PlanEvents(reflect.TypeFor[refSelf]())
	if err != nil {
		t.Fatal(err)
	}
	ref := p.Ref(g)
	ev := g.Defs()["refSelf"]
	if ref.Ref != openapi.SchemaRef+"refSelf" || ev == nil || len(ev.OneOf) != 1 {
		t.Fatalf("component refSelf: got %+v for %q, want the oneOf of one event", ev, ref.Ref)
	}
	data := ev.OneOf[0].Properties[1].Schema.ContentSchema
	if data == nil || data.Ref != openapi.SchemaRef+"refSelf2" || g.Defs()["refSelf2"] == nil || g.Defs()["refSelf2"].Type != "object" {
		t.Errorf("the event's data: got %+v, want a $ref to refSelf2, the set's type as an object", data)
	}
}

// TestNullableEnum checks that a member that takes null and has an enum
// lists null in its enum, as JSON Schema's enum refuses what it does not
// list, and that the decoder takes the null the document offers, and
// refuses a value outside the enum.
func TestNullableEnum(t *testing.T) {
	type doc struct {
		P *string         `json:"p" enum:"a,b"`
		M map[string]*int `json:"m" enum:"1,2"`
		S string          `json:"s,omitempty" enum:"a,b"`
	}
	g := NewSchemas(false)
	g.Of(reflectType[doc]())
	b, err := json.Marshal(g.Defs()["doc"])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"properties/p", `{"enum":["a","b",null],"type":["string","null"]}`},
		{"properties/m/additionalProperties", `{"enum":[1,2,null],"format":"int64","type":["integer","null"]}`},
		{"properties/s", `{"enum":["a","b"],"type":"string"}`},
	} {
		if got := pointer(t, b, tc.path); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.path, got, tc.want)
		}
	}
	type in struct{ Body doc }
	if _, err := bindInto[in](t, nil, nil, post(js, `{"p":null,"m":{"k":null}}`), Body{}); err != nil {
		got, _ := failures(err)
		t.Errorf("null where the enum lists it: %v %q", err, got)
	}
	_, err = bindInto[in](t, nil, nil, post(js, `{"p":"c","m":{"k":3}}`), Body{})
	if got, _ := failures(err); len(got) != 2 {
		t.Errorf("values outside the enum: got %v %q, want two failures", err, got)
	}
}

type beyondFloat struct {
	F float32 `json:"f" maximum:"1e39"`
	D float32 `json:"d" exclusiveMinimum:"-1e300"`
}

// TestBoundBeyondFloatRange checks that a bound beyond a float's range,
// which every value of it keeps, registers, is written as the tag gives
// it, and takes the largest value of the type.
func TestBoundBeyondFloatRange(t *testing.T) {
	g := NewSchemas(false)
	g.Of(reflectType[beyondFloat]())
	b, err := json.Marshal(g.Defs()["beyondFloat"])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"maximum":1e39`, `"exclusiveMinimum":-1e300`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("got %s, want %s in it", b, want)
		}
	}
	type in struct{ Body beyondFloat }
	if _, err := bindInto[in](t, nil, nil, post(js, `{"f":3.4028235e38,"d":-3.4028235e38}`), Body{}); err != nil {
		got, _ := failures(err)
		t.Errorf("the largest values: got %v %q, want them taken", err, got)
	}
}
