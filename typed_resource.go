package waltz

import (
	"fmt"
	"strconv"
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

func (tv TypedVerb) httpMethod() string { return tv.method }

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
func (tv TypedVerb) check(g *Group, path string, nth int) error {
	p, err := parsePattern(g.prefix + path)
	if err != nil {
		return err // checkRoutes reports it first
	}
	t := tv.at(nth)
	_, err = plan(t, tv.method, p.names, g.r.encoders)
	if err == nil {
		err = g.r.checkOpID(t.op.ID)
	}
	if err != nil {
		return fmt.Errorf("typed verb %s at %q: %w", tv.method, g.prefix+path, err)
	}
	return nil
}

// register registers tv at path inside the resource's middleware mw, as
// Op registers an operation.
func (tv TypedVerb) register(g *Group, path string, nth int, mw []Middleware, at uintptr) error {
	return register(g, tv.method, path, tv.at(nth), mw, at)
}
