package typed

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

type encName string

type encInner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type encEmbedded struct {
	E  int `json:"e"`
	X  int // collides with encOther's X at the same depth: dropped
	In encInner
}

type encOther struct {
	X int
	Y float32 `json:"y,omitzero"`
}

type encDoc struct {
	S      string            `json:"s"`
	N      encName           `json:"n,omitempty"`
	Bo     bool              `json:"bo"`
	I      int               `json:"i"`
	I8     int8              `json:"i8,omitempty"`
	I16    int16             `json:"i16"`
	I32    int32             `json:"i32"`
	I64    int64             `json:"i64"`
	U      uint              `json:"u"`
	U8     uint8             `json:"u8"`
	U16    uint16            `json:"u16,omitempty"`
	U32    uint32            `json:"u32"`
	U64    uint64            `json:"u64"`
	F32    float32           `json:"f32"`
	F64    float64           `json:"f64"`
	FOmit  float64           `json:"fo,omitempty"`
	P      *int              `json:"p"`
	PO     *string           `json:"po,omitempty"`
	PP     **encInner        `json:"pp"`
	L      []string          `json:"l"`
	LO     []int             `json:"lo,omitempty"`
	LZ     []int             `json:"lz,omitzero"`
	LL     [][]float64       `json:"ll"`
	LS     []encInner        `json:"ls"`
	LP     []*encInner       `json:"lp"`
	St     encInner          `json:"st"`
	StO    encInner          `json:"sto,omitempty"`
	StZ    encInner          `json:"stz,omitzero"`
	Both   int               `json:"both,omitempty,omitzero"`
	Skip   string            `json:"-"`
	Dash   string            `json:"-,"`
	NoTag  string            //
	hidden string            //nolint:unused // unexported: never written
	Named  map[string]string `json:"-"`
	encEmbedded
	*encOther
}

func encValues() []encDoc {
	seven, word := 7, "word"
	inner := &encInner{A: 1, B: "<b>&amp;</b>"}
	return []encDoc{
		{},
		{S: "plain", N: "n", Bo: true, I: -1, I8: math.MinInt8, I16: math.MaxInt16, I32: math.MinInt32, I64: math.MinInt64,
			U: 1, U8: math.MaxUint8, U16: 1, U32: math.MaxUint32, U64: math.MaxUint64,
			F32: 0.1, F64: 0.1, FOmit: math.Copysign(0, -1), P: &seven, PO: &word, PP: &inner,
			L: []string{}, LO: []int{}, LZ: []int{}, LL: [][]float64{nil, {}, {1e21, 1e-7, 123456789}},
			LS: []encInner{{}, {A: 2}}, LP: []*encInner{nil, inner}, St: encInner{B: "x"}, Both: 3,
			Skip: "no", Dash: "dash", NoTag: "nt", hidden: "h",
			encEmbedded: encEmbedded{E: 5, X: 6, In: encInner{A: 9}}, encOther: &encOther{X: 8, Y: 1.5}},
		{S: "<script>\"q\" \\ \b\f\n\r\t\x00\x1f\x7f é \u2028 \u2029 \xff\xfe 🎉 &", F32: 1e-7, F64: 1e-6,
			LZ: nil, LS: nil, encOther: &encOther{}},
		{F32: math.MaxFloat32, F64: math.SmallestNonzeroFloat64, I64: math.MaxInt64, StZ: encInner{A: 1}},
		{F32: float32(math.Copysign(0, -1)), F64: math.Copysign(0, -1), FOmit: math.Copysign(0, -1)},
		{F32: -1e21, F64: -1e20, FOmit: 1e300, L: []string{"a\u0000b", "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"}},
	}
}

// TestEncodeJSON holds the encoder to json.Marshal's bytes, value by
// value, over a type of every kind it plans.
func TestEncodeJSON(t *testing.T) {
	n := planEncode(reflect.TypeFor[encDoc](), map[reflect.Type]bool{})
	if n == nil {
		t.Fatal("encDoc has no plan")
	}
	for i, v := range encValues() {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendJSON(nil, n, unsafe.Pointer(&v))
		if !ok || string(got) != string(want) {
			t.Errorf("value %d:\ngot  %s (%v)\nwant %s", i, got, ok, want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		v := encDoc{F64: f}
		if _, ok := appendJSON(nil, n, unsafe.Pointer(&v)); ok {
			t.Errorf("%v: written, want refused as json.Marshal refuses it", f)
		}
	}
}

// TestEncodeJSONFloats compares the two over floats of every size.
func TestEncodeJSONFloats(t *testing.T) {
	for e := -330; e <= 310; e++ {
		for _, m := range []float64{1, 1.5, 9.999999, 123456789.125, 3} {
			f := m * math.Pow(10, float64(e))
			for _, g := range []float64{f, -f} {
				want, err := json.Marshal(g)
				got, ok := appendFloat(nil, g, 64)
				if err == nil && (!ok || string(got) != string(want)) {
					t.Fatalf("%v: got %s, want %s", g, got, want)
				}
				want, err = json.Marshal(float32(g))
				got, ok = appendFloat(nil, float64(float32(g)), 32)
				if err == nil && (!ok || string(got) != string(want)) {
					t.Fatalf("float32 %v: got %s, want %s", float32(g), got, want)
				}
			}
		}
	}
}

type encSelf struct{ V int }

func (encSelf) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

type encText int

func (*encText) MarshalText() ([]byte, error) { return []byte(`t`), nil }

type encZeroer struct{ V int }

func (encZeroer) IsZero() bool { return true }

type encTree struct {
	Kids []encTree `json:"kids"`
}

// TestEncodePlanRefuses holds that a type with anything the encoder does
// not write exactly as encoding/json does is left to encoding/json.
func TestEncodePlanRefuses(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[struct{ M map[string]int }](),
		reflect.TypeFor[struct{ A any }](),
		reflect.TypeFor[struct{ B []byte }](),
		reflect.TypeFor[struct{ T time.Time }](),
		reflect.TypeFor[struct{ S encSelf }](),
		reflect.TypeFor[struct{ T encText }](),
		reflect.TypeFor[struct{ P *encSelf }](),
		reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		reflect.TypeFor[struct {
			Z encZeroer `json:"z,omitzero"`
		}](),
		reflect.TypeFor[encTree](),
		reflect.TypeFor[struct{ A [2]int }](),
		reflect.TypeFor[struct{ U uintptr }](),
		reflect.TypeFor[struct{ N json.Number }](),
	} {
		if n := planEncode(typ, map[reflect.Type]bool{}); n != nil {
			t.Errorf("%v: planned, want left to encoding/json", typ)
		}
	}
}

// FuzzEncodeJSON compares the encoder with json.Marshal on fuzzed text
// and numbers.
func FuzzEncodeJSON(f *testing.F) {
	f.Add("plain", "<&>", int64(-1), uint64(1), 0.5, float32(1e-7), true)
	f.Add("\xff\u2028", "", int64(0), uint64(0), 0.0, float32(0), false)
	n := planEncode(reflect.TypeFor[encDoc](), map[reflect.Type]bool{})
	f.Fuzz(func(t *testing.T, s, s2 string, i int64, u uint64, fl float64, f32 float32, b bool) {
		v := encDoc{S: s, N: encName(s2), I64: i, I: int(i), I8: int8(i), U64: u, U16: uint16(u), F64: fl, FOmit: fl,
			F32: f32, Bo: b, L: []string{s, s2}, St: encInner{B: s2}, PO: &s2}
		if b {
			v.encOther = &encOther{Y: f32}
		}
		want, err := json.Marshal(v)
		got, ok := appendJSON(nil, n, unsafe.Pointer(&v))
		if (err == nil) != ok || ok && string(got) != string(want) {
			t.Fatalf("got %s (%v), want %s (%v)", got, ok, want, err)
		}
	})
}
