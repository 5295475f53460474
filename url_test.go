package waltz

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// namedRouter returns a router with the routes of the URL tests, each
// named, and a handler that records the route and params it served.
func namedRouter(tb testing.TB) (*Router, *routeHit) {
	hit := &routeHit{}
	h := func(c *Context) error {
		hit.route = c.Request.Method + " " + c.Pattern()
		hit.params = slices.Clone(c.Params())
		return c.NoContent(http.StatusOK)
	}
	r := New()
	r.Get("/", h).Name("home")
	r.Get("/users/:id", h).Name("user")
	r.Get("/users/new", h)
	r.Post("/users/me", h) // no GET: GET /users/me is the param route's
	r.Get("/static/v/:ver", h)
	r.Get("/users/:id/files/*path", h).Name("file")
	r.Group("/bookmarks").Post("", h).Name("bookmarks")
	r.Get("/static/*path", h).Name("static")
	r.Put("/a b/:x/", h).Name("spaced")
	r.Handler(http.MethodGet, "/plain/:id", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).Name("plain")
	return r, hit
}

func TestURL(t *testing.T) {
	r, _ := namedRouter(t)
	for _, tc := range []struct {
		name  string
		pairs []string
		want  string // the path, or the error's end
	}{
		{"home", nil, "/"},
		{"user", []string{"id", "42"}, "/users/42"},
		{"user", []string{"id", "a b/c?d#e%f"}, "/users/a%20b%2Fc%3Fd%23e%25f"},
		{"user", []string{"id", "ünï"}, "/users/%C3%BCn%C3%AF"},
		{"user", []string{"id", "a:b@c+d=e&f$g"}, "/users/a:b@c+d=e&f$g"},
		{"user", []string{"id", "me"}, "/users/me"},
		{"static", []string{"path", "v"}, "/static/v"},
		{"file", []string{"path", "docs/a b.txt", "id", "7"}, "/users/7/files/docs/a%20b.txt"},
		{"file", []string{"id", "7", "path", ""}, "/users/7/files/"},
		{"file", []string{"id", "7", "path", "a//b/"}, "/users/7/files/a//b/"},
		{"file", []string{"id", "7", "path", "%2F?"}, "/users/7/files/%252F%3F"},
		{"bookmarks", nil, "/bookmarks"},
		{"spaced", []string{"x", "1"}, "/a%20b/1/"},
		{"plain", []string{"id", "9"}, "/plain/9"},
		// Refusals, each naming the route.
		{"nope", nil, `no route is named "nope"`},
		{"user", nil, `URL for route "user" (GET "/users/:id"): param "id" is missing`},
		{"user", []string{"id"}, `URL for route "user" (GET "/users/:id"): params come in name, value pairs; got 1 strings`},
		{"user", []string{"id", "1", "page", "2"}, `URL for route "user" (GET "/users/:id"): the pattern has no param "page" (it has ["id"])`},
		{"home", []string{"id", "1"}, `URL for route "home" (GET "/"): the pattern has no param "id" (it has [])`},
		{"user", []string{"id", "1", "id", "2"}, `param "id" is given twice`},
		{"user", []string{"id", ""}, `param "id" is empty; a :param is one non-empty segment`},
		{"user", []string{"id", ".."}, `param "id" is "..", a dot segment that clients remove`},
		{"user", []string{"id", "."}, `param "id" is ".", a dot segment that clients remove`},
		{"static", []string{"path", "a/../b"}, `catch-all "path": segment ".." of "a/../b" is a dot segment, which clients remove`},
		{"static", []string{"path", "./b"}, `catch-all "path": segment "." of "./b" is a dot segment, which clients remove`},
		{"static", []string{"path", "/etc"}, `catch-all "path": value "/etc" starts with '/': a catch-all's value has no leading slash`},
		// A value that builds a path a winning route serves.
		{"user", []string{"id", "new"}, `URL for route "user" (GET "/users/:id"): the path "/users/new" reaches GET "/users/new" instead, which wins over this route's params`},
		{"static", []string{"path", "v/1"}, `the path "/static/v/1" reaches GET "/static/v/:ver" instead, which wins over this route's params`},
	} {
		t.Run(fmt.Sprint(tc.name, tc.pairs), func(t *testing.T) {
			got, err := r.URL(tc.name, tc.pairs...)
			if strings.HasPrefix(tc.want, "/") {
				if err != nil || got != tc.want {
					t.Errorf("got %q, %v, want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), "waltz: ") || !strings.HasSuffix(err.Error(), tc.want) {
				t.Errorf("got %q, %v, want an error ending %q", got, err, tc.want)
			}
		})
	}
}

// TestURLRoutesBack: each URL of namedRouter's routes, built from values
// with every kind of character, is served by that route with those values.
func TestURLRoutesBack(t *testing.T) {
	r, hit := namedRouter(t)
	for _, tc := range []struct {
		name, method, pattern string
		pairs                 []string
	}{
		{"user", "GET", "/users/:id", []string{"id", "a b/c?d#e%f;g,h"}},
		{"file", "GET", "/users/:id/files/*path", []string{"id", "%2F", "path", "x/%2F y/z?/"}},
		{"file", "GET", "/users/:id/files/*path", []string{"id", "7", "path", ""}},
		{"file", "GET", "/users/:id/files/*path", []string{"id", "7", "path", "a//b//"}},
		{"bookmarks", "POST", "/bookmarks", nil},
		{"spaced", "PUT", "/a b/:x/", []string{"x", "ü/ü"}},
	} {
		target, err := r.URL(tc.name, tc.pairs...)
		if err != nil {
			t.Fatal(err)
		}
		*hit = routeHit{}
		w := serveTarget(t, r, tc.method, target)
		if want := tc.method + " " + tc.pattern; w.Code != 200 || hit.route != want || !sameParams(hit.params, tc.pairs) {
			t.Errorf("%s: %s %s got %d %q %q, want 200 %q %q", tc.name, tc.method, target, w.Code, hit.route, hit.params, want, tc.pairs)
		}
	}
}

// sameParams reports whether ps holds exactly the name, value pairs.
func sameParams(ps Params, pairs []string) bool {
	if len(ps)*2 != len(pairs) {
		return false
	}
	for i := 0; i < len(pairs); i += 2 {
		if v, ok := lookupPair(pairs, pairs[i]); !ok || ps.Get(pairs[i]) != v {
			return false
		}
	}
	return true
}

// TestNamePanics: a duplicate name panics with both routes' places; so do
// an empty name and a second name for one route.
func TestNamePanics(t *testing.T) {
	h := func(c *Context) error { return nil }
	for _, tc := range []struct {
		name string
		reg  func(r *Router)
		want string // a regexp
	}{
		{"duplicate", func(r *Router) {
			r.Get("/a", h).Name("x")
			r.Group("/g").Post("/b/:id", h).Name("x")
		}, `^waltz: pattern "/g/b/:id" \(POST, at url_test.go:\d+\): name "x" is taken by GET "/a" \(at url_test.go:\d+\): route names are unique$`},
		{"empty", func(r *Router) { r.Get("/a", h).Name("") }, `^waltz: pattern "/a" \(GET, at url_test.go:\d+\): a route name must not be empty$`},
		{"twice", func(r *Router) {
			rg := r.Get("/a", h)
			rg.Name("x")
			rg.Name("y")
		}, `^waltz: pattern "/a" \(GET, at url_test.go:\d+\): the route is named already; it cannot also be "y"$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var msg string
			var re *RouteError
			func() {
				defer func() {
					err, _ := recover().(error)
					if errors.As(err, &re) {
						msg = err.Error()
					}
				}()
				tc.reg(New())
			}()
			if !regexp.MustCompile(tc.want).MatchString(msg) {
				t.Errorf("got panic %q, want a *RouteError matching %s", msg, tc.want)
			}
		})
	}
}

// TestURLRoundTripRouteSets: for every route of the five route sets, the
// URL built from random values (every kind of byte, '/' and '%' included)
// is served by that route with those values; and a value that is one of
// the set's static segments either routes back or is refused because its
// path reaches another route.
func TestURLRoundTripRouteSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	refused := 0
	for _, set := range routeSets {
		routes := loadRouteFiles(t, set.files...)
		r, hit := New(), &routeHit{}
		for i, rt := range routes {
			r.Handle(rt.method, rt.pattern, func(c *Context) error {
				hit.route = c.Pattern()
				hit.params = slices.Clone(c.Params())
				return nil
			}).Name(fmt.Sprint("r", i))
		}
		for i, rt := range routes {
			for range 4 {
				pairs := randomPairs(rng, rt.pattern)
				target, err := r.URL(fmt.Sprint("r", i), pairs...)
				if err != nil {
					t.Fatalf("%s: URL for %s %s with %q: %v", set.name, rt.method, rt.pattern, pairs, err)
				}
				*hit = routeHit{}
				w := serveTarget(t, r, rt.method, target)
				if hit.route != rt.pattern || !sameParams(hit.params, pairs) {
					t.Fatalf("%s: %s %s (built for %s with %q): got %d %q %q",
						set.name, rt.method, target, rt.pattern, pairs, w.Code, hit.route, hit.params)
				}
			}
		}
		refused += collideRouteSet(t, set.name, r, hit, routes)
	}
	if refused == 0 {
		t.Errorf("got no value refused for a static sibling's segment in any route set, want some")
	}
}

// collideRouteSet builds, for each param route of routes, URLs whose :param
// values are the static segments of the set's routes (so some equal a
// static sibling's). Each URL either routes back to its route with its
// values, or is refused with the path it would have been, which then must
// really reach another route or other values. It returns the refusals.
func collideRouteSet(t *testing.T, set string, r *Router, hit *routeHit, routes []routeSpec) (refused int) {
	t.Helper()
	var statics []string
	for _, rt := range routes {
		for _, seg := range strings.Split(rt.pattern[1:], "/") {
			if seg != "" && seg[0] != ':' && seg[0] != '*' && !slices.Contains(statics, seg) {
				statics = append(statics, seg)
			}
		}
	}
	reached := regexp.MustCompile(`the path "([^"]*)" reaches`)
	for i, rt := range routes {
		if !strings.Contains(rt.pattern, "/:") {
			continue
		}
		for _, v := range statics {
			var pairs []string
			for _, seg := range strings.Split(rt.pattern[1:], "/") {
				if seg != "" && (seg[0] == ':' || seg[0] == '*') {
					pairs = append(pairs, seg[1:], v)
				}
			}
			target, err := r.URL(fmt.Sprint("r", i), pairs...)
			if err != nil {
				m := reached.FindStringSubmatch(err.Error())
				if m == nil {
					t.Fatalf("%s: URL for %s with %q: %v", set, rt.pattern, pairs, err)
				}
				refused++
				target = m[1]
			}
			*hit = routeHit{}
			serveTarget(t, r, rt.method, target)
			if back := hit.route == rt.pattern && sameParams(hit.params, pairs); back != (err == nil) {
				t.Fatalf("%s: %s %s (for %s with %q, URL error %v): got %q %q",
					set, rt.method, target, rt.pattern, pairs, err, hit.route, hit.params)
			}
		}
	}
	return refused
}

// randomPairs returns a name, value pair for each param of pattern. Each
// :param value has a space, which no static segment of the route sets
// has, so no static sibling takes the URL; otherwise values hold any
// bytes but never a dot segment.
func randomPairs(rng *rand.Rand, pattern string) []string {
	const alphabet = "aZ09 /%?#:;,@+=&$!'()*~-._ü\x00\xff"
	var pairs []string
	for _, seg := range strings.Split(pattern[1:], "/") {
		if seg == "" || seg[0] != ':' && seg[0] != '*' {
			continue
		}
		b := []byte{' '}
		if seg[0] == '*' && rng.IntN(4) == 0 {
			b = nil // an empty catch-all
		}
		for range rng.IntN(8) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		v := string(b)
		if seg[0] == ':' {
			v = strings.ReplaceAll(v, ".", "-") // "." and ".." are refused
		} else {
			v = strings.ReplaceAll(v, ".", "-x")
		}
		pairs = append(pairs, seg[1:], v)
	}
	return pairs
}

// FuzzURL: for any values, URL refuses exactly those it documents (an
// empty :param, a dot segment, a catch-all's leading slash, a value whose
// path a static sibling serves) and builds,
// for the others, a path that routes back to its route with the same
// values.
func FuzzURL(f *testing.F) {
	f.Add("42", "a/b.txt")
	f.Add("a b/c", "")
	f.Add("%2F", "x//y/")
	f.Add("..", "./a")
	f.Add("new", "new")
	r, hit := New(), &routeHit{}
	h := func(c *Context) error {
		hit.route = c.Pattern()
		hit.params = slices.Clone(c.Params())
		return nil
	}
	r.Get("/u/:id", h).Name("one")
	r.Get("/u/new", h) // wins over /u/:id for id "new"
	r.Get("/f/*path", h).Name("rest")
	r.Get("/u/:id/x/*path", h).Name("both")
	f.Fuzz(func(t *testing.T, id, path string) {
		badID := id == "" || id == "." || id == ".."
		segs := strings.Split(path, "/")
		badPath := slices.Contains(segs, ".") || slices.Contains(segs, "..") || strings.HasPrefix(path, "/")
		for _, tc := range []struct {
			name, pattern string
			pairs         []string
			bad           bool // URL must refuse the values
		}{
			{"one", "/u/:id", []string{"id", id}, badID || id == "new"},
			{"rest", "/f/*path", []string{"path", path}, badPath},
			{"both", "/u/:id/x/*path", []string{"id", id, "path", path}, badID || badPath},
		} {
			target, err := r.URL(tc.name, tc.pairs...)
			if (err != nil) != tc.bad {
				t.Fatalf("URL(%q, %q): got %q, %v, want an error: %v", tc.name, tc.pairs, target, err, tc.bad)
			}
			if err != nil {
				continue
			}
			*hit = routeHit{}
			serveTarget(t, r, http.MethodGet, target)
			if hit.route != tc.pattern || !sameParams(hit.params, tc.pairs) {
				t.Fatalf("GET %s (built for %s with %q): got %q %q", target, tc.pattern, tc.pairs, hit.route, hit.params)
			}
		}
	})
}
