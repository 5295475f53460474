package api

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/seam"
)

// TypedVerb is a typed operation of a [waltz.Resource], made by [Verb]: a
// resource whose Verbs method returns it has the operation at each of its
// paths, beside its plain verb methods.
type TypedVerb struct {
	method string
	t      *typedOp
}

// Verb returns the typed operation method of a resource, with the
// handler h and the description op, as [Op] registers one on a route. A
// resource lists its typed verbs in a method
//
//	Verbs() []api.TypedVerb
//
// which [waltz.Group.Resource] calls once:
//
//	func (b *Bookmarks) Verbs() []api.TypedVerb {
//		return []api.TypedVerb{
//			api.Verb(http.MethodGet, b.list, api.Operation{ID: "listBookmarks"}),
//			api.Verb(http.MethodPost, b.create, api.Operation{ID: "createBookmark", Status: 201}),
//		}
//	}
//
// A resource with several paths gets its operation IDs suffixed for the
// second path on ("listBookmarks-2"). The resource's own middleware runs
// around typed verbs as around plain ones. Group.Resource panics, as for
// a plain verb, when a typed verb repeats a method the resource has, and
// as Op does on a type it cannot plan.
func Verb[In, Out any](method string, h func(c *waltz.Context, in *In) (*Out, error), op Operation) TypedVerb {
	return TypedVerb{method: method, t: newTyped(h, op)}
}

// resourceVerbs is the optional method of a Resource with typed verbs.
type resourceVerbs interface{ Verbs() []TypedVerb }

func init() {
	seam.Contract.Verbs = verbsOf
}

// verbsOf returns the typed verbs of res, a waltz.Resource, for the
// router's Group.Resource: none when it has no Verbs method, an error when
// it has one of another type or returned a zero TypedVerb.
func verbsOf(res any) ([]seam.Verb, error) {
	rv, ok := res.(resourceVerbs)
	if !ok {
		t := reflect.TypeOf(res)
		if m := reflect.ValueOf(res).MethodByName("Verbs"); m.IsValid() {
			return nil, fmt.Errorf("method Verbs has type %s, want func() []api.TypedVerb", m.Type())
		}
		if _, ok := reflect.PointerTo(t).MethodByName("Verbs"); ok && t.Kind() != reflect.Pointer {
			return nil, fmt.Errorf("method Verbs has a pointer receiver: register a *%s, not a %s value", t, t)
		}
		return nil, nil
	}
	var vs []seam.Verb
	for i, tv := range rv.Verbs() {
		if tv.t == nil {
			return nil, fmt.Errorf("its Verbs method returned a zero TypedVerb at index %d: make each with api.Verb", i)
		}
		vs = append(vs, seam.Verb{
			Method: tv.method,
			Check: func(g any, path string, nth int) error {
				return tv.check(g.(*waltz.Group), path, nth)
			},
			Register: func(g any, path string, nth int, mw any, at uintptr) error {
				t := *tv.at(nth)
				t.resource = resourceName(res)
				_, err := register(g.(*waltz.Group), tv.method, path, &t, mw.([]waltz.Middleware), at)
				return err
			},
		})
	}
	return vs, nil
}

// at returns tv's operation as registered at the nth path of a resource:
// its ID suffixed from the second path on.
func (tv TypedVerb) at(nth int) *typedOp {
	if nth == 0 || tv.t.op.ID == "" {
		return tv.t
	}
	cp := *tv.t
	cp.op.ID += "-" + strconv.Itoa(nth+1)
	return &cp
}

// check plans tv at path, so that a bad type panics before any route of
// the resource is registered.
func (tv TypedVerb) check(g *waltz.Group, path string, nth int) error {
	full, params, err := seam.Router.Pattern(g, path)
	if err != nil {
		return err // the router's own checks report it first
	}
	t := tv.at(nth)
	r := routerOf(g)
	_, err = plan(t, tv.method, names(params), r)
	if err == nil {
		err = checkOpID(r, t.op.ID)
	}
	if err != nil {
		return fmt.Errorf("typed verb %s at %q: %w", tv.method, full, err)
	}
	return nil
}

// resourceName returns the name of res's type, a pointer's element's:
// the tag its typed verbs carry in an OpenAPI 3.2 document.
func resourceName(res any) string {
	t := reflect.TypeOf(res)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
