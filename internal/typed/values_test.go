package typed

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// roundTrip parses s with the codec of T, stores it in a T, loads it back
// and formats it.
func roundTrip[T any](t *testing.T, s string) (T, string, string) {
	t.Helper()
	c := codecFor(reflect.TypeFor[T]())
	if c == nil {
		t.Fatalf("%s: no codec", reflect.TypeFor[T]())
	}
	var v T
	sc, kw, _ := c.parse(s)
	if kw != "" {
		return v, kw, ""
	}
	if err := c.store(unsafe.Pointer(&v), sc); err != nil {
		return v, "store", ""
	}
	return v, "", c.format(c.load(unsafe.Pointer(&v)))
}

func TestCodecKinds(t *testing.T) {
	check := func(name string, got, want any, kw, text, wantText string) {
		t.Helper()
		if kw != "" || got != want || text != wantText {
			t.Errorf("%s: got %v %q %q, want %v %q", name, got, kw, text, want, wantText)
		}
	}
	s, kw, f := roundTrip[string](t, "héllo")
	check("string", s, "héllo", kw, f, "héllo")
	b, kw, f := roundTrip[bool](t, "true")
	check("bool", b, true, kw, f, "true")
	b, kw, f = roundTrip[bool](t, "false")
	check("bool false", b, false, kw, f, "false")
	i8, kw, f := roundTrip[int8](t, "-128")
	check("int8", i8, int8(-128), kw, f, "-128")
	i16, kw, f := roundTrip[int16](t, "+300")
	check("int16", i16, int16(300), kw, f, "300")
	i32, kw, f := roundTrip[int32](t, "-70000")
	check("int32", i32, int32(-70000), kw, f, "-70000")
	i64, kw, f := roundTrip[int64](t, "9223372036854775807")
	check("int64", i64, int64(9223372036854775807), kw, f, "9223372036854775807")
	u8, kw, f := roundTrip[uint8](t, "255")
	check("uint8", u8, uint8(255), kw, f, "255")
	u16, kw, f := roundTrip[uint16](t, "65535")
	check("uint16", u16, uint16(65535), kw, f, "65535")
	u32, kw, f := roundTrip[uint32](t, "4294967295")
	check("uint32", u32, uint32(4294967295), kw, f, "4294967295")
	u64, kw, f := roundTrip[uint64](t, "18446744073709551615")
	check("uint64", u64, uint64(18446744073709551615), kw, f, "18446744073709551615")
	f32, kw, f := roundTrip[float32](t, "1.5")
	check("float32", f32, float32(1.5), kw, f, "1.5")
	f64, kw, f := roundTrip[float64](t, "-2.5e3")
	check("float64", f64, -2500.0, kw, f, "-2500")
	tm, kw, f := roundTrip[time.Time](t, "2026-01-02T03:04:05Z")
	check("time", tm, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), kw, f, "2026-01-02T03:04:05Z")
	d, kw, f := roundTrip[time.Duration](t, "1.5s")
	check("duration", d, 1500*time.Millisecond, kw, f, "1.5s")
	x, kw, f := roundTrip[textID](t, "abc")
	check("text", x, textID{"abc"}, kw, f, "abc")
	if _, kw, _ := roundTrip[textID](t, "!no"); kw != "store" {
		t.Errorf("text: got %q, want its UnmarshalText error", kw)
	}
	if codecFor(reflect.TypeFor[[]int]()) != nil || codecFor(reflect.TypeFor[struct{}]()) != nil {
		t.Error("a slice or a struct got a codec")
	}
}

func TestCodecRefuses(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		s    string
		want string
	}{
		{reflect.TypeFor[bool](), "yes", "type"},
		{reflect.TypeFor[int8](), "128", "type"},
		{reflect.TypeFor[int](), "1.5", "type"},
		{reflect.TypeFor[int](), "", "type"},
		{reflect.TypeFor[int](), "123456789012345678901", "type"},
		{reflect.TypeFor[uint](), "-1", "type"},
		{reflect.TypeFor[uint8](), "256", "type"},
		{reflect.TypeFor[uint](), "x", "type"},
		{reflect.TypeFor[float64](), "NaN", "type"},
		{reflect.TypeFor[float64](), "0x10", "type"},
		{reflect.TypeFor[float64](), "1e400", "type"},
		{reflect.TypeFor[float64](), "1e", "type"},
		{reflect.TypeFor[float64](), "1.2.3", "type"},
		{reflect.TypeFor[float32](), "1e39", "type"},
		{reflect.TypeFor[time.Time](), "yesterday", "format"},
		{reflect.TypeFor[time.Duration](), "5 minutes", "type"},
	} {
		c := codecFor(tc.typ)
		if _, kw, want := c.parse(tc.s); kw != tc.want || want == "" {
			t.Errorf("%s %q: got %q %q, want keyword %q and a message", tc.typ, tc.s, kw, want, tc.want)
		}
	}
	for _, s := range []string{"1", "-1.5", "+2e10", "3.25E-2", ".5"} {
		if !decimalNumber(s) {
			t.Errorf("decimalNumber(%q) is false", s)
		}
	}
}

// TestBoolParse: the boolean codec takes exactly the words
// strconv.ParseBool takes, with the same values, and a refused word costs
// no allocation.
func TestBoolParse(t *testing.T) {
	c := codecFor(reflect.TypeFor[bool]())
	var words []string
	for _, w := range []string{"true", "false", "t", "f", "1", "0", "yes", "no", "on", "", "2", "maybe"} {
		words = append(words, w, strings.ToUpper(w), strings.ToUpper(w[:min(1, len(w))])+w[min(1, len(w)):], " "+w)
	}
	words = append(words, "tRUE", "fALSE", "True ", "+1", "-0", "00", "01")
	for _, w := range words {
		want, err := strconv.ParseBool(w)
		v, kw, _ := c.parse(w)
		switch {
		case err != nil && kw != "type":
			t.Errorf("%q: got accepted, want refused as strconv.ParseBool refuses it", w)
		case err == nil && kw != "":
			t.Errorf("%q: got refused (%s), want %v", w, kw, want)
		case err == nil && (v.i == 1) != want:
			t.Errorf("%q: got %v, want %v", w, v.i == 1, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { c.parse("maybe") }); n != 0 {
		t.Errorf("a refused word: got %v allocations, want 0", n)
	}
}

// TestJSONNumber: a json.Number is a JSON number everywhere: binding
// takes one (in a body, a number; in a query, its text), written as it
// came, and nothing else, so that the answer encoding/json writes of it
// never fails on a client's input (it wrote any string, and refused a
// number); the schema says number. Context.Bind's bare plan reads it as
// encoding/json does, a string holding a number included.
func TestJSONNumber(t *testing.T) {
	type body struct {
		N  json.Number   `json:"n"`
		Q  json.Number   `json:"q,omitempty,string"`
		Ns []json.Number `json:"ns,omitempty" maxItems:"2"`
		D  json.Number   `json:"d,omitempty" default:"2.50"`
	}
	type in struct {
		N    json.Number `query:"n"`
		Body body
	}
	for _, tc := range []struct {
		target, text string
		want         []string // failures, "location keyword"
		n, bn, q     string
	}{
		{"/?n=-1.5e3", `{"n":12345678901234567890.25e-2,"q":"7","ns":[1,0.5]}`, nil, "-1.5e3", "12345678901234567890.25e-2", "7"},
		{"/?n=abc", `{"n":"abc"}`, []string{"body.n type", "query.n type"}, "", "", ""},
		{"/?n=%2B1", `{"n":"12"}`, []string{"body.n type", "query.n type"}, "", "", ""},
		{"/?n=01", `{"n":null}`, []string{"body.n type", "query.n type"}, "", "", ""},
		{"/?n=.5", `{"n":true,"q":"x","ns":[1,"2"]}`, []string{"body.n type", "body.ns[1] type", "body.q type", "query.n type"}, "", "", ""},
		{"/?n=1.", `{"n":1,"q":7}`, []string{"body.q type", "query.n type"}, "", "", ""},
	} {
		req := httptest.NewRequest(http.MethodPost, tc.target, strings.NewReader(tc.text))
		req.Header.Set("Content-Type", js)
		v, err := bindInto[in](t, nil, nil, req, Body{})
		if tc.want == nil {
			if err != nil || string(v.N) != tc.n || string(v.Body.N) != tc.bn || string(v.Body.Q) != tc.q || v.Body.D != "2.50" {
				t.Errorf("%s %s: got %+v, %v", tc.target, tc.text, v, err)
			}
			if _, err := json.Marshal(v); err != nil {
				t.Errorf("%s %s: encoding/json cannot write what was bound: %v", tc.target, tc.text, err)
			}
			continue
		}
		got, _ := failures(err)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: got %q, want %q", tc.target, tc.text, got, tc.want)
		}
	}
	// The document says number, the ,string member a string holding one.
	p, err := PlanIn(reflect.TypeFor[in](), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := NewSchemas(false)
	b, _ := json.Marshal(g.object(reflect.TypeFor[body]()))
	for _, want := range []string{`"n":{"type":"number"}`, `"q":{"type":"string","pattern":`, `"ns":{"type":"array","items":{"type":"number"},"maxItems":2}`,
		`"d":{"type":"number","default":2.50}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema %s: want it to hold %s", b, want)
		}
	}
	if ps, _ := json.Marshal(p.Parameters()[0].Schema); string(ps) != `{"type":"number"}` {
		t.Errorf("query param schema: got %s, want a number", ps)
	}
	// No rule on the number itself: its arithmetic would be a client's
	// to make unbounded.
	type ruled struct {
		N json.Number `query:"n" maximum:"10"`
	}
	if _, err := PlanIn(reflect.TypeFor[ruled](), nil); err == nil || !strings.Contains(err.Error(), "a json.Number holds any JSON number") {
		t.Errorf("maximum on a json.Number: got %v, want it refused", err)
	}
	// Context.Bind: encoding/json's reading.
	var bare struct {
		A, B json.Number
	}
	if err, got := decodeJSON(t, &bare, `{"A":"12","B":3.5}`, Body{}); err != nil || bare.A != "12" || bare.B != "3.5" {
		t.Errorf("bare: got %+v %v %q", bare, err, got)
	}
	if _, got := decodeJSON(t, &bare, `{"A":"abc"}`, Body{}); !slices.Equal(got, []string{`body.A type: must be a number, got "abc"`}) {
		t.Errorf("bare, a string of no number: got %q", got)
	}
}
