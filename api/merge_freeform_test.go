package api

import (
	"encoding/json"
	"errors"
	"net/http"
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
	}
	type patch struct {
		Meta   map[string]any `json:"meta"`
		Extra  any            `json:"extra"`
		Labels map[string]any `json:"labels"`
		Size   string         `json:"size,omitempty"` // the handler's mistake: a string for an int
		Count  Optional[any]  `json:"count"`
		Names  map[string]any `json:"names"`
	}
	stored := target{Meta: meta{Count: 1, Name: "a"}, Labels: map[string]meta{"k": {Count: 2}}, Size: 3}
	for _, tc := range []struct{ name, patch, loc, msg, merged string }{
		{"a string for an int", `{"meta":{"count":"x"}}`, "body.meta.count", "must be an integer", ""},
		{"a fraction for an int", `{"meta":{"count":1.5}}`, "body.meta.count", "must be an integer", ""},
		{"a number for a time", `{"meta":{"when":7}}`, "body.meta.when", "must be a string", ""},
		{"a string for an object", `{"extra":"x"}`, "body.extra", "must be an object", ""},
		{"deep in a map", `{"labels":{"k":{"count":[1]}}}`, "body.labels.k.count", "must be an integer", ""},
		{"a new key", `{"labels":{"n":{"name":false}}}`, "body.labels.n.name", "must be a string", ""},
		{"through an Optional[any]", `{"count":"x"}`, "body.count", "must be an integer", ""},
		{"a number in a map of strings", `{"names":{"k":1}}`, "body.names.k", "must be a string", ""},
		{"merged", `{"meta":{"count":5},"labels":{"k":{"name":"b"}}}`, "", "",
			`{"meta":{"count":5,"name":"a","when":"0001-01-01T00:00:00Z"},"labels":{"k":{"count":2,"name":"b","when":"0001-01-01T00:00:00Z"}},"size":3,"count":0,"names":null}`},
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
