package typed

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

type kaLeaf struct {
	S    string   `json:"s" maxLength:"3"`
	N    int      `json:"n" minimum:"0"`
	Tags []string `json:"tags" maxItems:"3" minLength:"1"`
}

type kaDoc struct {
	Leaves []kaLeaf            `json:"leaves"`
	Uniq   []kaLeaf            `json:"uniq" uniqueItems:"true"`
	Grid   [][]int             `json:"grid" uniqueItems:"true"`
	Pairs  [2][]string         `json:"pairs" uniqueItems:"true"`
	ByKey  map[string][]kaLeaf `json:"byKey"`
	Ptrs   []*kaLeaf           `json:"ptrs" maxItems:"2"`
	Words  []string            `json:"words" enum:"a,b,c"`
	Nums   []int               `json:"nums,string"`
	Deep   [][][]string        `json:"deep"`
	Any    []any               `json:"any" uniqueItems:"true"`
}

// failuresOf decodes s into a new kaDoc as a body whose request had had
// failures before it, reading every value whole or not, and returns the
// body's failures.
func failuresOf(tb testing.TB, bp *bodyPlan, s []byte, had int, keepAll bool) ([]string, bool) {
	d := decoder{s: s, had: had, keepAll: keepAll}
	d.ws()
	if d.i == len(s) {
		return nil, false
	}
	bp.read(&d, reflect.New(bp.typ).UnsafePointer())
	if d.err != "" {
		return nil, false
	}
	var out []string
	for i := range d.fails.n {
		f := d.fails.at(i)
		out = append(out, f.loc+" "+f.keyword+" "+f.msg)
	}
	return out, true
}

// FuzzDecodeKeepAll holds that a body's failures are the same when its
// values are dropped and viewed (the request failed before it) as when
// every value is kept.
func FuzzDecodeKeepAll(f *testing.F) {
	for _, s := range []string{
		`{"uniq":[{"tags":["a","b"]},{"tags":["c","b"]}]}`,
		`{"grid":[[1,2],[3,2]],"pairs":[["a","b"],["c","b"]]}`,
		`{"leaves":[{"s":"abcd","tags":["a","b","c","d","e"]},{"n":-1}],"byKey":{"k":[{"tags":["","x"]}]}}`,
		`{"ptrs":[{"s":"x"},{"s":"y"},{"s":"toolong"}],"words":["a","d","b"],"nums":["1","x"]}`,
		`{"deep":[[["a"],["b","c"]],[["d"]]],"any":[[1,2],[1,2]]}`,
		`{"uniq":[{"s":"a","s":"bbbbb"},{"s":"a"}],"leaves":[{"tags":[""],"tags":["x"]}]}`,
	} {
		f.Add(s)
	}
	bp, err := planBody(reflect.TypeFor[kaDoc](), reflect.StructField{Name: "Body", Type: reflect.TypeFor[kaDoc]()})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kept, ok := failuresOf(t, bp, []byte(s), 1, true)
		if !ok {
			return
		}
		cut, _ := failuresOf(t, bp, []byte(s), 1, false)
		if len(kept) < MaxFailures-2 && !slices.Equal(kept, cut) {
			t.Fatalf("%s:\nkept %q\ncut  %q", s, kept, cut)
		}
	})
}

type kaOpt struct {
	Name   string              `json:"name,omitempty" minLength:"2"`
	Leaves []kaLeaf            `json:"leaves,omitempty"`
	Tags   []string            `json:"tags,omitempty" maxItems:"2"`
	ByKey  map[string][]string `json:"bykey,omitempty"` // all lower case: see FuzzDecodePassing
	Inner  *kaOpt              `json:"inner,omitempty"`
	Arr    [2]kaLeaf           `json:"arr,omitempty"`
}

// FuzzDecodePassing holds that a body that passes decodes to what
// encoding/json makes of it, however its failures were taken back.
func FuzzDecodePassing(f *testing.F) {
	for _, s := range []string{
		`{"name":"","tags":["a","b","c","d","e"],"leaves":[{"s":"x","n":1,"tags":["a"]}],"name":"ok"}`,
		`{"inner":{"name":"","tags":["a","b","c"],"inner":{"name":"x"}},"bykey":{"k":["v"]},"inner":{"name":"ok"}}`,
		`{"tags":["a","b","c","d","e"],"bykey":{"a":["1","2"]},"tags":["z"]}`,
		`{"arr":[{"s":"a","n":1,"tags":["x"]},{"s":"b","n":2,"tags":["y"]}],"inner":{"arr":[]},"arr":[{"s":"c","n":3,"tags":[]}]}`,
		`{"bykey":{"a":["1"],"b":null},"inner":null,"bykey":{"a":["2","3"]},"inner":{"name":"ab"}}`,
	} {
		f.Add(s)
	}
	typ := reflect.TypeFor[kaOpt]()
	bp, err := planBody(typ, reflect.StructField{Name: "Body", Type: typ})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// encoding/json matches keys without case, which the decoder
		// does not: no upper case, escape or non-ASCII byte here, and
		// kaOpt's names are all lower case.
		if strings.ContainsFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' || r == '\\' || r >= 0x80 }) {
			return
		}
		var want kaOpt
		if json.Unmarshal([]byte(s), &want) != nil {
			return
		}
		var got kaOpt
		var fs failed
		b := &binder{in: Input{Fails: &fs}, base: unsafe.Pointer(&got)}
		buf := []byte(s)
		bp.decode(b, buf)
		if b.nfails > 0 {
			return
		}
		clear(buf) // the body's buffer, written over by the next request
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\ngot  %+v\nwant %+v", s, got, want)
		}
	})
}
