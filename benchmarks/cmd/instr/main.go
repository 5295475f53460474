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
// micro-benchmarks.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"slices"

	"github.com/waltz-go/waltz/benchmarks"
)

func main() {
	name := flag.String("router", "waltz", "raw (hello app only), waltz, httprouter, chi, gin, echo or servemux")
	app := flag.String("app", "hello", "hello; param or paramwrite (GET /user/:name, handlers as in the Param and ParamWrite benchmarks); or a route set: "+fmt.Sprint(benchmarks.Sets))
	path := flag.String("path", "/", `the request path (GET), or "all": every route of the set by its pattern text, each counted as a request`)
	n := flag.Int("n", 10000, "requests counted")
	flag.Parse()
	h, err := build(*name, *app)
	if err != nil {
		fmt.Fprintln(os.Stderr, "instr:", err)
		os.Exit(2)
	}
	var reqs []*http.Request
	if *path == "all" && *app != "hello" {
		for _, rt := range benchmarks.MustLoadSet(*app) {
			reqs = append(reqs, newRequest(rt.Method, rt.Path))
		}
	} else {
		reqs = append(reqs, newRequest(http.MethodGet, *path))
	}
	w := benchmarks.NewNopWriter()
	runtime.GC() // no collection of the build's garbage runs during the count
	// Pools and caches filled, uncounted.
	warm(h, w, reqs, max(1, 1000/len(reqs)))
	loop(h, w, reqs, max(1, *n/len(reqs)))
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
func warm(h http.Handler, w http.ResponseWriter, reqs []*http.Request, n int) {
	for range n {
		for _, req := range reqs {
			h.ServeHTTP(w, req)
		}
	}
}

// loop serves reqs n times over. callgrind.sh collects inside this
// function only.
//
//go:noinline
func loop(h http.Handler, w http.ResponseWriter, reqs []*http.Request, n int) {
	for range n {
		for _, req := range reqs {
			h.ServeHTTP(w, req)
		}
	}
}

func build(name, app string) (http.Handler, error) {
	if app == "hello" {
		mk, ok := benchmarks.HelloApps[name]
		if !ok {
			return nil, fmt.Errorf("unknown router %q", name)
		}
		return mk(), nil
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
