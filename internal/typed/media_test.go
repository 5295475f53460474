package typed

import (
	"errors"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type formOnlyIn struct {
	Body struct {
		A int `json:"a" minimum:"1"`
	} `consumes:"form"`
}

// TestMediaKinds checks that an operation binds the media types its
// consumes tag names, and only those: any other Content-Type is a 415
// that lists them.
func TestMediaKinds(t *testing.T) {
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name   string
		typ    reflect.Type
		ctype  string
		body   string
		status int      // 0 when it binds
		accept []string // the 415's list
	}{
		{"json to a JSON operation", reflectType[optIn](), js, `{"k":"kk"}`, 0, nil},
		{"json with parameters, in capitals", reflectType[optIn](), "Application/JSON ; charset=utf-8", `{"k":"kk"}`, 0, nil},
		{"a form to a JSON operation", reflectType[optIn](), form, `k=kk`, 415, []string{js}},
		{"a +json type to a JSON operation", reflectType[optIn](), "application/merge-patch+json", `{"k":"kk"}`, 415, []string{js}},
		{"text to a JSON operation", reflectType[optIn](), "text/plain", `{"k":"kk"}`, 415, []string{js}},
		{"a form to a form operation", reflectType[formOnlyIn](), form + "; charset=utf-8", `a=2`, 0, nil},
		{"json to a form operation", reflectType[formOnlyIn](), js, `{"a":2}`, 415, []string{form}},
		{"json to a JSON and form operation", reflectType[formIn](), js, `{"a":2}`, 0, nil},
		{"a form to a JSON and form operation", reflectType[formIn](), form, `a=2`, 0, nil},
		{"multipart to a JSON and form operation", reflectType[formIn](), "multipart/form-data; boundary=x", "--x--", 415, []string{js, form}},
		{"a body without a media type", reflectType[formIn](), "", `a=2`, 415, []string{js, form}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanIn(tc.typ, nil)
			if err != nil {
				t.Fatal(err)
			}
			v := reflect.New(tc.typ)
			in := &Input{Req: post(tc.ctype, tc.body), W: nopWriter{}, Fails: &failed{}}
			err = p.Bind(in, v.UnsafePointer())
			var be *BodyError
			switch {
			case tc.status == 0 && err != nil:
				t.Fatalf("got %v, want it bound", err)
			case tc.status == 0:
				return
			case !errors.As(err, &be):
				t.Fatalf("got %v, want a %d", err, tc.status)
			}
			if be.Status != tc.status || be.Reason != ReasonMediaType || !slices.Equal(be.Accept, tc.accept) {
				t.Errorf("got %d %v %q, want %d %q", be.Status, be.Reason, be.Accept, tc.status, tc.accept)
			}
			for _, mt := range tc.accept {
				if !strings.Contains(be.Message, mt) {
					t.Errorf("message %q does not name %s", be.Message, mt)
				}
			}
			if !v.Elem().IsZero() {
				t.Errorf("a refused body left %+v", v.Elem())
			}
		})
	}
}

// TestMediaDocument checks that the document's request body lists
// exactly the media types the operation binds.
func TestMediaDocument(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want []string
	}{
		{reflectType[optIn](), []string{"application/json"}},
		{reflectType[formOnlyIn](), []string{"application/x-www-form-urlencoded"}},
		{reflectType[formIn](), []string{"application/json", "application/x-www-form-urlencoded"}},
	} {
		p, err := PlanIn(tc.typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(p.RequestBody(NewSchemas(false)).Content))
		if !slices.Equal(got, tc.want) || !slices.Equal(slices.Sorted(slices.Values(p.MediaTypes())), tc.want) {
			t.Errorf("%s: got %q and %q, want %q", tc.typ, got, p.MediaTypes(), tc.want)
		}
	}
}

// TestMediaPlanErrors checks that a consumes tag that cannot hold is
// refused at registration, naming the field and the tag.
func TestMediaPlanErrors(t *testing.T) {
	type unknown struct {
		Body struct{} `consumes:"json,xml"`
	}
	type twice struct {
		Body struct{} `consumes:"json,json"`
	}
	type nested struct {
		Body struct {
			Inner struct{ X int } `json:"inner"`
		} `consumes:"form"`
	}
	type list struct {
		Body []int `consumes:"form"`
	}
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflectType[unknown](), `field Body (struct {}): tag consumes:"json,xml": "xml" is no kind of body; the kinds: json, form`},
		{reflectType[twice](), `tag consumes:"json,json" names "json" twice`},
		{reflectType[nested](), `tag consumes:"form": a form body fills a struct whose members are scalars`},
		{reflectType[list](), `tag consumes:"form": a form body fills a struct`},
	} {
		_, err := PlanIn(tc.typ, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.typ.String()) {
			t.Errorf("%s: got %v, want %q", tc.typ, err, tc.want)
		}
	}
}

// nopWriter is a ResponseWriter that keeps nothing.
type nopWriter struct{}

func (nopWriter) Header() http.Header         { return http.Header{} }
func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (nopWriter) WriteHeader(int)             {}

// TestEncodeFormOnly checks that the client's encoder writes the body of
// an operation that takes forms alone as a form, which binds back.
func TestEncodeFormOnly(t *testing.T) {
	v := formOnlyIn{}
	v.Body.A = 4
	enc, bound, got, e := encodeBind(t, nil, &v, MediaJSON)
	if len(enc) > 0 || len(bound) > 0 || e.ContentType != "application/x-www-form-urlencoded" || got.Body.A != 4 {
		t.Errorf("got %q %q %v, bound %+v, want a form binding back a=4", e.ContentType, e.Body, append(enc, bound...), got.Body)
	}
}
