package waltz

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/waltz-go/waltz/internal/site"
)

// Registration: a route is validated, checked against the routes already
// registered, and only then added to the tree, the static table, and the
// router's lists of methods; Routes lists what was registered.

// Route describes one registered route.
type Route struct {
	Method  string // the HTTP method, such as "GET"; "*" for a Mount, which takes every method
	Pattern string // the pattern as registered, group prefix included
}

// Routes returns every registered route, sorted by pattern, then method.
func (r *Router) Routes() []Route {
	rs := []Route{}
	for _, e := range r.endpoints() {
		rs = append(rs, e.route())
	}
	return rs
}

// route returns e as Routes lists it.
func (e *endpoint) route() Route {
	if e.method == methodAny {
		return Route{Method: "*", Pattern: e.pattern}
	}
	return Route{Method: e.method, Pattern: e.pattern}
}

// endpoints returns every registered route's record, in the order of
// Routes.
func (r *Router) endpoints() []*endpoint {
	var es []*endpoint
	r.tree.each(0, func(e *endpoint) { es = append(es, e) })
	slices.SortFunc(es, func(a, b *endpoint) int {
		if c := strings.Compare(a.pattern, b.pattern); c != 0 {
			return c
		}
		return strings.Compare(a.route().Method, b.route().Method)
	})
	return es
}

// Registration is a route that [Group.Handle] (or Get, Post and the other
// verbs, or [Group.Handler]) has just registered. Its one use is to name
// the route, for [Router.URL]:
//
//	r.Get("/users/:id", showUser).Name("user")
type Registration struct {
	r       *Router
	method  string
	pattern string  // as registered, group prefix included
	at      uintptr // program counter of the registering call (see site.PC)
	named   bool
}

// Name gives the route the name name, by which [Router.URL] builds its
// path. Name routes before serving, as routes are registered.
//
// Name panics with a [*RouteError] when name is empty, when the route
// already has a name, or when another route has this one; the message
// gives where both routes were registered (file:line).
func (rg *Registration) Name(name string) {
	fail := func(reason string) {
		panic(&RouteError{Method: rg.method, Pattern: rg.pattern, Where: site.Of(rg.at), Reason: reason})
	}
	switch other := rg.r.named[name]; {
	case name == "":
		fail("a route name must not be empty")
	case rg.named:
		fail(fmt.Sprintf("the route is named already; it cannot also be %q", name))
	case other != nil:
		fail(fmt.Sprintf("name %q is taken by %s %q (at %s): route names are unique",
			name, other.method, other.pattern, site.Of(other.at)))
	}
	nr := newNamedRoute(rg.method, rg.pattern, rg.at)
	if rg.r.named == nil {
		rg.r.named = make(map[string]*namedRoute)
	}
	rg.r.named[name] = nr
	rg.named = true
}

// RouteError is the value Handle and the other registering methods panic
// with when a pattern is malformed or conflicts with a registered route.
// Recover it and use errors.As to inspect it.
type RouteError struct {
	Method  string // the method being registered; "" for a group prefix
	Pattern string // the pattern being registered, group prefix included
	Where   string // file:line of the registering call
	Reason  string // what is wrong with the pattern, when it is malformed

	// For a conflict: the route already registered, and where it was.
	Existing      string
	ExistingWhere string
}

// Error names the pattern, the method and where they were registered, and
// the other route for a conflict.
func (e *RouteError) Error() string {
	if e.Existing != "" && e.Reason != "" {
		return fmt.Sprintf("waltz: %s %q (at %s) conflicts with %q (at %s): %s",
			e.Method, e.Pattern, e.Where, e.Existing, e.ExistingWhere, e.Reason)
	}
	if e.Existing != "" {
		return fmt.Sprintf("waltz: %s %q (at %s) conflicts with %s %q (at %s): same method and route shape",
			e.Method, e.Pattern, e.Where, e.Method, e.Existing, e.ExistingWhere)
	}
	if e.Method == "" {
		return fmt.Sprintf("waltz: pattern %q (at %s): %s", e.Pattern, e.Where, e.Reason)
	}
	return fmt.Sprintf("waltz: pattern %q (%s, at %s): %s", e.Pattern, e.Method, e.Where, e.Reason)
}

// add validates a route's pattern and, only when it is valid and conflicts
// with no registered route, inserts it and returns its record. method is a
// valid token (callers check) or methodAny.
// The route's info is g's for routes with the same names, or its own when
// inner (a resource's middleware) or op (a typed operation) is set.
func (r *Router) add(method, pat string, h HandlerFunc, at uintptr, g *Group, inner []Middleware, op any) (*endpoint, error) {
	if r.serving.Load() {
		// Lookups read the tree, the static table and the Allow values
		// without a lock: a write now would race them, and the runtime's
		// answer to that (a concurrent map write) is a fatal error no
		// recover can catch.
		return nil, &RouteError{Method: method, Pattern: pat, Where: site.Of(at),
			Reason: "registered after the router began serving requests: register every route before the first request (lookups read the routes without a lock)"}
	}
	p, err := parsePattern(pat)
	if err != nil {
		return nil, &RouteError{Method: method, Pattern: pat, Where: site.Of(at), Reason: err.Error()}
	}
	if l := r.tree.find(p); l != nil {
		if e := l.get(method); e != nil {
			return nil, &RouteError{Method: method, Pattern: pat, Where: site.Of(at), Existing: e.pattern, ExistingWhere: site.Of(e.at)}
		}
	}
	if err := r.checkOverlap(method, p, at); err != nil {
		return nil, err
	}
	e := &endpoint{method: method, pattern: pat, info: r.info(p.names, g, inner, op), chain: h, at: at}
	l := r.tree.insert(p)
	l.share(e)
	l.add(e)
	r.setAllow(l)
	// The pattern that is the root's child's whole text ("/", most often)
	// is found at the walk's first node, for less than a hash and a
	// compare: the table leaves it to the walk.
	r.statics.leaveOut(r.tree.topText())
	r.addStatic(p, l)
	r.maxParams = max(r.maxParams, len(p.names))
	r.addMethod(method)
	r.noteSlash(method, pat)
	return e, nil
}

// checkOverlap returns a *RouteError when a param constraint of p can
// take a value that another constraint at the same place takes: which of
// the two routes a request reaches would then depend on the order they
// were registered in. The check is method-blind, as the tree is: the two
// params share no node whatever their routes' methods.
func (r *Router) checkOverlap(method string, p *pattern, at uintptr) error {
	e, mine, theirs := r.tree.overlap(p)
	if e == nil {
		return nil
	}
	return &RouteError{Method: method, Pattern: p.str, Where: site.Of(at), Existing: e.pattern, ExistingWhere: site.Of(e.at),
		Reason: fmt.Sprintf("constraints <%s> and <%s> at the same place can both match one segment; "+
			"make them disjoint, or use one route", mine.src, theirs.src)}
}

// sharedNames returns the router's one copy of the list names, making it
// on first use: a route set repeats a few lists (a resource's routes, the
// routes under one param prefix), and each route holds a pointer to its
// list rather than a slice. It pays in the memory a router holds and in
// registration's allocations (benchmarks/README.md, "Finishing the tree
// at registration").
func (r *Router) sharedNames(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	key := strings.Join(names, "/")
	if l, ok := r.names[key]; ok {
		return l
	}
	if r.names == nil {
		r.names = make(map[string][]string)
	}
	l := slices.Clip(slices.Clone(names))
	r.names[key] = l
	return l
}

// info returns the routeInfo of a route of g with the param names names,
// inside g's middleware and then inner, serving op (nil for a plain
// route): g's shared one when inner and op are empty.
func (r *Router) info(names []string, g *Group, inner []Middleware, op any) *routeInfo {
	if op != nil || len(inner) > 0 {
		return &routeInfo{names: r.sharedNames(names), mw: slices.Concat(g.mw, inner), op: op}
	}
	key := strings.Join(names, "/")
	if ri := g.infos[key]; ri != nil {
		return ri
	}
	if g.infos == nil {
		g.infos = make(map[string]*routeInfo)
	}
	ri := &routeInfo{names: r.sharedNames(names), mw: slices.Clip(g.mw)}
	g.infos[key] = ri
	return ri
}

// addStatic records l, the leaf of p, in r.statics if p is static and l
// holds its first route.
func (r *Router) addStatic(p *pattern, l *leaf) {
	if len(p.names) == 0 && l.eps.next == nil {
		r.statics.add(p.str, l)
	}
}

// addMethod records that some route answers method, and recomputes the
// Allow header for "OPTIONS *" when the method is new.
func (r *Router) addMethod(method string) {
	if slices.Contains(r.methods, method) {
		return
	}
	r.methods = append(r.methods, method)
	if method == http.MethodGet {
		r.addMethod(http.MethodHead)
	}
	r.allowAll[0] = allowHeader(r.methods, false)
	r.allowAll[1] = allowHeader(r.methods, true)
}

// appendGrown is append for the arrays a router holds for good (the
// tree's nodes, the static table's routes): when full, it grows by an
// eighth rather than doubling, since their spare room is memory the router
// keeps, and copying their elements is cheap next to registering a route.
func appendGrown[S ~[]E, E any](s S, e E) S {
	if len(s) == cap(s) {
		grown := make(S, len(s), len(s)+len(s)/8+16)
		copy(grown, s)
		s = grown
	}
	return append(s, e)
}
