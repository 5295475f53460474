package waltz

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/site"
)

// Group registers routes under a path prefix with a list of middleware. A
// Router is the root group: prefix "" and the middleware given to its Use.
// A group made from another copies the parent's prefix and middleware at
// that moment, so adding to one group never changes another.
type Group struct {
	r      *Router
	prefix string
	mw     []Middleware

	// NOTE: set once the group has registered a route or made a child group;
	// Use then panics, since those routes were composed without the new
	// middleware.
	sealed   bool
	sealedAt uintptr // program counter of the call that sealed the group (see site.PC)

	parent *Group // the group it was made from; nil for a router's root group
}

// prefixes returns the prefixes of g and of the groups it was made from,
// outermost first, each once and none empty: the nesting of groups the
// OpenAPI document shows as tags.
func (g *Group) prefixes() []string {
	var ps []string
	for ; g != nil; g = g.parent {
		if g.prefix != "" && (len(ps) == 0 || ps[0] != g.prefix) {
			ps = append([]string{g.prefix}, ps...)
		}
	}
	return ps
}

// name names g in messages: the router, or the group and its prefix.
func (g *Group) name() string {
	if g == &g.r.root {
		return "the router"
	}
	if g.prefix == "" {
		return "a group with no prefix"
	}
	return fmt.Sprintf("group %q", g.prefix)
}

// seal records that g has registered a route or made a group, at the
// call whose program counter is at.
func (g *Group) seal(at uintptr) {
	if !g.sealed {
		g.sealed, g.sealedAt = true, at
	}
}

// Use appends middleware to the group: it runs around every handler the
// group registers from then on, after (inside) the middleware of enclosing
// groups. On a Router it also runs for the answers the router gives itself:
// 404, 405, automatic OPTIONS and redirects.
//
// Use panics if a middleware is nil, or if the group has already
// registered a route or made a child group (with Group, With, Mount or
// Resource): middleware must come first.
func (g *Group) Use(mw ...Middleware) {
	if i := slices.IndexFunc(mw, isNil); i >= 0 {
		panic(fmt.Sprintf("waltz: Use on %s (at %s): middleware %d of %d is nil", g.name(), site.Here(), i+1, len(mw)))
	}
	if g.sealed {
		panic(fmt.Sprintf("waltz: Use on %s (at %s) after it registered a route or made a group (at %s): "+
			"those would run without the new middleware; call Use before registering routes",
			g.name(), site.Here(), site.Of(g.sealedAt)))
	}
	g.mw = append(g.mw, mw...)
	if g == &g.r.root {
		own, err := g.r.answers()
		if err != nil {
			panic(fmt.Sprintf("waltz: Use on %s (at %s): %v", g.name(), site.Here(), err))
		}
		g.r.own = own
	}
}

// Group returns a child group whose prefix is g's followed by prefix, and
// whose middleware is g's followed by mw. prefix starts with '/' and does
// not end with one ("/api", "/users/:id"). The child's route "" is the
// prefix itself and its route "/" is prefix + "/": in
// Group("/bookmarks"), Get("", h) serves /bookmarks and Get("/:id", h)
// serves /bookmarks/7. It panics with a [*RouteError] on a malformed
// prefix or a nil middleware.
func (g *Group) Group(prefix string, mw ...Middleware) *Group {
	at := site.PC()
	bad := func(reason string) {
		panic(&RouteError{Pattern: g.prefix + prefix, Where: site.Of(at), Reason: reason})
	}
	switch {
	case prefix == "":
	case prefix[0] != '/':
		bad(fmt.Sprintf("group prefix %q must start with '/': use %q", prefix, "/"+prefix))
	case strings.HasSuffix(prefix, "/"):
		bad(fmt.Sprintf("group prefix %q must not end with '/': use %q, and register the group's own path as \"\"",
			prefix, strings.TrimRight(prefix, "/")))
	}
	if strings.Contains(prefix, "/*") {
		bad(fmt.Sprintf("group prefix %q holds a catch-all, which must end a route", prefix))
	}
	if slices.ContainsFunc(mw, isNil) {
		bad("nil middleware")
	}
	if _, err := parsePattern(g.prefix + prefix + "/"); prefix != "" && err != nil {
		bad(err.Error())
	}
	g.seal(at)
	return &Group{r: g.r, prefix: g.prefix + prefix, mw: slices.Concat(g.mw, mw), parent: g}
}

// With returns a group with g's prefix and g's middleware followed by mw,
// for middleware that only some routes need:
//
//	r.With(auth).Post("/notes", createNote)
func (g *Group) With(mw ...Middleware) *Group {
	return g.Group("", mw...)
}

// Handle registers h for requests with the given method whose path matches
// path, which is appended to the group's prefix; in a group with a prefix,
// path "" is the prefix itself. method is any HTTP method
// token (RFC 9110 section 9); GET routes also answer HEAD. For the path
// syntax see the package documentation.
//
// Handle panics with a [*RouteError] when the pattern is malformed, when the
// method and pattern conflict with a route already registered, when method
// is no token or a standard method in lower case ("get"), when h is nil, or
// when a middleware returns a nil handler.
//
// It returns the route's [Registration], to name the route for
// [Router.URL]; callers that name no route ignore it.
func (g *Group) Handle(method, path string, h HandlerFunc) *Registration {
	at := site.PC()
	if err := g.handle(method, path, h, at); err != nil {
		panic(err)
	}
	return &Registration{r: g.r, method: method, pattern: g.prefix + path, at: at}
}

// handle is Handle returning its error; at is the registering call's
// program counter (see site.PC).
func (g *Group) handle(method, path string, h HandlerFunc, at uintptr) error {
	return g.route(method, path, h, nil, nil, at)
}

// route registers h for method and path inside inner and then g's
// middleware; op is what the contract registers h with (package api: the
// typed operation h serves), nil for a plain route.
// Every route comes here: Handle's, a resource's verbs, typed operations.
func (g *Group) route(method, path string, h HandlerFunc, inner []Middleware, op any, at uintptr) error {
	if g.r == nil {
		panic("waltz: a Router must be made with waltz.New")
	}
	if !header.IsToken(method) {
		return &RouteError{Method: method, Pattern: g.prefix + path, Where: site.Of(at),
			Reason: fmt.Sprintf("method %q is not an HTTP token", method)}
	}
	if up := strings.ToUpper(method); up != method && methodIndex(up) != mCustom {
		// RFC 9110 section 9.1: methods are case-sensitive, so "get" would
		// be a method of its own that no client sends.
		return &RouteError{Method: method, Pattern: g.prefix + path, Where: site.Of(at),
			Reason: fmt.Sprintf("method %q is not %q: methods are case-sensitive", method, up)}
	}
	// In a group with a prefix, "" is the group's own path:
	// Group("/bookmarks").Get("", h) serves /bookmarks, the collection.
	own := path == "" && g.prefix != ""
	if !own && (path == "" || path[0] != '/') {
		// Checked here as well as in the pattern, since the group's prefix
		// would otherwise make "/api" + "notes" into "/apinotes".
		reason := "pattern must start with '/'"
		if g.prefix != "" {
			reason += fmt.Sprintf(": %q follows the group prefix %q", path, g.prefix)
		}
		return &RouteError{Method: method, Pattern: g.prefix + path, Where: site.Of(at), Reason: reason}
	}
	if h == nil {
		return &RouteError{Method: method, Pattern: g.prefix + path, Where: site.Of(at), Reason: "nil handler"}
	}
	var q *queryRoute
	if method == MethodQuery {
		// RFC 10008's rules, innermost: see query.go.
		q = newQueryRoute(op)
		h = q.wrap(h)
	}
	h, err := chain(inner, h)
	if err == nil {
		h, err = chain(g.mw, h)
	}
	if err != nil {
		return &RouteError{Method: method, Pattern: g.prefix + path, Where: site.Of(at), Reason: err.Error()}
	}
	e, err := g.r.add(method, g.prefix+path, h, at, g, inner, op)
	if err != nil {
		return err
	}
	if q != nil {
		if g.r.queries == nil {
			g.r.queries = make(map[string]*queryRoute)
		}
		g.r.queries[g.prefix+path] = q
	}
	g.r.advertiseQuery(e, q)
	g.r.noteBody(e, op)
	g.seal(at)
	return nil
}

// Get registers h for GET (and so HEAD) requests to path; see [Group.Handle].
func (g *Group) Get(path string, h HandlerFunc) *Registration {
	return g.Handle(http.MethodGet, path, h)
}

// Head registers h for HEAD requests to path; see [Group.Handle].
func (g *Group) Head(path string, h HandlerFunc) *Registration {
	return g.Handle(http.MethodHead, path, h)
}

// Post registers h for POST requests to path; see [Group.Handle].
func (g *Group) Post(path string, h HandlerFunc) *Registration {
	return g.Handle(http.MethodPost, path, h)
}

// Put registers h for PUT requests to path; see [Group.Handle].
func (g *Group) Put(path string, h HandlerFunc) *Registration {
	return g.Handle(http.MethodPut, path, h)
}

// Patch registers h for PATCH requests to path; see [Group.Handle].
func (g *Group) Patch(path string, h HandlerFunc) *Registration {
	return g.Handle(http.MethodPatch, path, h)
}

// Delete registers h for DELETE requests to path; see [Group.Handle].
func (g *Group) Delete(path string, h HandlerFunc) *Registration {
	return g.Handle(http.MethodDelete, path, h)
}

// Query registers h for QUERY requests to path (RFC 10008, [MethodQuery]);
// see [Group.Handle]. The router answers a QUERY without a Content-Type
// 400 before h runs, as section 2 requires; [Registration.Accepts] names
// the media types h takes, which the route's answers list in Accept-Query.
func (g *Group) Query(path string, h HandlerFunc) *Registration {
	return g.Handle(MethodQuery, path, h)
}

// Options registers h for OPTIONS requests to path, in place of the
// automatic answer; see [Group.Handle].
func (g *Group) Options(path string, h HandlerFunc) *Registration {
	return g.Handle(http.MethodOptions, path, h)
}

func isNil(mw Middleware) bool { return mw == nil }
