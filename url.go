package waltz

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// namedRoute is what Router.URL builds a path from.
type namedRoute struct {
	method, pattern string
	at              uintptr
	segs            []string      // the pattern's segments, without their slashes: "/a/:id/" is "a", ":id", ""; a param's without its constraint
	params          []string      // the names of its params and catch-all, in order
	cons            []*constraint // by segment: a constrained param's constraint, else nil
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
