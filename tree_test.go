package waltz

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// precedenceRoutes put static, param and catch-all siblings at several
// levels, and routes that lack a method beside routes that have it.
var precedenceRoutes = []routeSpec{
	{"GET", "/a/:x/c"},
	{"GET", "/d/:x/c"},
	{"GET", "/d/b/d"},
	{"GET", "/a/b/d"},
	{"GET", "/a/b/*rest"},
	{"GET", "/a/*all"},
	{"GET", "/:top"},
	{"GET", "/:top/b/:y"},
	{"GET", "/users/new"},
	{"GET", "/users/:id"},
	{"GET", "/users/:id/posts"},
	{"POST", "/m/static"},
	{"GET", "/m/:p"},
	{"GET", "/Π"},
	{"GET", "/π"},
	{"GET", "/files/*path"},
	{"GET", "/files/readme"},
}

func TestPrecedence(t *testing.T) {
	// The precedence rule (doc.go, "Precedence"): at every segment static,
	// then :param, then *catchall, with backtracking, also past a route that lacks
	// the method; matching is byte-exact, so case-sensitive for every script.
	r, o, h := newOracleRouter(t, precedenceRoutes, nil)
	for _, tt := range []struct {
		method, target string
		code           int
		route          string
		params         Params
	}{
		// The static "b" leads nowhere, so :x takes it.
		{"GET", "/d/b/c", 200, "GET /d/:x/c", Params{{"x", "b"}}},
		{"GET", "/d/b/d", 200, "GET /d/b/d", nil},
		// The first segment that differs decides: static "b" beats :x, and
		// below it the catch-all takes "c". (ServeMux refuses this pair.)
		{"GET", "/a/b/c", 200, "GET /a/b/*rest", Params{{"rest", "c"}}},
		{"GET", "/a/b/d", 200, "GET /a/b/d", nil},
		{"GET", "/a/b/e", 200, "GET /a/b/*rest", Params{{"rest", "e"}}},
		{"GET", "/a/b/", 200, "GET /a/b/*rest", Params{{"rest", ""}}},
		{"GET", "/a/b/d/e", 200, "GET /a/b/*rest", Params{{"rest", "d/e"}}},
		{"GET", "/a/z/c", 200, "GET /a/:x/c", Params{{"x", "z"}}},
		{"GET", "/a/z/q", 200, "GET /a/*all", Params{{"all", "z/q"}}},
		{"GET", "/a/", 200, "GET /a/*all", Params{{"all", ""}}},
		{"GET", "/a", 200, "GET /:top", Params{{"top", "a"}}},
		{"GET", "/q/b/r", 200, "GET /:top/b/:y", Params{{"top", "q"}, {"y", "r"}}},
		{"GET", "/a/b/r", 200, "GET /a/b/*rest", Params{{"rest", "r"}}},
		{"GET", "/users/new", 200, "GET /users/new", nil},
		{"GET", "/users/newest", 200, "GET /users/:id", Params{{"id", "newest"}}},
		{"GET", "/users/ne", 200, "GET /users/:id", Params{{"id", "ne"}}},
		{"GET", "/users/new/posts", 200, "GET /users/:id/posts", Params{{"id", "new"}}},
		{"GET", "/users/b/x", 200, "GET /:top/b/:y", Params{{"top", "users"}, {"y", "x"}}},
		{"GET", "/m/static", 200, "GET /m/:p", Params{{"p", "static"}}},
		{"POST", "/m/static", 200, "POST /m/static", nil},
		{"POST", "/m/other", 405, "", nil},
		{"HEAD", "/m/static", 200, "GET /m/:p", Params{{"p", "static"}}},
		{"GET", "/files/readme", 200, "GET /files/readme", nil},
		{"GET", "/files/readme/x", 200, "GET /files/*path", Params{{"path", "readme/x"}}},
		{"GET", "/files/readme2", 200, "GET /files/*path", Params{{"path", "readme2"}}},
		{"GET", "/Π", 200, "GET /Π", nil},
		{"GET", "/π", 200, "GET /π", nil},
		{"GET", "/%CE%A0", 200, "GET /Π", nil},
		{"GET", "/%cf%80", 200, "GET /π", nil},
		{"GET", "/users/NEW", 200, "GET /users/:id", Params{{"id", "NEW"}}},
		{"GET", "/Users/new", 404, "", nil},
		{"GET", "/A/b/d", 200, "GET /:top/b/:y", Params{{"top", "A"}, {"y", "d"}}},
		{"GET", "/A/c", 404, "", nil},
	} {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			*h = routeHit{}
			w := serveTarget(t, r, tt.method, tt.target)
			if w.Code != tt.code || h.route != tt.route || !slices.Equal(h.params, tt.params) {
				t.Errorf("got %d %q %v, want %d %q %v", w.Code, h.route, h.params, tt.code, tt.route, tt.params)
			}
			checkOracle(t, r, o, h, tt.method, tt.target)
		})
	}
}

func TestParamNamesPerRoute(t *testing.T) {
	// Routes that differ only in a param's name at the same place
	// share the tree, and each keeps its own names, whatever the order in
	// which they were registered.
	routes := []routeSpec{
		{"GET", "/u/:id"},
		{"DELETE", "/u/:uid"},
		{"PUT", "/u/:name/x"},
		{"GET", "/r/:a/:b"},
		{"POST", "/r/:b/:a"},
		{"PATCH", "/r/:x/*y"},
		{"GET", "/r/:owner/*path"},
	}
	for _, order := range []string{"forward", "reverse"} {
		rs := slices.Clone(routes)
		if order == "reverse" {
			slices.Reverse(rs)
		}
		r, o, h := newOracleRouter(t, rs, nil)
		for _, tt := range []struct {
			method, target string
			params         Params
		}{
			{"GET", "/u/1", Params{{"id", "1"}}},
			{"DELETE", "/u/1", Params{{"uid", "1"}}},
			{"PUT", "/u/1/x", Params{{"name", "1"}}},
			{"GET", "/r/1/2", Params{{"a", "1"}, {"b", "2"}}},
			{"POST", "/r/1/2", Params{{"b", "1"}, {"a", "2"}}},
			{"PATCH", "/r/1/2/3", Params{{"x", "1"}, {"y", "2/3"}}},
			{"GET", "/r/1/2/3", Params{{"owner", "1"}, {"path", "2/3"}}},
			{"GET", "/r/1/", Params{{"owner", "1"}, {"path", ""}}},
		} {
			t.Run(order+" "+tt.method+" "+tt.target, func(t *testing.T) {
				*h = routeHit{}
				if w := serveTarget(t, r, tt.method, tt.target); w.Code != http.StatusOK || !slices.Equal(h.params, tt.params) {
					t.Errorf("got %d %v, want 200 %v", w.Code, h.params, tt.params)
				}
				checkOracle(t, r, o, h, tt.method, tt.target)
			})
		}
	}
}

func TestMatchAllocs(t *testing.T) {
	// A lookup in the tree allocates nothing, for static, param and catch-all routes and for misses.
	r, _, _ := newOracleRouter(t, precedenceRoutes, nil)
	params := make(Params, 0, r.maxParams)
	for _, path := range []string{"/users/new", "/users/42/posts", "/a/b/d/e", "/nope/x/y", "/m/static"} {
		t.Run(path, func(t *testing.T) {
			allocs := testing.AllocsPerRun(100, func() {
				s := search{method: mGet, name: http.MethodGet, params: params[:0]}
				r.tree.matchRoot(path, &s)
			})
			if allocs != 0 {
				t.Errorf("got %v allocs per lookup, want 0", allocs)
			}
		})
	}
}

func TestFastPathNoDecoding(t *testing.T) {
	// path.go: a request without RawPath is matched on URL.Path as it is,
	// and its values are substrings of it. "/files/a%252Fb" on the wire is
	// Path "/files/a%2Fb" with no RawPath: the value is the text "a%2Fb",
	// decoded once by net/http and never again.
	r, _, h := newOracleRouter(t, []routeSpec{{"GET", "/files/:name"}, {"GET", "/all/*rest"}}, nil)
	for _, tt := range []struct {
		path, rawPath string
		want          Params
	}{
		{"/files/a%2Fb", "", Params{{"name", "a%2Fb"}}},
		{"/files/a%b", "", Params{{"name", "a%b"}}},
		{"/all/a%2Fb/c", "", Params{{"rest", "a%2Fb/c"}}},
		{"/files/a/b", "/files/a%2Fb", Params{{"name", "a/b"}}},
		{"/files/a%b", "/files/a%25b", Params{{"name", "a%b"}}},
	} {
		t.Run(tt.path+" "+tt.rawPath, func(t *testing.T) {
			*h = routeHit{}
			req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: tt.path, RawPath: tt.rawPath}, Header: http.Header{}}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != http.StatusOK || !slices.Equal(h.params, tt.want) {
				t.Errorf("got %d %v, want 200 %v", w.Code, h.params, tt.want)
			}
		})
	}
}

// dumpTree writes node i's subtree one node a line: depth, kind, text,
// and the methods of its leaf.
func dumpTree(b *strings.Builder, t *tree, i int32, kind string, depth int) {
	n := &t.nodes[i]
	fmt.Fprintf(b, "%s%s %q", strings.Repeat("  ", depth), kind, n.text)
	if n.leaf != nil {
		fmt.Fprintf(b, " %v", n.leaf.methods(nil))
	}
	b.WriteByte('\n')
	for c := n.child; c != 0; c = t.nodes[c].next {
		dumpTree(b, t, c, "static", depth+1)
	}
	if n.param != 0 {
		dumpTree(b, t, n.param, "param", depth+1)
	}
	if n.catchAll != 0 {
		dumpTree(b, t, n.catchAll, "catchall", depth+1)
	}
}

func TestTreeShape(t *testing.T) {
	// The worked example at the top of tree.go, built for real: shared
	// runs stored once, wildcards as children of the node ending in '/'.
	r := New()
	for _, p := range []string{"/users/new", "/users/:id", "/users/:id/posts", "/files/*path"} {
		r.Get(p, nopHandler)
	}
	var b strings.Builder
	dumpTree(&b, &r.tree, 0, "root", 0)
	want := `root ""
  static "/"
    static "users/"
      static "new" [GET HEAD]
      param "" [GET HEAD]
        static "/posts" [GET HEAD]
    static "files/"
      catchall "" [GET HEAD]
`
	if got := b.String(); got != want {
		t.Errorf("got tree\n%s\nwant\n%s", got, want)
	}
}

func TestCaseSensitive(t *testing.T) {
	// RFC 3986 section 6.2.2.1: only the scheme and host are
	// case-insensitive; a path is compared byte for byte, for every script.
	// Only the hex digits of an escape ignore case (section 2.1).
	r, o, h := newOracleRouter(t, []routeSpec{
		{"GET", "/Π"}, {"GET", "/π"}, {"GET", "/Straße"}, {"GET", "/about"}, {"GET", "/İ/:x"},
	}, nil)
	for _, tt := range []struct {
		target string
		route  string
	}{
		{"/Π", "GET /Π"},
		{"/π", "GET /π"},
		{"/%CE%A0", "GET /Π"},
		{"/%cf%80", "GET /π"},
		{"/Straße", "GET /Straße"},
		{"/STRASSE", ""},
		{"/straße", ""},
		{"/About", ""},
		{"/ABOUT", ""},
		{"/%61bout", "GET /about"},
		{"/%41bout", ""},
		{"/İ/x", "GET /İ/:x"},
		{"/i/x", ""},
		{"/I/x", ""},
	} {
		t.Run(tt.target, func(t *testing.T) {
			*h = routeHit{}
			serveTarget(t, r, http.MethodGet, tt.target)
			if h.route != tt.route {
				t.Errorf("got route %q, want %q", h.route, tt.route)
			}
			checkOracle(t, r, o, h, http.MethodGet, tt.target)
		})
	}
}

func TestTreeOrderedAtRegistration(t *testing.T) {
	// Each route added keeps the tree ready for lookups: every node's
	// weight is the number of routes at it and below, and each list of
	// static children is in descending order of weight, and of insertion
	// (index) among equals. It holds after every registration, whatever the
	// order of registering.
	routes := loadRoutes(t, "testdata/github.tsv")
	for _, order := range []string{"file", "reversed"} {
		if order == "reversed" {
			slices.Reverse(routes)
		}
		r := New()
		for i, rt := range routes {
			r.Handle(rt.Method, rt.Pattern, func(*Context) error { return nil })
			if i%20 != 0 && i != len(routes)-1 {
				continue
			}
			checkWeights(t, &r.tree, 0)
			for c := range r.tree.nodes {
				prev := int32(0)
				for k := r.tree.nodes[c].child; k != 0; k = r.tree.nodes[k].next {
					if w, pw := r.tree.weights[k], r.tree.weights[prev]; prev != 0 && (w > pw || w == pw && k < prev) {
						t.Fatalf("%s order, after %d routes: node %d %q (weight %d) after node %d (weight %d)",
							order, i+1, k, r.tree.nodes[k].text, w, prev, pw)
					}
					prev = k
				}
			}
		}
		if got, want := int(r.tree.weights[0]), len(routes); got != want {
			t.Errorf("%s order: root weight %d, want %d", order, got, want)
		}
	}
}

// checkWeights checks that node i's weight counts the routes at it and
// below, and returns that count.
func checkWeights(t *testing.T, tr *tree, i int32) int32 {
	t.Helper()
	n := &tr.nodes[i]
	var total int32
	if n.leaf != nil {
		for e := n.leaf.eps; e != nil; e = e.next {
			total++
		}
	}
	for c := n.child; c != 0; c = tr.nodes[c].next {
		total += checkWeights(t, tr, c)
	}
	for _, c := range []int32{n.param, n.catchAll} {
		if c != 0 {
			total += checkWeights(t, tr, c)
		}
	}
	if tr.weights[i] != total {
		t.Fatalf("node %d (%q): weight %d, want %d routes", i, n.text, tr.weights[i], total)
	}
	return total
}

func TestSizes(t *testing.T) {
	// The memory a router holds is mostly nodes, route records and leaves,
	// one of each per route or so: their sizes on 64-bit platforms, so a
	// field added to one shows here (benchmarks/README.md has the route
	// sets' totals).
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes are held for 64-bit platforms")
	}
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"node", unsafe.Sizeof(node{}), 40},
		{"endpoint", unsafe.Sizeof(endpoint{}), 64},
		{"leaf", unsafe.Sizeof(leaf{}), 24},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %d bytes, want %d", tc.name, tc.got, tc.want)
		}
	}
}

// treeRequest is one lookup in the tree and what it must find: the
// pattern of the route, "" for none, and the params it binds.
type treeRequest struct {
	method, path string
	pattern      string
	params       Params
}

// checkRequests looks each request up in r's tree alone (no static table,
// no redirects, no answers) and checks the route and params it finds.
func checkRequests(t *testing.T, r *Router, requests []treeRequest) {
	t.Helper()
	for _, rq := range requests {
		s := search{method: methodIndex(rq.method), name: rq.method, params: make(Params, 0, r.maxParams)}
		e := r.tree.matchRoot(rq.path, &s)
		got := ""
		var params Params
		if e != nil {
			got = e.pattern
			for i, name := range e.info.names {
				params = append(params, Param{name, s.params[i].Value})
			}
		}
		if got != rq.pattern || !slices.Equal(params, rq.params) {
			t.Errorf("%s %s: got %q %v, want %q %v", rq.method, rq.path, got, params, rq.pattern, rq.params)
		}
	}
}

// treeRouter registers a GET route for each pattern.
func treeRouter(t *testing.T, patterns ...string) *Router {
	t.Helper()
	r := New()
	for _, p := range patterns {
		r.Get(p, nopHandler)
	}
	return r
}

func TestTreeStatic(t *testing.T) {
	r := treeRouter(t, "/hi", "/contact", "/co", "/c", "/a", "/ab", "/doc/", "/doc/go_faq.html",
		"/doc/go1.html", "/α", "/β")
	checkRequests(t, r, []treeRequest{
		{"GET", "/a", "/a", nil},
		{"GET", "/", "", nil},
		{"GET", "/hi", "/hi", nil},
		{"GET", "/contact", "/contact", nil},
		{"GET", "/co", "/co", nil},
		{"GET", "/con", "", nil},  // key mismatch
		{"GET", "/cona", "", nil}, // key mismatch
		{"GET", "/no", "", nil},   // no matching child
		{"GET", "/ab", "/ab", nil},
		{"GET", "/α", "/α", nil},
		{"GET", "/β", "/β", nil},
		{"GET", "/doc/", "/doc/", nil},
		{"GET", "/doc/go1.html", "/doc/go1.html", nil},
		{"GET", "/doc/go1.htm", "", nil},
		{"HEAD", "/doc/go_faq.html", "/doc/go_faq.html", nil}, // HEAD served by GET
		{"POST", "/doc/go_faq.html", "", nil},
	})
}

func TestTreeWildcards(t *testing.T) {
	r := treeRouter(t, "/", "/cmd/:tool/:sub", "/cmd/:tool/", "/src/*filepath", "/search/",
		"/search/:query", "/user_:name", "/user_:name/about", "/files/:dir/*filepath",
		"/doc/", "/info/:user/public", "/info/:user/project/:project")
	checkRequests(t, r, []treeRequest{
		{"GET", "/", "/", nil},
		{"GET", "/cmd/test/", "/cmd/:tool/", Params{{"tool", "test"}}},
		{"GET", "/cmd/test", "", nil},
		{"GET", "/cmd/test/3", "/cmd/:tool/:sub", Params{{"tool", "test"}, {"sub", "3"}}},
		{"GET", "/src/", "/src/*filepath", Params{{"filepath", ""}}},
		{"GET", "/src/some/file.png", "/src/*filepath", Params{{"filepath", "some/file.png"}}},
		{"GET", "/src//etc", "", nil}, // a catch-all never takes a leading slash
		{"GET", "/search/", "/search/", nil},
		{"GET", "/search/someth!ng+in+ünìcodé", "/search/:query", Params{{"query", "someth!ng+in+ünìcodé"}}},
		{"GET", "/search/someth!ng+in+ünìcodé/", "", nil},
		// ':' inside a segment is literal: "/user_:name" is static text.
		{"GET", "/user_gopher", "", nil},
		{"GET", "/user_:name", "/user_:name", nil},
		{"GET", "/user_:name/about", "/user_:name/about", nil},
		{"GET", "/files/js/inc/framework.js", "/files/:dir/*filepath", Params{{"dir", "js"}, {"filepath", "inc/framework.js"}}},
		{"GET", "/info/gordon/public", "/info/:user/public", Params{{"user", "gordon"}}},
		{"GET", "/info/gordon/project/go", "/info/:user/project/:project", Params{{"user", "gordon"}, {"project", "go"}}},
		{"GET", "/info/gordon", "", nil},
	})
}

func TestTreeBacktracking(t *testing.T) {
	// A static child that leads nowhere gives way to the param, and the
	// param to the catch-all, at every level; a leaf without the method
	// does not stop the walk.
	r := New()
	for _, rt := range []routeSpec{
		{"GET", "/a/b/c"}, {"GET", "/a/:x/d"}, {"GET", "/a/*rest"},
		{"POST", "/m/new"}, {"GET", "/m/:id"},
		{"GET", "/:p/b/e"},
	} {
		r.Handle(rt.method, rt.pattern, nopHandler)
	}
	checkRequests(t, r, []treeRequest{
		{"GET", "/a/b/c", "/a/b/c", nil},
		{"GET", "/a/b/d", "/a/:x/d", Params{{"x", "b"}}},
		{"GET", "/a/b/x", "/a/*rest", Params{{"rest", "b/x"}}},
		{"GET", "/a/b/e", "/a/*rest", Params{{"rest", "b/e"}}}, // "a" static first: /a/*rest before /:p/b/e
		{"GET", "/z/b/e", "/:p/b/e", Params{{"p", "z"}}},
		{"GET", "/m/new", "/m/:id", Params{{"id", "new"}}}, // the static leaf lacks GET
		{"POST", "/m/new", "/m/new", nil},
		{"POST", "/m/old", "", nil},
	})
}
