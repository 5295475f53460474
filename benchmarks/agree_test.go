package benchmarks

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// knownLimits names the documented limitations of peers: the route sets
// they cannot register at all. Anything else that fails to register or
// routes wrongly fails the test.
var knownLimits = map[string]string{
	"httprouter/githubextra": "httprouter v1 cannot hold a static segment beside a param (/gists/public beside /gists/:id)",
	"servemux/githubextra":   "ServeMux rejects two patterns that overlap when neither is more specific (e.g. .../issues/comments/{id} beside .../issues/{number}/comments)",
}

// concretePath fills a pattern with values that differ per param and cannot
// collide with a static sibling; a catch-all gets several segments.
func concretePath(r Route) (string, map[string]string) {
	want := map[string]string{}
	path := translate(r.Path,
		func(name string) string {
			want[name] = "v-" + name
			return want[name]
		},
		func(name string) string {
			want[name] = "v-" + name + "/x/y"
			return want[name]
		})
	return path, want
}

// literalPath is what the classic "All" benchmarks request: the pattern text
// itself, so the param values are the literal ":name" strings.
func literalPath(r Route) (string, map[string]string) {
	want := map[string]string{}
	translate(r.Path,
		func(name string) string { want[name] = ":" + name; return "" },
		func(name string) string { want[name] = "*" + name; return "" })
	return r.Path, want
}

// TestRoutersAgree checks that every router sends every request of every set
// to the handler of its route with the right params, so no router's numbers
// come from skipping work.
func TestRoutersAgree(t *testing.T) {
	for _, set := range Sets {
		routes := MustLoadSet(set)
		for _, p := range Peers {
			t.Run(set+"/"+p.Name, func(t *testing.T) {
				hit := &Hit{}
				h, err := p.Build(routes, Record, hit)
				if err != nil {
					if why, ok := knownLimits[p.Name+"/"+set]; ok {
						t.Skipf("known limitation: %s (%v)", why, err)
					}
					t.Fatal(err)
				}
				for i, r := range routes {
					for _, mk := range []func(Route) (string, map[string]string){literalPath, concretePath} {
						path, want := mk(r)
						checkRoute(t, h, hit, r.Method, path, i, want, routes)
					}
				}
				// A path no set holds must run no handler.
				checkRoute(t, h, hit, "GET", "/no/such/route/in/any/set", -1, nil, routes)
			})
		}
	}
}

func checkRoute(t *testing.T, h http.Handler, hit *Hit, method, path string, wantRoute int, want map[string]string, routes []Route) {
	t.Helper()
	*hit = Hit{Route: -1}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	switch {
	case hit.Route != wantRoute:
		t.Errorf("%s %s: ran %s, want %s (status %d)", method, path,
			describe(hit.Route, routes), describe(wantRoute, routes), w.Code)
	case wantRoute >= 0 && !maps.Equal(hit.Params, want):
		t.Errorf("%s %s: params %v, want %v", method, path, hit.Params, want)
	}
}

func describe(i int, routes []Route) string {
	if i < 0 {
		return "no handler"
	}
	return fmt.Sprintf("route %d (%s %s)", i, routes[i].Method, routes[i].Path)
}

// TestServeMuxPattern pins the translation, since a wrong one (a bare
// trailing slash) would silently turn a route into a prefix match.
func TestServeMuxPattern(t *testing.T) {
	for in, want := range map[string]string{
		"/":                         "GET /{$}",
		"/user/:name":               "GET /user/{name}",
		"/files/*path":              "GET /files/{path...}",
		"/repos/:owner/:repo/pulls": "GET /repos/{owner}/{repo}/pulls",
	} {
		if got := servemuxPattern("GET", in); got != want {
			t.Errorf("servemuxPattern(%q) = %q, want %q", in, got, want)
		}
	}
	if got := chiPath("/a/:b/*c"); got != "/a/{b}/*" {
		t.Errorf("chiPath = %q", got)
	}
	if got := echoPath("/a/:b/*c"); !strings.HasSuffix(got, "/:b/*") {
		t.Errorf("echoPath = %q", got)
	}
}
