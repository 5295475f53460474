package typed

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"
)

// These tests hold typed answers to json.Marshal's bytes through the path
// a typed operation takes, OutPlan.AppendBody on an Out whose Body is the
// value: the plan when the Body's type has one, else json.Marshal. What
// json.Marshal is given is a pointer to the Body, as AppendBody gives it.

// shapeBody checks that the Body v is written as json.Marshal writes
// it, or refused with an error when json.Marshal refuses it.
func shapeBody[T any](t *testing.T, name string, v T) {
	t.Helper()
	type out struct{ Body T }
	p, err := PlanOut(reflect.TypeFor[out](), 0)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	o := out{Body: v}
	want, werr := json.Marshal(&o.Body)
	got, gerr := p.AppendBody(nil, unsafe.Pointer(&o))
	if (werr == nil) != (gerr == nil) || werr == nil && string(got) != string(want) {
		t.Errorf("%s (planned: %v):\ngot  %s (%v)\nwant %s (%v)", name, p.enc != nil, got, gerr, want, werr)
	}
}

// A tag name that encoding/json's isValidTag refuses (a quote, a
// backslash, a character that is neither a letter, a digit nor one of
// its punctuation marks) is ignored: the field keeps its Go name, and
// counts as untagged where names collide.

type shBadTag struct {
	Quote int    `json:"it's"`
	Slash int    `json:"a\\b"`
	Emoji string `json:"🎉,omitempty"`
	Tab   bool   `json:"a\tb"`
	Space int    `json:"a b"` // valid: a space is allowed
	HTML  int    `json:"<x>&"`
}

type shTagged struct {
	V int `json:"Y"`
}

type shUntagged struct {
	Y int `json:"Y'"` // invalid: untagged, named Y, so shTagged's Y wins
}

type shCollide struct {
	shTagged
	shUntagged
}

func TestEncodeInvalidTagName(t *testing.T) {
	shapeBody(t, "bad tags", shBadTag{Quote: 1, Slash: 2, Emoji: "e", Tab: true, Space: 5, HTML: 6})
	shapeBody(t, "bad tag collision", shCollide{shTagged{1}, shUntagged{2}})
}

// json.Number is a string type that json.Marshal writes as the number it
// holds, unquoted ("" as 0), and refuses when it holds no number.

func TestEncodeNumber(t *testing.T) {
	type doc struct {
		N  json.Number
		O  json.Number `json:",omitempty"`
		P  *json.Number
		L  []json.Number
		Nm string
	}
	n := json.Number("7")
	shapeBody(t, "numbers", doc{N: "12.5", O: "1e3", P: &n, L: []json.Number{"1", "-0.5"}, Nm: "x"})
	shapeBody(t, "empty number", doc{})
	shapeBody(t, "not a number", doc{N: "x"})
	shapeBody(t, "top level", json.Number("42"))
}

// A named slice or pointer type of itself is recursive as a struct
// holding a slice of itself is: json.Marshal writes its values, and
// planning it must not recurse without end (a stack overflow, fatal, at
// the operation's registration).

type shList []shList

type shPtr *shPtr

type shPtrList []*shPtrList

func TestEncodeRecursiveNamedTypes(t *testing.T) {
	shapeBody(t, "list", shList{nil, {}, {{}}})
	var p shPtr
	shapeBody(t, "pointer", struct{ P, Q shPtr }{P: &p})
	shapeBody(t, "pointer list", shPtrList{nil, &shPtrList{nil}})
}

// Shapes that held up: embedding at several depths, through pointers nil
// or not, unexported embedded structs, collisions, tags and options.

type shLeaf struct {
	X int   `json:"x"`
	Z []int `json:"z,omitempty"`
}

type shMid struct {
	shLeaf
	Y string
}

type shTop struct {
	*shMid
	X int `json:"x,omitempty"` // shallower: hides shLeaf's x
}

type shA struct{ N int }

type shB struct {
	N int `json:"N"`
}

type shSelf struct {
	*shSelf
	A int
}

type shInt int

type shinner struct{ Vis int }

func TestEncodeShapes(t *testing.T) {
	negZero := math.Copysign(0, -1)
	x := 5
	px := &x
	shapeBody(t, "nil embedded pointer", shTop{X: 1})
	shapeBody(t, "embedded pointer", shTop{shMid: &shMid{shLeaf{3, []int{}}, "<y>"}})
	shapeBody(t, "tagged beats untagged", struct {
		shA
		*shB
	}{shA{1}, &shB{2}})
	shapeBody(t, "tagged behind nil pointer", struct {
		shA
		*shB
	}{shA{1}, nil})
	shapeBody(t, "same depth untagged: dropped", struct {
		shA
		shMid
		N int `json:"-,"`
	}{N: 3})
	shapeBody(t, "embedded self", shSelf{&shSelf{A: 2}, 1})
	shapeBody(t, "embedded non-struct", struct {
		shInt
		*shA
	}{4, nil})
	shapeBody(t, "unexported embedded", struct {
		shinner
		*shLeaf
	}{shinner{1}, &shLeaf{X: 2}})
	shapeBody(t, "options", struct {
		F  float64         `json:",omitempty"`
		G  float64         `json:",omitzero"`
		P  *struct{}       `json:",omitempty"`
		S  []int           `json:",omitempty"`
		U  struct{ a int } `json:",omitzero"`
		PP **int
		Q  **int `json:",string"` // ignored on a pointer to a pointer
		E  struct{}
	}{F: negZero, G: negZero, P: &struct{}{}, S: []int{}, U: struct{ a int }{1}, PP: &px, Q: &px})
	for _, f := range []float32{1e-6, math.Nextafter32(1e-6, 0), 1e21, math.Nextafter32(1e21, 0)} {
		shapeBody(t, "float32", []float32{f, -f})
	}
}

// jsonFields names members for the decoder too: a body member under an
// ignored tag name is read by its Go name, as json.Unmarshal reads it
// (a member of another name is unknown, and one without omitempty is
// required, both of which the engine refuses).
func TestDecodeInvalidTagName(t *testing.T) {
	type in struct{ Body shBadTag }
	const body = `{"Quote":1,"Slash":2,"Emoji":"e","Tab":true,"a b":5,"<x>&":6}`
	v, err := bindInto[in](t, nil, nil, post(js, body), Body{})
	var want shBadTag
	if jerr := json.Unmarshal([]byte(body), &want); err != nil || jerr != nil || v.Body != want {
		fails, _ := failures(err)
		t.Errorf("got %+v (%v %q), want %+v (%v)", v.Body, err, fails, want, jerr)
	}
}

// TestEncodeRandomShapes compares the encoder with json.Marshal
// over struct types made at random by reflect.StructOf: members of a few
// names, tags and options, embedded structs and pointers to them, nested
// to a few levels, so that names collide at every depth.
func TestEncodeRandomShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		st := shStruct(r, 0)
		n := planEncode(st, map[reflect.Type]bool{})
		if n == nil {
			t.Fatalf("%v: not planned", st)
		}
		for range 5 {
			v := reflect.New(st)
			shFill(r, v.Elem())
			want, err := json.Marshal(v.Interface())
			got, ok := appendJSON(nil, n, v.UnsafePointer())
			if (err == nil) != ok || ok && string(got) != string(want) {
				t.Fatalf("%v:\ngot  %s (%v)\nwant %s (%v)", st, got, ok, want, err)
			}
		}
	}
}

var (
	shNames = []string{"A", "B", "C"}
	shTags  = []string{"", "", "", `json:"A"`, `json:"b"`, `json:"-"`, `json:"A,omitempty"`, `json:",omitempty"`,
		`json:",omitzero"`, `json:"it's"`, `json:"-,"`, `json:"<b>"`}
)

// shStruct returns a struct type of up to three members.
func shStruct(r *rand.Rand, depth int) reflect.Type {
	var fs []reflect.StructField
	used := map[string]bool{}
	for range r.IntN(4) {
		f := reflect.StructField{Name: shNames[r.IntN(len(shNames))], Tag: reflect.StructTag(shTags[r.IntN(len(shTags))])}
		if depth < 3 && r.IntN(3) == 0 {
			f.Name, f.Type, f.Anonymous = "E"+string(rune('0'+r.IntN(3))), shStruct(r, depth+1), r.IntN(3) > 0
			if r.IntN(2) == 0 {
				f.Type = reflect.PointerTo(f.Type)
			}
		} else {
			f.Type = shType(r, depth)
		}
		if !used[f.Name] {
			used[f.Name] = true
			fs = append(fs, f)
		}
	}
	return reflect.StructOf(fs)
}

// shType returns a member type: a scalar, or below depth 3 a struct, a
// pointer to one or a slice of them.
func shType(r *rand.Rand, depth int) reflect.Type {
	switch k := r.IntN(9); {
	case k == 0:
		return reflect.TypeFor[int]()
	case k == 1:
		return reflect.TypeFor[string]()
	case k == 2:
		return reflect.TypeFor[*int]()
	case k == 3:
		return reflect.TypeFor[[]int]()
	case k == 4:
		return reflect.TypeFor[float32]()
	case depth >= 3:
		return reflect.TypeFor[bool]()
	case k == 5:
		return reflect.SliceOf(shStruct(r, depth+1))
	case k == 6:
		return reflect.PointerTo(shStruct(r, depth+1))
	}
	return shStruct(r, depth+1)
}

// shFill sets v, and what it holds, to values at random, zero ones often.
func shFill(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Int:
		v.SetInt(int64(r.IntN(3)))
	case reflect.String:
		v.SetString([]string{"", "x", "<&>"}[r.IntN(3)])
	case reflect.Float32:
		v.SetFloat([]float64{0, math.Copysign(0, -1), 1e-7, 1.5}[r.IntN(4)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Pointer:
		if r.IntN(3) > 0 {
			p := reflect.New(v.Type().Elem())
			shFill(r, p.Elem())
			v.Set(p)
		}
	case reflect.Slice:
		if k := r.IntN(4); k > 0 {
			s := reflect.MakeSlice(v.Type(), k-1, k-1)
			for i := range k - 1 {
				shFill(r, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			shFill(r, v.Field(i))
		}
	}
}
