package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// TestMergeFreeFormMismatch: a value of a patch's free-form JSON (an any,
// a map[string]any) that the member it patches cannot hold is the
// client's mistake: a 422 locating it, as the body's own failures are.
// It was a plain error, a 500. A typed patch member of the wrong type is
// still the handler's mistake, a plain error.
func TestMergeFreeFormMismatch(t *testing.T) {
	type meta struct {
		Count int       `json:"count"`
		Name  string    `json:"name"`
		When  time.Time `json:"when"`
	}
	type target struct {
		Meta   meta              `json:"meta"`
		Extra  *meta             `json:"extra,omitempty"`
		Labels map[string]meta   `json:"labels"`
		Size   int               `json:"size"`
		Count  int               `json:"count"`
		Names  map[string]string `json:"names"`
		Lists  map[string][]int  `json:"lists"`
		ByID   map[int]string    `json:"by_id"`
	}
	type patch struct {
		Meta   map[string]any `json:"meta"`
		Extra  any            `json:"extra"`
		Labels map[string]any `json:"labels"`
		Size   string         `json:"size,omitempty"` // the handler's mistake: a string for an int
		Count  Optional[any]  `json:"count"`
		Names  map[string]any `json:"names"`
		Lists  map[string]any `json:"lists"`
		ByID   map[string]any `json:"by_id"`
	}
	stored := target{Meta: meta{Count: 1, Name: "a"}, Labels: map[string]meta{"k": {Count: 2}}, Size: 3}
	for _, tc := range []struct{ name, patch, loc, msg, merged string }{
		// An array holding a value its element cannot: the element is
		// located, not the array said to be none.
		{"an element of an array", `{"lists":{"k":[1,"x"]}}`, "body.lists.k[1]", "must be an integer", ""},
		{"an element of an element", `{"labels":{"k":{"count":1}},"lists":{"k":[[1]]}}`, "body.lists.k[0]", "must be an integer", ""},
		// A key is written in the location as the body's failures write
		// it: quoted in brackets when it holds a dot or a control byte.
		{"a key with a dot", `{"names":{"a.b":1}}`, `body.names["a.b"]`, "must be a string", ""},
		{"a key with an escape", `{"names":{"\u001b[2J":1}}`, `body.names["\x1b[2J"]`, "must be a string", ""},
		{"a value of an integer key", `{"by_id":{"7":true}}`, "body.by_id.7", "must be a string", ""},
		{"a string for an int", `{"meta":{"count":"x"}}`, "body.meta.count", "must be an integer", ""},
		{"a fraction for an int", `{"meta":{"count":1.5}}`, "body.meta.count", "must be an integer", ""},
		{"a number for a time", `{"meta":{"when":7}}`, "body.meta.when", "must be a string", ""},
		{"a string for an object", `{"extra":"x"}`, "body.extra", "must be an object", ""},
		{"deep in a map", `{"labels":{"k":{"count":[1]}}}`, "body.labels.k.count", "must be an integer", ""},
		{"a new key", `{"labels":{"n":{"name":false}}}`, "body.labels.n.name", "must be a string", ""},
		{"through an Optional[any]", `{"count":"x"}`, "body.count", "must be an integer", ""},
		{"a number in a map of strings", `{"names":{"k":1}}`, "body.names.k", "must be a string", ""},
		{"merged", `{"meta":{"count":5},"labels":{"k":{"name":"b"}}}`, "", "",
			`{"meta":{"count":5,"name":"a","when":"0001-01-01T00:00:00Z"},"labels":{"k":{"count":2,"name":"b","when":"0001-01-01T00:00:00Z"}},"size":3,"count":0,"names":null,"lists":null,"by_id":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			merged, err := mergeCopy[target, patch](t, stored, tc.patch)
			if tc.loc == "" {
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := json.Marshal(merged); string(b) != tc.merged {
					t.Fatalf("merged %s, want %s", b, tc.merged)
				}
				return
			}
			var he *waltz.HTTPError
			if !errors.As(err, &he) || he.Code != http.StatusUnprocessableEntity {
				t.Fatalf("got %v, want a 422", err)
			}
			if len(he.Errors) != 1 || he.Errors[0].Location != tc.loc || he.Errors[0].Message != tc.msg || he.Errors[0].Keyword != "type" {
				t.Fatalf("got %+v, want %s: %s", he.Errors, tc.loc, tc.msg)
			}
		})
	}
	_, err := mergeCopy[target, patch](t, stored, `{"size":"x"}`)
	var he *waltz.HTTPError
	if err == nil || errors.As(err, &he) {
		t.Fatalf("a typed member of the wrong type: got %v, want a plain error (the handler's)", err)
	}
}

// mergeKey is a map key of a named string type.
type mergeKey string

// TestMergeFreeFormKeys: a patch's free-form object for a map whose key
// type is not string (map[int]T, a named string) merges into it key by
// key, a null removing its key (RFC 7396 section 2), as into a
// map[string]T. It replaced the map whole through its JSON, losing the
// other keys, and stored a null as the zero value. A key the type
// cannot take is a 422 locating it (keyword propertyNames, as the body's
// own).
func TestMergeFreeFormKeys(t *testing.T) {
	type target struct {
		ByID  map[int]string   `json:"by_id"`
		Named map[mergeKey]int `json:"named"`
		Small map[uint8]bool   `json:"small"`
	}
	type patch struct {
		ByID  map[string]any `json:"by_id"`
		Named map[string]any `json:"named"`
		Small map[string]any `json:"small"`
	}
	stored := target{ByID: map[int]string{1: "a", 2: "b"}, Named: map[mergeKey]int{"x": 1, "y": 2}}
	for _, tc := range []struct{ patch, merged string }{
		{`{"by_id":{"3":"c"}}`, `{"by_id":{"1":"a","2":"b","3":"c"},"named":{"x":1,"y":2},"small":null}`},
		{`{"by_id":{"1":null,"2":"B"}}`, `{"by_id":{"2":"B"},"named":{"x":1,"y":2},"small":null}`},
		{`{"named":{"x":null,"z":3}}`, `{"by_id":{"1":"a","2":"b"},"named":{"y":2,"z":3},"small":null}`},
		{`{"small":{"255":true}}`, `{"by_id":{"1":"a","2":"b"},"named":{"x":1,"y":2},"small":{"255":true}}`},
	} {
		merged, err := mergeCopy[target, patch](t, stored, tc.patch)
		if err != nil {
			t.Fatalf("%s: %v", tc.patch, err)
		}
		if b, _ := json.Marshal(merged); string(b) != tc.merged {
			t.Errorf("%s: merged %s, want %s", tc.patch, b, tc.merged)
		}
	}
	for _, tc := range []struct{ patch, loc string }{
		{`{"by_id":{"x":"c"}}`, "body.by_id.x"},
		{`{"small":{"256":true}}`, "body.small.256"},
	} {
		_, err := mergeCopy[target, patch](t, stored, tc.patch)
		var he *waltz.HTTPError
		if !errors.As(err, &he) || he.Code != http.StatusUnprocessableEntity {
			t.Fatalf("%s: got %v, want a 422", tc.patch, err)
		}
		if len(he.Errors) != 1 || he.Errors[0].Location != tc.loc || he.Errors[0].Keyword != "propertyNames" || he.Errors[0].Message != "must be an integer" {
			t.Errorf("%s: got %+v, want %s: propertyNames must be an integer", tc.patch, he.Errors, tc.loc)
		}
	}
}

// chainNode is a type that nests as deep as a patch does.
type chainNode struct {
	N *chainNode `json:"n,omitempty"`
	V int        `json:"v"`
}

// TestMergeFreeFormDeepMismatch: a free-form value nested n levels deep
// that its member cannot hold costs work in proportion to n, and is
// located at its depth. Each level wrapped the error in one whose
// message held the message beneath it: n² bytes, 50 MB for a patch
// 10,000 deep, which the body decoder lets through.
func TestMergeFreeFormDeepMismatch(t *testing.T) {
	type target struct {
		M chainNode `json:"m"`
	}
	type patch struct {
		M map[string]any `json:"m"`
	}
	merge := func(depth int) (uint64, error) {
		inner := map[string]any{"v": "x"}
		for range depth {
			inner = map[string]any{"n": inner}
		}
		p := patch{M: inner}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var tg target
		err := Merge(&tg, &p)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, err
	}
	small, err := merge(1000)
	var he *waltz.HTTPError
	if !errors.As(err, &he) || len(he.Errors) != 1 || !strings.HasPrefix(he.Errors[0].Location, "body.m.n.n.") || he.Errors[0].Message != "must be an integer" {
		t.Fatalf("got %v, want a 422 at body.m.n…n.v (the location cut as the body's are)", err)
	}
	large, _ := merge(4000)
	// Four times as deep: about four times the bytes, where n² gave 16.
	t.Logf("1,000 levels: %d bytes; 4,000 levels: %d bytes", small, large)
	if ratio := float64(large) / float64(small); ratio > 8 {
		t.Errorf("4,000 levels allocated %d bytes, 1,000 levels %d: %.1f times, want about 4", large, small, ratio)
	}
}

// TestMergeFreeFormArrayLength: a patch's free-form array for a Go array
// of another length is a 422 at the array (minItems or maxItems, as the
// body's own failures word it), at any depth. encoding/json, which
// stores it, dropped the items past the length ([1,2,3] into a [2]int
// stored [1,2]) or left those missing zero. An array of the length
// merges.
func TestMergeFreeFormArrayLength(t *testing.T) {
	type point struct {
		At [2]int `json:"at"`
	}
	type target struct {
		Pair   [2]int            `json:"pair"`
		Grid   [][2]int          `json:"grid"`
		Points map[string]point  `json:"points"`
		Ptr    *[2]string        `json:"ptr,omitempty"`
		Named  map[string][3]int `json:"named"`
	}
	type patch struct {
		Pair   any            `json:"pair"`
		Grid   any            `json:"grid"`
		Points map[string]any `json:"points"`
		Ptr    Optional[any]  `json:"ptr"`
		Named  map[string]any `json:"named"`
	}
	stored := target{Pair: [2]int{1, 2}, Points: map[string]point{"a": {At: [2]int{1, 1}}}}
	for _, tc := range []struct{ name, patch, loc, keyword, msg, merged string }{
		{"too many", `{"pair":[1,2,3]}`, "body.pair", "maxItems", "must have at most 2 items, got 3", ""},
		{"too few", `{"pair":[7]}`, "body.pair", "minItems", "must have at least 2 items, got 1", ""},
		{"an item's", `{"grid":[[1,2],[1,2,3]]}`, "body.grid[1]", "maxItems", "must have at most 2 items, got 3", ""},
		{"a member's in a map", `{"points":{"a":{"at":[]}}}`, "body.points.a.at", "minItems", "must have at least 2 items, got 0", ""},
		{"a new key's", `{"points":{"b":{"at":[1,2,3]}}}`, "body.points.b.at", "maxItems", "must have at most 2 items, got 3", ""},
		{"behind a pointer", `{"ptr":["x"]}`, "body.ptr", "minItems", "must have at least 2 items, got 1", ""},
		{"a map's value", `{"named":{"k":[1,2]}}`, "body.named.k", "minItems", "must have at least 3 items, got 2", ""},
		{"the length", `{"pair":[3,4],"grid":[[5,6]],"points":{"a":{"at":[2,2]}},"ptr":["x","y"]}`, "", "", "",
			`{"pair":[3,4],"grid":[[5,6]],"points":{"a":{"at":[2,2]}},"ptr":["x","y"],"named":null}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			merged, err := mergeCopy[target, patch](t, stored, tc.patch)
			if tc.loc == "" {
				if err != nil {
					t.Fatal(err)
				}
				if b, _ := json.Marshal(merged); string(b) != tc.merged {
					t.Fatalf("merged %s, want %s", b, tc.merged)
				}
				return
			}
			var he *waltz.HTTPError
			if !errors.As(err, &he) || he.Code != http.StatusUnprocessableEntity {
				t.Fatalf("got %v (merged %+v), want a 422", err, merged)
			}
			if len(he.Errors) != 1 || he.Errors[0].Location != tc.loc || he.Errors[0].Keyword != tc.keyword || he.Errors[0].Message != tc.msg {
				t.Fatalf("got %+v, want %s %s: %s", he.Errors, tc.loc, tc.keyword, tc.msg)
			}
		})
	}
}
