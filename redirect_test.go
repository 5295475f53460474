package waltz

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

var redirectRoutes = []routeSpec{
	{"GET", "/users"},
	{"GET", "/users/:id"},
	{"GET", "/dir/"},
	{"POST", "/submit"},
	{"PUT", "/submit"},
	{"CONNECT", "/tunnel"},
	{"GET", "/both"},
	{"GET", "/both/"},
	{"GET", "/files/:name"},
	{"GET", "/evil.com"},
	{"GET", "/a/b"},
	{"GET", "/b"},
	{"GET", "/static/*file"},
	{"GET", "/vendor/:x/*y"},
	{"GET", "/seg/:s/"},
	{"OPTIONS", "/opt"},
}

func TestRedirect(t *testing.T) {
	// A trailing-slash or clean-path
	// redirect only when no route matches the path as sent; 301 for GET and
	// HEAD, 308 for other methods (RFC 9110 sections 15.4.2 and 15.4.9: a
	// 301 lets clients turn POST into GET, a 308 does not); never for
	// CONNECT, whose target is not a path (section 9.3.6); the raw query
	// kept, with only the bytes a query may not hold escaped (RFC 3986
	// section 3.4); the Location escaped exactly once, path-only, and
	// never starting with "//" or "/\" (which browsers read as another host,
	// RFC 3986 section 4.2), whatever Host or X-Forwarded-Host say.
	r, o, h := newOracleRouter(t, redirectRoutes, nil)
	for _, tt := range []struct {
		method, target string
		code           int
		location       string
	}{
		{"GET", "/users/", 301, "/users"},
		{"HEAD", "/users/", 301, "/users"},
		{"GET", "/users/42/", 301, "/users/42"},
		{"POST", "/submit/", 308, "/submit"},
		{"PUT", "/submit/", 308, "/submit"},
		{"DELETE", "/submit/", 404, ""}, // no DELETE route there either
		{"CONNECT", "/tunnel/", 404, ""},
		{"GET", "/dir", 301, "/dir/"},
		{"GET", "/both", 200, ""}, // a real match beats a redirect
		{"GET", "/both/", 200, ""},
		{"GET", "/users/?a=%2F&b=c+d%20e&a=?x", 301, "/users?a=%2F&b=c+d%20e&a=?x"},
		{"GET", "/users/?", 301, "/users?"},
		{"GET", "/users/?;%zz", 301, "/users?;%25zz"},
		{"GET", "/users/?x=100%&y=%2F%2", 301, "/users?x=100%25&y=%2F%252"},
		{"GET", "/users/?a=<b>\"c\"&d=\xff`|^{}", 301, "/users?a=%3Cb%3E%22c%22&d=%FF%60%7C%5E%7B%7D"},
		{"GET", "//users", 301, "/users"},
		{"GET", "/./users/../users", 301, "/users"},
		{"GET", "/x/%2e%2e/users/", 301, "/users"},
		{"GET", "/a/./b/", 301, "/a/b"},
		{"GET", "/a/..%2Fb", 404, ""}, // "..%2Fb" is one segment: never climbs to /b
		{"GET", "/files/a%2Fb%20c%23d/", 301, "/files/a%2Fb%20c%23d"},
		{"GET", "/files/a%252F/", 301, "/files/a%252F"},
		{"GET", "/files/%CE%A0/", 301, "/files/%CE%A0"},
		{"GET", "/files/Π/", 301, "/files/%CE%A0"},
		{"GET", "//evil.com", 301, "/evil.com"},
		{"GET", "//evil.com/", 301, "/evil.com"},
		{"GET", "/..//evil.com", 301, "/evil.com"},
		{"GET", "/%5Cevil.com", 404, ""}, // "/\evil.com/" matches /seg/:s/ but is never a Location
		{"GET", `/\evil.com`, 404, ""},
		{"GET", "/static", 301, "/static/"},
		{"GET", "/vendor/v1", 301, "/vendor/v1/"},
		{"GET", "/vendor", 404, ""},
		{"GET", "/seg/x", 301, "/seg/x/"},
		{"OPTIONS", "/opt/", 308, "/opt"},
		{"OPTIONS", "/users/", 308, "/users"}, // automatic OPTIONS counts as a route
	} {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			u, _ := url.ParseRequestURI(tt.target)
			req := &http.Request{Method: tt.method, URL: u, RequestURI: tt.target, Host: "evil.example",
				Header: http.Header{"X-Forwarded-Host": {"evil.example"}, "X-Forwarded-Proto": {"https"}}}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if loc := w.Header().Get("Location"); w.Code != tt.code || loc != tt.location {
				t.Errorf("got %d %q, want %d %q", w.Code, loc, tt.code, tt.location)
			}
			checkOracle(t, r, o, h, tt.method, tt.target)
		})
	}
}

func TestOpenRedirect(t *testing.T) {
	// With a param at the root, the cleaned or toggled path of a hostile
	// request matches something; the Location must still be a path on this
	// host: never "//host" or "/\host" (RFC 3986 section 4.2 makes "//host"
	// a network-path reference, and browsers treat '\' as '/').
	r, o, h := newOracleRouter(t, []routeSpec{{"GET", "/:p"}, {"POST", "/:p"}}, nil)
	for _, tt := range []struct {
		method, target string
		code           int
		location       string
	}{
		{"GET", "//evil.com", 301, "/evil.com"},
		{"GET", "//evil.com/", 301, "/evil.com"},
		{"GET", "///evil.com", 301, "/evil.com"},
		{"POST", "//evil.com/?next=//evil.com", 308, "/evil.com?next=//evil.com"},
		{"GET", "/..//evil.com", 301, "/evil.com"},
		{"GET", "/%2F/evil.com", 404, ""},             // "%2F" is a segment of its own
		{"GET", "/%2Fevil.com/", 301, "/%2Fevil.com"}, // data, escaped once, same host
		{"GET", "/%5Cevil.com/", 404, ""},             // "/\evil.com" is never a Location
		{"GET", `/\evil.com/`, 404, ""},
		{"GET", "/%09/evil.com", 404, ""},
	} {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			w := serveTarget(t, r, tt.method, tt.target)
			if loc := w.Header().Get("Location"); w.Code != tt.code || loc != tt.location {
				t.Errorf("got %d %q, want %d %q", w.Code, loc, tt.code, tt.location)
			}
			checkOracle(t, r, o, h, tt.method, tt.target)
		})
	}
}

func TestRedirectSwitches(t *testing.T) {
	// Each redirect policy is switchable; off, the request is a plain 404.
	for _, tt := range []struct {
		target       string
		slash, fixed bool
		code         int
		wantLocation string
	}{
		{"/users/", true, true, 301, "/users"},
		{"/users/", false, true, 404, ""},
		{"//users", true, true, 301, "/users"},
		{"//users", true, false, 404, ""},
		{"//users/", false, true, 404, ""}, // cleaned, it still needs the slash toggled
		{"//users/", true, false, 404, ""},
		{"//users/", true, true, 301, "/users"},
	} {
		name := tt.target
		if !tt.slash {
			name += " noslash"
		}
		if !tt.fixed {
			name += " nofixed"
		}
		t.Run(name, func(t *testing.T) {
			r, o, h := newOracleRouter(t, redirectRoutes, nil)
			r.RedirectTrailingSlash, o.trailingSlash = tt.slash, tt.slash
			r.RedirectFixedPath, o.fixedPath = tt.fixed, tt.fixed
			w := serveTarget(t, r, http.MethodGet, tt.target)
			if loc := w.Header().Get("Location"); w.Code != tt.code || loc != tt.wantLocation {
				t.Errorf("got %d %q, want %d %q", w.Code, loc, tt.code, tt.wantLocation)
			}
			checkOracle(t, r, o, h, http.MethodGet, tt.target)
		})
	}
}

func TestCatchAllEdges(t *testing.T) {
	// A catch-all's value has no leading slash and may be empty
	// ("/static/" gives ""), and the path without the slash redirects to it.
	// A rest that starts with a separator is not taken: "/static//x" is
	// cleaned to "/static/x" instead.
	r, o, h := newOracleRouter(t, redirectRoutes, nil)
	for _, tt := range []struct {
		target   string
		code     int
		params   Params
		location string
	}{
		{"/static/", 200, Params{{"file", ""}}, ""},
		{"/static/a/b.css", 200, Params{{"file", "a/b.css"}}, ""},
		{"/static/a/", 200, Params{{"file", "a/"}}, ""},
		{"/static/a//b", 200, Params{{"file", "a//b"}}, ""},
		// A real match beats the clean-path redirect, so dot segments reach
		// the handler as data: a file server must confine the value itself.
		{"/static/../x", 200, Params{{"file", "../x"}}, ""},
		{"/static/%2e%2e/x", 200, Params{{"file", "../x"}}, ""},
		{"/static/a%2F..%2F..%2Fx", 200, Params{{"file", "a/../../x"}}, ""},
		{"/static", 301, nil, "/static/"},
		{"/static//x", 301, nil, "/static/x"},
		{"/static//", 301, nil, "/static/"},
		{"/vendor/v1/", 200, Params{{"x", "v1"}, {"y", ""}}, ""},
		{"/vendor/v1/a/b", 200, Params{{"x", "v1"}, {"y", "a/b"}}, ""},
		{"/vendor/v1", 301, nil, "/vendor/v1/"},
		{"/vendor//a", 301, nil, "/vendor/a/"},
	} {
		t.Run(tt.target, func(t *testing.T) {
			*h = routeHit{}
			w := serveTarget(t, r, http.MethodGet, tt.target)
			if loc := w.Header().Get("Location"); w.Code != tt.code || loc != tt.location || !slices.Equal(h.params, tt.params) {
				t.Errorf("got %d %q %q, want %d %q %q", w.Code, loc, h.params, tt.code, tt.location, tt.params)
			}
			checkOracle(t, r, o, h, http.MethodGet, tt.target)
		})
	}
}

func TestNoRedirectLoop(t *testing.T) {
	// Following any redirect the router gives lands on a route, not on
	// another redirect: the router checks the target with the same lookup
	// before it answers. Every combination of a few segments is tried on a
	// route set with catch-alls and trailing slashes.
	r, _, _ := newOracleRouter(t, redirectRoutes, nil)
	segs := []string{"", ".", "..", "users", "static", "vendor", "v", "dir", "both", "%2F", "evil.com", "seg"}
	var targets []string
	for _, a := range segs {
		for _, b := range segs {
			for _, c := range segs {
				targets = append(targets, "/"+a+"/"+b+"/"+c, "/"+a+"/"+b, "/"+a+"/"+b+"/")
			}
		}
	}
	for _, target := range targets {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodOptions} {
			w := serveTarget(t, r, m, target)
			if w.Code >= 300 && w.Code < 400 {
				u, _ := url.ParseRequestURI(target)
				checkLocation(t, r, m, target, w.Header().Get("Location"), u.RawQuery, u.ForceQuery)
			}
		}
	}
}

var methodRoutes = []routeSpec{
	{"GET", "/r"},
	{"POST", "/r"},
	{"PUT", "/r"},
	{"PROPFIND", "/r"},
	{"DELETE", "/r/:id"},
	{"GET", "/u/:id"},
	{"POST", "/u/new"},
	{"GET", "/explicit"},
	{"OPTIONS", "/explicit"},
	{"GET", "/h"},
	{"HEAD", "/h"},
	{"POST", "/p"},
}

func TestMethods(t *testing.T) {
	// RFC 9110 section 15.5.6: 405 only when the path matches and no route
	// serves the method, with an Allow header (section 10.2.1) that lists
	// each method once, sorted; section 9.3.2: HEAD wherever GET is; section
	// 9.3.7: OPTIONS answers with the methods, 204 since there is no body,
	// unless an explicit OPTIONS route takes it.
	for _, tt := range []struct {
		method, target string
		auto           bool // HandleOPTIONS
		code           int
		allow          string
		route          string
	}{
		{"DELETE", "/r", true, 405, "GET, HEAD, OPTIONS, POST, PROPFIND, PUT", ""},
		{"DELETE", "/r", false, 405, "GET, HEAD, POST, PROPFIND, PUT", ""},
		{"OPTIONS", "/r", true, 204, "GET, HEAD, OPTIONS, POST, PROPFIND, PUT", ""},
		{"OPTIONS", "/r", false, 405, "GET, HEAD, POST, PROPFIND, PUT", ""},
		{"PROPFIND", "/r", true, 200, "", "PROPFIND /r"},
		{"HEAD", "/r", true, 200, "", "GET /r"},
		{"HEAD", "/h", true, 200, "", "HEAD /h"},
		{"OPTIONS", "/explicit", true, 200, "", "OPTIONS /explicit"},
		{"OPTIONS", "/explicit", false, 200, "", "OPTIONS /explicit"},
		{"PUT", "/u/new", true, 405, "GET, HEAD, OPTIONS, POST", ""}, // the union of both routes
		{"OPTIONS", "/u/new", true, 204, "GET, HEAD, OPTIONS, POST", ""},
		{"GET", "/u/new", true, 200, "", "GET /u/:id"},
		{"GET", "/p", true, 405, "OPTIONS, POST", ""},
		{"HEAD", "/p", true, 405, "OPTIONS, POST", ""},
		{"GET", "/nope", true, 404, "", ""},
		{"OPTIONS", "/nope", true, 404, "", ""},
	} {
		name := tt.method + " " + tt.target
		if !tt.auto {
			name += " manual"
		}
		t.Run(name, func(t *testing.T) {
			r, o, h := newOracleRouter(t, methodRoutes, nil)
			r.HandleOPTIONS, o.handleOPTIONS = tt.auto, tt.auto
			// Twice, on fresh and reused Contexts: the Allow header is the
			// same every time.
			for range 2 {
				*h = routeHit{}
				w := serveTarget(t, r, tt.method, tt.target)
				allow := strings.Join(w.Header().Values("Allow"), "|")
				if w.Code != tt.code || allow != tt.allow || h.route != tt.route {
					t.Errorf("got %d Allow %q route %q, want %d Allow %q route %q", w.Code, allow, h.route, tt.code, tt.allow, tt.route)
				}
				checkOracle(t, r, o, h, tt.method, tt.target)
			}
		})
	}
}

func TestOptionsStar(t *testing.T) {
	// RFC 9110 section 9.3.7: "OPTIONS *" asks about the server as a whole;
	// the router answers with every method some route serves. net/http's
	// server answers "OPTIONS *" itself unless DisableGeneralOptionsHandler
	// is set, so the request is built by hand here.
	for _, tt := range []struct {
		auto  bool
		code  int
		allow string
	}{
		{true, 204, "DELETE, GET, HEAD, OPTIONS, POST, PROPFIND, PUT"},
		{false, 200, ""}, // what net/http's server answers itself: a valid request, with no Allow
	} {
		t.Run(fmt.Sprintf("HandleOPTIONS=%v", tt.auto), func(t *testing.T) {
			r, _, _ := newOracleRouter(t, methodRoutes, nil)
			r.HandleOPTIONS = tt.auto
			// A mount serves any method; it adds no name to the list.
			r.Mount("/mnt", http.NotFoundHandler())
			req := &http.Request{Method: http.MethodOptions, URL: &url.URL{Path: "*"}, RequestURI: "*", Header: http.Header{}}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if allow := w.Header().Get("Allow"); w.Code != tt.code || allow != tt.allow {
				t.Errorf("got %d %q, want %d %q", w.Code, allow, tt.code, tt.allow)
			}
		})
	}
}

func TestOptionsStarNoRoutes(t *testing.T) {
	// A router with no route yet still answers "OPTIONS *" itself, so its
	// Allow lists OPTIONS, as every automatic OPTIONS's does; an empty
	// Allow would say that no method is allowed (RFC 9110 section 10.2.1).
	r := New()
	req := &http.Request{Method: http.MethodOptions, URL: &url.URL{Path: "*"}, RequestURI: "*", Header: http.Header{}}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if allow := w.Header().Values("Allow"); w.Code != http.StatusNoContent || len(allow) != 1 || allow[0] != http.MethodOptions {
		t.Errorf("got %d %q, want 204 [\"OPTIONS\"]", w.Code, allow)
	}
}

func TestHeadLikeGet(t *testing.T) {
	// RFC 9110 section 9.3.2: HEAD is GET without the content; the header
	// fields are the same (Content-Length aside, which a server may omit
	// for HEAD). Over a real server, which discards a HEAD response's body.
	r := New()
	r.Get("/user/:id", func(c *Context) error {
		c.Writer.Header().Set("X-Id", c.Param("id"))
		return c.Text(http.StatusOK, "Hello user "+c.Param("id"))
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	resps := map[string]*http.Response{}
	bodies := map[string]string{}
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		req, _ := http.NewRequest(m, srv.URL+"/user/7", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resps[m], bodies[m] = resp, string(b)
	}
	get, head := resps[http.MethodGet], resps[http.MethodHead]
	if get.StatusCode != 200 || head.StatusCode != 200 || bodies[http.MethodGet] != "Hello user 7" || bodies[http.MethodHead] != "" {
		t.Errorf("got GET %d %q, HEAD %d %q, want 200 with the body, 200 without", get.StatusCode, bodies["GET"], head.StatusCode, bodies["HEAD"])
	}
	for _, k := range []string{"Content-Type", "X-Id"} {
		if g, h := get.Header.Get(k), head.Header.Get(k); g != h {
			t.Errorf("%s: got HEAD %q, want GET's %q", k, h, g)
		}
	}
}

func TestRedirectBeats405(t *testing.T) {
	// When the path matches only another method's route
	// but a route for the request's own method matches its trailing-slash
	// or cleaned variant, the answer is that redirect, not 405 (RFC 9110
	// section 15.5.6 is for a resource that exists and lacks the method;
	// here the method's resource lives at the other URL). With the switches
	// off, 405 stays. 301 for GET and HEAD, 308 otherwise (section 15.4).
	routes := []routeSpec{
		{"GET", "/a/"}, {"POST", "/a"},
		{"GET", "/b"}, {"POST", "/b/"},
		{"GET", "/c/d"}, {"PUT", "/c/:x/:y/d"},
		{"CONNECT", "/t/"}, {"GET", "/t"},
		{"DELETE", "/f/*rest"}, {"GET", "/f"},
	}
	for _, tt := range []struct {
		method, target string
		switches       bool
		code           int
		location       string
	}{
		{"GET", "/a", true, 301, "/a/"},
		{"HEAD", "/a", true, 301, "/a/"},
		{"GET", "/a?q=1", true, 301, "/a/?q=1"},
		{"POST", "/a/", true, 308, "/a"},
		{"POST", "/b", true, 308, "/b/"},
		{"GET", "/b/", true, 301, "/b"},
		{"GET", "/c/x/../d", true, 301, "/c/d"}, // cleaned, though PUT /c/:x/:y/d matches as sent
		{"PUT", "/c/x/../d", true, 200, ""},     // a real match beats a redirect
		{"DELETE", "/a", true, 405, ""},         // no DELETE route anywhere near
		{"OPTIONS", "/a", true, 204, ""},        // the path exists: automatic OPTIONS answers
		{"CONNECT", "/t", true, 405, ""},        // never a redirect for CONNECT (section 9.3.6)
		{"DELETE", "/f", true, 308, "/f/"},      // the catch-all takes "/f/"
		{"GET", "/a", false, 405, ""},
		{"POST", "/b", false, 405, ""},
	} {
		name := tt.method + " " + tt.target
		if !tt.switches {
			name += " off"
		}
		t.Run(name, func(t *testing.T) {
			r, o, h := newOracleRouter(t, routes, nil)
			r.RedirectTrailingSlash, r.RedirectFixedPath = tt.switches, tt.switches
			o.trailingSlash, o.fixedPath = tt.switches, tt.switches
			w := serveTarget(t, r, tt.method, tt.target)
			if got := w.Header().Get("Location"); w.Code != tt.code || got != tt.location {
				t.Errorf("got %d Location %q, want %d Location %q", w.Code, got, tt.code, tt.location)
			}
			checkOracle(t, r, o, h, tt.method, tt.target)
		})
	}
}

func TestAllocs405(t *testing.T) {
	// A 405 costs one allocation, its Allow field's own value slice, and no
	// more when no redirect applies: the redirect search builds no
	// candidate that cannot match, with or without a trailing slash, also
	// beside routes of other methods that end in '/' or a catch-all.
	r := New()
	r.Get("/user/:id", nopHandler)
	r.Get("/dir/", nopHandler)
	r.Delete("/files/*rest", nopHandler)
	for _, tc := range []struct{ method, path string }{
		{"POST", "/user/123"},
		{"POST", "/dir/"},
		{"PUT", "/files/a/"},
		{"PUT", "/files/a"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			if w := serveTarget(t, r, tc.method, tc.path); w.Code != http.StatusMethodNotAllowed {
				t.Fatalf("got %d, want 405", w.Code)
			}
			w, req := newNopWriter(), httptest.NewRequest(tc.method, tc.path, nil)
			if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != 1 {
				t.Errorf("got %v allocs per request, want 1", got)
			}
		})
	}
}

func TestRedirectPastCatchAll(t *testing.T) {
	// A catch-all at the root serving a front end does not turn the
	// redirects off for the methods it serves: a trailing-slash or cleaned
	// variant of the path that matches a more specific route wins over the
	// catch-all, for GET as for POST. A variant that only the catch-all, or
	// a less specific route, matches changes nothing.
	routes := []routeSpec{
		{"GET", "/*path"},
		{"GET", "/api/bookmarks"},
		{"POST", "/api/bookmarks"},
		{"GET", "/docs/"},
		{"GET", "/assets/*file"},
		{"GET", "/u/:id"},
	}
	r, o, h := newOracleRouter(t, routes, nil)
	for _, tt := range []struct {
		method, target string
		code           int
		location       string
	}{
		{"GET", "/api/bookmarks/", 301, "/api/bookmarks"},
		{"HEAD", "/api/bookmarks/", 301, "/api/bookmarks"},
		{"GET", "/api/./bookmarks", 301, "/api/bookmarks"},
		{"GET", "/api/x/../bookmarks?q=1", 301, "/api/bookmarks?q=1"},
		{"GET", "//api//bookmarks", 301, "/api/bookmarks"},
		{"POST", "/api/bookmarks/", 308, "/api/bookmarks"},
		{"GET", "/docs", 301, "/docs/"},
		// "/docs", the cleaned path, would redirect again (the catch-all
		// takes it, and /docs/ is more specific): the target is /docs/.
		{"GET", "//docs", 301, "/docs/"},
		{"GET", "/x/../docs", 301, "/docs/"},
		{"GET", "/assets", 301, "/assets/"},
		{"GET", "/u/7/", 301, "/u/7"},
		{"GET", "/api/bookmarks", 200, ""},
		{"GET", "/some/page", 200, ""},
		{"GET", "/some/page/", 200, ""},
		{"GET", "/api/bookmarks/7", 200, ""},
		{"GET", "/assets/", 200, ""},
		{"GET", "/assets/app.js/", 200, ""},
	} {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			*h = routeHit{}
			w := serveTarget(t, r, tt.method, tt.target)
			if w.Code != tt.code || w.Header().Get("Location") != tt.location {
				t.Errorf("got %d Location %q, want %d %q", w.Code, w.Header().Get("Location"), tt.code, tt.location)
			}
			checkOracle(t, r, o, h, tt.method, tt.target)
		})
	}
	// Serving the front end pays nothing for the rule when no variant
	// could match a more specific route. Not under the race detector,
	// whose sync.Pool drops items at random, so a Context is made anew.
	if raceEnabled {
		return
	}
	r = New()
	for _, rt := range routes {
		r.Handle(rt.method, rt.pattern, nopHandler)
	}
	for _, path := range []string{"/some/page", "/assets/app.js"} {
		w, req := newNopWriter(), httptest.NewRequest("GET", path, nil)
		if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != 0 {
			t.Errorf("GET %s: got %v allocs per request, want 0", path, got)
		}
	}
}

// TestCleanVariants: cleanVariants agrees with cleanPath and toggleSlash
// on every path, short and long.
func TestCleanVariants(t *testing.T) {
	for _, p := range []string{
		"/", "//", "/.", "/..", "/./", "/../", "/a", "/a/", "/a//b", "/a/./b", "/a/../b", "/a/b/..", "/a/b/../",
		"/../a", "/a/..", "/a/../..", "/a/./", "/./a/", "//a//b//", "/a/b/c/../../d", "/a/.../b", "/a/..b/./c",
		"/app/./x", "/app/a/../b", "/app/x/./y", "/" + strings.Repeat("seg/./", 60) + "end",
		"/a/.b", "/a/.b/", "/.a", "/a/b/", "/a/../../../", "/" + strings.Repeat("s/", 130) + "./",
	} {
		wantClean := cleanPath(p)
		wantToggled := toggleSlash(wantClean)
		if wantClean == p {
			wantToggled = ""
		}
		if clean, toggled := cleanVariants(p); clean != wantClean || toggled != wantToggled {
			t.Errorf("cleanVariants(%q): got %q %q, want %q %q", p, clean, toggled, wantClean, wantToggled)
		}
	}
}

// TestCatchAllPathAllocs holds what README states: a catch-all serving a
// clean path allocates nothing, and one serving a path that is not clean
// ("/app/./x", with redirects on, when no more specific route matches the
// cleaned path) allocates one string, the cleaned path its check needs.
func TestCatchAllPathAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	r := New()
	r.Get("/app/*path", nopHandler)
	r.Get("/app/x/y", nopHandler)
	for _, tc := range []struct {
		path   string
		allocs float64
	}{
		{"/app/x", 0},
		{"/app/a/b", 0},
		{"/app/./x", 1},
		{"/app/a/../b", 1},
		{"/app/x/./z", 1},
	} {
		w, req := newNopWriter(), httptest.NewRequest("GET", tc.path, nil)
		if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != tc.allocs {
			t.Errorf("GET %s: got %v allocs per request, want %v", tc.path, got, tc.allocs)
		}
	}
}
