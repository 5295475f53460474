package typed

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// rulesOf parses the rule tags tag of a field of type T.
func rulesOf[T any](tag string, slice bool) (*rules, error) {
	return parseRules(reflect.StructTag(tag), codecFor(reflect.TypeFor[T]()), slice)
}

// TestRuleKeywords checks each keyword passing and failing a value.
func TestRuleKeywords(t *testing.T) {
	type check struct {
		value string
		want  string // the keywords broken, joined by ","
	}
	for _, tc := range []struct {
		name   string
		rules  func() (*rules, error)
		checks []check
	}{
		{"minimum", func() (*rules, error) { return rulesOf[int](`minimum:"2"`, false) },
			[]check{{"2", ""}, {"1", "minimum"}}},
		{"exclusiveMinimum", func() (*rules, error) { return rulesOf[float64](`exclusiveMinimum:"0"`, false) },
			[]check{{"0.1", ""}, {"0", "exclusiveMinimum"}}},
		{"maximum", func() (*rules, error) { return rulesOf[uint](`maximum:"10"`, false) },
			[]check{{"10", ""}, {"11", "maximum"}}},
		// A float32 is read in its own precision, and so is its bound.
		{"maximum of a float32", func() (*rules, error) { return rulesOf[float32](`maximum:"0.1"`, false) },
			[]check{{"0.1", ""}, {"0.1000001", "maximum"}}},
		{"minimum of a float32", func() (*rules, error) { return rulesOf[float32](`minimum:"0.7"`, false) },
			[]check{{"0.7", ""}, {"0.6999999", "minimum"}}},
		// The bound is read straight into a float32, as the value is,
		// not rounded twice (through a float64 that lands halfway
		// between two float32s): the bound's own text is within it.
		{"maximum of a float32, rounded once", func() (*rules, error) { return rulesOf[float32](`maximum:"1.00000005960464477539062501"`, false) },
			[]check{{"1.00000005960464477539062501", ""}, {"1.0000002", "maximum"}}},
		{"minimum of a float32, rounded once", func() (*rules, error) { return rulesOf[float32](`minimum:"1.00000005960464477539062501"`, false) },
			[]check{{"1.00000005960464477539062501", ""}, {"1", "minimum"}}},
		// An exclusive bound is never the value the field holds: a
		// decimal that rounds to the bound is refused.
		{"exclusiveMaximum of a float32", func() (*rules, error) { return rulesOf[float32](`exclusiveMaximum:"1"`, false) },
			[]check{{"0.9999999", ""}, {"0.99999999999", "exclusiveMaximum"}}},
		{"exclusiveMinimum of a float32", func() (*rules, error) { return rulesOf[float32](`exclusiveMinimum:"0"`, false) },
			[]check{{"1e-45", ""}, {"1e-50", "exclusiveMinimum"}}},
		{"exclusiveMaximum", func() (*rules, error) { return rulesOf[int](`exclusiveMaximum:"10"`, false) },
			[]check{{"9", ""}, {"10", "exclusiveMaximum"}}},
		{"multipleOf int", func() (*rules, error) { return rulesOf[int](`multipleOf:"3"`, false) },
			[]check{{"9", ""}, {"10", "multipleOf"}}},
		{"multipleOf uint", func() (*rules, error) { return rulesOf[uint](`multipleOf:"4"`, false) },
			[]check{{"8", ""}, {"9", "multipleOf"}}},
		{"multipleOf float", func() (*rules, error) { return rulesOf[float64](`multipleOf:"0.5"`, false) },
			[]check{{"1.5", ""}, {"1.2", "multipleOf"}}},
		{"multipleOf fractional on an int", func() (*rules, error) { return rulesOf[int](`multipleOf:"2.5"`, false) },
			[]check{{"5", ""}, {"6", "multipleOf"}}},
		{"minLength", func() (*rules, error) { return rulesOf[string](`minLength:"2"`, false) },
			[]check{{"éé", ""}, {"é", "minLength"}}},
		{"maxLength", func() (*rules, error) { return rulesOf[string](`maxLength:"1"`, false) },
			[]check{{"é", ""}, {"ab", "maxLength"}}},
		{"pattern", func() (*rules, error) { return rulesOf[string](`pattern:"^[a-z]+$"`, false) },
			[]check{{"abc", ""}, {"ABC", "pattern"}}},
		// As ECMA-262 reads it, which the document's JSON Schema does.
		{"pattern's .", func() (*rules, error) { return rulesOf[string](`pattern:"^a.b$"`, false) },
			[]check{{"a-b", ""}, {"a\rb", "pattern"}}},
		{"pattern's \\S", func() (*rules, error) { return rulesOf[string](`pattern:"^\\S+$"`, false) },
			[]check{{"ab", ""}, {"a\u00a0b", "pattern"}}},
		{"format", func() (*rules, error) { return rulesOf[string](`format:"email"`, false) },
			[]check{{"a@b.example", ""}, {"nope", "format"}}},
		{"format date-time on a time", func() (*rules, error) { return rulesOf[time.Time](`format:"date-time"`, false) },
			[]check{{"2026-01-02T03:04:05Z", ""}}},
		{"enum strings", func() (*rules, error) { return rulesOf[string](`enum:"a,b"`, false) },
			[]check{{"b", ""}, {"c", "enum"}}},
		{"enum ints", func() (*rules, error) { return rulesOf[int](`enum:"1,2"`, false) },
			[]check{{"2", ""}, {"3", "enum"}}},
		{"enum uints", func() (*rules, error) { return rulesOf[uint](`enum:"1,2"`, false) },
			[]check{{"1", ""}, {"3", "enum"}}},
		{"enum floats", func() (*rules, error) { return rulesOf[float64](`enum:"0.5,1"`, false) },
			[]check{{"0.5", ""}, {"2", "enum"}}},
		{"enum times", func() (*rules, error) {
			return rulesOf[time.Time](`enum:"2026-01-02T03:04:05Z"`, false)
		}, []check{{"2026-01-02T04:04:05+01:00", ""}, {"2026-01-02T03:04:06Z", "enum"}}},
		{"several", func() (*rules, error) { return rulesOf[int](`minimum:"5" multipleOf:"2"`, false) },
			[]check{{"6", ""}, {"3", "minimum,multipleOf"}}},
	} {
		rs, err := tc.rules()
		if err != nil || rs == nil {
			t.Errorf("%s: got %v %v, want rules", tc.name, rs, err)
			continue
		}
		for _, ck := range tc.checks {
			v, kw, _ := rs.codec.parse(ck.value)
			if kw != "" {
				t.Fatalf("%s: %q does not parse", tc.name, ck.value)
			}
			var kws []string
			for _, f := range rs.check(v, nil) {
				kws = append(kws, f.keyword)
				if !strings.HasPrefix(f.message, "must ") {
					t.Errorf("%s: message %q", tc.name, f.message)
				}
			}
			if got := strings.Join(kws, ","); got != ck.want {
				t.Errorf("%s %q: got %q, want %q", tc.name, ck.value, got, ck.want)
			}
		}
	}
}

func TestRuleItems(t *testing.T) {
	rs, err := rulesOf[string](`minItems:"1" maxItems:"2" uniqueItems:"true"`, true)
	if err != nil {
		t.Fatal(err)
	}
	one := func(s string) scalar { v, _, _ := rs.codec.parse(s); return v }
	for _, tc := range []struct {
		vals []scalar
		want string
	}{
		{[]scalar{one("a")}, ""},
		{nil, "minItems"},
		{[]scalar{one("a"), one("b"), one("c")}, "maxItems"},
		{[]scalar{one("a"), one("a")}, "uniqueItems"},
	} {
		var kws []string
		distinct := func() bool {
			for i := range tc.vals {
				for j := range i {
					if rs.same(tc.vals[i], tc.vals[j]) {
						return false
					}
				}
			}
			return true
		}
		for _, f := range rs.checkItems(len(tc.vals), distinct, nil) {
			kws = append(kws, f.keyword)
		}
		if got := strings.Join(kws, ","); got != tc.want {
			t.Errorf("%d items: got %q, want %q", len(tc.vals), got, tc.want)
		}
	}
	if rs, _ := rulesOf[string](`doc:"x"`, false); rs != nil {
		t.Errorf("no keyword: got rules %+v, want none", rs)
	}
}

// TestRuleTagErrors checks that a tag a field cannot have is refused,
// with the tag in the message.
func TestRuleTagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"minimum on a string", func() error { _, err := rulesOf[string](`minimum:"1"`, false); return err }, "applies to numbers"},
		{"minimum not a number", func() error { _, err := rulesOf[int](`minimum:"x"`, false); return err }, "is no number as JSON writes one"},
		// Bounds strconv takes and JSON does not write, which the
		// document would show as they are (FuzzRuleTags found "00").
		{"maximum with a leading zero", func() error { _, err := rulesOf[uint16](`exclusiveMaximum:"00"`, false); return err }, "is no number as JSON writes one"},
		{"minimum with a plus", func() error { _, err := rulesOf[int](`minimum:"+1"`, false); return err }, "is no number as JSON writes one"},
		{"maximum NaN", func() error { _, err := rulesOf[float64](`maximum:"NaN"`, false); return err }, "is no number as JSON writes one"},
		{"maximum in hex", func() error { _, err := rulesOf[float64](`maximum:"0x1p4"`, false); return err }, "is no number as JSON writes one"},
		{"multipleOf with a leading zero", func() error { _, err := rulesOf[float64](`multipleOf:"00.5"`, false); return err }, "positive number"},
		{"minimum fractional on an int", func() error { _, err := rulesOf[int](`minimum:"1.5"`, false); return err }, "not a number"},
		{"maximum negative on a uint", func() error { _, err := rulesOf[uint](`maximum:"-1"`, false); return err }, "not a number"},
		// A bound beyond a float's range toward it leaves no value.
		{"minimum beyond a float32", func() error { _, err := rulesOf[float32](`minimum:"1e39"`, false); return err }, "no float32 is within minimum 1e39"},
		{"maximum below a float32", func() error { _, err := rulesOf[float32](`maximum:"-1e39"`, false); return err }, "no float32 is within maximum -1e39"},
		{"exclusiveMinimum at a float32's top", func() error { _, err := rulesOf[float32](`exclusiveMinimum:"3.4028235e38"`, false); return err }, "no float32 is within"},
		{"maximum beyond a float64", func() error { _, err := rulesOf[float64](`maximum:"1e400"`, false); return err }, "not a number the field can hold (float64)"},
		{"maximum beyond a float64, on a float32", func() error { _, err := rulesOf[float32](`maximum:"1e400"`, false); return err }, "not a number the field can hold (float32)"},
		{"float32 bounds beyond, upside down", func() error { _, err := rulesOf[float32](`minimum:"1e39" maximum:"5"`, false); return err }, "maximum 5 is below minimum 1e39"},
		{"max below min", func() error { _, err := rulesOf[int](`minimum:"5" maximum:"1"`, false); return err }, "below minimum"},
		// Rule sets no value keeps: a field that could only be a 422.
		{"equal bounds, one exclusive", func() error { _, err := rulesOf[float64](`minimum:"1" exclusiveMaximum:"1"`, false); return err }, "no float64 is within"},
		{"no integer between", func() error { _, err := rulesOf[int](`exclusiveMinimum:"3" exclusiveMaximum:"4"`, false); return err }, "no integer is within"},
		{"no integer between, uint", func() error { _, err := rulesOf[uint8](`exclusiveMinimum:"3" maximum:"3"`, false); return err }, "no integer is within"},
		{"no multiple between", func() error { _, err := rulesOf[int](`minimum:"1" maximum:"4" multipleOf:"5"`, false); return err }, "no multiple of 5"},
		{"no multiple between, negative", func() error { _, err := rulesOf[int64](`minimum:"-9" maximum:"-6" multipleOf:"5"`, false); return err }, "no multiple of 5"},
		// A bound beyond the type's range, or an exclusive one at its edge,
		// leaves no value it holds; two float neighbours both excluded
		// leave none between them.
		{"exclusiveMaximum 0 on a uint", func() error { _, err := rulesOf[uint](`exclusiveMaximum:"0"`, false); return err }, "no integer is within exclusiveMaximum 0 and the range of uint"},
		{"minimum beyond a uint8", func() error { _, err := rulesOf[uint8](`minimum:"300"`, false); return err }, "no integer is within minimum 300 and the range of uint8, 0 to 255"},
		{"exclusiveMinimum at an int8's top", func() error { _, err := rulesOf[int8](`exclusiveMinimum:"127"`, false); return err }, "no integer is within"},
		{"exclusiveMinimum at a uint64's top", func() error { _, err := rulesOf[uint64](`exclusiveMinimum:"18446744073709551615"`, false); return err }, "no integer is within"},
		{"no multiple in an int8", func() error { _, err := rulesOf[int8](`minimum:"1" multipleOf:"200"`, false); return err }, "no multiple of 200 is within minimum 1 and the range of int8, -128 to 127"},
		{"no integer multiple of a fraction", func() error { _, err := rulesOf[int](`minimum:"1" maximum:"4" multipleOf:"2.5"`, false); return err }, "no multiple of 2.5"},
		{"float64 neighbours excluded", func() error {
			_, err := rulesOf[float64](`exclusiveMinimum:"0" exclusiveMaximum:"5e-324"`, false)
			return err
		}, "no float64 is within"},
		{"float32 neighbours excluded", func() error {
			_, err := rulesOf[float32](`exclusiveMinimum:"1" exclusiveMaximum:"1.0000001"`, false)
			return err
		}, "no float32 is within"},
		{"minLength above maxLength", func() error { _, err := rulesOf[string](`minLength:"5" maxLength:"3"`, false); return err }, "minLength 5 is above maxLength 3"},
		{"unique items of too small an enum", func() error {
			_, err := rulesOf[string](`uniqueItems:"true" minItems:"3" enum:"a,b,a"`, true)
			return err
		}, "above the 2 values of the enum"},
		{"minItems above maxItems", func() error { _, err := rulesOf[string](`minItems:"2" maxItems:"1"`, true); return err }, "minItems 2 is above maxItems 1"},
		{"enum above maximum", func() error { _, err := rulesOf[int](`maximum:"10" enum:"1,20"`, false); return err }, `enum value "20" breaks maximum`},
		{"enum against its pattern", func() error { _, err := rulesOf[string](`pattern:"^[a-z]+$" enum:"ok,NO"`, false); return err }, `enum value "NO" breaks pattern`},
		{"enum too long", func() error { _, err := rulesOf[string](`maxLength:"2" enum:"ab,abc"`, false); return err }, `enum value "abc" breaks maxLength`},
		{"minimum and exclusiveMinimum", func() error { _, err := rulesOf[int](`minimum:"5" exclusiveMinimum:"1"`, false); return err }, "keep one"},
		{"maximum and exclusiveMaximum", func() error { _, err := rulesOf[float64](`maximum:"1" exclusiveMaximum:"5"`, false); return err }, "keep one"},
		{"multipleOf zero", func() error { _, err := rulesOf[int](`multipleOf:"0"`, false); return err }, "positive number"},
		{"minLength on an int", func() error { _, err := rulesOf[int](`minLength:"1"`, false); return err }, "on a string field"},
		{"maxLength negative", func() error { _, err := rulesOf[string](`maxLength:"-1"`, false); return err }, "on a string field"},
		{"pattern bad", func() error { _, err := rulesOf[string](`pattern:"("`, false); return err }, "regular expression"},
		{"pattern with a flag", func() error { _, err := rulesOf[string](`pattern:"(?i)^abc$"`, false); return err }, "ECMA-262"},
		{"format unknown", func() error { _, err := rulesOf[string](`format:"color"`, false); return err }, "no format"},
		{"format on an int", func() error { _, err := rulesOf[int](`format:"uuid"`, false); return err }, "applies to strings"},
		{"enum bad value", func() error { _, err := rulesOf[int](`enum:"1,x"`, false); return err }, `value "x"`},
		{"items on a scalar", func() error { _, err := rulesOf[string](`maxItems:"1"`, false); return err }, "applies to slices"},
		{"uniqueItems not a bool", func() error { _, err := rulesOf[string](`uniqueItems:"yes"`, true); return err }, "true or false"},
		{"minItems not a count", func() error { _, err := rulesOf[string](`minItems:"x"`, true); return err }, "non-negative"},
	} {
		err := tc.err()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// fuzzCarriers are the struct types whose one field FuzzRuleTags gives a
// tag: a field of each kind a rule may meet.
var fuzzCarriers = []reflect.Type{
	reflect.TypeFor[struct{ F string }](),
	reflect.TypeFor[struct{ F int }](),
	reflect.TypeFor[struct{ F int8 }](),
	reflect.TypeFor[struct{ F uint16 }](),
	reflect.TypeFor[struct{ F float32 }](),
	reflect.TypeFor[struct{ F float64 }](),
	reflect.TypeFor[struct{ F bool }](),
	reflect.TypeFor[struct{ F time.Time }](),
	reflect.TypeFor[struct{ F time.Duration }](),
	reflect.TypeFor[struct{ F textID }](),
	reflect.TypeFor[struct{ F json.Number }](),
	reflect.TypeFor[struct{ F *string }](),
	reflect.TypeFor[struct{ F []string }](),
	reflect.TypeFor[struct{ F []int }](),
	reflect.TypeFor[struct{ F []*float64 }](),
	reflect.TypeFor[struct{ F map[string]string }](),
	reflect.TypeFor[struct{ F map[string]*int }](),
	reflect.TypeFor[struct{ F struct{ A int } }](),
}

// FuzzRuleTags holds the rules read from tags: any tag on a field of any
// kind, as a query param and as a body member, is planned or refused
// without a panic; a tag checkTags refuses (a misspelt or unchecked
// keyword) is never planned; a field planned binds any value and its
// absence, and describes itself as JSON, without a panic.
func FuzzRuleTags(f *testing.F) {
	for _, seed := range []struct {
		tag  string
		kind uint8
	}{
		{`minimum:"1" maximum:"10" default:"5"`, 1},
		{`minLength:"2" maxLength:"4" pattern:"^[a-z]+$" enum:"ab,abc"`, 0},
		{"enum:`[\"a,b\",1,true]`", 0},
		{`multipleOf:"0.01" exclusiveMaximum:"1e308"`, 5},
		{`exclusiveMinimum:"-1" maximum:"127" multipleOf:"3"`, 2},
		{`format:"email" example:"a@b.c"`, 0},
		{`format:"date-time" enum:"2026-01-02T03:04:05Z"`, 7},
		{`format:"password" doc:"a secret"`, 11},
		{`uniqueItems:"true" maxItems:"3" minItems:"1" maxLength:"2"`, 12},
		{`uniqueItems:"true" minimum:"0" explode:"false"`, 13},
		{`minLength:"1" maxLength:"63"`, 15},
		{`maximum:"9" default:"1"`, 16},
		{`maxlength:"3"`, 0},
		{`maxProperties:"1"`, 15},
		{`required:"true" default:"x"`, 0},
		{`default:"1.5e3"`, 10},
		{`default:"1h" minimum:"0"`, 8},
		{`enum:"!a,b"`, 9},
		{`json:"g,string" maximum:"3"`, 1},
		{`xml:"f" yaml:"f" validate:"max=3" db:"f"`, 0},
		{`pattern:"(" minLength:"x"`, 0},
		{`minimum:"5" maximum:"1"`, 4},
	} {
		f.Add(seed.tag, seed.kind)
	}
	f.Fuzz(func(t *testing.T, tag string, kind uint8) {
		carrier := fuzzCarriers[int(kind)%len(fuzzCarriers)]
		refused := checkTags(reflect.StructTag(tag)) != nil
		fuzzParam(t, carrier, tag, refused)
		fuzzMember(t, carrier, tag, refused)
	})
}

// fuzzParam plans the field of carrier, tagged tag, as a query param and
// binds values to it.
func fuzzParam(t *testing.T, carrier reflect.Type, tag string, refused bool) {
	f := carrier.Field(0)
	f.Tag = reflect.StructTag(`query:"f" ` + tag)
	pr, err := planParam(carrier, f, nil)
	if err != nil {
		return
	}
	if refused {
		t.Fatalf("query param %s with tag %q: planned, want it refused", f.Type, tag)
	}
	p := &InPlan{typ: carrier, params: []*param{pr}}
	switch pr.place {
	case inQuery:
		p.query = p.params
	case inHeader:
		p.header = p.params
	case inCookie:
		p.cookie = p.params
	default:
		return // a path param needs a pattern's values
	}
	for _, q := range []string{"", "f=", "f=1", "f=-5&f=7", "f=abc", "f=1.5e3", "f=2026-01-02T03:04:05Z", "f=1,x,3", "f=%ZZ", "f=" + strings.Repeat("9", 30)} {
		v := reflect.New(carrier)
		var fs failed
		in := &Input{Req: get("/?" + q), W: httptest.NewRecorder(), Path: pathVals(nil), Fails: &fs}
		if err := p.Bind(in, v.UnsafePointer()); err != nil && err != ErrInvalid && err != ErrUnreadable {
			t.Fatalf("%s %q ?%s: got %v", f.Type, tag, q, err)
		}
	}
	if _, err := json.Marshal(p.Parameters()); err != nil {
		t.Fatalf("%s %q: the parameter is no JSON: %v", f.Type, tag, err)
	}
}

// fuzzMember plans the field of carrier, tagged tag, as a member of a
// JSON body and decodes bodies into it.
func fuzzMember(t *testing.T, carrier reflect.Type, tag string, refused bool) {
	f := carrier.Field(0)
	f.Tag = reflect.StructTag(`json:"f,omitempty" ` + tag)
	n := &dnode{kind: dStruct, typ: carrier}
	jf := jsonField{f: f, name: "f", omitEmpty: true, tagged: true, index: []int{0}}
	if err := n.addField(jf, newPlanner(false)); err != nil {
		return
	}
	if refused {
		t.Fatalf("body member %s with tag %q: planned, want it refused", f.Type, tag)
	}
	bp := &bodyPlan{typ: carrier, node: n}
	for _, text := range []string{`{}`, `{"f":null}`, `{"f":1}`, `{"f":-1.5e3}`, `{"f":"abc"}`, `{"f":""}`, `{"f":true}`,
		`{"f":[1,"a",null]}`, `{"f":["a","a"]}`, `{"f":{"a":"b","c":1}}`, `{"f":{"a":null}}`, `{"f":"2026-01-02T03:04:05Z"}`, `{"f":1,"f":"x"}`} {
		v := reflect.New(carrier)
		var fs failed
		b := &binder{in: Input{Fails: &fs}, base: v.UnsafePointer()}
		bp.decode(b, []byte(text))
	}
	g := NewSchemas(false)
	if _, err := json.Marshal(g.member(jf)); err != nil {
		t.Fatalf("%s %q: the schema is no JSON: %v", f.Type, tag, err)
	}
}

// TestExampleChecked: an example tag the value's rules or type refuse
// panics at registration, as a default does (OpenAPI 3.1 sections
// 4.8.12.4 and 4.8.24.1: an example SHOULD match its schema), on a param
// and on a body member; a slice's or an object's example is left alone.
func TestExampleChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		typ  reflect.Type
		want string // "" when it registers
	}{
		{"a param's example of another type", reflect.TypeFor[struct {
			N int `query:"n" example:"abc"`
		}](), "must be an integer"},
		{"a param's example past its bound", reflect.TypeFor[struct {
			N int `query:"n" maximum:"3" example:"9"`
		}](), "at most 3"},
		{"a member's example past its bound", reflect.TypeFor[struct {
			Body struct {
				N *int `json:"n" maximum:"3" example:"9"`
			}
		}](), "at most 3"},
		{"a member's example its pattern refuses", reflect.TypeFor[struct {
			Body struct {
				S string `json:"s" pattern:"^[a-z]+$" example:"ABC"`
			}
		}](), "pattern"},
		{"good examples", reflect.TypeFor[struct {
			N    int `query:"n" maximum:"3" example:"2"`
			Body struct {
				S  string   `json:"s" pattern:"^[a-z]+$" example:"abc"`
				L  []string `json:"l" example:"[\"a\"]"`
				Ob struct{} `json:"ob" example:"{}"`
			}
		}](), ""},
	} {
		_, err := PlanIn(tc.typ, nil)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestRuleSetsSatisfiable checks that a rule set some value keeps, near
// the edge of none, registers: the check of satisfiable is no stricter
// than the rules.
func TestRuleSetsSatisfiable(t *testing.T) {
	for _, tc := range []struct {
		tag   string
		rules func(string, bool) (*rules, error)
		value string // one value the rules keep
	}{
		{`minimum:"1" maximum:"1"`, rulesOf[int], "1"},
		{`exclusiveMinimum:"3" maximum:"4"`, rulesOf[int], "4"},
		{`exclusiveMinimum:"0" exclusiveMaximum:"1"`, rulesOf[float64], "0.5"},
		{`minimum:"1" maximum:"5" multipleOf:"5"`, rulesOf[int], "5"},
		{`minimum:"-9" maximum:"-5" multipleOf:"5"`, rulesOf[int], "-5"},
		{`minimum:"-4" maximum:"4" multipleOf:"5"`, rulesOf[int], "0"},
		{`exclusiveMinimum:"-10" exclusiveMaximum:"-4" multipleOf:"5"`, rulesOf[int16], "-5"},
		{`minimum:"18446744073709551614" exclusiveMaximum:"18446744073709551615"`, rulesOf[uint64], "18446744073709551614"},
		{`minimum:"1" maximum:"2" multipleOf:"0.5"`, rulesOf[int], "2"},
		{`minLength:"3" maxLength:"3" enum:"abc,xyz"`, rulesOf[string], "xyz"},
		{`maximum:"10" enum:"1,10"`, rulesOf[int], "10"},
		{`exclusiveMaximum:"1000"`, rulesOf[int8], "127"},
		{`exclusiveMinimum:"-129"`, rulesOf[int8], "-128"},
		{`multipleOf:"200"`, rulesOf[int8], "0"},
		{`minimum:"1" maximum:"5" multipleOf:"2.5"`, rulesOf[int], "5"},
		{`exclusiveMinimum:"0" maximum:"5e-324"`, rulesOf[float64], "5e-324"},
		{`exclusiveMinimum:"1" exclusiveMaximum:"1.0000003"`, rulesOf[float32], "1.0000002"},
		{`minimum:"-9223372036854775808" maximum:"9223372036854775807" multipleOf:"9223372036854775807"`, rulesOf[int64], "-9223372036854775807"},
		{`maximum:"1.00000005960464477539062501" enum:"1.00000005960464477539062501"`, rulesOf[float32], "1.00000005960464477539062501"},
		// A bound beyond a float's range away from it holds every value.
		{`maximum:"1e39"`, rulesOf[float32], "3.4028235e38"},
		{`minimum:"-1e39" exclusiveMaximum:"1e39"`, rulesOf[float32], "-3.4028235e38"},
		{`exclusiveMaximum:"3.4028235e38"`, rulesOf[float32], "3.4028233e38"},
		// An exclusive bound beyond a float32's range keeps its largest
		// (or least) value, with a bound at it on the other side.
		{`minimum:"3.4028234e38" exclusiveMaximum:"1e39"`, rulesOf[float32], "3.4028235e38"},
		{`maximum:"-3.4028234e38" exclusiveMinimum:"-1e39"`, rulesOf[float32], "-3.4028235e38"},
	} {
		rs, err := tc.rules(tc.tag, false)
		if err != nil {
			t.Errorf("%s: %v", tc.tag, err)
			continue
		}
		v, kw, _ := rs.codec.parse(tc.value)
		if kw != "" {
			t.Fatalf("%s: value %s: %s", tc.tag, tc.value, kw)
		}
		if fs := rs.check(v, nil); len(fs) > 0 {
			t.Errorf("%s: %s breaks %v", tc.tag, tc.value, fs)
		}
	}
	if rs, err := rulesOf[string](`minItems:"2" maxItems:"2"`, true); err != nil || rs == nil {
		t.Errorf("minItems 2, maxItems 2: %v", err)
	}
	if rs, err := rulesOf[string](`uniqueItems:"true" minItems:"2" enum:"a,b"`, true); err != nil || rs == nil {
		t.Errorf("two unique items of a two-value enum: %v", err)
	}
}

// TestArrayItemsRules checks that an array's items rules must admit its
// length, the one count it takes.
func TestArrayItemsRules(t *testing.T) {
	type short struct {
		Body struct {
			A [3]int `json:"a" minItems:"4"`
		}
	}
	type long struct {
		Body struct {
			A [3]int `json:"a" maxItems:"2"`
		}
	}
	type fits struct {
		Body struct {
			A [3]int `json:"a" minItems:"3" maxItems:"3"`
		}
	}
	for name, err := range map[string]error{"minItems 4": planOf[short](), "maxItems 2": planOf[long]()} {
		if err == nil || !strings.Contains(err.Error(), "array of 3 items") {
			t.Errorf("%s on [3]int: got %v, want an error naming the array's length", name, err)
		}
	}
	if err := planOf[fits](); err != nil {
		t.Errorf("minItems 3, maxItems 3 on [3]int: %v", err)
	}
}

type uniqueBools[T any] struct {
	Body struct {
		B T `json:"b" uniqueItems:"true"`
	}
}

type uniqueBoolsMin[T any] struct {
	Body struct {
		B T `json:"b" uniqueItems:"true" minItems:"3"`
	}
}

type uniqueBoolsMin4[T any] struct {
	Body struct {
		B T `json:"b" uniqueItems:"true" minItems:"4"`
	}
}

// TestUniqueBools checks that uniqueItems with more items than a bool's
// two values (true and false), three behind a pointer (null too, which
// the decoder takes and tells apart), panics at registration, as for an
// enum's values, and that the count that fits registers and is kept.
func TestUniqueBools(t *testing.T) {
	for name, err := range map[string]error{
		"[]bool minItems 3":  planOf[uniqueBoolsMin[[]bool]](),
		"[]*bool minItems 4": planOf[uniqueBoolsMin4[[]*bool]](),
		"[3]bool":            planOf[uniqueBools[[3]bool]](),
		"[4]*bool":           planOf[uniqueBools[[4]*bool]](),
	} {
		if err == nil || !strings.Contains(err.Error(), "with uniqueItems is above the") {
			t.Errorf("%s, uniqueItems: got %v, want an error", name, err)
		}
	}
	if _, err := rulesOf[bool](`uniqueItems:"true" minItems:"3"`, true); err == nil {
		t.Errorf("a []bool param, uniqueItems and minItems 3: got nil, want an error")
	}
	if _, err := rulesOf[bool](`uniqueItems:"true" minItems:"2"`, true); err != nil {
		t.Errorf("a []bool param, uniqueItems and minItems 2: %v", err)
	}
	for name, err := range map[string]error{
		"[]*bool minItems 3": planOf[uniqueBoolsMin[[]*bool]](),
		"[3]*bool":           planOf[uniqueBools[[3]*bool]](),
		"[2]bool":            planOf[uniqueBools[[2]bool]](),
	} {
		if err != nil {
			t.Errorf("%s, uniqueItems: %v", name, err)
		}
	}
	for body, ok := range map[string]bool{
		`{"b":[true,false,null]}`:       true,
		`{"b":[null,true,false]}`:       true,
		`{"b":[true,null,null]}`:        false,
		`{"b":[true,false,true]}`:       false,
		`{"b":[true,false]}`:            false, // minItems 3
		`{"b":[true,false,null,true]}`:  false,
		`{"b":[false,null,true,false]}`: false,
	} {
		_, err := bindInto[uniqueBoolsMin[[]*bool]](t, nil, nil, post(js, body), Body{})
		if (err == nil) != ok {
			got, _ := failures(err)
			t.Errorf("%s on []*bool: got %v %q, want taken %v", body, err, got, ok)
		}
	}
}

// jsonColor decodes itself: the rules of its tags would never see it.
type jsonColor string

func (c *jsonColor) UnmarshalJSON(b []byte) error {
	*c = jsonColor(strings.Trim(string(b), `"`))
	return nil
}

// TestRulesOnSelfDecoding checks that value rules on a json.Unmarshaler
// (alone, behind a pointer, as items) are refused at registration, which
// the decoder would never check, while items rules on a slice of them,
// and rules on a time.Time, are kept.
func TestRulesOnSelfDecoding(t *testing.T) {
	type enum struct {
		Body struct {
			C jsonColor `json:"c" enum:"red,green"`
		}
	}
	type ptr struct {
		Body struct {
			C *jsonColor `json:"c" maxLength:"5"`
		}
	}
	type items struct {
		Body struct {
			C []jsonColor `json:"c" pattern:"^[a-z]+$"`
		}
	}
	type count struct {
		Body struct {
			C []jsonColor `json:"c" maxItems:"3"`
		}
	}
	type raw struct {
		Body struct {
			R json.RawMessage `json:"r" enum:"1,2"`
		}
	}
	type when struct {
		Body struct {
			T time.Time `json:"t" format:"date-time" enum:"2026-01-01T00:00:00Z"`
		}
	}
	for name, err := range map[string]error{"enum": planOf[enum](), "pointer": planOf[ptr](), "items": planOf[items](), "raw": planOf[raw]()} {
		if err == nil || !strings.Contains(err.Error(), "json.Unmarshaler") {
			t.Errorf("%s: got %v, want an error naming json.Unmarshaler", name, err)
		}
	}
	if err := planOf[count](); err != nil {
		t.Errorf("maxItems on a slice of them: %v", err)
	}
	if err := planOf[when](); err != nil {
		t.Errorf("enum on a time.Time: %v", err)
	}
	// A form body binds a member by its UnmarshalText and checks its
	// rules: refused only where the body may come as JSON too.
	type formOnly struct {
		Body struct {
			S textJSONShade `json:"s" enum:"red,green"`
		} `consumes:"form"`
	}
	type formOrJSON struct {
		Body struct {
			S textJSONShade `json:"s" enum:"red,green"`
		} `consumes:"form,json"`
	}
	if err := planOf[formOnly](); err != nil {
		t.Errorf("enum on a text and JSON unmarshaler of a form body: %v", err)
	}
	if err := planOf[formOrJSON](); err == nil || !strings.Contains(err.Error(), "json.Unmarshaler") {
		t.Errorf("the same, of a body that may be JSON: got %v, want an error naming json.Unmarshaler", err)
	}
}

// textJSONShade decodes itself from JSON, and from text.
type textJSONShade string

func (s *textJSONShade) UnmarshalJSON(b []byte) error {
	*s = textJSONShade(strings.Trim(string(b), `"`))
	return nil
}

func (s *textJSONShade) UnmarshalText(b []byte) error { *s = textJSONShade(b); return nil }

// TestRulesOnBytes checks that rules on a []byte, one base64 string the
// decoder never checks byte by byte or counts, panic at registration.
func TestRulesOnBytes(t *testing.T) {
	type value struct {
		Body struct {
			B []byte `json:"b" maximum:"5"`
		}
	}
	type count struct {
		Body struct {
			B *[]byte `json:"b" maxItems:"4"`
		}
	}
	for name, err := range map[string]error{"maximum": planOf[value](), "maxItems": planOf[count]()} {
		if err == nil || !strings.Contains(err.Error(), "base64") {
			t.Errorf("%s on a []byte: got %v, want an error naming base64", name, err)
		}
	}
}

// TestFloat32BoundDocument: a float32's bound is written in the
// document as the float32 the check holds values to, where the tag's
// text names a number between two float32s; a bound that is a float32's
// text, one beyond the range, and a float64's are written as given.
func TestFloat32BoundDocument(t *testing.T) {
	type in struct {
		Below  float32 `json:"below" exclusiveMaximum:"0.99999996"`
		Tenth  float32 `json:"tenth" maximum:"0.1"`
		Sci    float32 `json:"sci" minimum:"1.5e2"`
		Beyond float32 `json:"beyond" maximum:"1e39"`
		Wide   float64 `json:"wide" exclusiveMaximum:"0.99999996"`
	}
	s := NewSchemas(false)
	s.Of(reflect.TypeFor[in]())
	var b []byte
	for _, d := range s.Defs() {
		var err error
		if b, err = json.Marshal(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []string{`"exclusiveMaximum":0.99999994`, `"maximum":0.1`, `"minimum":1.5e2`, `"maximum":1e39`, `"exclusiveMaximum":0.99999996`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the schema %s lacks %s", b, want)
		}
	}
	// The server holds the value to the same bound: 0.99999994 is
	// refused, as the document's exclusiveMaximum refuses it.
	var fails failed
	v := in{Below: 0.99999994}
	if ok, _ := Check(&v, &fails); ok {
		t.Errorf("0.99999994 passed exclusiveMaximum 0.99999996 on a float32, which holds it to 0.99999994")
	}
}
