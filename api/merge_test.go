package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestMergeAppendixA runs RFC 7396 Appendix A's examples through Merge:
// each target and patch is a JSON value held in a member of type any, the
// patch's in an Optional, so that a patch of null for the whole document
// is the Optional's null.
func TestMergeAppendixA(t *testing.T) {
	type doc struct {
		V any `json:"v"`
	}
	type patch struct {
		V Optional[any] `json:"v"`
	}
	for _, tc := range []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"a":1,"e":null}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	} {
		t.Run(tc.target+" "+tc.patch, func(t *testing.T) {
			var d doc
			var p patch
			if err := json.Unmarshal([]byte(`{"v":`+tc.target+`}`), &d); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(`{"v":`+tc.patch+`}`), &p); err != nil {
				t.Fatal(err)
			}
			if err := Merge(&d, &p); err != nil {
				t.Fatalf("Merge: %v", err)
			}
			got, _ := json.Marshal(d.V)
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

type mergeTag struct {
	Name  string `json:"name" minLength:"1"`
	Color string `json:"color,omitempty"`
}

type mergeBookmark struct {
	URL   string     `json:"url" format:"uri"`
	Title string     `json:"title" minLength:"1" maxLength:"10"`
	Note  string     `json:"note,omitempty"`
	Tags  []string   `json:"tags,omitempty" maxItems:"2"`
	Main  *mergeTag  `json:"main,omitempty"`
	Extra []mergeTag `json:"extra,omitempty"`
}

type mergeTagPatch struct {
	Name  string           `json:"name,omitempty"`
	Color Optional[string] `json:"color"`
}

type mergeBookmarkPatch struct {
	URL   string                  `json:"url,omitempty"`
	Title string                  `json:"title,omitempty"`
	Note  Optional[string]        `json:"note"`
	Tags  Optional[[]string]      `json:"tags"`
	Main  Optional[mergeTagPatch] `json:"main"`
	Extra Optional[[]mergeTag]    `json:"extra"`
}

// TestMerge holds Merge on typed members: absent, null and values,
// plain members that only set, nested patches, and the target's rules
// checked on the result.
func TestMerge(t *testing.T) {
	base := func() mergeBookmark {
		return mergeBookmark{URL: "https://go.dev/", Title: "Go", Note: "n", Tags: []string{"a"}, Main: &mergeTag{Name: "m", Color: "red"}}
	}
	for _, tc := range []struct {
		name, patch, want string
		fails             []string // the 422's locations and keywords
	}{
		{"empty patch", `{}`, `{"url":"https://go.dev/","title":"Go","note":"n","tags":["a"],"main":{"name":"m","color":"red"}}`, nil},
		{"set a plain member", `{"title":"Golang"}`, `{"url":"https://go.dev/","title":"Golang","note":"n","tags":["a"],"main":{"name":"m","color":"red"}}`, nil},
		{"remove members", `{"note":null,"tags":null,"main":null}`, `{"url":"https://go.dev/","title":"Go"}`, nil},
		{"replace an array", `{"tags":["b","c"]}`, `{"url":"https://go.dev/","title":"Go","note":"n","tags":["b","c"],"main":{"name":"m","color":"red"}}`, nil},
		{"merge a nested object", `{"main":{"color":null}}`, `{"url":"https://go.dev/","title":"Go","note":"n","tags":["a"],"main":{"name":"m"}}`, nil},
		{"set a nested member", `{"main":{"name":"x"}}`, `{"url":"https://go.dev/","title":"Go","note":"n","tags":["a"],"main":{"name":"x","color":"red"}}`, nil},
		{"through JSON", `{"extra":[{"name":"e"}]}`, `{"url":"https://go.dev/","title":"Go","note":"n","tags":["a"],"main":{"name":"m","color":"red"},"extra":[{"name":"e"}]}`, nil},
		{"the result breaks a rule", `{"title":"a title too long","tags":["a","b","c"]}`, "", []string{"body.tags maxItems", "body.title maxLength"}},
		{"a nested result breaks a rule", `{"extra":[{"name":""}]}`, "", []string{"body.extra[0].name minLength"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p mergeBookmarkPatch
			if err := json.Unmarshal([]byte(tc.patch), &p); err != nil {
				t.Fatal(err)
			}
			b := base()
			err := Merge(&b, &p)
			if tc.fails != nil {
				var he *waltz.HTTPError
				if !errors.As(err, &he) || he.Code != http.StatusUnprocessableEntity {
					t.Fatalf("got %v, want a 422", err)
				}
				var got []string
				for _, f := range he.Errors {
					got = append(got, f.Location+" "+f.Keyword)
				}
				if len(got) != len(tc.fails) || (len(got) > 0 && !sameSet(got, tc.fails)) {
					t.Errorf("failures: got %q, want %q", got, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			got, _ := json.Marshal(b)
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// sameSet reports whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestMergeByValue holds a patch passed by value to what its pointer
// gives.
func TestMergeByValue(t *testing.T) {
	var p mergeBookmarkPatch
	if err := json.Unmarshal([]byte(`{"note":null,"title":"Golang"}`), &p); err != nil {
		t.Fatal(err)
	}
	b := mergeBookmark{URL: "https://go.dev/", Title: "Go", Note: "n"}
	if err := Merge(&b, p); err != nil {
		t.Fatal(err)
	}
	if b.Note != "" || b.Title != "Golang" {
		t.Errorf("got %+v, want the note removed and the title set", b)
	}
}

func TestMergeMistakes(t *testing.T) {
	type target struct {
		A int `json:"a"`
	}
	for _, tc := range []struct {
		name  string
		patch any
	}{
		{"a member the target lacks", &struct {
			B Optional[int] `json:"b"`
		}{}},
		{"not a struct", 3},
		{"a value of another type", &struct {
			A string `json:"a"`
		}{A: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var he *waltz.HTTPError
			if err := Merge(&target{}, tc.patch); err == nil || errors.As(err, &he) {
				t.Errorf("got %v, want a plain error (the handler's mistake)", err)
			}
		})
	}
}

func TestOptionalJSON(t *testing.T) {
	type doc struct {
		A Optional[int]    `json:"a"`
		B Optional[string] `json:"b,omitzero"`
	}
	for _, tc := range []struct {
		in                 string
		present, null, val bool
		out                string
	}{
		{`{}`, false, false, false, `{"a":null}`},
		{`{"a":null}`, true, true, false, `{"a":null}`},
		{`{"a":0}`, true, false, true, `{"a":0}`},
		{`{"a":7,"b":"x"}`, true, false, true, `{"a":7,"b":"x"}`},
	} {
		var d doc
		if err := json.Unmarshal([]byte(tc.in), &d); err != nil {
			t.Fatal(err)
		}
		_, val := d.A.Value()
		if d.A.Present() != tc.present || d.A.Null() != tc.null || val != tc.val {
			t.Errorf("%s: got present %v null %v value %v, want %v %v %v", tc.in, d.A.Present(), d.A.Null(), val, tc.present, tc.null, tc.val)
		}
		if out, _ := json.Marshal(d); string(out) != tc.out {
			t.Errorf("%s: marshalled %s, want %s", tc.in, out, tc.out)
		}
	}
	var d doc
	if err := json.Unmarshal([]byte(`{"a":"x"}`), &d); err == nil {
		t.Errorf("a string for an Optional[int]: got no error")
	}
}

type MergeMeta struct {
	Note string `json:"note,omitempty"`
}

type MergeMetaPatch struct {
	Note Optional[string] `json:"note"`
}

type mergeX struct{ X string }
type mergeY struct{ X string }

// TestMergeMembers: Merge names members as encoding/json does, by the
// engine's rules (typed.Members), where its own names differed: a member
// promoted through an embedded pointer, on either side, was a "has no
// member" 500; of two same-depth names that encoding/json drops, the
// first was written; a tag name encoding/json ignores was used.
func TestMergeMembers(t *testing.T) {
	t.Run("embedded pointers", func(t *testing.T) {
		type target struct {
			*MergeMeta
			Title string `json:"title"`
		}
		type patch struct {
			*MergeMetaPatch
			Title string `json:"title,omitempty"`
		}
		var p patch
		if err := json.Unmarshal([]byte(`{"note":"n","title":"t"}`), &p); err != nil {
			t.Fatal(err)
		}
		var tg target // its embedded pointer nil: made, as encoding/json makes it
		if err := Merge(&tg, &p); err != nil || tg.MergeMeta == nil || tg.Note != "n" || tg.Title != "t" {
			t.Fatalf("got %+v %v, want note n and title t", tg, err)
		}
		p = patch{} // the patch's embedded pointer nil: its members absent
		if err := Merge(&tg, &p); err != nil || tg.Note != "n" {
			t.Errorf("an absent embedded patch: got %+v %v", tg, err)
		}
		if err := json.Unmarshal([]byte(`{"note":null}`), &p); err != nil {
			t.Fatal(err)
		}
		if err := Merge(&tg, &p); err != nil || tg.Note != "" {
			t.Errorf("note removed: got %+v %v", tg, err)
		}
		var empty target // null for a member behind a nil pointer: nothing made
		if err := Merge(&empty, &p); err != nil || empty.MergeMeta != nil {
			t.Errorf("null into a nil embedded pointer: got %+v %v", empty, err)
		}
	})
	t.Run("names encoding/json drops", func(t *testing.T) {
		type target struct {
			mergeX
			mergeY // X at the same depth as mergeX's: encoding/json has no member X
		}
		patch := &struct {
			X string `json:"X,omitempty"`
		}{X: "x"}
		var tg target
		if err := Merge(&tg, patch); err == nil || !strings.Contains(err.Error(), `has no member "X"`) {
			t.Errorf("got %v, %+v, want no member X: encoding/json writes none", err, tg)
		}
	})
	t.Run("tag names encoding/json ignores", func(t *testing.T) {
		type target struct {
			Name string `json:"na'me"` // not a name encoding/json takes: the member is Name
		}
		patch := &struct {
			Name Optional[string] `json:"Name"`
		}{}
		if err := json.Unmarshal([]byte(`{"Name":"x"}`), patch); err != nil {
			t.Fatal(err)
		}
		var tg target
		if err := Merge(&tg, patch); err != nil || tg.Name != "x" {
			t.Errorf("got %+v %v, want Name x", tg, err)
		}
	})
}

// TestMergeIntoNilMap: a patch that sets a member of type map[string]any
// the target does not have yet (nil) merges into an empty object (RFC
// 7396 section 2); Merge panicked, assigning to the nil map.
func TestMergeIntoNilMap(t *testing.T) {
	type target struct {
		Extra map[string]any `json:"extra,omitempty"`
	}
	var p struct {
		Extra Optional[map[string]any] `json:"extra"`
	}
	if err := json.Unmarshal([]byte(`{"extra":{"a":1,"b":null}}`), &p); err != nil {
		t.Fatal(err)
	}
	var tg target
	if err := Merge(&tg, &p); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(tg); string(got) != `{"extra":{"a":1}}` {
		t.Errorf("got %s, want {\"extra\":{\"a\":1}}", got)
	}
}

// MergeLang is embedded through a pointer in TestMergeLeavesTheOriginal.
type MergeLang struct {
	Lang string `json:"lang,omitempty"`
}

type MergeLangPatch struct {
	Lang Optional[string] `json:"lang"`
}

// TestMergeLeavesTheOriginal: Merge into a shallow copy of a stored value
// (p := stored, as the documentation does) never writes through the
// pointers the copy shares with it, so a patch refused with 422, or one
// that succeeds, leaves the stored value as it was. Merge wrote a nested
// patch into the shared *mergeTag, and a member behind an embedded

// mergeCopy decodes patch, a JSON text, into a P and merges it into a
// shallow copy of stored, as a handler merges into what it stored (the
// copy shares stored's pointers and maps), and fails t when stored then
// reads otherwise than before: Merge writes into copies alone.
func mergeCopy[T, P any](t *testing.T, stored T, patch string) (T, error) {
	t.Helper()
	var p P
	if err := json.Unmarshal([]byte(patch), &p); err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(stored)
	merged := stored
	err := Merge(&merged, &p)
	if after, _ := json.Marshal(stored); string(after) != string(before) {
		t.Errorf("the stored value became %s, want %s", after, before)
	}
	return merged, err
}

// pointer into the shared struct, in place.
func TestMergeLeavesTheOriginal(t *testing.T) {
	type target struct {
		Title string    `json:"title" maxLength:"10"`
		Main  *mergeTag `json:"main,omitempty"`
		*MergeLang
	}
	type patch struct {
		Title string                  `json:"title,omitempty"`
		Main  Optional[mergeTagPatch] `json:"main"`
		*MergeLangPatch
	}
	stored := target{Title: "Go", Main: &mergeTag{Name: "m", Color: "red"}, MergeLang: &MergeLang{Lang: "en"}}
	for _, tc := range []struct{ name, patch, merged string }{
		{"refused", `{"title":"a title too long","main":{"color":"blue"},"lang":"fr"}`, ""},
		{"taken", `{"main":{"color":null},"lang":null}`, `{"title":"Go","main":{"name":"m"}}`},
		{"set", `{"main":{"color":"blue"},"lang":"fr"}`, `{"title":"Go","main":{"name":"m","color":"blue"},"lang":"fr"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := mergeCopy[target, patch](t, stored, tc.patch)
			if tc.merged == "" {
				return
			}
			if got, _ := json.Marshal(tg); err != nil || string(got) != tc.merged {
				t.Errorf("merged: got %s %v, want %s", got, err, tc.merged)
			}
		})
	}
}

// mergeLangUnexported is embedded through a pointer to an unexported
// type: encoding/json promotes its members, and decodes into them when
// the pointer is set.
type mergeLangUnexported struct {
	Lang string `json:"lang"`
}

// TestMergeUnexportedEmbeddedPointer: a member behind an embedded pointer
// to an unexported type, which reflect cannot set, is merged into a copy
// when the pointer is set, the stored value left as it was, as a member
// behind an exported one is; a nil one is an error, as encoding/json
// cannot make it either. Owning every embedded pointer, Merge refused the
// set one too ("cannot set the embedded pointer"), where it had written
// through it.
func TestMergeUnexportedEmbeddedPointer(t *testing.T) {
	type target struct {
		Title string `json:"title"`
		*mergeLangUnexported
	}
	type patch struct {
		Lang Optional[string] `json:"lang"`
	}
	stored := target{Title: "Go", mergeLangUnexported: &mergeLangUnexported{Lang: "en"}}
	for _, tc := range []struct{ patch, merged string }{
		{`{"lang":"fr"}`, `{"title":"Go","lang":"fr"}`},
		{`{"lang":null}`, `{"title":"Go","lang":""}`},
	} {
		var p patch
		if err := json.Unmarshal([]byte(tc.patch), &p); err != nil {
			t.Fatal(err)
		}
		tg := stored
		if err := Merge(&tg, &p); err != nil {
			t.Errorf("%s: %v", tc.patch, err)
			continue
		}
		if got, _ := json.Marshal(tg); string(got) != tc.merged {
			t.Errorf("%s: merged %s, want %s", tc.patch, got, tc.merged)
		}
		if stored.Lang != "en" {
			t.Fatalf("%s: the stored value's lang became %q", tc.patch, stored.Lang)
		}
	}
	var p patch
	_ = json.Unmarshal([]byte(`{"lang":"fr"}`), &p)
	tg := target{Title: "Go"}
	if err := Merge(&tg, &p); err == nil || !strings.Contains(err.Error(), "unexported") {
		t.Errorf("behind a nil unexported pointer: got %v, want an error naming it", err)
	}
}

// TestMergeMaps: a map member is a JSON object, which a merge patch
// merges key by key at any depth (RFC 7396 section 2): a key the patch
// leaves out stays, null (a nil pointer or interface) removes one, a
// value replaces one or, a patch of its own, merges into it. Merge
// replaced a typed map whole, removing every key the patch did not name,
// and kept null as a value. The stored map is not written.
func TestMergeMaps(t *testing.T) {
	type target struct {
		Labels map[string]string    `json:"labels,omitempty"`
		Tags   map[string]*mergeTag `json:"tags,omitempty"`
		Plain  map[string]int       `json:"plain,omitempty"`
	}
	type patch struct {
		Labels Optional[map[string]*string]        `json:"labels"`
		Tags   Optional[map[string]*mergeTagPatch] `json:"tags"`
		Plain  map[string]int                      `json:"plain,omitempty"`
	}
	stored := target{Labels: map[string]string{"a": "1", "b": "2"},
		Tags: map[string]*mergeTag{"x": {Name: "x", Color: "red"}}, Plain: map[string]int{"p": 1}}
	for _, tc := range []struct{ patch, merged string }{
		{`{"labels":{"b":"3","c":"4"}}`, `{"labels":{"a":"1","b":"3","c":"4"},"tags":{"x":{"name":"x","color":"red"}},"plain":{"p":1}}`},
		{`{"labels":{"a":null,"z":null}}`, `{"labels":{"b":"2"},"tags":{"x":{"name":"x","color":"red"}},"plain":{"p":1}}`},
		{`{"labels":null}`, `{"tags":{"x":{"name":"x","color":"red"}},"plain":{"p":1}}`},
		{`{"tags":{"x":{"color":null},"y":{"name":"y"}}}`, `{"labels":{"a":"1","b":"2"},"tags":{"x":{"name":"x"},"y":{"name":"y"}},"plain":{"p":1}}`},
		{`{"tags":{"x":null}}`, `{"labels":{"a":"1","b":"2"},"plain":{"p":1}}`},
		{`{"plain":{"q":2}}`, `{"labels":{"a":"1","b":"2"},"tags":{"x":{"name":"x","color":"red"}},"plain":{"p":1,"q":2}}`},
		{`{"tags":{"y":{"color":"blue"}}}`, ""}, // a new tag with no name: a 422
	} {
		t.Run(tc.patch, func(t *testing.T) {
			tg, err := mergeCopy[target, patch](t, stored, tc.patch)
			if tc.merged == "" {
				var he *waltz.HTTPError
				if !errors.As(err, &he) || he.Code != http.StatusUnprocessableEntity {
					t.Errorf("got %v, want a 422", err)
				}
				return
			}
			if got, _ := json.Marshal(tg); err != nil || string(got) != tc.merged {
				t.Errorf("got %s %v, want %s", got, err, tc.merged)
			}
		})
	}
}

// TestMergeMapsCases holds RFC 7396 section 2 on Go maps, which are JSON
// objects: a patch's map merges into the target's key by key, a nil
// value (a map of pointers holds null so) removes its key, a struct
// value with Optional members merges into the key's value, and the
// target's own map is never written, so that a copy merged into leaves
// what it copies as it was.
func TestMergeMapsCases(t *testing.T) {
	type target struct {
		Labels map[string]string   `json:"labels,omitempty"`
		Limits map[string]int      `json:"limits,omitempty"`
		Tags   map[string]mergeTag `json:"tags,omitempty"`
		Ptr    *map[string]string  `json:"ptr,omitempty"`
		Any    map[string]any      `json:"any,omitempty"`
		Short  map[string]string   `json:"short,omitempty" maxLength:"3"`
	}
	type patch struct {
		Labels Optional[map[string]*string]       `json:"labels"`
		Limits map[string]*int                    `json:"limits,omitempty"`
		Tags   Optional[map[string]mergeTagPatch] `json:"tags"`
		Ptr    Optional[map[string]*string]       `json:"ptr"`
		Any    Optional[map[string]any]           `json:"any"`
		Short  Optional[map[string]string]        `json:"short"`
	}
	stored := func() target {
		p := map[string]string{"p": "1"}
		return target{
			Labels: map[string]string{"a": "1", "b": "2"},
			Limits: map[string]int{"x": 1},
			Tags:   map[string]mergeTag{"t": {Name: "t", Color: "red"}},
			Ptr:    &p,
			Any:    map[string]any{"k": map[string]any{"i": 1.0, "j": 2.0}},
		}
	}
	for _, tc := range []struct{ name, patch, want, fail string }{
		{"a key added", `{"labels":{"c":"3"}}`, `"labels":{"a":"1","b":"2","c":"3"}`, ""},
		{"a key removed", `{"labels":{"a":null}}`, `"labels":{"b":"2"}`, ""},
		{"a key replaced, one removed", `{"labels":{"a":"9","b":null}}`, `"labels":{"a":"9"}`, ""},
		{"the map removed", `{"labels":null}`, `{"limits":{"x":1}`, ""}, // labels, the first member, is gone
		{"a plain map member", `{"limits":{"y":2,"x":null}}`, `"limits":{"y":2}`, ""},
		{"a struct value merged", `{"tags":{"t":{"color":null}}}`, `"tags":{"t":{"name":"t"}}`, ""},
		{"a struct value added", `{"tags":{"u":{"name":"u"}}}`, `"tags":{"t":{"name":"t","color":"red"},"u":{"name":"u"}}`, ""},
		{"a new struct value that breaks its rules", `{"tags":{"u":{"color":"blue"}}}`, "", "body.tags.u.name"},
		{"behind a pointer", `{"ptr":{"q":"2"}}`, `"ptr":{"p":"1","q":"2"}`, ""},
		{"a map of any, at depth", `{"any":{"k":{"i":null,"l":3}}}`, `"any":{"k":{"j":2,"l":3}}`, ""},
		{"a nil map made", `{"short":{"s":"abc"}}`, `"short":{"s":"abc"}`, ""},
		{"the merged map checked", `{"short":{"s":"abcd"}}`, "", "body.short.s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := mergeCopy[target, patch](t, stored(), tc.patch)
			if tc.fail != "" {
				var he *waltz.HTTPError
				if !errors.As(err, &he) || len(he.Errors) != 1 || he.Errors[0].Location != tc.fail {
					t.Fatalf("got %v, want a 422 at %s", err, tc.fail)
				}
				return
			}
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			got, _ := json.Marshal(d)
			if !strings.Contains(string(got), tc.want) {
				t.Errorf("got %s, want it to hold %s", got, tc.want)
			}
		})
	}
}

// TestMergeObjectsIntoTypedValues holds RFC 7396 section 2 on a patch
// decoded as map[string]any (an object of any members) applied to typed
// values: an object merges into a struct member by member, into a
// pointer to a struct through a copy, into a map of structs or of maps
// key by key, and a key the target lacks is made from the patch alone,
// its nulls removed; the stored value is never written (mergeCopy).
func TestMergeObjectsIntoTypedValues(t *testing.T) {
	type item struct {
		A int  `json:"a"`
		B int  `json:"b"`
		C *int `json:"c,omitempty"`
	}
	type target struct {
		Vals map[string]item            `json:"vals,omitempty"`
		Ptrs map[string]*item           `json:"ptrs,omitempty"`
		Deep map[string]map[string]item `json:"deep,omitempty"`
		One  *item                      `json:"one,omitempty"`
		Any  any                        `json:"any,omitempty"`
	}
	type patch struct {
		Vals Optional[map[string]any] `json:"vals"`
		Ptrs Optional[map[string]any] `json:"ptrs"`
		Deep Optional[map[string]any] `json:"deep"`
		One  Optional[map[string]any] `json:"one"`
		Any  Optional[map[string]any] `json:"any"`
	}
	stored := func() target {
		c := 3
		return target{
			Vals: map[string]item{"k": {A: 1, B: 2, C: &c}},
			Ptrs: map[string]*item{"k": {A: 1, B: 2, C: &c}},
			Deep: map[string]map[string]item{"x": {"k": {A: 1, B: 2}}},
			One:  &item{A: 1, B: 2},
			Any:  map[string]string{"x": "1"},
		}
	}
	for _, tc := range []struct{ name, patch, want string }{
		{"a map of structs", `{"vals":{"k":{"a":9}}}`, `"vals":{"k":{"a":9,"b":2,"c":3}}`},
		{"a map of pointers to structs", `{"ptrs":{"k":{"a":9}}}`, `"ptrs":{"k":{"a":9,"b":2,"c":3}}`},
		{"a member removed", `{"ptrs":{"k":{"c":null}}}`, `"ptrs":{"k":{"a":1,"b":2}}`},
		{"a nested map of maps", `{"deep":{"x":{"k":{"b":7}}}}`, `"deep":{"x":{"k":{"a":1,"b":7}}}`},
		{"a key removed", `{"vals":{"k":null}}`, `{"ptrs":{"k"`}, // vals, the first member, left empty: omitted
		{"a new key of structs", `{"vals":{"n":{"a":4,"c":null}}}`, `"vals":{"k":{"a":1,"b":2,"c":3},"n":{"a":4,"b":0}}`},
		{"a new key of pointers", `{"ptrs":{"n":{"b":5,"c":null}}}`, `"n":{"a":0,"b":5}`},
		{"a new key of maps", `{"deep":{"y":{"k":{"a":6,"b":null}}}}`, `"y":{"k":{"a":6,"b":0}}`},
		{"a pointer to a struct", `{"one":{"b":8}}`, `"one":{"a":1,"b":8}`},
		{"a member the struct lacks", `{"vals":{"k":{"z":1}}}`, `"vals":{"k":{"a":1,"b":2,"c":3}}`},
		{"a map of strings in an any", `{"any":{"y":"2"}}`, `"any":{"x":"1","y":"2"}`},
		{"a key of it removed", `{"any":{"x":null,"y":"2"}}`, `"any":{"y":"2"}`},
		{"a value it cannot hold", `{"any":{"y":2}}`, `"any":{"x":"1","y":2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := mergeCopy[target, patch](t, stored(), tc.patch)
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			got, _ := json.Marshal(d)
			if !strings.Contains(string(got), tc.want) {
				t.Errorf("got %s, want it to hold %s", got, tc.want)
			}
		})
	}
}

// TestMergeKeepsTheHeldType holds that an object merged into an any that
// holds a value of another type (a map[string]string, a struct) keeps
// that type when it holds the merged JSON whole, and becomes the JSON as
// encoding/json decodes it (map[string]any) when it cannot.
func TestMergeKeepsTheHeldType(t *testing.T) {
	type point struct {
		X int `json:"x"`
		Y int `json:"y"`
	}
	type target struct {
		Any any `json:"any"`
	}
	type patch struct {
		Any Optional[map[string]any] `json:"any"`
	}
	for _, tc := range []struct {
		name   string
		held   any
		patch  string
		want   string
		wantTy reflect.Type
	}{
		{"strings", map[string]string{"a": "1"}, `{"any":{"b":"2"}}`, `{"any":{"a":"1","b":"2"}}`, reflect.TypeFor[map[string]string]()},
		{"a number for strings", map[string]string{"a": "1"}, `{"any":{"b":2}}`, `{"any":{"a":"1","b":2}}`, reflect.TypeFor[map[string]any]()},
		{"a struct", point{1, 2}, `{"any":{"y":5}}`, `{"any":{"x":1,"y":5}}`, reflect.TypeFor[point]()},
		{"a pointer to a struct", &point{1, 2}, `{"any":{"y":5}}`, `{"any":{"x":1,"y":5}}`, reflect.TypeFor[*point]()},
		{"a member the struct lacks", point{1, 2}, `{"any":{"z":5}}`, `{"any":{"x":1,"y":2,"z":5}}`, reflect.TypeFor[map[string]any]()},
		{"not an object", "text", `{"any":{"z":5}}`, `{"any":{"z":5}}`, reflect.TypeFor[map[string]any]()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := mergeCopy[target, patch](t, target{Any: tc.held}, tc.patch)
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if got, _ := json.Marshal(d); string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if ty := reflect.TypeOf(d.Any); ty != tc.wantTy {
				t.Errorf("got a %v, want a %v", ty, tc.wantTy)
			}
		})
	}
}
