package typed

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// upper is a json.Unmarshaler that takes only upper-case strings.
type upper string

func (u *upper) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil || strings.ToUpper(s) != s {
		return errors.New("wants upper case")
	}
	*u = upper(s)
	return nil
}

// tri tells the three states of a member apart, as a JSON Merge Patch
// member does: absent (Set false), null (Set, Null), or a value.
type tri struct {
	Set, Null bool
	V         string
}

func (t *tri) UnmarshalJSON(b []byte) error {
	t.Set = true
	if string(b) == "null" {
		t.Null = true
		return nil
	}
	return json.Unmarshal(b, &t.V)
}

// patch is a Wrapper, as a JSON Merge Patch member is: absent, null, or
// a value decoded and checked by the plan.
type patch[T any] struct {
	Set, Null bool
	V         T
}

func (p *patch[T]) WrappedType() reflect.Type { return reflect.TypeFor[T]() }

func (p *patch[T]) Sent(null bool) any {
	p.Set, p.Null = true, null
	return &p.V
}

type kid struct {
	Age int `json:"age" minimum:"0"`
}

type Labelled struct {
	Label string `json:"label" minLength:"3"`
}

type Inner struct {
	Level int `json:"level,omitempty" maximum:"5"`
}

type A struct{ X int }
type B struct {
	X int
	Y int `json:"Y,omitempty"`
}
type C struct{ Z int }
type D struct{ Z int } // same depth as C's: both dropped
type E struct {
	W int `json:"W,omitempty"`
}
type F struct {
	W int // untagged: E's tagged W wins
}

type decDoc struct {
	At     time.Time         `json:"at,omitempty"`
	ID     textID            `json:"id,omitempty"`
	Up     upper             `json:"up,omitempty"`
	Data   []byte            `json:"data,omitempty"`
	N      int               `json:"n,omitempty,string" enum:"1,5,9"`
	Small  int8              `json:"small,omitempty"`
	Name   string            `json:"name,omitempty" minLength:"2"`
	Kids   []kid             `json:"kids,omitempty"`
	M      map[string]kid    `json:"m,omitempty"`
	ByN    map[int]string    `json:"byN,omitempty"`
	Any    any               `json:"any,omitempty"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
	Patch  tri               `json:"patch,omitempty"`
	Hidden string            `json:"-"`
	Objs   []map[string]int  `json:"objs,omitempty" uniqueItems:"true"`
	Tags   []string          `json:"tags,omitempty" maxItems:"3" uniqueItems:"true" pattern:"^[a-z]+$" maxLength:"4"`
	Free   map[string]string `json:"free,omitempty"`
	Def    int               `json:"def,omitempty" default:"7" maximum:"9"`
	DefP   *string           `json:"defp,omitempty" default:"x"`
	Labelled
	*Inner
	A
	B
	C
	D
	E
	F
}

type decIn struct {
	Body decDoc
}

func TestDecodeLocated(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"valid", `{"at":"2026-01-02T03:04:05Z","id":"ab","up":"AB","data":"aGk=","n":"5","small":-128,"name":"ab",` +
			`"kids":[{"age":1}],"m":{"x":{"age":1}},"byN":{"1":"a"},"any":{"a":[1,"x",null,true]},"raw":[1, 2],` +
			`"patch":null,"tags":["ab","cd"],"free":{"k":"v"},"label":"abc","level":5,"X":1,"Y":2}`, nil},
		{"time given yesterday", `{"at":"yesterday","label":"abc"}`, []string{"body.at format"}},
		{"text's error", `{"id":"!x","label":"abc"}`, []string{"body.id format"}},
		{"json.Unmarshaler's error", `{"up":"ab","label":"abc"}`, []string{"body.up format"}},
		{"bad base64", `{"data":"a!==","label":"abc"}`, []string{"body.data contentEncoding"}},
		{",string given a number", `{"n":5,"label":"abc"}`, []string{"body.n type"}},
		{",string holding no number", `{"n":"x5","label":"abc"}`, []string{"body.n type"}},
		{",string outside its enum", `{"n":"10","label":"abc"}`, []string{"body.n enum"}},
		{",string holding an exponent", `{"n":"5e0","label":"abc"}`, []string{"body.n type"}},
		{",string holding null", `{"n":"null","label":"abc"}`, []string{"body.n type"}},
		{"integer out of range", `{"small":128,"label":"abc"}`, []string{"body.small type"}},
		{"whole number with a fraction", `{"small":1.0,"label":"abc"}`, nil},
		{"fraction for an integer", `{"small":1.5,"label":"abc"}`, []string{"body.small type"}},
		{"item located", `{"kids":[{"age":1},{"age":-1}],"label":"abc"}`, []string{"body.kids[1].age minimum"}},
		{"item's type located", `{"kids":[{"age":1},{"age":"x"}],"label":"abc"}`, []string{"body.kids[1].age type"}},
		{"map value located", `{"m":{"x":{"age":-1}},"label":"abc"}`, []string{"body.m.x.age minimum"}},
		{"odd keys bracketed", `{"m":{"a.b":{"age":-1},"":{"age":-1},"c[0]":{}},"label":"abc"}`,
			[]string{`body.m[""].age minimum`, `body.m["a.b"].age minimum`, `body.m["c[0]"].age required`}},
		{"int map key", `{"byN":{"x":"a"},"label":"abc"}`, []string{"body.byN.x propertyNames"}},
		{"type failure hides nothing", `{"small":"x","name":"a","kids":[{"age":-1}],"label":"ab"}`,
			[]string{"body.kids[0].age minimum", "body.label minLength", "body.name minLength", "body.small type"}},
		{"lone surrogate", `{"name":"a\ud800b","label":"abc"}`, []string{"body.name type"}},
		{"surrogate pair", `{"name":"\ud83d\ude00","label":"abc"}`, []string{"body.name minLength"}},
		{"any's number out of range", `{"any":[1,1e400],"label":"abc"}`, []string{"body.any[1] type"}},
		{"items: size fails first", `{"tags":["a","b","c","a"],"label":"abc"}`, []string{"body.tags maxItems"}},
		{"items: repeated", `{"tags":["a","a"],"label":"abc"}`, []string{"body.tags uniqueItems"}},
		{"items: long item skips its pattern", `{"tags":["ABCDE"],"label":"abc"}`, []string{"body.tags[0] maxLength"}},
		{"items: pattern", `{"tags":["AB"],"label":"abc"}`, []string{"body.tags[0] pattern"}},
		{"objects repeated in another order", `{"objs":[{"x":1,"y":2},{"y":2,"x":1}],"label":"abc"}`, []string{"body.objs uniqueItems"}},
		{"objects distinct", `{"objs":[{"x":1,"y":2},{"y":2,"x":2}],"label":"abc"}`, nil},
		{"embedded pointer's rules", `{"label":"abc","level":6}`, []string{"body.level maximum"}},
		{"embedded rules", `{"label":"x"}`, []string{"body.label minLength"}},
		{"embedded required", `{}`, []string{"body.label required"}},
		{"collision dropped", `{"label":"abc","Z":"not even a number"}`, nil},
		{"ignored member", `{"label":"abc","Hidden":5}`, nil},
		{"null member of a string", `{"label":null}`, []string{"body.label type"}},
		{"unknown keys ignored", `{"label":"abc","nope":{"a":[1,{"b":2}]}}`, nil},
		{"default within its rules stays", `{"label":"abc","def":10}`, []string{"body.def maximum"}},
	} {
		_, err := bindInto[decIn](t, nil, nil, post(js, tc.body), Body{})
		got, ok := failures(err)
		if err != nil && !ok {
			t.Errorf("%s: got %v, want failures", tc.name, err)
			continue
		}
		if fs, _ := err.(*failed); fs != nil && fs.broken {
			t.Errorf("%s: got a 400 %q, want 422", tc.name, got)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDecodeNotJSON(t *testing.T) {
	for _, body := range []string{
		`{"label":"abc"`, `{"label":"abc"} x`, `{"label":"abc"}{}`, "{\"label\":\"ab\xffc\"}", "{\"label\":\"a\x01\"}",
		`{"label":"abc",}`, `[1,]`, `{"label":'a'}`, `{"n":01}`, `{"n":1.}`, `{"n":-}`, `{"a" 1}`, `{"label":"\x"}`,
		`{"label":"\u12"}`, `nul`, `{"any":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`,
		// A syntax error after member failures: one 400, not their 422s.
		`{"small":"x","name":"a",`,
	} {
		_, err := bindInto[decIn](t, nil, nil, post(js, body), Body{})
		fs, ok := err.(*failed)
		if !ok || !fs.broken || len(fs.list) != 1 || fs.list[0].loc != "body" || fs.list[0].keyword != "syntax" {
			t.Errorf("%.40q: got %v %v, want one 400 body syntax failure", body, err, fs)
		}
	}
}

func TestDecodeValues(t *testing.T) {
	v, err := bindInto[decIn](t, nil, nil, post(js, `{"at":"2026-01-02T03:04:05+01:00","id":"ab","up":"AB","data":"aGk=",`+
		`"n":"5","kids":[{"age":1},{"age":2}],"m":{"x":{"age":3}},"byN":{"-1":"a"},"any":{"a":[1.5,"x",null,true]},`+
		`"raw":[1, 2],"tags":["ab"],"free":{"k":"v","":"w"},"label":"abc","level":5,"X":1,"Y":2,"W":3,"Z":4,"def":8}`), Body{})
	if err != nil {
		t.Fatalf("got %v", err)
	}
	b := v.Body
	want := decDoc{At: time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC), ID: textID{"ab"}, Up: "AB", Data: []byte("hi"), N: 5,
		Kids: []kid{{1}, {2}}, M: map[string]kid{"x": {3}}, ByN: map[int]string{-1: "a"},
		Any: map[string]any{"a": []any{1.5, "x", nil, true}}, Raw: json.RawMessage(`[1, 2]`), Tags: []string{"ab"},
		Free:     map[string]string{"k": "v", "": "w"},
		Labelled: Labelled{"abc"}, Inner: &Inner{5}, B: B{0, 2}, E: E{3}, Def: 8}
	dp := "x"
	want.DefP = &dp
	if !b.At.Equal(want.At) {
		t.Errorf("at: got %v, want %v", b.At, want.At)
	}
	b.At = want.At
	if !reflect.DeepEqual(b, want) {
		t.Errorf("got\n%+v, want\n%+v", b, want)
	}
	// The same body by encoding/json, but for the members it reads
	// otherwise (the collision it drops is the same).
	var ej decDoc
	if err := json.Unmarshal([]byte(`{"X":1,"Y":2,"W":3,"Z":4}`), &ej); err != nil || ej.B != (B{0, 2}) || ej.A != (A{}) || ej.E != (E{3}) || ej.C.Z != 0 || ej.D.Z != 0 {
		t.Errorf("encoding/json: got %+v %v", ej, err)
	}
	if b.A != ej.A || b.C != ej.C || b.D != ej.D || b.F != ej.F {
		t.Errorf("collisions: got %+v, encoding/json %+v", b, ej)
	}
	// Defaults: applied when absent, to a pointer too.
	v, err = bindInto[decIn](t, nil, nil, post(js, `{"label":"abc"}`), Body{})
	if err != nil || v.Body.Def != 7 || v.Body.DefP == nil || *v.Body.DefP != "x" {
		t.Errorf("defaults: got %+v %v", v.Body, err)
	}
}

// TestDecodeMember holds the extension point a json.Unmarshaler member
// is: absent, it is not called; null and a value reach it as their text.
func TestDecodeMember(t *testing.T) {
	for _, tc := range []struct {
		body string
		want tri
	}{
		{`{"label":"abc"}`, tri{}},
		{`{"label":"abc","patch":null}`, tri{Set: true, Null: true}},
		{`{"label":"abc","patch":"v"}`, tri{Set: true, V: "v"}},
	} {
		v, err := bindInto[decIn](t, nil, nil, post(js, tc.body), Body{})
		if err != nil || v.Body.Patch != tc.want {
			t.Errorf("%s: got %+v %v, want %+v", tc.body, v.Body.Patch, err, tc.want)
		}
	}
}

type patchDoc struct {
	Name patch[string] `json:"name" minLength:"3"`
	Age  patch[int]    `json:"age" maximum:"150"`
	Kid  patch[kid]    `json:"kid"`
}

// TestDecodeWrapper holds the Wrapper extension point: a member absent,
// null and sent are told apart, and the wrapped value is decoded and
// checked by the plan, with the member's tags.
func TestDecodeWrapper(t *testing.T) {
	type in struct{ Body patchDoc }
	for _, tc := range []struct {
		body string
		want patchDoc
		fail []string
	}{
		{`{}`, patchDoc{}, nil},
		{`{"name":null,"age":null}`, patchDoc{Name: patch[string]{Set: true, Null: true}, Age: patch[int]{Set: true, Null: true}}, nil},
		{`{"name":"abc","age":3,"kid":{"age":1}}`,
			patchDoc{Name: patch[string]{Set: true, V: "abc"}, Age: patch[int]{Set: true, V: 3}, Kid: patch[kid]{Set: true, V: kid{1}}}, nil},
		{`{"name":"ab","age":151,"kid":{}}`, patchDoc{}, []string{"body.age maximum", "body.kid.age required", "body.name minLength"}},
		{`{"age":"x"}`, patchDoc{}, []string{"body.age type"}},
	} {
		// A body with Wrapper members is a merge patch by default.
		v, err := bindInto[in](t, nil, nil, post("application/merge-patch+json", tc.body), Body{})
		got, _ := failures(err)
		if !slices.Equal(got, tc.fail) {
			t.Errorf("%s: got %q, want %q", tc.body, got, tc.fail)
		}
		if tc.fail == nil && v.Body != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.body, v.Body, tc.want)
		}
	}
}

type optDoc struct {
	Name string `json:"name" minLength:"3"`
}

func TestDecodeOptionalBody(t *testing.T) {
	type optIn struct{ Body *optDoc }
	type reqIn struct{ Body optDoc }
	for _, tc := range []struct {
		ctype, body string
		want        []string
		none        bool
	}{
		{js, `null`, nil, true},
		{js, ` null `, nil, true},
		{js, ``, nil, true},
		{js, `  `, []string{"body syntax"}, true},
		{js, "\r\n", []string{"body syntax"}, true},
		{"", ``, nil, true},
		{js, `{}`, []string{"body.name required"}, false},
		{js, `{"name":"ab"}`, []string{"body.name minLength"}, false},
		{js, `null x`, []string{"body syntax"}, true},
	} {
		v, err := bindInto[optIn](t, nil, nil, post(tc.ctype, tc.body), Body{})
		got, _ := failures(err)
		if !slices.Equal(got, tc.want) || (v.Body == nil) != tc.none {
			t.Errorf("*T %q: got %q, body %v, want %q", tc.body, got, v.Body, tc.want)
		}
	}
	for _, tc := range []struct {
		ctype, body string
		want        []string
	}{
		{js, ``, []string{"body required"}},
		{"", ``, []string{"body required"}},
		{js, " \t\r\n", []string{"body syntax"}},
		{js, `null`, []string{"body type"}},
	} {
		_, err := bindInto[reqIn](t, nil, nil, post(tc.ctype, tc.body), Body{})
		if got, _ := failures(err); !slices.Equal(got, tc.want) {
			t.Errorf("T %q: got %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestDecodeManyFailures(t *testing.T) {
	body := `{"label":"abc","kids":[` + strings.Repeat(`{"age":-1},`, 500) + `{"age":-1}]}`
	_, err := bindInto[decIn](t, nil, nil, post(js, body), Body{})
	fs, ok := err.(*failed)
	if !ok || fs.broken || len(fs.list) != MaxFailures || fs.list[MaxFailures-1].loc != "body.kids[99].age" {
		t.Errorf("got %v, want the first %d failures", err, MaxFailures)
	}
}

func TestDecodePlanErrors(t *testing.T) {
	type badDefault struct {
		Body struct {
			N int `json:"n,omitempty" default:"10" maximum:"9"`
		}
	}
	type badChan struct {
		Body struct {
			C chan int `json:"c"`
		}
	}
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[badDefault](), "default"},
		{reflect.TypeFor[badChan](), "chan"},
	} {
		if _, err := PlanIn(tc.typ, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error about %s", tc.typ, err, tc.want)
		}
	}
}

// An item that fails as a value is not then checked against the rules as
// the zero value it was left at.
func TestDecodeItemTypeFailureAlone(t *testing.T) {
	type in struct {
		Body struct {
			Tags []string `json:"tags" minLength:"2"`
		}
	}
	_, err := bindInto[in](t, nil, nil, post(js, `{"tags":["a",5,"bb"]}`), Body{})
	got, _ := failures(err)
	if want := []string{"body.tags[0] minLength", "body.tags[1] type"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Once a request has failed, or a slice has more items than its
// maxItems, the items past those held are decoded and checked in one
// slot: every failure is still told, at its own index, and the memory
// held stops growing.
func TestDecodeDroppedItems(t *testing.T) {
	type kid struct {
		Age int               `json:"age" minimum:"0"`
		M   map[string]string `json:"m,omitempty"`
	}
	type in struct {
		Body struct {
			Name string   `json:"name" minLength:"1"`
			Tags []string `json:"tags" maxItems:"3" minLength:"2"`
			Kids []kid    `json:"kids"`
			Uniq []string `json:"uniq,omitempty" uniqueItems:"true"`
		}
	}
	items := func(n int, item func(i int) string) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item(i))
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, body string
		want       []string
		held       func(*in) bool
	}{
		{"past maxItems, a bad item far on",
			`{"name":"x","tags":[` + items(1000, func(i int) string {
				if i == 700 {
					return `"a"`
				}
				return `"ab"`
			}) + `],"kids":[]}`,
			[]string{"body.tags maxItems", "body.tags[700] minLength"},
			func(v *in) bool { return len(v.Body.Tags) == 4 }},
		{"after a failure, each kid checked on its own",
			`{"name":"","tags":[],"kids":[` + items(50, func(i int) string {
				if i == 41 {
					return `{"age":-1,"m":{"a":"b"}}`
				}
				return `{"age":1,"m":{"k` + strconv.Itoa(i) + `":"v"}}`
			}) + `]}`,
			[]string{"body.kids[41].age minimum", "body.name minLength"},
			func(v *in) bool { return len(v.Body.Kids) == 1 }},
		{"after a failure, uniqueItems still sees every item",
			`{"name":"","tags":[],"kids":[],"uniq":["\u0061x","\u0062x","c","\u0061x"]}`,
			[]string{"body.name minLength", "body.uniq uniqueItems"}, nil},
		{"after a failure, escaped items are not mistaken for each other",
			`{"name":"","tags":[],"kids":[],"uniq":["\u0061x","\u0062x","c"]}`,
			[]string{"body.name minLength"}, nil},
	} {
		v, err := bindInto[in](t, nil, nil, post(js, tc.body), Body{})
		got, _ := failures(err)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		if tc.held != nil && !tc.held(v) {
			t.Errorf("%s: the slice holds %d tags and %d kids", tc.name, len(v.Body.Tags), len(v.Body.Kids))
		}
	}
}

// A map with string keys holds its keys' text in one array: the keys,
// escaped or not, repeated or not, are encoding/json's, and a failure in
// a value is located at its own key even when the value's strings are
// unescaped over the key's.
func TestDecodeStringMapKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"label":"abc","free":{`)
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		switch i % 3 {
		case 0:
			b.WriteString(`"k` + strconv.Itoa(i) + `":"v"`)
		case 1:
			b.WriteString(`"\u006b` + strconv.Itoa(i) + `\n":"\u0077"`)
		default:
			b.WriteString(`"k` + strconv.Itoa(i-1) + `":"again"`)
		}
	}
	b.WriteString(`}}`)
	got, err := bindInto[decIn](t, nil, nil, post(js, b.String()), Body{})
	if err != nil {
		t.Fatalf("got %v", err)
	}
	var want decDoc
	if err := json.Unmarshal([]byte(b.String()), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Body.Free, want.Free) {
		t.Errorf("got %d keys, want %d as encoding/json has them", len(got.Body.Free), len(want.Free))
	}

	type named struct {
		Name string `json:"name"`
		Age  int    `json:"age" minimum:"0"`
	}
	type in struct {
		Body struct {
			M map[string]named `json:"m"`
		}
	}
	body := `{"m":{"\u0061b":{"name":"\u0078y","age":-1},"c\u0064":{"name":"\u0078y","age":2}}}`
	v, err := bindInto[in](t, nil, nil, post(js, body), Body{})
	if fs, _ := failures(err); !slices.Equal(fs, []string{"body.m.ab.age minimum"}) {
		t.Errorf("got %q, want body.m.ab.age minimum", fs)
	}
	if _, ok := v.Body.M["cd"]; !ok || len(v.Body.M) != 2 {
		t.Errorf("got the map %v, want the keys ab and cd", v.Body.M)
	}
}

// FuzzDecodeAfterFailure holds that a body's failures are the same
// whether or not the request failed before them: once it has, values are
// checked but not kept (slices' items in one slot, strings not copied),
// and that must not change what is told.
func FuzzDecodeAfterFailure(f *testing.F) {
	for _, s := range []string{`{"tags":["a","a","bb"],"kids":[{"age":-1},{"age":2}]}`,
		`{"name":"x","objs":[{"x":1},{"x":1}],"tags":["\u0061","a"]}`,
		`{"kids":[{"age":1},{"age":"x"},{"age":-5}],"m":{"\u0061":{"age":-1}},"free":{"k":"v"}}`,
		`{"words":["a",1,"\ud800","\u0062",null,{"x":"y"},"c"]}`} {
		f.Add(s)
	}
	type in struct {
		Body struct {
			First int      `json:"first" minimum:"1"`
			Words []string `json:"words"`
			decDoc
		}
	}
	list := func(err error) ([]string, bool) {
		fs, _ := err.(*failed)
		if fs == nil {
			return nil, false
		}
		var out []string
		for _, f := range fs.list {
			out = append(out, f.loc+" "+f.keyword+" "+f.msg)
		}
		return out, fs.broken
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) < 2 || text[0] != '{' || strings.Contains(text, "first") {
			return
		}
		rest := text[1:]
		if rest[0] != '}' {
			rest = "," + rest
		}
		_, err := bindInto[in](t, nil, nil, post(js, `{"first":1`+rest), Body{})
		ok, okBroken := list(err)
		_, err = bindInto[in](t, nil, nil, post(js, `{"first":0`+rest), Body{})
		bad, badBroken := list(err)
		if okBroken || badBroken || len(ok) >= MaxFailures-1 {
			return
		}
		if len(bad) == 0 || !strings.HasPrefix(bad[0], "body.first minimum") || !slices.Equal(bad[1:], ok) {
			t.Fatalf("%q: after a failure %q, without %q", text, bad, ok)
		}
	})
}

// A failure dropped with a repeated key's earlier value leaves no value
// unkept: the values read after it, while the request had failed, are
// read again and kept whole, their strings copied.
func TestDecodeFailureTakenBack(t *testing.T) {
	type in struct {
		Body struct {
			Name string   `json:"name" minLength:"1"`
			Tags []string `json:"tags"`
			Note string   `json:"note"`
		}
	}
	tags := make([]string, 20)
	for i := range tags {
		tags[i] = `"t` + strconv.Itoa(i) + `"`
	}
	body := `{"name":"","tags":[` + strings.Join(tags, ",") + `],"note":"kept","name":"ok"}`
	v, err := bindInto[in](t, nil, nil, post(js, body), Body{})
	if err != nil {
		t.Fatalf("got %v", err)
	}
	if len(v.Body.Tags) != 20 || v.Body.Tags[19] != "t19" || v.Body.Name != "ok" {
		t.Fatalf("got %+v", v.Body)
	}
	// The strings are the decoder's own, not views of the body's
	// buffer, which the next request reads into.
	note, last := v.Body.Note, v.Body.Tags[19]
	for range 20 {
		bindInto[in](t, nil, nil, post(js, strings.Repeat(" ", len(body)-2)+"{}"), Body{})
	}
	if v.Body.Note != note || note != "kept" || v.Body.Tags[19] != last {
		t.Errorf("the bound strings changed under the next requests: %q %q", v.Body.Note, v.Body.Tags[19])
	}
}

// bindDest is a destination of DecodeJSON (Context.Bind) with the tags of
// a typed body's rules, which a bare plan does not apply.
type bindDest struct {
	Title  string                 `json:"title" minLength:"3" required:"true"`
	N      int                    `json:"n" maximum:"5" default:"4"`
	Tags   []string               `json:"tags" maxItems:"1"`
	Author *struct{ Name string } `json:"author"`
	Count  int64                  `json:"count,string"`
	Code   upper                  `json:"code"`
	ID     textID                 `json:"id"`
	Patch  patch[int]             `json:"patch"`
	Ch     chan int               `json:"ch"`
	ByKey  map[kid]int            `json:"byKey"`
}

// decodeJSON runs DecodeJSON on a POST of body as JSON into v, and
// returns its error and the failures it sent, as "location keyword:
// message" lines.
func decodeJSON(t testing.TB, v any, body string, b Body) (error, []string) {
	t.Helper()
	var fs failed
	err := DecodeJSON(httptest.NewRecorder(), post(js, body), b, v, &fs)
	var got []string
	for _, f := range fs.list {
		got = append(got, f.loc+" "+f.keyword+": "+f.msg)
	}
	if (err == ErrInvalid) != (len(got) > 0) {
		t.Errorf("%s: got %v with %d failures", body, err, len(got))
	}
	return err, got
}

// TestDecodeJSONBodyErrors: what is not one JSON value, or cannot be read
// at all, is a *BodyError about the body as a whole.
func TestDecodeJSONBodyErrors(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, encoding, body string
		max                         int64
		status                      int
		reason                      Reason
		msg                         string
	}{
		{"no type", "", "", `{}`, 0, 415, ReasonMediaType, "Content-Type must be application/json, got none"},
		{"text", "text/plain", "", `{}`, 0, 415, ReasonMediaType, `Content-Type must be application/json, got "text/plain"`},
		{"bare suffix", "application/+json", "", `{}`, 0, 415, ReasonMediaType, `got "application/+json"`},
		{"encoded", js, "gzip", `{}`, 0, 415, ReasonMediaType, `Content-Encoding "gzip" is not supported`},
		{"too large", js, "", `{"title":"0123456789"}`, 8, 413, ReasonTooLarge, "the body may be at most 8 bytes"},
		{"empty", js, "", ``, 0, 400, ReasonEmpty, "empty body, want a JSON value"},
		{"white space", js, "", " \r\n\t", 0, 400, ReasonEmpty, "empty body, want a JSON value"},
		{"syntax", js, "", `{"n":}`, 0, 400, ReasonSyntax, "malformed JSON at byte offset 5: want a JSON value, got '}'"},
		{"truncated", js, "", `{"n":1`, 0, 400, ReasonSyntax, "malformed JSON at byte offset 6: the body ends inside a value"},
		{"after", js, "", `{} []`, 0, 400, ReasonSyntax, "data after the JSON value, which ends at byte offset 2"},
		{"after a failure", js, "", `{"n":"x"} x`, 0, 400, ReasonSyntax, "data after the JSON value, which ends at byte offset 9"},
		{"syntax after a failure", js, "", `{"n":"x",}`, 0, 400, ReasonSyntax, "malformed JSON at byte offset 9"},
		{"invalid UTF-8", js, "", "{\"title\":\"\xff\"}", 0, 400, ReasonSyntax, "invalid UTF-8 inside a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := post(tc.ctype, tc.body)
			if tc.encoding != "" {
				req.Header.Set("Content-Encoding", tc.encoding)
			}
			var v bindDest
			var fs failed
			err := DecodeJSON(httptest.NewRecorder(), req, Body{MaxBytes: tc.max}, &v, &fs)
			var be *BodyError
			if !errors.As(err, &be) || be.Status != tc.status || be.Reason != tc.reason || !strings.Contains(be.Message, tc.msg) {
				t.Fatalf("got %#v, want %d, reason %d, with %q", err, tc.status, tc.reason, tc.msg)
			}
			if be.Error() != be.Message || be.Encoding != (tc.encoding != "") || len(fs.list) > 0 {
				t.Errorf("got %+v and failures %v", be, fs.list)
			}
		})
	}
	var v struct{ N int }
	if err := DecodeJSON(httptest.NewRecorder(), post("application/problem+json; charset=utf-8", `{"N":2}`), Body{}, &v, &failed{}); err != nil || v.N != 2 {
		t.Errorf("a +json type: got %v %v", v.N, err)
	}
}

// TestDecodeJSONMisuse: a destination that is not a non-nil pointer is
// the caller's mistake, a plain error, found before the request is read.
func TestDecodeJSONMisuse(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{bindDest{}, "waltz: Bind: want a non-nil pointer, got typed.bindDest"},
		{(*bindDest)(nil), "waltz: Bind: want a non-nil pointer, got a nil *typed.bindDest"},
		{nil, "waltz: Bind: want a non-nil pointer, got <nil>"},
	} {
		err := DecodeJSON(httptest.NewRecorder(), post("text/plain", `{}`), Body{}, tc.v, &failed{})
		var be *BodyError
		if err == nil || errors.As(err, &be) || err.Error() != tc.want {
			t.Errorf("%T: got %v, want %s", tc.v, err, tc.want)
		}
	}
}

// TestDecodeJSONFailures: a body that is JSON but does not fit sends each
// failure, located as in a typed body, and returns ErrInvalid; keys match
// members exactly; a bare plan applies none of the tags' rules.
func TestDecodeJSONFailures(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		strict     bool
		want       []string
	}{
		{"rules not applied", `{"title":"","n":9,"tags":["a","b","c"]}`, false, nil},
		{"required not applied", `{}`, false, nil},
		{"null leaves values", `{"title":null,"n":null,"count":null,"code":null,"id":null,"ch":null}`, false, nil},
		{"type", `{"n":"x"}`, false, []string{"body.n type: must be an integer, got a string"}},
		{"nested", `{"author":{"Name":5}}`, false, []string{"body.author.Name type: must be a string, got a number"}},
		{"item", `{"tags":["a",1]}`, false, []string{"body.tags[1] type: must be a string, got a number"}},
		{"top", `[]`, false, []string{"body type: must be an object, got an array"}},
		{"every failure", `{"title":1,"n":true}`, false,
			[]string{"body.title type: must be a string, got a number", "body.n type: must be an integer, got a boolean"}},
		{"unknown key", `{"extra":1}`, false, nil},
		{"unknown key, strict", `{"extra":1}`, true, []string{`body additionalProperties: has an unknown member "extra"`}},
		{"letter case", `{"Title":"a","N":1}`, false, nil},
		{"letter case, strict", `{"Title":"a"}`, true, []string{`body additionalProperties: has an unknown member "Title"`}},
		{"nested letter case, strict", `{"author":{"name":"a"}}`, true,
			[]string{`body.author additionalProperties: has an unknown member "name"`}},
		{",string", `{"count":7}`, false, []string{"body.count type: must be a string holding an integer, got a number"}},
		{"unmarshaler", `{"code":"lower"}`, false, []string{"body.code format: is not valid: wants upper case"}},
		{"text", `{"id":"!x"}`, false, []string{`body.id format: is not valid: bad id, got "!x"`}},
		{"wrapper", `{"patch":"x"}`, false, []string{"body.patch type: must be an integer, got a string"}},
		{"a channel takes null only", `{"ch":1}`, false, []string{"body.ch type: must be null, got a number"}},
		{"a map by struct keys takes null only", `{"byKey":{}}`, false, []string{"body.byKey type: must be null, got an object"}},
		{"repeated key, the last counts", `{"n":"x","n":1}`, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v bindDest
			err, got := decodeJSON(t, &v, tc.body, Body{Strict: tc.strict})
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v %q, want %q", err, got, tc.want)
			}
		})
	}
}

// TestDecodeJSONValues: what a bare plan stores, into the kinds of
// destination Bind takes.
func TestDecodeJSONValues(t *testing.T) {
	v := bindDest{Title: "kept", N: 3, Count: 1}
	if err, fs := decodeJSON(t, &v, `{"title":null,"count":"12","code":"AB","id":"x","patch":2,"tags":["a"],"author":{"Name":"b"}}`, Body{}); err != nil {
		t.Fatalf("got %v %q", err, fs)
	}
	if v.Title != "kept" || v.N != 3 || v.Count != 12 || v.Code != "AB" || v.ID.s != "x" || !v.Patch.Set || v.Patch.V != 2 ||
		!slices.Equal(v.Tags, []string{"a"}) || v.Author == nil || v.Author.Name != "b" {
		t.Errorf("got %+v", v)
	}
	when := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
	for _, tc := range []struct {
		v    any // a pointer to a zero value
		body string
		want any
	}{
		{new(map[string]int), `{"a":1,"b":2}`, map[string]int{"a": 1, "b": 2}},
		{new(map[string]any), `{"a":[1,"x",null]}`, map[string]any{"a": []any{1.0, "x", nil}}},
		{new([]int), `[1,2,3]`, []int{1, 2, 3}},
		{new(any), `{"a":true}`, map[string]any{"a": true}},
		{new(int), `-7`, -7},
		{new(uint8), `255`, uint8(255)},
		{new(float64), `1.5e3`, 1500.0},
		{new(string), `"\u00e9\n"`, "é\n"},
		{new(json.RawMessage), ` {"a": 1} `, json.RawMessage(`{"a": 1}`)},
		{new(time.Time), `"2026-12-06T01:02:03Z"`, when},
		{new([]byte), `"aGk="`, []byte("hi")},
		{new(*kid), `{"age":-1}`, &kid{Age: -1}},
		{new([2]int), `[1,2,3]`, [2]int{1, 2}},
	} {
		if err, fs := decodeJSON(t, tc.v, tc.body, Body{}); err != nil {
			t.Errorf("%T %s: got %v %q", tc.v, tc.body, err, fs)
			continue
		}
		if got := reflect.ValueOf(tc.v).Elem().Interface(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%T %s: got %#v, want %#v", tc.v, tc.body, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v          any
		body, want string
	}{
		{new(uint8), `256`, "body type: must be an integer from 0 to 255, got 256"},
		{new(time.Time), `"yesterday"`, `body format: must be a date-time as RFC 3339 writes it, such as 2006-01-02T15:04:05Z, got "yesterday"`},
		{new([]byte), `"!"`, "body contentEncoding: must be base64 (RFC 4648 section 4), with padding"},
		{new(map[int]int), `{"x":1}`, `body.x propertyNames: must be an integer, got "x"`},
	} {
		err, got := decodeJSON(t, tc.v, tc.body, Body{})
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%T %s: got %v %q, want %q", tc.v, tc.body, err, got, tc.want)
		}
	}
}

// TestDecodeJSONPlans: a destination type is planned on its first
// DecodeJSON, bare, and the plan kept.
func TestDecodeJSONPlans(t *testing.T) {
	type once struct {
		A string `json:"a" minLength:"9"`
	}
	typ := reflect.TypeFor[once]()
	if _, ok := bindPlans.Load(typ); ok {
		t.Fatal("planned before its first DecodeJSON")
	}
	var v once
	if err, fs := decodeJSON(t, &v, `{"a":"x"}`, Body{}); err != nil {
		t.Fatalf("got %v %q", err, fs)
	}
	p, ok := bindPlans.Load(typ)
	if !ok {
		t.Fatal("no plan kept")
	}
	if n := p.(*dnode); n.must || n.fields[0].node.rules != nil || n.fields[0].node.null != "" {
		t.Errorf("the plan has what the tags add: %+v", n.fields[0].node)
	}
	decodeJSON(t, &v, `{"a":"y"}`, Body{})
	if p2, _ := bindPlans.Load(typ); p2 != p || v.A != "y" {
		t.Errorf("planned again, or not used: %v", v)
	}
}

// TestDecodeJSONKeepsCopies: every string DecodeJSON stores is a copy,
// passing body or failing: the caller's value outlives the body's
// buffer, which the next request reads into.
func TestDecodeJSONKeepsCopies(t *testing.T) {
	for _, body := range []string{
		`{"title":"first","tags":["one","two"]}`,
		`{"n":"x","title":"first","tags":["one","two"]}`, // failed before the strings
	} {
		var v bindDest
		decodeJSON(t, &v, body, Body{})
		var w bindDest
		decodeJSON(t, &w, strings.Repeat("x", len(body)), Body{})
		if v.Title != "first" || !slices.Equal(v.Tags, []string{"one", "two"}) {
			t.Errorf("%s: got %q %q after the buffer was read into again", body, v.Title, v.Tags)
		}
	}
}

// TestDecodeJSONManyFailures: the sink gets the first MaxFailures.
func TestDecodeJSONManyFailures(t *testing.T) {
	var v []string
	err, got := decodeJSON(t, &v, "["+strings.Repeat("1,", 150)+"1]", Body{})
	if err != ErrInvalid || len(got) != MaxFailures || got[MaxFailures-1] != "body[99] type: must be a string, got a number" {
		t.Errorf("got %v, %d failures, the last %q", err, len(got), got[len(got)-1])
	}
}

// deepNode is a recursive struct, for nesting past maxDepth.
type deepNode struct {
	Next *deepNode `json:"n"`
}

// TestDecodeObjectKeys: map keys by their key type, keys that hold a
// lone surrogate escape, and values held as any.
func TestDecodeObjectKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		body string
		want []string
	}{
		{"int keys", new(map[int8]bool), `{"1":true,"-2":false}`, nil},
		{"an int key out of range", new(map[int8]bool), `{"300":true}`,
			[]string{`body.300 propertyNames: must be an integer from -128 to 127, got "300"`}},
		{"uint keys", new(map[uint16]int), `{"7":1}`, nil},
		{"a negative uint key", new(map[uint]int), `{"-1":1}`,
			[]string{`body.-1 propertyNames: must be a non-negative integer, got "-1"`}},
		{"text keys", new(map[textID]int), `{"a":1}`, nil},
		{"a text key refused", new(map[textID]int), `{"!a":1}`, []string{`body.!a propertyNames: is not valid: bad id, got "!a"`}},
		{"a lone surrogate in a key", new(map[string]int), `{"\ud800":1}`,
			[]string{"body.\ufffd type: must be Unicode text, got a lone UTF-16 surrogate escape"}},
		{"a lone surrogate in an int map's key", new(map[string]*int), `{"\udc00":1}`,
			[]string{"body.\ufffd type: must be Unicode text, got a lone UTF-16 surrogate escape"}},
		{"a lone surrogate in an any's key", new(any), `{"\ud800":1}`,
			[]string{"body.\ufffd type: must be Unicode text, got a lone UTF-16 surrogate escape"}},
		{"a lone surrogate in an any's string", new(any), `["\ud800"]`,
			[]string{`body[0] type: must be Unicode text, got a lone UTF-16 surrogate escape`}},
		{"a number past float64", new(any), `[1e999]`, []string{`body[0] type: must be a number a float64 holds, got "1e999"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, got := decodeJSON(t, tc.v, tc.body, Body{})
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v %q, want %q", err, got, tc.want)
			}
		})
	}
	m := map[string]int{"kept": 1}
	if err, fs := decodeJSON(t, &m, `{"a":2}`, Body{}); err != nil || m["kept"] != 1 || m["a"] != 2 {
		t.Errorf("into a map that has keys: got %v %v %q", m, err, fs)
	}
	ma := map[string]any{"kept": true}
	if err, fs := decodeJSON(t, &ma, `{"a":null}`, Body{}); err != nil || ma["kept"] != true || len(ma) != 2 {
		t.Errorf("into a map[string]any that has keys: got %v %v %q", ma, err, fs)
	}
	for _, tc := range []struct {
		v    any
		body string
	}{
		{new(deepNode), strings.Repeat(`{"n":`, maxDepth+1)},
		{new(map[string]map[string]any), `{"a":` + strings.Repeat(`{"b":`, maxDepth)},
		{new(map[int]int), `{"1":` + strings.Repeat("[", maxDepth)},
		{new(any), `[` + strings.Repeat(`{"a":`, maxDepth)},
		{new(any), `[}`},
	} {
		var be *BodyError
		if err := DecodeJSON(httptest.NewRecorder(), post(js, tc.body), Body{}, tc.v, &failed{}); !errors.As(err, &be) || be.Status != 400 {
			t.Errorf("%T %.20s…: got %v, want a 400", tc.v, tc.body, err)
		}
	}
}

// TestDecodeMapValueRules: a map member's value rules are each value's,
// JSON Schema's additionalProperties: checked on every value, each
// failure at its key (an odd key quoted), and written in the schema on
// additionalProperties. They were refused at registration.
func TestDecodeMapValueRules(t *testing.T) {
	type body struct {
		Labels map[string]string `json:"labels,omitempty" minLength:"1" maxLength:"3" pattern:"^[a-z]*$"`
		Counts map[string]int    `json:"counts,omitempty" maximum:"9"`
		Ptrs   map[int]*float64  `json:"ptrs,omitempty" exclusiveMinimum:"0"`
		Opt    *map[string]uint8 `json:"opt,omitempty" enum:"1,2"`
	}
	type in struct{ Body body }
	for _, tc := range []struct {
		text string
		want []string
	}{
		{`{"labels":{"a":"x","b":"abc"},"counts":{"n":9},"ptrs":{"1":0.5,"2":null},"opt":{"o":2}}`, nil},
		{`{"labels":{"a":"","b.c":"abcd","ok":"x","z":"A"},"counts":{"n":10,"m":1},"ptrs":{"-1":0},"opt":{"o":3}}`, []string{
			`body.counts.n maximum`, `body.labels.a minLength`, `body.labels.z pattern`, `body.labels["b.c"] maxLength`,
			`body.opt.o enum`, `body.ptrs.-1 exclusiveMinimum`}},
	} {
		_, err := bindInto[in](t, nil, nil, post(js, tc.text), Body{})
		got, _ := failures(err)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.text, got, tc.want)
		}
	}
	g := NewSchemas(false)
	b, _ := json.Marshal(g.object(reflect.TypeFor[body]()))
	for _, want := range []string{
		`"labels":{"type":"object","additionalProperties":{"type":"string","minLength":1,"maxLength":3,"pattern":"^[a-z]*$"}}`,
		`"counts":{"type":"object","additionalProperties":{"type":"integer","format":"int64","maximum":9}}`,
		`"ptrs":{"type":"object","propertyNames":{"pattern":"^([+-]?0*(0|[1-9][0-9]{0,17}|[1-8][0-9]{18}|9[0-1][0-9]{17}|92[0-1][0-9]{16}|922[0-2][0-9]{15}|9223[0-2][0-9]{14}|92233[0-6][0-9]{13}|922337[0-1][0-9]{12}|92233720[0-2][0-9]{10}|922337203[0-5][0-9]{9}|9223372036[0-7][0-9]{8}|92233720368[0-4][0-9]{7}|922337203685[0-3][0-9]{6}|9223372036854[0-6][0-9]{5}|92233720368547[0-6][0-9]{4}|922337203685477[0-4][0-9]{3}|9223372036854775[0-7][0-9]{2}|922337203685477580[0-7])|-0*9223372036854775808)$"},"additionalProperties":{"type":["number","null"],"format":"double","exclusiveMinimum":0}}`,
		`"opt":{"type":["object","null"],"additionalProperties":{"type":"integer","enum":[1,2],"minimum":0,"maximum":255}}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema %s\nwant it to hold %s", b, want)
		}
	}
	// A count of items is no map's rule (minProperties is not checked).
	type items struct {
		Body struct {
			M map[string]string `json:"m" minItems:"1"`
		}
	}
	if _, err := PlanIn(reflect.TypeFor[items](), nil); err == nil || !strings.Contains(err.Error(), "applies to slices") {
		t.Errorf("minItems on a map: got %v, want it refused", err)
	}
}

// TestDecodeNotJSONMessages holds the words of a body that begins with no
// JSON value: a byte order mark is named as one, and a byte that begins
// no ASCII character is shown as a byte, not as the Latin-1 letter of
// its value.
func TestDecodeNotJSONMessages(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"\xEF\xBB\xBF{}", "byte order mark"},
		{"\xEF{}", "the byte 0xEF"},
		{"\xFF", "the byte 0xFF"},
		{"x", "got 'x'"},
	} {
		_, err := bindInto[decIn](t, nil, nil, post(js, tc.body), Body{})
		fs, ok := err.(*failed)
		if !ok || len(fs.list) != 1 || !strings.Contains(fs.list[0].msg, tc.want) {
			t.Errorf("%q: got %v, want a message with %q", tc.body, fs, tc.want)
		}
	}
}

// TestDecodeFloat32Bounds: a float32 is judged as the field holds it, the
// same as a member, as an item and as a query param: 0.1 keeps to maximum
// 0.1, and a decimal that rounds to an exclusive bound is refused, so
// that the handler never holds the bound.
func TestDecodeFloat32Bounds(t *testing.T) {
	type in struct {
		Q    float32 `query:"q" exclusiveMaximum:"1"`
		Body struct {
			S float32   `json:"s" maximum:"0.1"`
			A []float32 `json:"a" maximum:"0.1"`
			X float32   `json:"x,omitempty" exclusiveMaximum:"1"`
			Y []float32 `json:"y,omitempty" exclusiveMaximum:"1"`
		}
	}
	for _, tc := range []struct {
		target, body string
		want         []string
	}{
		{"/?q=0.5", `{"s":0.1,"a":[0.1]}`, nil},
		{"/?q=0.99999999999", `{"s":0.1,"a":[0.1]}`, []string{"query.q exclusiveMaximum"}},
		{"/?q=0.5", `{"s":0.1,"a":[0.1],"x":0.99999999999,"y":[0.99999999999]}`, []string{"body.x exclusiveMaximum", "body.y[0] exclusiveMaximum"}},
		{"/?q=0.5", `{"s":0.1000001,"a":[0.1000001]}`, []string{"body.a[0] maximum", "body.s maximum"}},
	} {
		req := post(js, tc.body)
		req.URL.RawQuery = strings.TrimPrefix(tc.target, "/?")
		_, err := bindInto[in](t, nil, nil, req, Body{})
		if got, _ := failures(err); !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: got %q, want %q", tc.target, tc.body, got, tc.want)
		}
	}
}
