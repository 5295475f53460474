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

func TestAllowHeader(t *testing.T) {
	// RFC 9110 section 10.2.1: Allow is a list of method names; waltz lists
	// each once, sorted, so the header is the same on every run. A mount's
	// any-method entry is not a name and must not show as an empty item.
	for _, tt := range []struct {
		ms          []string
		withOptions bool
		want        string
	}{
		{[]string{"GET", "HEAD"}, false, "GET, HEAD"},
		{[]string{"PUT", "GET", "HEAD", "GET"}, true, "GET, HEAD, OPTIONS, PUT"},
		{[]string{"OPTIONS", "PROPFIND"}, true, "OPTIONS, PROPFIND"},
		{[]string{methodAny, "GET"}, true, "GET, OPTIONS"},
		{nil, true, "OPTIONS"},
	} {
		t.Run(strings.Join(tt.ms, ","), func(t *testing.T) {
			got := allowHeader(tt.ms, tt.withOptions)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
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

func TestStaticTable(t *testing.T) {
	// Static patterns are found by the whole path (staticIndex) before any
	// walk. With and without a wildcard route beside them, the answers must
	// be the walk's:
	// same route, 405 with every matching leaf's methods, HEAD falling back
	// to GET (RFC 9110 section 9.3.2), custom methods, redirects.
	static := []routeSpec{
		{"GET", "/"},
		{"GET", "/users"},
		{"POST", "/users"},
		{"PURGE", "/users"},
		{"GET", "/users/new"},
		{"DELETE", "/users/new/"},
	}
	// DELETE /users/new: the static leaf has no DELETE, the param's has.
	withParam := append(slices.Clone(static), routeSpec{"GET", "/users/:id"}, routeSpec{"DELETE", "/users/:id"})
	for _, set := range []struct {
		name   string
		routes []routeSpec
	}{
		{"static", static},
		{"with a param", withParam},
	} {
		r, o, h := newOracleRouter(t, set.routes, nil)
		// Every static pattern is in the table but "/", which the walk
		// finds at its first node.
		for _, rt := range static {
			l := r.statics.probe(rt.pattern)
			if got, want := l != nil, rt.pattern != "/"; got != want || got && !r.statics.may(rt.pattern) {
				t.Errorf("%s: %s in the table: %v, want %v", set.name, rt.pattern, got, want)
			}
		}
		for _, tt := range []struct{ method, target string }{
			{"GET", "/"},
			{"GET", "/users"},
			{"HEAD", "/users"},
			{"POST", "/users"},
			{"PURGE", "/users"},
			{"BREW", "/users"},
			{"PUT", "/users"},
			{"GET", "/users/new"},
			{"GET", "/users/new/"},
			{"DELETE", "/users/new/"},
			{"DELETE", "/users/new"},
			{"GET", "/users/"},
			{"GET", "/users/newer"},
			{"GET", "/Users"},
			{"GET", "/users/%6Eew"},
			{"GET", "//users"},
		} {
			t.Run(set.name+"/"+tt.method+" "+tt.target, func(t *testing.T) {
				*h = routeHit{}
				serveTarget(t, r, tt.method, tt.target)
				checkOracle(t, r, o, h, tt.method, tt.target)
			})
		}
	}
}

func TestRegisterAfterServing(t *testing.T) {
	// Routes registered after requests were served, which add children,
	// split nodes and reorder siblings, must be found, and so must the
	// earlier ones. Every other route goes in first, the rest after a
	// round of requests.
	routes := loadRoutes(t, "testdata/github.tsv")
	r := New()
	served := func(c *Context) error { return c.Text(http.StatusOK, c.Pattern()) }
	check := func(rs []Route) {
		t.Helper()
		for _, rt := range rs {
			path := strings.NewReplacer(":", "v", "*", "v").Replace(rt.Pattern)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest(rt.Method, path, nil))
			if w.Code != http.StatusOK || w.Body.String() != rt.Pattern {
				t.Errorf("%s %s: got %d %q, want 200 %q", rt.Method, path, w.Code, w.Body.String(), rt.Pattern)
			}
		}
	}
	var first, second []Route
	for i, rt := range routes {
		if i%2 == 0 {
			first = append(first, rt)
		} else {
			second = append(second, rt)
		}
	}
	for _, rt := range first {
		r.Handle(rt.Method, rt.Pattern, served)
	}
	check(first)
	for _, rt := range second {
		r.Handle(rt.Method, rt.Pattern, served)
	}
	check(routes)
}

func TestStaticIndex(t *testing.T) {
	// Patterns that hash alike (same length, same bytes where staticHash
	// looks, differing elsewhere) would share a probe sequence, so the table
	// hashes every byte. Every pattern must be found, and no path that was
	// not added, nor the one it leaves out. A few patterns that
	// staticHash tells apart keep it.
	var x staticIndex
	x.leaveOut("/004/x/keys")
	find := func(path string) *leaf {
		if !x.may(path) {
			return nil
		}
		return x.probe(path)
	}
	var paths []string
	leaves := map[string]*leaf{}
	for i := range 600 {
		p := fmt.Sprintf("/%03d/x/keys", i) // differ at bytes 1-3 only
		if i%3 == 0 {
			p = fmt.Sprintf("/r/%d/s", i)
		}
		paths = append(paths, p)
		leaves[p] = new(leaf)
		x.add(p, leaves[p])
	}
	if got := staticHash(paths[1]); got != staticHash(paths[2]) {
		t.Fatalf("%q and %q should hash alike (%#x, %#x)", paths[1], paths[2], got, staticHash(paths[2]))
	}
	if !x.full {
		t.Errorf("400 patterns in one cluster of staticHash: want the hash of every byte")
	}
	for i, p := range paths {
		want := leaves[p]
		if i == 4 {
			want = nil
		}
		if got := find(p); got != want {
			t.Errorf("find(%q) = %p, want %p", p, got, want)
		}
	}
	for _, p := range []string{"/", "/999/x/keys", "/001/x/key", "/r/3/", "/r/4/s", strings.Repeat("/a", 64)} {
		if l := find(p); l != nil {
			t.Errorf("find(%q) = %p, want nil", p, l)
		}
	}

	var y staticIndex
	few := []string{"/", "/user/keys", "/user/orgs", "/users", "/events", "/a"}
	y.leaveOut("/")
	for _, p := range few {
		y.add(p, leaves[paths[0]])
	}
	if y.full {
		t.Errorf("%q: want staticHash", few)
	}
	for _, p := range few[1:] {
		if !y.may(p) || y.probe(p) == nil {
			t.Errorf("%q not found", p)
		}
	}
	if y.may("/") && y.probe("/") != nil {
		t.Errorf("the skipped pattern is in the table")
	}
}

func TestStaticIndexClustered(t *testing.T) {
	// Route sets whose static patterns differ only where staticHash does not
	// look (numbered files, locales) beside param routes that would take the
	// same paths: the table hashes every byte, and the answers are the
	// walk's.
	var routes []routeSpec
	for i := range 300 {
		routes = append(routes, routeSpec{"GET", fmt.Sprintf("/static/file%03d.css", i)})
	}
	for _, l := range []string{"en", "de", "fr", "es", "it", "pt", "nl", "sv"} {
		for _, p := range []string{"about", "contact", "pricing", "blog"} {
			routes = append(routes, routeSpec{"GET", "/" + l + "/" + p})
		}
	}
	routes = append(routes, routeSpec{"GET", "/static/:name"}, routeSpec{"GET", "/:lang/:page"}, routeSpec{"POST", "/:lang/:page"})
	r, o, h := newOracleRouter(t, routes, nil)
	for _, tt := range []struct{ method, target string }{
		{"GET", "/static/file000.css"},
		{"GET", "/static/file299.css"},
		{"GET", "/static/file300.css"},
		{"GET", "/static/fileXYZ.css"},
		{"HEAD", "/static/file123.css"},
		{"POST", "/static/file123.css"},
		{"GET", "/de/blog"},
		{"POST", "/de/blog"},
		{"GET", "/xx/blog"},
		{"GET", "/de/blogs"},
	} {
		checkOracle(t, r, o, h, tt.method, tt.target)
	}
	if !r.statics.full {
		t.Errorf("clustered patterns: want the hash of every byte")
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
