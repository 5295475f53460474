package api

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

type noOut struct{}

type (
	badPathIn struct {
		ID int `path:"idd"`
	}
	badTypeIn struct {
		Ch chan int `query:"ch"`
	}
	noTagIn  struct{ Limit int }
	badMinIn struct {
		Name string `query:"name" minimum:"1"`
	}
	badPatternIn struct {
		Name string `query:"name" pattern:"("`
	}
	badDefaultIn struct {
		N int `query:"n" maximum:"5" default:"9"`
	}
	badFormatIn struct {
		S string `query:"s" format:"phone"`
	}
	sliceHeaderIn struct {
		H []string `header:"X-H"`
	}
	ptrPathIn struct {
		ID *int `path:"id"`
	}
	badEnumIn struct {
		N int `query:"n" enum:"1,two"`
	}
	twoPlacesIn struct {
		N int `query:"n" header:"N"`
	}
	badRequiredIn struct {
		N int `query:"n" required:"yes"`
	}
	badItemsIn struct {
		N int `query:"n" maxItems:"2"`
	}
	badStrictIn struct {
		_ struct{} `strict:"body"`
	}
	badBodyRuleIn struct {
		Body struct {
			N string `json:"n" maximum:"3"`
		}
	}
	badOutField struct{ Extra string }
	badOutHead  struct {
		H chan int `header:"X-H"`
	}
	badValidateIn struct{}
	dupQueryIn    struct {
		A int `query:"a"`
		B int `query:"a"`
	}
	dupHeaderIn struct {
		A string `header:"x-id"`
		B string `header:"X-Id"`
	}
	bodyEmbed struct{ Body struct{} }
	twoBodyIn struct {
		bodyEmbed
		Body struct{}
	}
	chanBodyIn struct {
		Body struct {
			C chan int `json:"c"`
		}
	}
	funcBodyIn struct{ Body map[string]func() }
	// JSON Schema cannot say these of a value written as a string.
	quotedBoundIn struct {
		Body struct {
			F float64 `json:"f,string,omitempty" maximum:"2"`
		}
	}
	quotedLengthIn struct {
		Body struct {
			S string `json:"s,string,omitempty" maxLength:"2"`
		}
	}
	quotedEnumIn struct {
		Body struct {
			F *float64 `json:"f,string,omitempty" enum:"1.5,2"`
		}
	}
	chanOut struct {
		Body struct {
			N int      `json:"n"`
			C chan int `json:"c"`
		}
	}
	funcOut      struct{ Body []func() }
	structKeyOut struct{ Body map[struct{}]int }
	misspeltIn   struct {
		Name string `query:"name" maxlength:"3"`
	}
	uncheckedIn struct {
		Body struct {
			Labels map[string]string `json:"labels" xml:"labels" validate:"max=3" maxProperties:"3"`
		}
	}
)

func (*badValidateIn) Validate() error { return nil }

// registerPanic runs reg and returns the message of its panic.
func registerPanic(t *testing.T, reg func()) (msg string) {
	t.Helper()
	defer func() {
		v := recover()
		if v == nil {
			t.Fatal("got no panic")
		}
		var re *waltz.RouteError
		if err, ok := v.(error); !ok || !errors.As(err, &re) {
			t.Fatalf("got panic %v (%T), want a *RouteError", v, v)
		}
		msg = v.(error).Error()
	}()
	reg()
	return ""
}

func TestTypedRegisterPanics(t *testing.T) {
	h := func(in any) {}
	_ = h
	for _, tc := range []struct {
		name string
		reg  func(r *waltz.Router)
		want string // in the message, after the type and field
	}{
		{"path names no param", func(r *waltz.Router) { Op(r, "GET", "/a/:id", opFn[badPathIn, noOut], Operation{}) },
			`badPathIn, field ID (int): tag path:"idd" names no param of the pattern (its params: id)`},
		{"unsupported type", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badTypeIn, noOut], Operation{}) },
			"badTypeIn, field Ch (chan int): cannot bind this type"},
		{"no tag", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[noTagIn, noOut], Operation{}) },
			"noTagIn, field Limit (int): no path, query, header or cookie tag"},
		{"rule for another kind", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badMinIn, noOut], Operation{}) },
			`badMinIn, field Name (string): tag minimum:"1": applies to numbers`},
		{"bad pattern", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badPatternIn, noOut], Operation{}) },
			`badPatternIn, field Name (string): tag pattern:"("`},
		{"default breaks its rules", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badDefaultIn, noOut], Operation{}) },
			`badDefaultIn, field N (int): tag default:"9" must be at most 5`},
		{"misspelt rule", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[misspeltIn, noOut], Operation{}) },
			`misspeltIn, field Name (string): tag maxlength:"3" is no tag waltz knows: did you mean maxLength?`},
		{"unchecked keyword", func(r *waltz.Router) { Op(r, "POST", "/a", opFn[uncheckedIn, noOut], Operation{}) },
			`field Labels (map[string]string): tag maxProperties:"3": waltz does not check JSON Schema's maxProperties`},
		{"unknown format", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badFormatIn, noOut], Operation{}) },
			`tag format:"phone": is no format this package checks`},
		{"slice header", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[sliceHeaderIn, noOut], Operation{}) },
			"a slice binds only repeated query params"},
		{"pointer path", func(r *waltz.Router) { Op(r, "GET", "/a/:id", opFn[ptrPathIn, noOut], Operation{}) },
			"a path param is always present"},
		{"bad enum", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badEnumIn, noOut], Operation{}) },
			`tag enum:"1,two": value "two" must be an integer`},
		{"two places", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[twoPlacesIn, noOut], Operation{}) },
			"more than one of the path, query, header and cookie tags"},
		{"bad required", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badRequiredIn, noOut], Operation{}) },
			`tag required:"yes" wants true or false`},
		{"items on a scalar", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badItemsIn, noOut], Operation{}) },
			`tag maxItems:"2": applies to slices`},
		{"bad strict", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badStrictIn, noOut], Operation{}) },
			`tag strict:"body"`},
		{"body rule", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badBodyRuleIn, noOut], Operation{}) },
			`field N (string): tag maximum:"3": applies to numbers`},
		{"out field", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[noOut, badOutField], Operation{}) },
			"badOutField, field Extra (string): an output field is Body, Status, or tagged"},
		{"out header type", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[noOut, badOutHead], Operation{}) },
			"cannot write this type as a header"},
		{"Validate signature", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[badValidateIn, noOut], Operation{}) },
			"method Validate must be func(*waltz.Context) []waltz.FieldError"},
		{"duplicate query", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[dupQueryIn, noOut], Operation{}) },
			`dupQueryIn, field B (int): tag query:"a": field A binds it already`},
		{"duplicate header", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[dupHeaderIn, noOut], Operation{}) },
			`field B (string): tag header:"X-Id": field A binds it already`},
		{"two bodies", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[twoBodyIn, noOut], Operation{}) },
			"field Body (struct {}): a second Body"},
		{"chan in body", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[chanBodyIn, noOut], Operation{}) },
			"encoding/json cannot decode a chan int"},
		{"func in body", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[funcBodyIn, noOut], Operation{}) },
			"encoding/json cannot decode a func()"},
		{",string number's bound", func(r *waltz.Router) { Op(r, "POST", "/a", opFn[quotedBoundIn, noOut], Operation{}) },
			`field F (float64): tag maximum:"2" on a ,string member: JSON Schema cannot bound a number written as a string`},
		{",string string's length", func(r *waltz.Router) { Op(r, "POST", "/a", opFn[quotedLengthIn, noOut], Operation{}) },
			`field S (string): tag maxLength:"2" on a ,string member: its JSON value is the string's JSON text`},
		{",string float's enum", func(r *waltz.Router) { Op(r, "POST", "/a", opFn[quotedEnumIn, noOut], Operation{}) },
			`field F (*float64): tag enum:"1.5,2" on a ,string member:`},
		{"chan in an Out body", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[noOut, chanOut], Operation{}) },
			"chanOut, field Body (struct { N int \"json:\\\"n\\\"\"; C chan int \"json:\\\"c\\\"\" }): encoding/json cannot encode a chan int, inside the body"},
		{"func in an Out body", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[noOut, funcOut], Operation{}) },
			"encoding/json cannot encode a func()"},
		{"map of struct keys in an Out body", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[noOut, structKeyOut], Operation{}) },
			"encoding/json cannot encode a map[struct {}]int"},
		{"not a struct", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[int, noOut], Operation{}) },
			"type int: the input type must be a struct"},
		{"duplicate ID", func(r *waltz.Router) {
			Op(r, "GET", "/a", opFn[noOut, noOut], Operation{ID: "x"})
			Op(r, "GET", "/b", opFn[noOut, noOut], Operation{ID: "x"})
		}, `operation ID "x" is taken by GET "/a"`},
		{"bad status", func(r *waltz.Router) { Op(r, "GET", "/a", opFn[noOut, noOut], Operation{Status: 404}) },
			"Operation.Status 404 is no success status"},
		{"route conflict", func(r *waltz.Router) {
			r.Get("/a", func(*waltz.Context) error { return nil })
			Op(r, "GET", "/a", opFn[noOut, noOut], Operation{})
		}, "conflicts with GET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := waltz.New()
			msg := registerPanic(t, func() { tc.reg(r) })
			if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) {
				t.Errorf("got %q, want a waltz: message with %q", msg, tc.want)
			}
			if !regexp.MustCompile(`register_test\.go:\d+`).MatchString(msg) {
				t.Errorf("got %q, want the registering file:line", msg)
			}
			if tc.name != "route conflict" && tc.name != "duplicate ID" && len(r.Routes()) != 0 {
				t.Errorf("got routes %v after the panic, want none", r.Routes())
			}
		})
	}
}

func opFn[In, Out any](*waltz.Context, *In) (*Out, error) { return nil, nil }

// TestTypedOnGroup registers under a group's prefix, whose params the In
// type may bind, inside the group's middleware.
func TestTypedOnGroup(t *testing.T) {
	r := waltz.New()
	var order []string
	g := r.Group("/orgs/:org", func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error { order = append(order, "mw"); return next(c) }
	})
	type in struct {
		Org string `path:"org"`
		ID  int    `path:"id"`
	}
	type out struct{ Body string }
	Op(g, http.MethodGet, "/items/:id", func(c *waltz.Context, in *in) (*out, error) {
		order = append(order, "h")
		return &out{Body: in.Org + "/" + time.Duration(in.ID).String()}, nil
	}, Operation{})
	w, _ := serveTyped(t, r, "GET", "/orgs/acme/items/3", "", "")
	if got := strings.TrimSpace(w.Body.String()); w.Code != 200 || got != `"acme/3ns"` {
		t.Errorf("got %d %s, want 200 \"acme/3ns\"", w.Code, got)
	}
	if strings.Join(order, ",") != "mw,h" {
		t.Errorf("got order %v, want mw,h", order)
	}
	if rs := r.Routes(); len(rs) != 1 || rs[0].Pattern != "/orgs/:org/items/:id" {
		t.Errorf("got routes %v", rs)
	}
}

// TestTypedNamed names a typed route through the Registration Op returns.
func TestTypedNamed(t *testing.T) {
	r := waltz.New()
	Op(r, http.MethodGet, "/items/:id", opFn[docGetIn, noOut], Operation{}).Name("item")
	if got, err := r.URL("item", "id", "7"); err != nil || got != "/items/7" {
		t.Errorf("got %q, %v, want /items/7", got, err)
	}
}
