package typed

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

type selfJSON struct{}

func (selfJSON) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type Page[T any] struct {
	Items []T `json:"items"`
}

type embedded struct {
	E string `json:"e"`
}

type node struct {
	Kids []*node `json:"kids,omitempty"`
}

type kinds struct {
	embedded
	*kv
	P      *int            `json:"p"`
	At     time.Time       `json:"at"`
	Raw    json.RawMessage `json:"raw"`
	Self   selfJSON        `json:"self"`
	ID     textID          `json:"id"`
	Bytes  []byte          `json:"bytes"`
	Arr    [2]int          `json:"arr"`
	M      map[int]string  `json:"m"`
	Bad    map[kv]int      `json:"bad"`
	Any    any             `json:"any"`
	B      bool            `json:"b"`
	I8     int8            `json:"i8" minimum:"-5" exclusiveMaximum:"5" multipleOf:"1"`
	I32    int32           `json:"i32" maximum:"x"`
	U8     uint8           `json:"u8" exclusiveMinimum:"0"`
	U64    uint64          `json:"u64" default:"3"`
	F32    float32         `json:"f32"`
	F64    float64         `json:"f64" enum:"0.5,1"`
	D      time.Duration   `json:"d"`
	S      string          `json:"s" minLength:"1" maxLength:"9" pattern:"^a" format:"email" doc:"an s" example:"a@b.example"`
	Tags   []string        `json:"tags,omitempty" minItems:"1" maxItems:"3" uniqueItems:"true" maxLength:"4"`
	Obj    kv              `json:"obj" example:"{\"k\":\"x\"}"`
	Node   *node           `json:"node"`
	Page   Page[kv]        `json:"page"`
	Skip   string          `json:"-"`
	hidden string
}

// pointer returns the value at the JSON pointer path (keys joined by "/")
// in the document b, as compact JSON, or "" when it is absent.
func pointer(t *testing.T, b []byte, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range strings.Split(path, "/") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		if v, ok = m[k]; !ok {
			return ""
		}
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestSchemaKinds(t *testing.T) {
	for _, closed := range []bool{false, true} {
		g := NewSchemas(closed)
		ref := g.Of(reflectType[kinds]())
		if ref.Ref != "#/components/schemas/kinds" {
			t.Fatalf("got ref %q", ref.Ref)
		}
		b, err := json.Marshal(g.Defs())
		if err != nil {
			t.Fatal(err)
		}
		p := "kinds/properties/"
		for _, tc := range []struct{ path, want string }{
			{p + "e", `{"type":"string"}`},
			{p + "k", `{"pattern":"^k","type":"string"}`},
			{p + "p", `{"format":"int64","type":["integer","null"]}`},
			{p + "at", `{"format":"date-time","type":"string"}`},
			{p + "raw", `{}`},
			{p + "self", `{}`},
			{p + "id", `{"type":"string"}`},
			{p + "bytes", `{"contentEncoding":"base64","type":["string","null"]}`},
			{p + "arr", `{"items":{"format":"int64","type":"integer"},"maxItems":2,"minItems":2,"type":"array"}`},
			{p + "m", `{"additionalProperties":{"type":"string"},"propertyNames":{"pattern":"^([+-]?0*(0|[1-9][0-9]{0,17}|[1-8][0-9]{18}|9[0-1][0-9]{17}|92[0-1][0-9]{16}|922[0-2][0-9]{15}|9223[0-2][0-9]{14}|92233[0-6][0-9]{13}|922337[0-1][0-9]{12}|92233720[0-2][0-9]{10}|922337203[0-5][0-9]{9}|9223372036[0-7][0-9]{8}|92233720368[0-4][0-9]{7}|922337203685[0-3][0-9]{6}|9223372036854[0-6][0-9]{5}|92233720368547[0-6][0-9]{4}|922337203685477[0-4][0-9]{3}|9223372036854775[0-7][0-9]{2}|922337203685477580[0-7])|-0*9223372036854775808)$"},"type":["object","null"]}`},
			{p + "bad", `{}`},
			{p + "any", `{}`},
			{p + "b", `{"type":"boolean"}`},
			{p + "i8", `{"exclusiveMaximum":5,"maximum":127,"minimum":-5,"multipleOf":1,"type":"integer"}`},
			{p + "i32", `{"format":"int32","type":"integer"}`},
			{p + "u8", `{"exclusiveMinimum":0,"maximum":255,"minimum":0,"type":"integer"}`},
			{p + "u64", `{"default":3,"maximum":18446744073709552000,"minimum":0,"type":"integer"}`}, // exactly, below
			{p + "f32", `{"format":"float","type":"number"}`},
			{p + "f64", `{"enum":[0.5,1],"format":"double","type":"number"}`},
			{p + "d", `{"description":"A duration in nanoseconds.","format":"int64","type":"integer"}`},
			{p + "s", `{"description":"an s","examples":["a@b.example"],"format":"email","maxLength":9,"minLength":1,"pattern":"^a","type":"string"}`},
			{p + "tags", `{"items":{"maxLength":4,"type":"string"},"maxItems":3,"minItems":1,"type":"array","uniqueItems":true}`},
			{p + "obj", `{"$ref":"#/components/schemas/kv","examples":[{"k":"x"}]}`},
			{p + "node", `{"oneOf":[{"$ref":"#/components/schemas/node"},{"type":"null"}]}`},
			{p + "page", `{"$ref":"#/components/schemas/Page_github.com_waltz-go_waltz_internal_typed.kv"}`},
			{p + "Skip", ``},
			{p + "hidden", ``},
			{"node/properties/kids/type", `"array"`},
		} {
			if got := pointer(t, b, tc.path); got != tc.want {
				t.Errorf("closed %v, %s: got %s, want %s", closed, tc.path, got, tc.want)
			}
		}
		// A uint64's range, written exactly: 2^64-1, which a float64
		// (pointer's reading above) rounds to 2^64.
		if want := `"minimum":0,"maximum":18446744073709551615`; !strings.Contains(string(b), want) {
			t.Errorf("closed %v, u64: got %s, want %s in it", closed, b, want)
		}
		want := ``
		if closed {
			want = `false`
		}
		if got := pointer(t, b, "kinds/additionalProperties"); got != want {
			t.Errorf("closed %v: additionalProperties %s", closed, got)
		}
		if got := pointer(t, b, "kinds/required"); !strings.Contains(got, `"e"`) || strings.Contains(got, `"tags"`) || strings.Contains(got, `"k"`) {
			t.Errorf("required: got %s", got)
		}
	}
	// A second type of the same name gets a name of its own.
	g := NewSchemas(false)
	g.Of(reflectType[kv]())
	type kv struct{}
	if got := g.Of(reflectType[kv]()).Ref; got != "#/components/schemas/kv2" {
		t.Errorf("second kv: got %q", got)
	}
}

func TestDescribe(t *testing.T) {
	p, err := PlanIn(reflectType[allIn](), []string{"id", "name"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Type() != reflectType[allIn]() || !p.HasInput() {
		t.Error("Type or HasInput")
	}
	var names []string
	for _, pr := range p.Parameters() {
		names = append(names, pr.In+"."+pr.Name)
	}
	if !slices.Contains(names, "path.id") || !slices.Contains(names, "cookie.c") || !slices.Contains(names, "query.q") {
		t.Errorf("parameters: got %q", names)
	}
	b, _ := json.Marshal(p.Parameters())
	for _, want := range []string{`{"name":"tag","in":"query","schema":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"maxItems":3,"uniqueItems":true}}`,
		`{"name":"n","in":"query","schema":{"type":"array","items":{"type":"integer","format":"int64","minimum":1},"maxItems":100}}`,
		`{"name":"t","in":"query","schema":{"type":"string","format":"date-time"}}`,
		`{"name":"d","in":"query","schema":{"type":"string","description":"A duration such as 1.5s or 2h45m."}}`,
		`{"name":"def","in":"query","schema":{"type":"integer","format":"int64","default":7}}`,
		`{"name":"X-H","in":"header","required":true,"schema":{"type":"string"}}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("parameters lack %s:\n%s", want, b)
		}
	}
	if p.RequestBody(NewSchemas(false)) != nil {
		t.Error("a request body without a Body field")
	}
	if got := p.ErrorCodes(); !slices.Equal(got, []int{422, 400}) {
		t.Errorf("codes: got %v", got)
	}
	type hidden struct {
		Auth string `header:"Authorization" example:"x"`
		Body formIn
	}
	fp, err := PlanIn(reflectType[formIn](), nil)
	if err != nil {
		t.Fatal(err)
	}
	rb := fp.RequestBody(NewSchemas(false))
	if rb == nil || !rb.Required || rb.Content["application/json"] == nil || rb.Content["application/x-www-form-urlencoded"] == nil {
		t.Errorf("form request body: got %+v", rb)
	}
	if got := fp.ErrorCodes(); !slices.Equal(got, []int{422, 400, 413, 415}) {
		t.Errorf("body codes: got %v", got)
	}
	hp, err := PlanIn(reflectType[hidden](), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(hp.Parameters()) != 0 {
		t.Errorf("Authorization is described elsewhere: got %v", hp.Parameters())
	}
	if rb := hp.RequestBody(NewSchemas(false)); rb.Content["application/x-www-form-urlencoded"] != nil {
		t.Error("a body with a struct inside is no form")
	}
	ep, _ := PlanIn(reflectType[struct{}](), nil)
	if ep.HasInput() || len(ep.ErrorCodes()) != 0 {
		t.Error("an empty In answers no binding error")
	}
}

// TestDeepLocation checks the location of a failure deep in a body: past
// the levels kept inline, and cut at MaxLocation bytes.
func TestDeepLocation(t *testing.T) {
	type deep struct {
		Body node2
	}
	body := strings.Repeat(`{"c":`, 200) + `{"v":"x"}` + strings.Repeat(`}`, 200)
	_, err := bindInto[deep](t, nil, nil, post(js, body), Body{})
	fs, _ := err.(*failed)
	if fs == nil {
		t.Fatalf("got %v", err)
	}
	cut := 0
	for _, f := range fs.list {
		if f.keyword != "minLength" || len(f.loc) > MaxLocation+len("…") || !strings.HasPrefix(f.loc, "body.c.c") {
			t.Errorf("got %+v", f)
		}
		if strings.HasSuffix(f.loc, "…") {
			cut++
		}
	}
	if cut == 0 {
		t.Error("no location was cut")
	}
	short := strings.Repeat(`{"c":`, 10) + `{"v":"x"}` + strings.Repeat(`}`, 10)
	_, err = bindInto[deep](t, nil, nil, post(js, short), Body{})
	if fs, _ := err.(*failed); fs == nil || fs.list[0].loc != "body"+strings.Repeat(".c", 10)+".v" {
		t.Errorf("10 deep: got %v", err)
	}
}

type node2 struct {
	C *node2 `json:"c,omitempty"`
	V string `json:"v,omitempty" minLength:"2"`
}
