package benchmarks

import (
	"net/http"
	"strings"
	"testing"
)

// The benchmarks follow the classic method (README.md, "How the
// micro-benchmarks measure"): requests are built before the timer starts and reused,
// handlers do nothing, the writer discards everything. Each benchmark has one
// sub-benchmark per router, so `benchstat -col /router` lines them up.

// routers caches built routers: a benchmark function runs several times
// while the testing package settles b.N, and rebuilding is wasted time.
var routers = map[string]http.Handler{}

// router returns p's router for routes, or skips b with the reason if p
// cannot register them.
func router(b *testing.B, p Peer, key string, routes []Route, mode Mode) http.Handler {
	b.Helper()
	key = p.Name + "/" + key
	if h, ok := routers[key]; ok {
		return h
	}
	h, err := p.Build(routes, mode, nil)
	if err != nil {
		b.Skip(err)
	}
	routers[key] = h
	return h
}

func newRequest(method, path string) *http.Request {
	r, err := http.NewRequest(method, path, nil)
	if err != nil {
		panic(err)
	}
	// As a server would set it; a few routers read RequestURI or RawPath.
	r.RequestURI = path
	return r
}

// benchRequests serves reqs once per op.
func benchRequests(b *testing.B, h http.Handler, reqs []*http.Request) {
	w := NewNopWriter()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, r := range reqs {
			h.ServeHTTP(w, r)
		}
	}
}

// benchAll requests every route of a set by its pattern text, in file order.
func benchAll(b *testing.B, set string) {
	routes := MustLoadSet(set)
	reqs := make([]*http.Request, len(routes))
	for i, r := range routes {
		reqs[i] = newRequest(r.Method, r.Path)
	}
	for _, p := range Peers {
		b.Run("router="+p.Name, func(b *testing.B) {
			benchRequests(b, router(b, p, set, routes, Noop), reqs)
		})
	}
}

// benchOne requests one path against the whole set.
func benchOne(b *testing.B, set, method, path string) {
	routes := MustLoadSet(set)
	reqs := []*http.Request{newRequest(method, path)}
	for _, p := range Peers {
		b.Run("router="+p.Name, func(b *testing.B) {
			benchRequests(b, router(b, p, set, routes, Noop), reqs)
		})
	}
}

// benchSingle registers one route and requests one path.
func benchSingle(b *testing.B, pattern, path string, mode Mode) {
	routes := []Route{NewRoute("GET", pattern)}
	reqs := []*http.Request{newRequest("GET", path)}
	key := pattern
	if mode == WriteParam {
		key += "#write"
	}
	for _, p := range Peers {
		b.Run("router="+p.Name, func(b *testing.B) {
			benchRequests(b, router(b, p, key, routes, mode), reqs)
		})
	}
}

func BenchmarkStaticAll(b *testing.B) { benchAll(b, "static") }

func BenchmarkGitHubStatic(b *testing.B) { benchOne(b, "github", "GET", "/user/repos") }
func BenchmarkGitHubParam(b *testing.B) {
	benchOne(b, "github", "GET", "/repos/julienschmidt/httprouter/stargazers")
}
func BenchmarkGitHubAll(b *testing.B) { benchAll(b, "github") }

func BenchmarkGPlusStatic(b *testing.B) { benchOne(b, "gplus", "GET", "/people") }
func BenchmarkGPlusParam(b *testing.B) {
	benchOne(b, "gplus", "GET", "/people/118051310819094153327")
}
func BenchmarkGPlus2Params(b *testing.B) {
	benchOne(b, "gplus", "GET", "/people/118051310819094153327/activities/123456789")
}
func BenchmarkGPlusAll(b *testing.B) { benchAll(b, "gplus") }

func BenchmarkParseStatic(b *testing.B)  { benchOne(b, "parse", "GET", "/1/users") }
func BenchmarkParseParam(b *testing.B)   { benchOne(b, "parse", "GET", "/1/classes/go") }
func BenchmarkParse2Params(b *testing.B) { benchOne(b, "parse", "GET", "/1/classes/go/123456789") }
func BenchmarkParseAll(b *testing.B)     { benchAll(b, "parse") }

func BenchmarkParam(b *testing.B) { benchSingle(b, "/user/:name", "/user/gordon", Noop) }
func BenchmarkParam5(b *testing.B) {
	benchSingle(b, "/:a/:b/:c/:d/:e", "/test/test/test/test/test", Noop)
}
func BenchmarkParam20(b *testing.B) {
	var pattern, path strings.Builder
	for c := 'a'; c <= 't'; c++ {
		pattern.WriteString("/:" + string(c))
		path.WriteString("/" + string(c))
	}
	benchSingle(b, pattern.String(), path.String(), Noop)
}
func BenchmarkParamWrite(b *testing.B) {
	benchSingle(b, "/user/:name", "/user/gordon", WriteParam)
}

// BenchmarkRegisterGitHub builds a router from the GitHub set (203 routes)
// once per op: what a server, a test or a CLI pays at start-up. The set is
// loaded before the timer starts.
func BenchmarkRegisterGitHub(b *testing.B) {
	routes := MustLoadSet("github")
	for _, p := range Peers {
		b.Run("router="+p.Name, func(b *testing.B) {
			if _, err := p.Build(routes, Noop, nil); err != nil {
				b.Skip(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := p.Build(routes, Noop, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
