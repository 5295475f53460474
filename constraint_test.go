package waltz

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestConstraintKinds holds each named kind's hand-written check to its
// documented expression on values at its edges.
func TestConstraintKinds(t *testing.T) {
	values := []string{"", "0", "7", "-7", "-", "+1", "007", "-0", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
		"00000000000000000000000000018446744073709551615", "1a", "a", "Zz", "a_b", "é", "a-b", " 1",
		"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
		"123e4567-e89b-12d3-a456-42661417400", "123e4567e89b-12d3-a456-4266141740000", "123e4567-e89b-12d3-a456-42661417400g",
		"%2F", "a%25"}
	for _, ck := range constraintKinds {
		re := regexp.MustCompile(`^(?:` + ck.expr + `)$`)
		var tr tree
		for _, v := range values {
			want := oracleMeets(ck.name, v)
			if got := tr.accepts(string(ck.kind), v, false); got != want {
				t.Errorf("<%s> on %q: got %v, want %v", ck.name, v, got, want)
			}
			if want && !re.MatchString(v) {
				t.Errorf("<%s> takes %q, which its expression %q does not", ck.name, v, ck.expr)
			}
		}
	}
}

func TestParseConstraint(t *testing.T) {
	for _, tc := range []struct {
		pattern, err string // err: a part of the message, "" for none
	}{
		{"/a/:id<int>", ""},
		{"/a/:id<uint>/b", ""},
		{"/a/:id<uuid>/", ""},
		{"/a/:s<[a-z-]+>", ""},
		{"/a/:y<[0-9]{4}>", ""}, // braces inside a constraint
		{"/a/:y<v1|v2?>", ""},   // '?' and '|' too
		{"/a/:y<(?i)ab#%>", ""}, // and '#' and '%'
		{"/a/:id<>", "empty constraint"},
		{"/a/:id<integer>", "unknown constraint <integer>"},
		{"/a/:id<Int>", "unknown constraint <Int>"},
		{"/a/:id<int", "must end the segment with '>'"},
		{"/a/:d<[0-9]/[0-9]>", "must end the segment with '>'"},
		{"/a/:s<(>", "is not a regular expression"},
		{"/a/:s<00)00|(>", "is not a regular expression"}, // whole only when wrapped: it would escape its anchors
		{"/a/*rest<int>", "only a :param takes one"},
		{"/a/:<int>", "has no name"},
		{"/a/:id<int>/:id<uint>", "duplicate param name"},
		{"/a/b{4}/:id<int>", "waltz params are written"},
		{"/a?/:id<int>", "without a query"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			p, err := parsePattern(tc.pattern)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("got error %v, want none", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("got error %v, want one with %q", err, tc.err)
			case err == nil && p.String() != tc.pattern:
				t.Errorf("String: got %q, want %q", p.String(), tc.pattern)
			}
		})
	}
	if _, err := parsePattern("/{id:[0-9]+}"); err == nil || !strings.Contains(err.Error(), `"/:id<[0-9]+>"`) {
		t.Errorf("chi's syntax: got %v, want a hint with :id<[0-9]+>", err)
	}
}

// constrainedRoutes have constrained params beside plain ones and
// statics, at several levels.
func constrainedRouter(t *testing.T) *Router {
	r := New()
	for _, rt := range []routeSpec{
		{"GET", "/articles/:id<int>"},
		{"GET", "/articles/:slug<[a-z-]+>"},
		{"GET", "/articles/:any"},
		{"GET", "/articles/new"},
		{"GET", "/articles/:id<int>/comments"},
		{"GET", "/articles/:key/comments"},
		{"DELETE", "/articles/:n<int>"},
		{"GET", "/u/:id<uuid>"},
		{"GET", "/u/:id<uuid>/*rest"},
		{"GET", "/u/*rest"},
		{"GET", "/v/:y<[0-9]{4}>/:m<uint>"},
		{"GET", "/w/:a<alpha>"},
		{"GET", "/w/:a<uint>"},
		{"GET", "/x/:f<[a-z\\x2F]+>"},
	} {
		r.Handle(rt.method, rt.pattern, nopHandler)
	}
	return r
}

func TestTreeConstraints(t *testing.T) {
	r := constrainedRouter(t)
	uuid := "123e4567-e89b-12d3-a456-426614174000"
	checkRequests(t, r, []treeRequest{
		{"GET", "/articles/42", "/articles/:id<int>", Params{{"id", "42"}}},
		{"GET", "/articles/-42", "/articles/:id<int>", Params{{"id", "-42"}}},
		{"GET", "/articles/99999999999999999999", "/articles/:any", Params{{"any", "99999999999999999999"}}}, // past int64
		{"GET", "/articles/hello-world", "/articles/:slug<[a-z-]+>", Params{{"slug", "hello-world"}}},
		{"GET", "/articles/Hello", "/articles/:any", Params{{"any", "Hello"}}},
		{"GET", "/articles/new", "/articles/new", nil}, // static first
		{"GET", "/articles/42/comments", "/articles/:id<int>/comments", Params{{"id", "42"}}},
		{"GET", "/articles/x/comments", "/articles/:key/comments", Params{{"key", "x"}}},
		{"DELETE", "/articles/42", "/articles/:n<int>", Params{{"n", "42"}}}, // the same node, its own names
		{"DELETE", "/articles/abc", "", nil},
		{"POST", "/articles/42", "", nil},
		{"GET", "/u/" + uuid, "/u/:id<uuid>", Params{{"id", uuid}}},
		{"GET", "/u/" + uuid + "/a/b", "/u/:id<uuid>/*rest", Params{{"id", uuid}, {"rest", "a/b"}}},
		{"GET", "/u/x/a", "/u/*rest", Params{{"rest", "x/a"}}},
		{"GET", "/v/2024/12", "/v/:y<[0-9]{4}>/:m<uint>", Params{{"y", "2024"}, {"m", "12"}}},
		{"GET", "/v/202/12", "", nil},
		{"GET", "/v/2024/-1", "", nil},
		{"GET", "/w/abc", "/w/:a<alpha>", Params{{"a", "abc"}}},
		{"GET", "/w/123", "/w/:a<uint>", Params{{"a", "123"}}},
		{"GET", "/w/a1", "", nil},
	})
	// A value with an escaped slash: the regular expression sees it
	// decoded, the named kinds refuse it.
	for _, tc := range []struct{ target, want string }{
		{"/x/a%2Fb", "/x/:f<[a-z\\x2F]+>"},
		{"/w/a%2Fb", ""},
		{"/articles/4%32", "/articles/:id<int>"},
	} {
		w := httptest.NewRecorder()
		var got string
		rr := New()
		for _, p := range []string{"/x/:f<[a-z\\x2F]+>", "/w/:a<alpha>", "/articles/:id<int>"} {
			rr.Get(p, func(c *Context) error { got = c.Pattern() + " " + c.Param("f"); return nil })
		}
		req := httptest.NewRequest(http.MethodGet, tc.target, nil)
		rr.ServeHTTP(w, req)
		if got = strings.TrimSpace(got); !strings.HasPrefix(got, tc.want) || tc.want == "" && got != "" {
			t.Errorf("GET %s: got %q, want %q", tc.target, got, tc.want)
		}
	}
}

// TestLoneConstraint checks a constrained param that is its node's only
// way on, which the walk checks without recursing, and an int or uint of
// 4 to 8 bytes there, which it checks before calling accepts.
func TestLoneConstraint(t *testing.T) {
	r := New()
	for _, p := range []string{"/n/:id<int>", "/m/:id<uint>/x", "/a/:id<alnum>"} {
		r.Get(p, nopHandler)
	}
	checkRequests(t, r, []treeRequest{
		{"GET", "/n/1234", "/n/:id<int>", Params{{"id", "1234"}}},
		{"GET", "/n/1234567", "/n/:id<int>", Params{{"id", "1234567"}}},
		{"GET", "/n/12345678", "/n/:id<int>", Params{{"id", "12345678"}}},
		{"GET", "/n/-1234567", "/n/:id<int>", Params{{"id", "-1234567"}}},
		{"GET", "/n/123", "/n/:id<int>", Params{{"id", "123"}}},
		{"GET", "/n/123456789012", "/n/:id<int>", Params{{"id", "123456789012"}}},
		{"GET", "/n/12a4567", "", nil},
		{"GET", "/n/1234:67", "", nil},
		{"GET", "/n/123/", "", nil},
		{"GET", "/n/+1234", "", nil},
		{"GET", "/m/5678/x", "/m/:id<uint>/x", Params{{"id", "5678"}}},
		{"GET", "/m/-1234567/x", "", nil},
		{"GET", "/m/1234 678/x", "", nil},
		{"GET", "/m/12345678/y", "", nil},
		{"GET", "/a/1234", "/a/:id<alnum>", Params{{"id", "1234"}}},
		{"GET", "/a/12-4", "", nil},
	})
}

func TestConstraintConflicts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes []routeSpec
		err    string // a part of the message, "" for none
	}{
		{"disjoint named", []routeSpec{{"GET", "/a/:x<uint>"}, {"GET", "/a/:y<alpha>"}, {"GET", "/a/:z<uuid>"}}, ""},
		{"int and alpha", []routeSpec{{"GET", "/a/:x<int>"}, {"GET", "/a/:y<alpha>"}}, ""},
		{"int and uint", []routeSpec{{"GET", "/a/:x<int>"}, {"GET", "/a/:y<uint>"}},
			`conflicts with "/a/:x<int>" (at constraint_test.go:`},
		{"other methods too", []routeSpec{{"GET", "/a/:x<int>"}, {"POST", "/a/:y<uint>"}}, "constraints <uint> and <int>"},
		{"alnum and uuid", []routeSpec{{"GET", "/a/:x<alnum>"}, {"GET", "/a/:y<uuid>"}}, ""},
		{"alnum and alpha", []routeSpec{{"GET", "/a/:x<alnum>"}, {"GET", "/a/:y<alpha>"}}, "at the same place"},
		{"regexp disjoint from int", []routeSpec{{"GET", "/a/:x<int>"}, {"GET", "/a/:y<[a-z-]+>"}}, ""},
		{"regexps disjoint", []routeSpec{{"GET", "/a/:x<v[0-9]+>"}, {"GET", "/a/:y<w[0-9]+>"}}, ""},
		{"regexps overlap", []routeSpec{{"GET", "/a/:x<[a-m]+>"}, {"GET", "/a/:y<[k-z]+>"}}, "constraints <[k-z]+> and <[a-m]+>"},
		{"the same language, written twice", []routeSpec{{"GET", "/a/:x<[0-9]+>"}, {"GET", "/a/:y<uint>"}}, "both match"},
		{"case folded", []routeSpec{{"GET", "/a/:x<(?i)abc>"}, {"GET", "/a/:y<AB[C]>"}}, "both match"},
		{"the same constraint shares the node", []routeSpec{{"GET", "/a/:x<int>"}, {"POST", "/a/:y<int>"}}, ""},
		{"same shape, same method", []routeSpec{{"GET", "/a/:x<int>"}, {"GET", "/a/:y<int>"}}, "same method and route shape"},
		{"plain beside constrained", []routeSpec{{"GET", "/a/:x<int>"}, {"GET", "/a/:y"}}, ""},
		{"different places", []routeSpec{{"GET", "/a/:x<int>"}, {"GET", "/b/:y<uint>"}}, ""},
		{"deeper, under a shared node", []routeSpec{{"GET", "/a/:p<int>/:x<int>"}, {"GET", "/a/:q<int>/:y<uint>"}}, "constraints <uint> and <int>"},
		{"deeper, under different nodes", []routeSpec{{"GET", "/a/:p<int>/:x<int>"}, {"GET", "/a/:q/:y<uint>"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			var err error
			for _, rt := range tc.routes {
				if err = recoverHandle(func() { r.Handle(rt.method, rt.pattern, nopHandler) }); err != nil {
					break
				}
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("got %v, want an error with %q", err, tc.err)
			case err != nil:
				var re *RouteError
				if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), "waltz: ") {
					t.Errorf("got %T %v, want a *RouteError starting waltz:", err, err)
				}
			}
		})
	}
}

func TestConstraintOracle(t *testing.T) {
	routes := []routeSpec{
		{"GET", "/articles/:id<int>"}, {"GET", "/articles/:slug<[ab]+>"}, {"GET", "/articles/:any"},
		{"GET", "/articles/:id<int>/"}, {"POST", "/articles/:n<int>"}, {"GET", "/f/:id<uint>/*rest"},
		{"GET", "/f/*rest"}, {"GET", "/f/:x/b"}, {"GET", "/g/:u<uuid>"},
	}
	r, o, h := newOracleRouter(t, routes, nil)
	for _, method := range []string{"GET", "POST", "PUT", "OPTIONS"} {
		for _, target := range []string{"/articles/1", "/articles/1/", "/articles/ab", "/articles/ab/", "/articles/Ab",
			"/articles/%31", "/articles/a%2Fb", "/f/1/x", "/f/1", "/f/1/", "/f/x/b", "/f/1/b", "/f/1/b/", "/f//1",
			"/g/123e4567-e89b-12d3-a456-426614174000", "/g/123e4567-e89b-12d3-a456-42661417400", "/articles//1"} {
			checkOracle(t, r, o, h, method, target)
		}
	}
}

func TestConstraintAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	r := New()
	for _, p := range []string{"/a/:id<int>", "/b/:id<uuid>", "/c/:s<[a-z-]+>", "/d/:x<alnum>/:y<uint>", "/a/:any"} {
		r.Get(p, func(c *Context) error { _ = c.Param("id"); return nil })
	}
	w := newNopWriter()
	for _, path := range []string{"/a/42", "/a/x", "/b/123e4567-e89b-12d3-a456-426614174000", "/c/hello-world", "/d/a1/7"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != 0 {
			t.Errorf("GET %s: got %v allocs, want 0", path, got)
		}
	}
}

// BenchmarkConstraint is a one-param route with and without a
// constraint, on a router that holds just that route:
//
//	go test -run '^$' -bench '^BenchmarkConstraint$' -count 6 . > cons.txt
//	benchstat -col /cons cons.txt
func BenchmarkConstraint(b *testing.B) {
	for _, bc := range []struct{ cons, pattern, path string }{
		{"none", "/user/:id", "/user/1234567"},
		{"int", "/user/:id<int>", "/user/1234567"},
		{"uint", "/user/:id<uint>", "/user/1234567"},
		{"alnum", "/user/:id<alnum>", "/user/1234567"},
		{"uuid-none", "/user/:id", "/user/123e4567-e89b-12d3-a456-426614174000"},
		{"uuid", "/user/:id<uuid>", "/user/123e4567-e89b-12d3-a456-426614174000"},
		{"regexp", "/user/:id<[0-9]+>", "/user/1234567"},
	} {
		b.Run("cons="+bc.cons, func(b *testing.B) {
			r := New()
			r.Get(bc.pattern, nopHandler)
			benchServe(b, r, httptest.NewRequest(http.MethodGet, bc.path, nil))
		})
	}
}

func TestConstraintURL(t *testing.T) {
	r := New()
	r.Get("/articles/:id<int>", nopHandler).Name("article")
	r.Get("/articles/:slug<[a-z-]+>/:v<uint>", nopHandler).Name("version")
	for _, tc := range []struct {
		name  string
		pairs []string
		want  string // the path, or a part of the error
	}{
		{"article", []string{"id", "42"}, "/articles/42"},
		{"article", []string{"id", "-1"}, "/articles/-1"},
		{"article", []string{"id", "x"}, `param "id" is "x", which does not meet its constraint <int>`},
		{"article", []string{"id", "99999999999999999999"}, "does not meet its constraint <int>"},
		{"version", []string{"slug", "a-b", "v", "3"}, "/articles/a-b/3"},
		{"version", []string{"slug", "A", "v", "3"}, "does not meet its constraint <[a-z-]+>"},
		{"version", []string{"slug", "a", "v", "-3"}, "does not meet its constraint <uint>"},
	} {
		got, err := r.URL(tc.name, tc.pairs...)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) || err != nil && !strings.HasPrefix(got, "waltz: ") {
			t.Errorf("URL(%q, %q): got %q, want %q", tc.name, tc.pairs, got, tc.want)
		}
	}
}
