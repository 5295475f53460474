package waltz

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/site"
)

// Resource is a handler written as a type, one per resource, with one method
// per HTTP verb, after Drash's resource classes. Paths returns the paths the
// resource answers, in the syntax of [Group.Handle]; its verbs are whichever
// of these methods the type has, each a [HandlerFunc]:
//
//	Get(c *waltz.Context) error     // GET, and HEAD unless Head is there too
//	Post(c *waltz.Context) error
//	Put(c *waltz.Context) error
//	Patch(c *waltz.Context) error
//	Delete(c *waltz.Context) error
//	Head(c *waltz.Context) error
//	Options(c *waltz.Context) error // in place of the automatic OPTIONS
//
// A resource may also have
//
//	Middleware() []waltz.Middleware
//
// which runs around each of its verbs, inside the middleware of the
// router and of the group it is registered in; and, for typed operations,
// the Verbs method package api describes (github.com/waltz-go/waltz/api,
// Verb), beside or instead of the plain verb methods. Paths, Middleware
// and Verbs are called once, by [Group.Resource].
//
//	type Note struct{ store *Store }
//
//	func (*Note) Paths() []string { return []string{"/notes/:id"} }
//
//	func (n *Note) Get(c *waltz.Context) error {
//		return c.JSON(http.StatusOK, n.store.Note(c.Param("id")))
//	}
type Resource interface {
	// Paths returns the resource's paths, such as "/notes/:id"; each is
	// appended to the prefix of the group the resource is registered in.
	Paths() []string
}

// The verb methods a Resource may have, found with type assertions once, at
// registration.
type (
	getVerb            interface{ Get(c *Context) error }
	postVerb           interface{ Post(c *Context) error }
	putVerb            interface{ Put(c *Context) error }
	patchVerb          interface{ Patch(c *Context) error }
	deleteVerb         interface{ Delete(c *Context) error }
	headVerb           interface{ Head(c *Context) error }
	optionsVerb        interface{ Options(c *Context) error }
	resourceMiddleware interface{ Middleware() []Middleware }
)

// verbs pairs each verb method's name with its HTTP method, in the order a
// resource's routes are registered.
var verbs = [...]struct{ name, method string }{
	{"Get", http.MethodGet},
	{"Head", http.MethodHead},
	{"Post", http.MethodPost},
	{"Put", http.MethodPut},
	{"Patch", http.MethodPatch},
	{"Delete", http.MethodDelete},
	{"Options", http.MethodOptions},
}

// verbHandler returns res's handler for method, or nil when res lacks it.
func verbHandler(res Resource, method string) HandlerFunc {
	switch method {
	case http.MethodGet:
		if v, ok := res.(getVerb); ok {
			return v.Get
		}
	case http.MethodHead:
		if v, ok := res.(headVerb); ok {
			return v.Head
		}
	case http.MethodPost:
		if v, ok := res.(postVerb); ok {
			return v.Post
		}
	case http.MethodPut:
		if v, ok := res.(putVerb); ok {
			return v.Put
		}
	case http.MethodPatch:
		if v, ok := res.(patchVerb); ok {
			return v.Patch
		}
	case http.MethodDelete:
		if v, ok := res.(deleteVerb); ok {
			return v.Delete
		}
	case http.MethodOptions:
		if v, ok := res.(optionsVerb); ok {
			return v.Options
		}
	}
	return nil
}

// Resource registers res: each of its verb methods for each of its paths,
// under the group's prefix and inside the group's middleware, with res's own
// middleware (if it has a Middleware method) innermost. The router derives
// 405 answers, the Allow header and automatic OPTIONS from the verbs res
// has, as for any routes; HEAD falls back to Get.
//
//	g := r.Group("/api", auth)
//	g.Resource(&Notes{store})    // GET, POST /api/notes
//	g.Resource(&Note{store})     // GET, PUT, DELETE /api/notes/:id
//
// Resource panics, with a message that names res's type, when res is nil,
// has no paths or no verbs, has a method named as a verb (or Middleware)
// whose signature is not the one [Resource] lists, has verbs only on its
// pointer type but was passed as a value, has a nil middleware, or when a
// path is malformed or conflicts with a registered route. It checks all of
// that first, so a panic registers nothing; the panic value is an error that
// wraps the [*RouteError], if any, for errors.As.
func (g *Group) Resource(res Resource) {
	if err := g.resource(res, site.PC()); err != nil {
		panic(err)
	}
}

// verb is one handler of a resource, before its path is known: a verb
// method (plainVerb) or a typed verb (package api's). Both register through
// Group.route, as Handle and Op do.
type verb interface {
	// httpMethod returns the verb's method, such as "GET".
	httpMethod() string
	// check returns what would stop the verb registering at path, the
	// nth (from 0) of the resource's paths, registering nothing.
	check(g *Group, path string, nth int) error
	// register registers the verb at path, the nth of the resource's
	// paths, inside the resource's middleware mw.
	register(g *Group, path string, nth int, mw []Middleware, at uintptr) error
}

// plainVerb is a resource's verb method.
type plainVerb struct {
	method string
	h      HandlerFunc
}

func (v plainVerb) httpMethod() string                         { return v.method }
func (v plainVerb) check(g *Group, path string, nth int) error { return nil }
func (v plainVerb) register(g *Group, path string, nth int, mw []Middleware, at uintptr) error {
	return g.route(v.method, path, v.h, mw, nil, at)
}

// resource is Resource returning its error.
func (g *Group) resource(res Resource, at uintptr) error {
	if res == nil {
		return errors.New("waltz: Resource(nil): pass a value with a Paths method and verb methods")
	}
	fail := func(err error) error { return &resourceError{typ: reflect.TypeOf(res).String(), err: err} }
	if err := checkSignatures(res); err != nil {
		return fail(err)
	}
	var vs []verb
	for _, v := range verbs {
		if h := verbHandler(res, v.method); h != nil {
			vs = append(vs, plainVerb{v.method, h})
		}
	}
	vs, err := withTypedVerbs(res, vs)
	if err != nil {
		return fail(err)
	}
	if len(vs) == 0 {
		return fail(errors.New("no verb methods: give it at least one of Get, Post, Put, Patch, Delete, Head, Options"))
	}
	paths := res.Paths()
	if len(paths) == 0 {
		return fail(errors.New("its Paths method returned no paths"))
	}
	var mw []Middleware
	if m, ok := res.(resourceMiddleware); ok {
		mw = m.Middleware()
		for i, m := range mw {
			if m == nil {
				return fail(fmt.Errorf("its Middleware method returned a nil middleware at index %d", i))
			}
		}
	}
	if err := g.checkRoutes(paths, vs, at); err != nil {
		return fail(err)
	}
	for i, path := range paths {
		for _, v := range vs {
			if err := v.check(g, path, i); err != nil {
				return fail(err)
			}
		}
	}
	if _, err := chain(mw, func(*Context) error { return nil }); err != nil {
		return fail(err) // the same for every verb: fails before any is registered
	}
	for i, path := range paths {
		for _, v := range vs {
			if err := v.register(g, path, i, mw, at); err != nil {
				return fail(err) // the checks above make this unreachable
			}
		}
	}
	return nil
}

// typedVerb is a typed verb of a resource (package api's TypedVerb), as
// the contract hands it over through the seam.
type typedVerb struct{ v seam.Verb }

func (t typedVerb) httpMethod() string { return t.v.Method }
func (t typedVerb) check(g *Group, path string, nth int) error {
	return t.v.Check(g, path, nth)
}
func (t typedVerb) register(g *Group, path string, nth int, mw []Middleware, at uintptr) error {
	return t.v.Register(g, path, nth, mw, at)
}

// withTypedVerbs returns vs followed by res's typed verbs, if it has a
// Verbs method (which only a program that uses the contract can give it),
// checked against vs and each other.
func withTypedVerbs(res Resource, vs []verb) ([]verb, error) {
	if seam.Contract.Verbs == nil {
		return vs, nil
	}
	tvs, err := seam.Contract.Verbs(res)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, v := range vs {
		seen[v.httpMethod()] = true
	}
	for i, tv := range tvs {
		switch {
		case !header.IsToken(tv.Method):
			return nil, fmt.Errorf("typed verb %d has method %q, which is not an HTTP token", i, tv.Method)
		case seen[tv.Method]:
			return nil, fmt.Errorf("it has two handlers for %s: a verb method and a typed verb, or two typed verbs", tv.Method)
		}
		seen[tv.Method] = true
		vs = append(vs, typedVerb{tv})
	}
	return vs, nil
}

// checkSignatures reports a method of res that is named as a verb or
// Middleware but has the wrong signature, or that exists only on res's
// pointer type when res is not a pointer; either would otherwise be silently
// left out.
func checkSignatures(res Resource) error {
	v := reflect.ValueOf(res)
	t := v.Type()
	check := func(name, want string, ok bool) error {
		if ok {
			return nil
		}
		if m := v.MethodByName(name); m.IsValid() {
			return fmt.Errorf("method %s has type %s, want %s", name, m.Type(), want)
		}
		if t.Kind() != reflect.Pointer {
			if _, ok := reflect.PointerTo(t).MethodByName(name); ok {
				return fmt.Errorf("method %s has a pointer receiver: register a *%s, not a %s value", name, t, t)
			}
		}
		return nil
	}
	for _, vb := range verbs {
		if err := check(vb.name, "func(*waltz.Context) error", verbHandler(res, vb.method) != nil); err != nil {
			return err
		}
	}
	_, ok := res.(resourceMiddleware)
	return check("Middleware", "func() []waltz.Middleware", ok)
}

// checkRoutes validates every route a resource would register, before any
// is: each path parses, no two of its paths have the same shape, and none
// conflicts with a registered route.
func (g *Group) checkRoutes(paths []string, vs []verb, at uintptr) error {
	seen := make(map[string]string, len(paths))
	for _, path := range paths {
		pat := g.prefix + path
		p, err := parsePattern(pat)
		if err != nil {
			return &RouteError{Method: vs[0].httpMethod(), Pattern: pat, Where: site.Of(at), Reason: err.Error()}
		}
		key := shapeKey(p)
		if prev, ok := seen[key]; ok {
			return &RouteError{Method: vs[0].httpMethod(), Pattern: pat, Where: site.Of(at), Existing: prev, ExistingWhere: site.Of(at)}
		}
		seen[key] = pat
		if err := g.r.checkOverlap(vs[0].httpMethod(), p, at); err != nil {
			return err
		}
		l := g.r.tree.find(p)
		if l == nil {
			continue
		}
		for _, v := range vs {
			if e := l.get(v.httpMethod()); e != nil {
				return &RouteError{Method: v.httpMethod(), Pattern: pat, Where: site.Of(at), Existing: e.pattern, ExistingWhere: site.Of(e.at)}
			}
		}
	}
	return nil
}

// shapeKey returns a key that two patterns share exactly when they differ
// only in their params' names, and so land on the same leaf.
func shapeKey(p *pattern) string {
	var b strings.Builder
	for _, pc := range p.pieces {
		switch pc.kind {
		case paramKind:
			b.WriteString(":")
			if pc.cons != nil {
				b.WriteString(strconv.Itoa(len(pc.cons.key)) + "=" + pc.cons.key)
			}
		case catchAllKind:
			b.WriteString("*")
		default:
			b.WriteString(strconv.Itoa(len(pc.text)) + "=" + pc.text)
		}
	}
	return b.String()
}

// resourceError is what Resource panics with: the problem, prefixed with
// the resource's type.
type resourceError struct {
	typ string // the resource's dynamic type, such as "*main.Notes"
	err error
}

func (e *resourceError) Error() string {
	return "waltz: resource " + e.typ + ": " + strings.TrimPrefix(e.err.Error(), "waltz: ")
}

func (e *resourceError) Unwrap() error { return e.err }
