package typed

import (
	"slices"
	"testing"
)

// TestDecodeArrayLength: a typed body's array takes a JSON array of its
// length alone, as its schema's minItems and maxItems say; another
// length is a 422 failure at the array, whose items are not checked as a
// whole then. Context.Bind's decoder reads it as encoding/json does.
func TestDecodeArrayLength(t *testing.T) {
	type in struct {
		Body struct {
			A [3]int    `json:"a"`
			U [2]string `json:"u,omitempty" uniqueItems:"true"`
			K [1]kid    `json:"k,omitempty"`
		}
	}
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"a":[1,2,3]}`, nil},
		{`{"a":[1,2]}`, []string{"body.a minItems: must have at least 3 items, got 2"}},
		{`{"a":[]}`, []string{"body.a minItems: must have at least 3 items, got 0"}},
		{`{"a":[1,2,3,4]}`, []string{"body.a maxItems: must have at most 3 items, got 4"}},
		{`{"a":[1,2,3],"u":["x","x","x"]}`, []string{"body.u maxItems: must have at most 2 items, got 3"}},
		{`{"a":[1,2,3],"u":["x","x"]}`, []string{"body.u uniqueItems: must not repeat an item"}},
		{`{"a":[1,2,3],"k":[{"age":-1},{}]}`, []string{"body.k[0].age minimum: must be at least 0, got -1", "body.k maxItems: must have at most 1 item, got 2"}},
		{`{"a":[1,2,3,4],"a":[1,2,3]}`, nil}, // the last of a repeated key counts
	} {
		v, err := bindInto[in](t, nil, nil, post(js, tc.body), Body{})
		var got []string
		if fs, _ := err.(*failed); fs != nil {
			for _, f := range fs.list {
				got = append(got, f.loc+" "+f.keyword+": "+f.msg)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.body, got, tc.want)
		}
		if tc.want == nil && v.Body.A != [3]int{1, 2, 3} {
			t.Errorf("%s: got %v", tc.body, v.Body.A)
		}
	}
	var a struct {
		A [3]int `json:"a"`
	}
	if err, fs := decodeJSON(t, &a, `{"a":[1,2]}`, Body{}); err != nil || a.A != [3]int{1, 2, 0} {
		t.Errorf("Context.Bind's [1,2]: got %v %q %v, want [1 2 0] as encoding/json has it", err, fs, a.A)
	}
	if err, fs := decodeJSON(t, &a, `{"a":[1,2,3,4]}`, Body{}); err != nil || a.A != [3]int{1, 2, 3} {
		t.Errorf("Context.Bind's [1,2,3,4]: got %v %q %v, want [1 2 3] as encoding/json has it", err, fs, a.A)
	}
}
