package benchmarks

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/julienschmidt/httprouter"
	"github.com/labstack/echo/v4"
	"github.com/waltz-go/waltz"
)

// Mode says what the handlers of a built router do.
type Mode int

const (
	// Noop handlers do nothing: the classic suite's handler.
	Noop Mode = iota
	// WriteParam handlers write the value of the param "name" (ParamWrite).
	WriteParam
	// Record handlers store which route ran and its params in a *Hit, for
	// the correctness test; they are not meant to be fast.
	Record
)

// Hit is what a Record handler saw. Catch-all values are stored without a
// leading slash whatever the router reports, so routers compare equal.
type Hit struct {
	Route  int // index into the routes the router was built from; -1 if none ran
	Params map[string]string
}

func (h *Hit) record(i int, r Route, get func(name string) string) {
	h.Route = i
	h.Params = make(map[string]string, len(r.Params))
	for _, name := range r.Params {
		h.Params[name] = get(name)
	}
	if r.CatchAll {
		last := r.Params[len(r.Params)-1]
		h.Params[last] = strings.TrimPrefix(h.Params[last], "/")
	}
}

// Peer is one router under test.
type Peer struct {
	Name string
	// build registers routes and returns the router. It panics (as most
	// routers do) on a pattern the router cannot hold; use Build instead.
	build func(routes []Route, mode Mode, hit *Hit) http.Handler
}

// Peers lists every router in the harness, waltz first.
var Peers = []Peer{
	{"waltz", buildWaltz},
	{"httprouter", buildHTTPRouter},
	{"chi", buildChi},
	{"gin", buildGin},
	{"echo", buildEcho},
	{"servemux", buildServeMux},
}

// Build builds a router for routes, turning a registration panic into an
// error so that callers can skip a router that cannot hold a set.
func (p Peer) Build(routes []Route, mode Mode, hit *Hit) (h http.Handler, err error) {
	defer func() {
		if v := recover(); v != nil {
			h, err = nil, fmt.Errorf("%s cannot register this route set: %v", p.Name, v)
		}
	}()
	return p.build(routes, mode, hit), nil
}

func buildWaltz(routes []Route, mode Mode, hit *Hit) http.Handler {
	r := waltz.New()
	noop := func(*waltz.Context) error { return nil }
	write := func(c *waltz.Context) error {
		_, err := io.WriteString(c.Writer, c.Param("name"))
		return err
	}
	for i, rt := range routes {
		h := noop
		switch mode {
		case WriteParam:
			h = write
		case Record:
			h = func(c *waltz.Context) error {
				hit.record(i, rt, c.Param)
				return nil
			}
		}
		r.Handle(rt.Method, rt.Path, h)
	}
	return r
}

func buildHTTPRouter(routes []Route, mode Mode, hit *Hit) http.Handler {
	r := httprouter.New()
	noop := func(http.ResponseWriter, *http.Request, httprouter.Params) {}
	write := func(w http.ResponseWriter, _ *http.Request, ps httprouter.Params) {
		io.WriteString(w, ps.ByName("name"))
	}
	for i, rt := range routes {
		h := noop
		switch mode {
		case WriteParam:
			h = write
		case Record:
			h = func(_ http.ResponseWriter, _ *http.Request, ps httprouter.Params) {
				hit.record(i, rt, ps.ByName)
			}
		}
		r.Handle(rt.Method, rt.Path, h)
	}
	return r
}

// chi writes params as {name} and a catch-all as a bare * read back as "*".
func chiPath(path string) string {
	return translate(path,
		func(name string) string { return "{" + name + "}" },
		func(string) string { return "*" })
}

func buildChi(routes []Route, mode Mode, hit *Hit) http.Handler {
	r := chi.NewRouter()
	noop := func(http.ResponseWriter, *http.Request) {}
	write := func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, chi.URLParam(req, "name"))
	}
	for i, rt := range routes {
		h := noop
		switch mode {
		case WriteParam:
			h = write
		case Record:
			h = func(_ http.ResponseWriter, req *http.Request) {
				hit.record(i, rt, func(name string) string {
					if rt.CatchAll && name == rt.Params[len(rt.Params)-1] {
						name = "*"
					}
					return chi.URLParam(req, name)
				})
			}
		}
		r.MethodFunc(rt.Method, chiPath(rt.Path), h)
	}
	return r
}

func buildGin(routes []Route, mode Mode, hit *Hit) http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	noop := func(*gin.Context) {}
	write := func(c *gin.Context) { io.WriteString(c.Writer, c.Param("name")) }
	for i, rt := range routes {
		h := noop
		switch mode {
		case WriteParam:
			h = write
		case Record:
			h = func(c *gin.Context) { hit.record(i, rt, c.Param) }
		}
		r.Handle(rt.Method, rt.Path, h)
	}
	return r
}

// echo keeps :name but writes a catch-all as a bare * read back as "*".
func echoPath(path string) string {
	return translate(path,
		func(name string) string { return ":" + name },
		func(string) string { return "*" })
}

func buildEcho(routes []Route, mode Mode, hit *Hit) http.Handler {
	e := echo.New()
	noop := func(echo.Context) error { return nil }
	write := func(c echo.Context) error {
		_, err := io.WriteString(c.Response(), c.Param("name"))
		return err
	}
	for i, rt := range routes {
		h := noop
		switch mode {
		case WriteParam:
			h = write
		case Record:
			h = func(c echo.Context) error {
				hit.record(i, rt, func(name string) string {
					if rt.CatchAll && name == rt.Params[len(rt.Params)-1] {
						name = "*"
					}
					return c.Param(name)
				})
				return nil
			}
		}
		e.Add(rt.Method, echoPath(rt.Path), h)
	}
	return e
}

// servemuxPattern writes a route in Go 1.22 ServeMux syntax: {name} for a
// param, {name...} for a catch-all, and {$} after a trailing slash, since
// ServeMux treats a pattern ending in / as a prefix match.
func servemuxPattern(method, path string) string {
	p := translate(path,
		func(name string) string { return "{" + name + "}" },
		func(name string) string { return "{" + name + "...}" })
	if strings.HasSuffix(p, "/") {
		p += "{$}"
	}
	return method + " " + p
}

func buildServeMux(routes []Route, mode Mode, hit *Hit) http.Handler {
	mux := http.NewServeMux()
	noop := func(http.ResponseWriter, *http.Request) {}
	write := func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(w, req.PathValue("name"))
	}
	for i, rt := range routes {
		h := noop
		switch mode {
		case WriteParam:
			h = write
		case Record:
			h = func(_ http.ResponseWriter, req *http.Request) {
				hit.record(i, rt, req.PathValue)
			}
		}
		mux.HandleFunc(servemuxPattern(rt.Method, rt.Path), h)
	}
	return mux
}
