// Command instr serves one request path in-process, n times, through one
// router, for callgrind to count the instructions each request costs. The
// requests go through loop, which callgrind.sh names in --toggle-collect, so
// building the router and warming it up are not counted.
//
//	go run ./cmd/instr -router waltz -app hello -path /user/42 -n 10000
//
// -app hello is the hello app (benchmarks.HelloApps, handlers that write the
// body); any route set name (github, static, …) builds the router from that
// set with the no-op handlers of the micro-benchmarks. The request is built
// once and reused, and the writer is benchmarks.NopWriter, as in the
// micro-benchmarks. -app ops is the small JSON API of BenchmarkOps, with
// -router hand, typed or huma and -path get, post, post-invalid or query
// (hand and typed only); a body
// is rewound before each request. -app cons=int (or uint, uuid, alnum, a
// regular expression, or none) is waltz alone with GET /user/:name<int>
// (or a plain /user/:name), for the cost of a param constraint.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/benchmarks"
)

func main() {
	name := flag.String("router", "waltz", "raw (hello app only), waltz, httprouter, chi, gin, echo or servemux")
	app := flag.String("app", "hello", "hello; param or paramwrite (GET /user/:name, handlers as in the Param and ParamWrite benchmarks); or a route set: "+fmt.Sprint(benchmarks.Sets))
	path := flag.String("path", "/", `the request path (GET), or "all": every route of the set by its pattern text, each counted as a request`)
	n := flag.Int("n", 10000, "requests counted")
	flag.Parse()
	h, err := build(*name, *app, *path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "instr:", err)
		os.Exit(2)
	}
	var reqs []*http.Request
	var origs []http.Request // the ops requests as built, restored before each serve
	if *app == "ops" {
		req, status, ok := benchmarks.OpsRequest(*path)
		if !ok {
			fmt.Fprintf(os.Stderr, "instr: unknown ops case %q\n", *path)
			os.Exit(2)
		}
		orig := *req
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		*req = orig
		if b, ok := req.Body.(*benchmarks.ReplayBody); ok {
			b.Reset()
		} else {
			req.Body = benchmarks.NewReplayBody("")
		}
		origs = append(origs, *req)
		if rec.Code != status {
			fmt.Fprintf(os.Stderr, "instr: %s %s: got %d, want %d\n", *name, *path, rec.Code, status)
			os.Exit(1)
		}
		reqs = append(reqs, req)
	} else if *path == "all" && *app != "hello" {
		for _, rt := range benchmarks.MustLoadSet(*app) {
			reqs = append(reqs, newRequest(rt.Method, rt.Path))
		}
	} else {
		reqs = append(reqs, newRequest(http.MethodGet, *path))
	}
	w := benchmarks.NewNopWriter()
	runtime.GC() // no collection of the build's garbage runs during the count
	// Pools and caches filled, uncounted.
	warm(h, w, reqs, origs, max(1, 1000/len(reqs)))
	loop(h, w, reqs, origs, max(1, *n/len(reqs)))
}

func newRequest(method, path string) *http.Request {
	req, err := http.NewRequest(method, path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "instr:", err)
		os.Exit(2)
	}
	req.RequestURI = path
	return req
}

// warm is loop under another name, so that callgrind does not count it.
//
//go:noinline
func warm(h http.Handler, w http.ResponseWriter, reqs []*http.Request, origs []http.Request, n int) {
	for range n {
		for i, req := range reqs {
			if origs != nil {
				// A handler may replace the request's Body (with an
				// http.MaxBytesReader, say): start from the same state.
				*req = origs[i]
				req.Body.(*benchmarks.ReplayBody).Reset()
				// And with a header map of its own, as net/http
				// gives each response, as BenchmarkOps does.
				clear(w.Header())
			}
			h.ServeHTTP(w, req)
		}
	}
}

// loop serves reqs n times over. callgrind.sh collects inside this
// function only.
//
//go:noinline
func loop(h http.Handler, w http.ResponseWriter, reqs []*http.Request, origs []http.Request, n int) {
	for range n {
		for i, req := range reqs {
			if origs != nil {
				// A handler may replace the request's Body (with an
				// http.MaxBytesReader, say): start from the same state.
				*req = origs[i]
				req.Body.(*benchmarks.ReplayBody).Reset()
				// And with a header map of its own, as net/http
				// gives each response, as BenchmarkOps does.
				clear(w.Header())
			}
			h.ServeHTTP(w, req)
		}
	}
}

func build(name, app, path string) (http.Handler, error) {
	if app == "ops" {
		h, ok := benchmarks.OpsApp(name, path)
		if !ok {
			return nil, fmt.Errorf("unknown implementation %q for ops (hand, typed, huma)", name)
		}
		return h, nil
	}
	if app == "hello" {
		mk, ok := benchmarks.HelloApps[name]
		if !ok {
			return nil, fmt.Errorf("unknown router %q", name)
		}
		return mk(), nil
	}
	if c, ok := strings.CutPrefix(app, "cons="); ok {
		// waltz's param constraints: GET /user/:name with the constraint
		// c ("none" for a plain param), a no-op handler.
		if name != "waltz" {
			return nil, fmt.Errorf("-app %s is waltz's alone", app)
		}
		pattern := "/user/:name"
		if c != "none" {
			pattern += "<" + c + ">"
		}
		r := waltz.New()
		r.Get(pattern, func(*waltz.Context) error { return nil })
		return r, nil
	}
	routes, mode := []benchmarks.Route(nil), benchmarks.Noop
	switch {
	case app == "param" || app == "paramwrite":
		// The single route of the Param and ParamWrite benchmarks.
		routes = []benchmarks.Route{benchmarks.NewRoute(http.MethodGet, "/user/:name")}
		if app == "paramwrite" {
			mode = benchmarks.WriteParam
		}
	case slices.Contains(benchmarks.Sets, app):
		routes = benchmarks.MustLoadSet(app)
	default:
		return nil, fmt.Errorf("unknown app %q", app)
	}
	for _, p := range benchmarks.Peers {
		if p.Name == name {
			return p.Build(routes, mode, nil)
		}
	}
	return nil, fmt.Errorf("unknown router %q for a route set", name)
}
