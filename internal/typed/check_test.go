package typed

import (
	"io"
	"net/http"
	"reflect"
	"slices"
	"testing"
)

// TestCheck: a value is checked against its type's rules as a JSON body
// of that type is, located as in a body, and left as it was; the plan is
// made once per type.
func TestCheck(t *testing.T) {
	type doc struct {
		Title string   `json:"title" minLength:"2"`
		Tags  []string `json:"tags,omitempty" maxItems:"1"`
		Kid   kid      `json:"kid"`
	}
	for _, tc := range []struct {
		v    doc
		want []string
	}{
		{doc{Title: "ok"}, nil},
		{doc{Title: "x", Tags: []string{"a", "b"}, Kid: kid{Age: -1}},
			[]string{"body.title minLength", "body.tags maxItems", "body.kid.age minimum"}},
	} {
		v := tc.v
		var fs failed
		ok, err := Check(&v, &fs)
		var got []string
		for _, f := range fs.list {
			got = append(got, f.loc+" "+f.keyword)
		}
		if err != nil || ok != (tc.want == nil) || !slices.Equal(got, tc.want) || !reflect.DeepEqual(v, tc.v) {
			t.Errorf("%+v: got %v %v %q, want %q", tc.v, ok, err, got, tc.want)
		}
	}
	if _, ok := checkPlans.Load(reflect.TypeFor[doc]()); !ok {
		t.Error("the plan was not kept")
	}
	type bad struct {
		N int `json:"n" minimum:"x"`
	}
	if _, err := Check(&bad{}, &failed{}); err == nil {
		t.Error("a type whose tags cannot be planned: got no error")
	}
	type unencodable struct {
		F func() `json:"f"`
	}
	if _, err := Check(&unencodable{}, &failed{}); err == nil {
		t.Error("a value encoding/json cannot write: got no error")
	}
}

// TestBodyReadError: a typed JSON body that cannot be read is the
// request's one "syntax" failure, a 400; one past the limit is the body's
// 413.
func TestBodyReadError(t *testing.T) {
	type in struct {
		Body struct {
			N int `json:"n"`
		}
	}
	req := post(js, "")
	req.Body, req.ContentLength = slowBody{io.ErrClosedPipe}, -1
	_, err := bindInto[in](t, nil, nil, req, Body{})
	if got, _ := failures(err); !slices.Equal(got, []string{"body syntax"}) || !err.(*failed).broken {
		t.Errorf("got %v %q", err, got)
	}
	_, err = bindInto[in](t, nil, nil, post(js, `{"n":12345}`), Body{MaxBytes: 4})
	if be, ok := err.(*BodyError); !ok || be.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("got %v, want a 413", err)
	}
}
