package typed

import (
	"slices"
	"strings"
	"testing"
)

// A slice with uniqueItems reads its items whole; the items' own slices
// must then be kept whole too, or two items that differ only in the
// items dropped from their inner slices are told equal. The request
// fails before the slice (name), or the inner slice passes its maxItems:
// either way the failures must be those of a body read keeping every
// value.
func TestDecodeUniqueItemsSeesInnerSlicesWhole(t *testing.T) {
	type row struct {
		Tags []string `json:"tags" maxItems:"2"`
	}
	type in struct {
		Body struct {
			Name string  `json:"name" minLength:"1"`
			Rows [][]int `json:"rows" uniqueItems:"true"`
			Objs []row   `json:"objs" uniqueItems:"true"`
		}
	}
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"nested slices after a failure",
			`{"name":"","rows":[[1,2],[3,2]],"objs":[]}`,
			[]string{"body.name minLength"}},
		{"a struct's slice after a failure",
			`{"name":"","rows":[],"objs":[{"tags":["a","b"]},{"tags":["c","b"]}]}`,
			[]string{"body.name minLength"}},
		{"a struct's slice past its maxItems",
			`{"name":"x","rows":[],"objs":[{"tags":["a","b","c"]},{"tags":["a","z"]},{"tags":["b","z"]}]}`,
			[]string{"body.objs[0].tags maxItems"}},
	} {
		_, err := bindInto[in](t, nil, nil, post(js, tc.body), Body{})
		got, _ := failures(err)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A repeated key drops the failures of its earlier value only: a failure
// of another member whose location is cut at MaxLocation to the same text
// is not the repeated member's, and stays.
func TestDecodeRepeatedKeyUnderLongLocation(t *testing.T) {
	type pair struct {
		A int `json:"a" minimum:"1"`
		B int `json:"b" minimum:"1"`
	}
	type in struct {
		Body struct {
			M map[string]pair `json:"m"`
		}
	}
	key := strings.Repeat("k", MaxLocation)
	body := `{"m":{"` + key + `":{"b":0,"a":1,"a":1}}}`
	v, err := bindInto[in](t, nil, nil, post(js, body), Body{})
	if got, _ := failures(err); len(got) != 1 || !strings.HasSuffix(got[0], " minimum") {
		t.Errorf("got %q and %+v, want the one failure of b", got, v.Body.M[key])
	}
}

// A failure not told because the request already had MaxFailures is not
// forgotten when a repeated key then drops the failures it had: a body
// that fails must not pass.
func TestDecodeRepeatedKeyAfterMaxFailures(t *testing.T) {
	type in struct {
		Body struct {
			Tags []string `json:"tags" minLength:"2"`
			Name string   `json:"name" minLength:"1"`
		}
	}
	tags := strings.TrimSuffix(strings.Repeat(`"a",`, MaxFailures), ",")
	body := `{"tags":[` + tags + `],"name":"","tags":[]}`
	v, err := bindInto[in](t, nil, nil, post(js, body), Body{})
	if err == nil {
		t.Errorf("the body passed, its name %q", v.Body.Name)
	}
}

// An array sent with fewer items than its length to Context.Bind's
// decoder holds the zero value in the rest, as encoding/json leaves it: a
// repeated key's earlier, longer array leaves none of its items behind.
// (A typed body refuses another length: TestDecodeArrayLength.)
func TestDecodeArrayRepeatedShorter(t *testing.T) {
	var v struct {
		Arr  [3]int    `json:"arr"`
		Strs [2]string `json:"strs"`
	}
	body := `{"arr":[1,2,3],"strs":["a","b"],"arr":[9],"strs":[]}`
	if err, fs := decodeJSON(t, &v, body, Body{}); err != nil {
		t.Fatal(err, fs)
	}
	if v.Arr != [3]int{9, 0, 0} || v.Strs != [2]string{} {
		t.Errorf("got %v %q, want [9 0 0] and two empty strings, as encoding/json has them", v.Arr, v.Strs)
	}
}
