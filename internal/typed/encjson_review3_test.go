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

// review3Body checks that the Body v is written as json.Marshal writes
// it, or refused with an error when json.Marshal refuses it.
func review3Body[T any](t *testing.T, name string, v T) {
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

type r3BadTag struct {
	Quote int    `json:"it's"`
	Slash int    `json:"a\\b"`
	Emoji string `json:"🎉,omitempty"`
	Tab   bool   `json:"a\tb"`
	Space int    `json:"a b"` // valid: a space is allowed
	HTML  int    `json:"<x>&"`
}

type r3Tagged struct {
	V int `json:"Y"`
}

type r3Untagged struct {
	Y int `json:"Y'"` // invalid: untagged, named Y, so r3Tagged's Y wins
}

type r3Collide struct {
	r3Tagged
	r3Untagged
}

func TestEncodeReview3InvalidTagName(t *testing.T) {
	review3Body(t, "bad tags", r3BadTag{Quote: 1, Slash: 2, Emoji: "e", Tab: true, Space: 5, HTML: 6})
	review3Body(t, "bad tag collision", r3Collide{r3Tagged{1}, r3Untagged{2}})
}

// json.Number is a string type that json.Marshal writes as the number it
// holds, unquoted ("" as 0), and refuses when it holds no number.

func TestEncodeReview3Number(t *testing.T) {
	type doc struct {
		N  json.Number
		O  json.Number `json:",omitempty"`
		P  *json.Number
		L  []json.Number
		Nm string
	}
	n := json.Number("7")
	review3Body(t, "numbers", doc{N: "12.5", O: "1e3", P: &n, L: []json.Number{"1", "-0.5"}, Nm: "x"})
	review3Body(t, "empty number", doc{})
	review3Body(t, "not a number", doc{N: "x"})
	review3Body(t, "top level", json.Number("42"))
}

// A named slice or pointer type of itself is recursive as a struct
// holding a slice of itself is: json.Marshal writes its values, and
// planning it must not recurse without end (a stack overflow, fatal, at
// the operation's registration).

type r3List []r3List

type r3Ptr *r3Ptr

type r3PtrList []*r3PtrList

func TestEncodeReview3RecursiveNamedTypes(t *testing.T) {
	review3Body(t, "list", r3List{nil, {}, {{}}})
	var p r3Ptr
	review3Body(t, "pointer", struct{ P, Q r3Ptr }{P: &p})
	review3Body(t, "pointer list", r3PtrList{nil, &r3PtrList{nil}})
}

// Shapes that held up: embedding at several depths, through pointers nil
// or not, unexported embedded structs, collisions, tags and options.

type r3Leaf struct {
	X int   `json:"x"`
	Z []int `json:"z,omitempty"`
}

type r3Mid struct {
	r3Leaf
	Y string
}

type r3Top struct {
	*r3Mid
	X int `json:"x,omitempty"` // shallower: hides r3Leaf's x
}

type r3A struct{ N int }

type r3B struct {
	N int `json:"N"`
}

type r3Self struct {
	*r3Self
	A int
}

type r3Int int

type r3inner struct{ Vis int }

func TestEncodeReview3Shapes(t *testing.T) {
	negZero := math.Copysign(0, -1)
	x := 5
	px := &x
	review3Body(t, "nil embedded pointer", r3Top{X: 1})
	review3Body(t, "embedded pointer", r3Top{r3Mid: &r3Mid{r3Leaf{3, []int{}}, "<y>"}})
	review3Body(t, "tagged beats untagged", struct {
		r3A
		*r3B
	}{r3A{1}, &r3B{2}})
	review3Body(t, "tagged behind nil pointer", struct {
		r3A
		*r3B
	}{r3A{1}, nil})
	review3Body(t, "same depth untagged: dropped", struct {
		r3A
		r3Mid
		N int `json:"-,"`
	}{N: 3})
	review3Body(t, "embedded self", r3Self{&r3Self{A: 2}, 1})
	review3Body(t, "embedded non-struct", struct {
		r3Int
		*r3A
	}{4, nil})
	review3Body(t, "unexported embedded", struct {
		r3inner
		*r3Leaf
	}{r3inner{1}, &r3Leaf{X: 2}})
	review3Body(t, "options", struct {
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
		review3Body(t, "float32", []float32{f, -f})
	}
}

// jsonFields names members for the decoder too: a body member under an
// ignored tag name is read by its Go name, as json.Unmarshal reads it
// (a member of another name is unknown, and one without omitempty is
// required, both of which the engine refuses).
func TestDecodeReview3InvalidTagName(t *testing.T) {
	type in struct{ Body r3BadTag }
	const body = `{"Quote":1,"Slash":2,"Emoji":"e","Tab":true,"a b":5,"<x>&":6}`
	v, err := bindInto[in](t, nil, nil, post(js, body), Body{})
	var want r3BadTag
	if jerr := json.Unmarshal([]byte(body), &want); err != nil || jerr != nil || v.Body != want {
		fails, _ := failures(err)
		t.Errorf("got %+v (%v %q), want %+v (%v)", v.Body, err, fails, want, jerr)
	}
}

// TestEncodeReview3RandomShapes compares the encoder with json.Marshal
// over struct types made at random by reflect.StructOf: members of a few
// names, tags and options, embedded structs and pointers to them, nested
// to a few levels, so that names collide at every depth.
func TestEncodeReview3RandomShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		st := r3Struct(r, 0)
		n := planEncode(st, map[reflect.Type]bool{})
		if n == nil {
			t.Fatalf("%v: not planned", st)
		}
		for range 5 {
			v := reflect.New(st)
			r3Fill(r, v.Elem())
			want, err := json.Marshal(v.Interface())
			got, ok := appendJSON(nil, n, v.UnsafePointer())
			if (err == nil) != ok || ok && string(got) != string(want) {
				t.Fatalf("%v:\ngot  %s (%v)\nwant %s (%v)", st, got, ok, want, err)
			}
		}
	}
}

var (
	r3Names = []string{"A", "B", "C"}
	r3Tags  = []string{"", "", "", `json:"A"`, `json:"b"`, `json:"-"`, `json:"A,omitempty"`, `json:",omitempty"`,
		`json:",omitzero"`, `json:"it's"`, `json:"-,"`, `json:"<b>"`}
)

// r3Struct returns a struct type of up to three members.
func r3Struct(r *rand.Rand, depth int) reflect.Type {
	var fs []reflect.StructField
	used := map[string]bool{}
	for range r.IntN(4) {
		f := reflect.StructField{Name: r3Names[r.IntN(len(r3Names))], Tag: reflect.StructTag(r3Tags[r.IntN(len(r3Tags))])}
		if depth < 3 && r.IntN(3) == 0 {
			f.Name, f.Type, f.Anonymous = "E"+string(rune('0'+r.IntN(3))), r3Struct(r, depth+1), r.IntN(3) > 0
			if r.IntN(2) == 0 {
				f.Type = reflect.PointerTo(f.Type)
			}
		} else {
			f.Type = r3Type(r, depth)
		}
		if !used[f.Name] {
			used[f.Name] = true
			fs = append(fs, f)
		}
	}
	return reflect.StructOf(fs)
}

// r3Type returns a member type: a scalar, or below depth 3 a struct, a
// pointer to one or a slice of them.
func r3Type(r *rand.Rand, depth int) reflect.Type {
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
		return reflect.SliceOf(r3Struct(r, depth+1))
	case k == 6:
		return reflect.PointerTo(r3Struct(r, depth+1))
	}
	return r3Struct(r, depth+1)
}

// r3Fill sets v, and what it holds, to values at random, zero ones often.
func r3Fill(r *rand.Rand, v reflect.Value) {
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
			r3Fill(r, p.Elem())
			v.Set(p)
		}
	case reflect.Slice:
		if k := r.IntN(4); k > 0 {
			s := reflect.MakeSlice(v.Type(), k-1, k-1)
			for i := range k - 1 {
				r3Fill(r, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			r3Fill(r, v.Field(i))
		}
	}
}
