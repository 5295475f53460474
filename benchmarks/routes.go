// Package benchmarks holds the harness shared by the routing benchmarks, the
// correctness test and cmd/memory: the classic route sets and one adapter per
// router, so every router is driven the same way.
package benchmarks

import (
	"bufio"
	"embed"
	"fmt"
	"strings"
)

//go:embed testdata/*.tsv
var testdata embed.FS

// Route is one line of a route set: a method and an httprouter-style pattern.
type Route struct {
	Method string
	Path   string   // the pattern as written in the set, e.g. /repos/:owner/:repo
	Params []string // param names in order, without the ':' or '*'
	// CatchAll is set when the last param is a catch-all (*name).
	CatchAll bool
}

// Sets lists the route sets in the order reports show them. "githubextra" is
// github.tsv plus github_extra.tsv: the routes the classic suite leaves out
// (catch-alls and static-vs-param siblings), used by the correctness test and
// the memory table but not by the classic benchmarks.
var Sets = []string{"static", "github", "gplus", "parse", "githubextra"}

// LoadSet returns the routes of a named set, in file order.
func LoadSet(name string) ([]Route, error) {
	if name == "githubextra" {
		a, err := loadFile("github")
		if err != nil {
			return nil, err
		}
		b, err := loadFile("github_extra")
		if err != nil {
			return nil, err
		}
		return append(a, b...), nil
	}
	return loadFile(name)
}

// MustLoadSet is LoadSet for callers that treat a missing file as a bug.
func MustLoadSet(name string) []Route {
	routes, err := LoadSet(name)
	if err != nil {
		panic(err)
	}
	return routes
}

func loadFile(name string) ([]Route, error) {
	f, err := testdata.Open("testdata/" + name + ".tsv")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var routes []Route
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		method, path, ok := strings.Cut(line, "\t")
		if !ok {
			return nil, fmt.Errorf("%s.tsv:%d: want METHOD<TAB>PATH, got %q", name, n, line)
		}
		routes = append(routes, NewRoute(method, path))
	}
	return routes, sc.Err()
}

// NewRoute parses the param names out of a pattern.
func NewRoute(method, path string) Route {
	r := Route{Method: method, Path: path}
	for _, seg := range strings.Split(path, "/") {
		switch {
		case strings.HasPrefix(seg, ":"):
			r.Params = append(r.Params, seg[1:])
		case strings.HasPrefix(seg, "*"):
			r.Params = append(r.Params, seg[1:])
			r.CatchAll = true
		}
	}
	return r
}

// translate rewrites each :name and *name segment of an httprouter-style
// pattern with the given functions, for routers with another syntax.
func translate(path string, param, catchAll func(name string) string) string {
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		switch {
		case strings.HasPrefix(seg, ":"):
			segs[i] = param(seg[1:])
		case strings.HasPrefix(seg, "*"):
			segs[i] = catchAll(seg[1:])
		}
	}
	return strings.Join(segs, "/")
}
