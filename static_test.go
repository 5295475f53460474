package waltz

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

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
