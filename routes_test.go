package waltz

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The standard route sets (testdata/*.tsv: static, GitHub, Google+, Parse,
// and github_extra.tsv with the catch-alls and static-vs-param siblings the
// classic suite leaves out) all register, and a request for each route
// reaches that route with the right params, as the oracle agrees. The
// precedence rules, and where they differ from ServeMux's, are stated once,
// in doc.go ("Precedence").

// routeSets lists the route sets: name and files, in the order they load.
var routeSets = []struct {
	name  string
	files []string
}{
	{"static", []string{"static"}},
	{"github", []string{"github"}},
	{"gplus", []string{"gplus"}},
	{"parse", []string{"parse"}},
	{"githubextra", []string{"github", "github_extra"}},
}

// loadRouteFiles reads the tsv route files in testdata: METHOD, a tab, PATTERN.
func loadRouteFiles(tb testing.TB, files ...string) []routeSpec {
	tb.Helper()
	var routes []routeSpec
	for _, name := range files {
		f, err := os.Open("testdata/" + name + ".tsv")
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			method, pattern, ok := strings.Cut(sc.Text(), "\t")
			if !ok {
				tb.Fatalf("%s.tsv:%d: got %q, want METHOD<TAB>PATTERN", name, n, sc.Text())
			}
			routes = append(routes, routeSpec{method, pattern})
		}
		if err := sc.Err(); err != nil {
			tb.Fatal(err)
		}
		f.Close()
	}
	return routes
}

// fillPattern returns the request target for pattern with each wildcard segment
// replaced by value(segment, index), and the params the route should see:
// those values, percent-decoded.
func fillPattern(pattern string, value func(seg string, i int) string) (string, Params) {
	segs := strings.Split(pattern[1:], "/")
	var params Params
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			segs[i] = value(s, i)
			params = append(params, Param{Key: s[1:], Value: oracleUnescape(segs[i])})
		}
	}
	return "/" + strings.Join(segs, "/"), params
}

func TestRouteSets(t *testing.T) {
	for _, set := range routeSets {
		routes := loadRouteFiles(t, set.files...)
		r, o, h := newOracleRouter(t, routes, nil)
		if got := len(r.Routes()); got != len(routes) {
			t.Fatalf("%s: got %d routes registered, want %d", set.name, got, len(routes))
		}
		for _, rt := range routes {
			// Three requests per route: the pattern text itself, as the
			// classic "All" benchmarks send it (values such as ":owner");
			// plain values; and values with escapes, "%2F" among them.
			for _, v := range []struct {
				name  string
				value func(seg string, i int) string
			}{
				{"literal", func(seg string, _ int) string { return seg }},
				{"plain", func(seg string, i int) string {
					if seg[0] == '*' {
						return "x/y.txt"
					}
					return fmt.Sprintf("v%d", i)
				}},
				{"escaped", func(seg string, i int) string {
					if seg[0] == '*' {
						return "d%2Fe/f%3Fg"
					}
					return fmt.Sprintf("a%%2Fb%%20%d+%%2B", i)
				}},
			} {
				target, want := fillPattern(rt.pattern, v.value)
				t.Run(fmt.Sprintf("%s/%s %s/%s", set.name, rt.method, rt.pattern, v.name), func(t *testing.T) {
					methods := []string{rt.method}
					if rt.method == http.MethodGet {
						methods = append(methods, http.MethodHead)
					}
					for _, m := range methods {
						*h = routeHit{}
						w := serveTarget(t, r, m, target)
						if own := rt.method + " " + rt.pattern; w.Code != http.StatusOK || h.route != own {
							t.Errorf("%s %s: got %d %q, want 200 %q", m, target, w.Code, h.route, own)
						}
						if !slices.Equal(h.params, want) && len(h.params)+len(want) > 0 {
							t.Errorf("%s %s: got params %q, want %q", m, target, h.params, want)
						}
						checkOracle(t, r, o, h, m, target)
					}
				})
			}
		}
	}
}

func TestRoutesWhileServing(t *testing.T) {
	// Listing the routes while the first requests are served (a health or
	// admin page) reads the tree as the lookups do and changes nothing:
	// the tree and the static table are finished when the routes are
	// registered. Run with -race, the race detector checks that no lookup
	// writes what Routes reads.
	routes := loadRoutes(t, "testdata/github.tsv")
	r := New()
	for _, rt := range routes {
		r.Handle(rt.Method, rt.Pattern, func(c *Context) error { return c.Text(http.StatusOK, c.Pattern()) })
	}
	want := r.Routes()
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(routes); i += 4 {
				rt := routes[i]
				w := httptest.NewRecorder()
				r.ServeHTTP(w, httptest.NewRequest(rt.Method, rt.Pattern, nil))
				if w.Code != http.StatusOK || w.Body.String() != rt.Pattern {
					errs <- fmt.Sprintf("%s %s: got %d %q, want 200", rt.Method, rt.Pattern, w.Code, w.Body.String())
					return
				}
			}
		}()
	}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if got := r.Routes(); !slices.Equal(got, want) {
					errs <- fmt.Sprintf("Routes while serving: got %d routes, want %d", len(got), len(want))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
