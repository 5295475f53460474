package waltz

import (
	"fmt"
	"strconv"

	"github.com/waltz-go/waltz/internal/header"
)

// TypedVerb is a typed operation of a [Resource], made by [Verb]: a
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
//	Verbs() []waltz.TypedVerb
//
// which [Group.Resource] calls once:
//
//	func (b *Bookmarks) Verbs() []waltz.TypedVerb {
//		return []waltz.TypedVerb{
//			waltz.Verb(http.MethodGet, b.list, waltz.Operation{ID: "listBookmarks"}),
//			waltz.Verb(http.MethodPost, b.create, waltz.Operation{ID: "createBookmark", Status: 201}),
//		}
//	}
//
// A resource with several paths gets its operation IDs suffixed for the
// second path on ("listBookmarks-2"). The resource's own middleware runs
// around typed verbs as around plain ones. Group.Resource panics, as for
// a plain verb, when a typed verb repeats a method the resource has, and
// as Op does on a type it cannot plan.
func Verb[In, Out any](method string, h func(c *Context, in *In) (*Out, error), op Operation) TypedVerb {
	return TypedVerb{method: method, t: newTyped(h, op)}
}

// resourceVerbs is the optional method of a Resource with typed verbs.
type resourceVerbs interface{ Verbs() []TypedVerb }

// typedVerbs returns res's typed verbs, checked against its plain ones vs.
func typedVerbs(res Resource, vs []verbRoute) ([]TypedVerb, error) {
	rv, ok := res.(resourceVerbs)
	if !ok {
		return nil, nil
	}
	tvs := rv.Verbs()
	seen := map[string]bool{}
	for _, v := range vs {
		seen[v.method] = true
	}
	for i, tv := range tvs {
		switch {
		case tv.t == nil:
			return nil, fmt.Errorf("its Verbs method returned a zero TypedVerb at index %d: make each with waltz.Verb", i)
		case !header.IsToken(tv.method):
			return nil, fmt.Errorf("typed verb %d has method %q, which is not an HTTP token", i, tv.method)
		case seen[tv.method]:
			return nil, fmt.Errorf("it has two handlers for %s: a verb method and a typed verb, or two typed verbs", tv.method)
		}
		seen[tv.method] = true
	}
	return tvs, nil
}

// registerVerbs registers each typed verb of a resource at each of its
// paths, inside its middleware mw.
func (g *Group) registerVerbs(paths []string, tvs []TypedVerb, mw []Middleware, at uintptr) error {
	for i, path := range paths {
		for _, tv := range tvs {
			t := tv.t
			if i > 0 && t.op.ID != "" {
				cp := *t
				cp.op.ID += "-" + strconv.Itoa(i+1)
				t = &cp
			}
			if err := register(g, tv.method, path, t, mw, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkVerbs plans each typed verb at each path, so that a bad type
// panics before any route of the resource is registered.
func (g *Group) checkVerbs(paths []string, tvs []TypedVerb) error {
	for _, path := range paths {
		p, err := parsePattern(g.prefix + path)
		if err != nil {
			return err // checkRoutes reports it first
		}
		for _, tv := range tvs {
			if _, _, _, err := plan(tv.t, p.names); err != nil {
				return fmt.Errorf("typed verb %s at %q: %w", tv.method, g.prefix+path, err)
			}
			if err := g.r.ops.check(&operation{op: tv.t.op}); err != nil {
				return fmt.Errorf("typed verb %s at %q: %w", tv.method, g.prefix+path, err)
			}
		}
	}
	return nil
}
