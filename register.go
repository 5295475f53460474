package waltz

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
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

// info returns the routeInfo of a route of g with the param names names,
// inside g's middleware and then inner, serving op (nil for a plain
// route). The routes of a group with the same names share one; a route
// with inner or op has its own, which shares its names list with the
// others. They are found by a scan, not a map: a router has a few dozen,
// and a map of them would keep more memory than they do
// (benchmarks/README.md, "Finishing the tree at registration").
func (r *Router) info(names []string, g *Group, inner []Middleware, op any) *routeInfo {
	var shared []string // the router's copy of names, once found
	for _, ri := range r.infos {
		if !slices.Equal(ri.names, names) {
			continue
		}
		shared = ri.names
		if op == nil && len(inner) == 0 && sameList(ri.mw, g.mw) {
			return ri
		}
	}
	if shared == nil && len(names) > 0 {
		shared = slices.Clip(slices.Clone(names))
	}
	if op != nil || len(inner) > 0 {
		return &routeInfo{names: shared, mw: slices.Concat(g.mw, inner), op: op}
	}
	ri := &routeInfo{names: shared, mw: slices.Clip(g.mw)}
	r.infos = append(r.infos, ri)
	return ri
}

// sameList reports whether a, a route's middleware, is the list b, a
// group's: the same array, up to the same length. A group's middleware
// list is never changed once it has registered a route (Use panics), so a
// route of the group holds it as it is.
func sameList(a, b []Middleware) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
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
	r.allowAll = allowHeader(r.methods, true)
}

// newNamedRoute returns what URL needs of the route method and pattern,
// registered at the program counter at: the pattern's segments, a
// constrained param's without its constraint, which it keeps apart.
func newNamedRoute(method, pattern string, at uintptr) *namedRoute {
	nr := &namedRoute{method: method, pattern: pattern, at: at, segs: strings.Split(pattern[1:], "/")}
	nr.cons = make([]*constraint, len(nr.segs))
	for i, s := range nr.segs {
		if s == "" || s[0] != ':' && s[0] != '*' {
			continue
		}
		name := s[1:]
		if j := strings.IndexByte(s, '<'); s[0] == ':' && j > 0 {
			// The pattern was registered, so its constraint compiles.
			name = s[1:j]
			nr.cons[i], _ = parseConstraint(s[j+1 : len(s)-1])
			nr.segs[i] = ":" + name
		}
		nr.params = append(nr.params, name)
	}
	return nr
}

// URL returns the path of the route named name (see [Registration.Name])
// with its params set from pairs, which alternate a param's name and its
// value:
//
//	r.Get("/users/:id/files/*path", h).Name("file")
//	r.URL("file", "id", "7", "path", "a b/c.txt") // "/users/7/files/a%20b/c.txt"
//
// The path is escaped, ready for a Location header (RFC 9110 section
// 10.2.2) or a link: an absolute-path reference (RFC 3986 section 4.2)
// with no query. Each value is escaped as one path segment, '/' included
// ("a/b" for :name is "a%2Fb", which the router decodes back to "a/b");
// a catch-all's value keeps its slashes and has each of its segments
// escaped. Static segments are escaped the same way.
//
// URL returns an error, naming the route, when no route has the name,
// when pairs has an odd length, a name twice, a name the pattern lacks or
// lacks one it has, when a :param's value is empty or breaks the param's
// constraint (":id<int>" given "x"), when a catch-all's
// value starts with '/' (a catch-all's value has none: "/files/*path"
// matches /files/a as "a"), or when a value, or a catch-all's segment, is
// "." or ".." (registration refuses patterns with such a segment), which
// clients remove from paths (RFC 3986 section 5.2.4).
// It routes the path it built, as a request with the route's method, and
// returns an error when that reaches another route or other values: a
// value equal to a static sibling's segment ("new" for "/users/:id" beside
// "/users/new") would build that sibling's path, which static routes win.
// So a path URL returns is always served by its route with those values.
func (r *Router) URL(name string, pairs ...string) (string, error) {
	nr := r.named[name]
	if nr == nil {
		return "", fmt.Errorf("waltz: URL: no route is named %q", name)
	}
	fail := func(format string, args ...any) (string, error) {
		return "", fmt.Errorf("waltz: URL for route %q (%s %q): %s", name, nr.method, nr.pattern, fmt.Sprintf(format, args...))
	}
	if len(pairs)%2 != 0 {
		return fail("params come in name, value pairs; got %d strings", len(pairs))
	}
	for i := 0; i < len(pairs); i += 2 {
		if !nr.has(pairs[i]) {
			return fail("the pattern has no param %q (it has %q)", pairs[i], nr.params)
		}
		for j := 0; j < i; j += 2 {
			if pairs[j] == pairs[i] {
				return fail("param %q is given twice", pairs[i])
			}
		}
	}
	var b strings.Builder
	for i, seg := range nr.segs {
		b.WriteByte('/')
		if seg == "" || seg[0] != ':' && seg[0] != '*' {
			b.WriteString(url.PathEscape(seg))
			continue
		}
		v, ok := lookupPair(pairs, seg[1:])
		switch {
		case !ok:
			return fail("param %q is missing", seg[1:])
		case seg[0] == ':' && v == "":
			return fail("param %q is empty; a :param is one non-empty segment", seg[1:])
		case seg[0] == ':':
			if v == "." || v == ".." {
				return fail("param %q is %q, a dot segment that clients remove", seg[1:], v)
			}
			if k := nr.cons[i]; k != nil && !k.meets(v) {
				return fail("param %q is %q, which does not meet its constraint <%s>", seg[1:], v, k.src)
			}
			b.WriteString(url.PathEscape(v))
		default:
			if err := writeRest(&b, v); err != nil {
				return fail("catch-all %q: %v", seg[1:], err)
			}
		}
	}
	path := b.String()
	switch other, same := r.reaches(nr, path, pairs); {
	case other == "":
		return fail("the path %q reaches no route", path)
	case other != nr.pattern:
		// A static segment beats a param, and a param a catch-all: a link
		// built from this value would lead to the route that wins.
		return fail("the path %q reaches %s %q instead, which wins over this route's params", path, nr.method, other)
	case !same:
		return fail("the path %q reaches this route with other values", path)
	}
	return path, nil
}

// reaches routes a request for path with nr's method and returns the
// pattern of the route it reaches ("" for none), and whether that route
// got exactly the values in pairs.
func (r *Router) reaches(nr *namedRoute, path string, pairs []string) (pattern string, same bool) {
	u, err := url.Parse(path)
	if err != nil {
		return "", false
	}
	c, _ := r.pool.Get().(*Context)
	defer c.free()
	c.reset(nil, &http.Request{Method: nr.method, URL: u}) // routing reads no header
	r.route(c)
	ps := c.Params()
	same = len(ps)*2 == len(pairs)
	for _, p := range ps {
		if v, _ := lookupPair(pairs, p.Key); v != p.Value {
			same = false
		}
	}
	return c.Pattern(), same
}

// has reports whether the route has a param called name.
func (nr *namedRoute) has(name string) bool {
	for _, p := range nr.params {
		if p == name {
			return true
		}
	}
	return false
}

// lookupPair returns the value paired with name in pairs, and whether
// there is one.
func lookupPair(pairs []string, name string) (string, bool) {
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i] == name {
			return pairs[i+1], true
		}
	}
	return "", false
}

// writeRest writes the catch-all value v to b, each of its segments
// escaped and its slashes kept.
func writeRest(b *strings.Builder, v string) error {
	if strings.HasPrefix(v, "/") {
		// "/files/" + "/a" would be "/files//a", which the router cleans
		// to "/files/a" rather than match.
		return fmt.Errorf("value %q starts with '/': a catch-all's value has no leading slash", v)
	}
	for i, seg := range strings.Split(v, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("segment %q of %q is a dot segment, which clients remove", seg, v)
		}
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(url.PathEscape(seg))
	}
	return nil
}

// Accepts names the media types the QUERY route rg takes, which the
// router then holds it to (RFC 10008 sections 2.1 and 3): a QUERY of any
// other Content-Type is answered 415 before the handler runs, and every
// answer of the route, the GET and HEAD of its pattern, the automatic
// OPTIONS and the 405 of its path carry them in Accept-Query. Each is a media range without parameters:
// "application/json", "text/*" or "*/*". Call it at registration, before
// serving:
//
//	r.Query("/contacts", search).Accepts("application/json", "application/x-www-form-urlencoded")
//
// A QUERY route that names none takes any Content-Type its handler
// reads; the router refuses only a QUERY without one (400), and sends no
// Accept-Query. A typed QUERY operation (package api) takes the media
// types its Body field consumes, and names them itself.
//
// Accepts panics with a [*RouteError] on a route of another method, a
// typed operation's, a second call, a call once the router serves, no
// types, or one that is no media range. A type named twice, in any
// letter case, is listed once.
func (rg *Registration) Accepts(types ...string) *Registration {
	fail := func(reason string) {
		panic(&RouteError{Method: rg.method, Pattern: rg.pattern, Where: site.Of(rg.at), Reason: "Accepts: " + reason})
	}
	q := rg.r.queries[rg.pattern]
	switch {
	case rg.r.serving.Load():
		fail("called after the router began serving requests, which read the route's types without a lock")
	case rg.method != MethodQuery || q == nil:
		fail("Accept-Query lists what a QUERY route takes; this is a " + rg.method + " route")
	case q.typed:
		fail("a typed operation takes the media types of its Body field's consumes tag")
	case q.types != nil:
		fail("the route's media types are named already: " + q.value)
	case len(types) == 0:
		fail("name at least one media type")
	}
	var kept []string
	for _, t := range types {
		typ, sub, ok := strings.Cut(t, "/")
		// Accept-Query is a list of RFC 9651 tokens, whose first
		// character is a letter or '*'.
		if !ok || !header.IsToken(typ) || !header.IsToken(sub) || typ == "*" && sub != "*" || !isLetters(typ[:1]) && typ != "*" ||
			strings.Contains(typ, "*") && typ != "*" || strings.Contains(sub, "*") && sub != "*" {
			fail(fmt.Sprintf("%q is no media range (type/subtype, type/* or */*, without parameters)", t))
		}
		if !slices.ContainsFunc(kept, func(k string) bool { return strings.EqualFold(k, t) }) {
			kept = append(kept, t) // a type named twice is listed once
		}
	}
	q.set(kept)
	return rg
}
