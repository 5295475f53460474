package benchmarks

import (
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	gocors "github.com/go-chi/cors"
	"github.com/go-chi/httprate"
	rscors "github.com/rs/cors"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// BenchmarkMiddleware measures the bundled middleware that do not touch
// the body, each beside its usual counterpart where one exists: chi's
// middleware package, go-chi/cors, rs/cors, go-chi/httprate, and the
// standard library's http.CrossOriginProtection. Every case serves one
// route whose handler writes "ok"; waltz's middleware run on a waltz
// router, the others on a chi router, and mw=none gives each router bare,
// so the cost of a middleware is its row minus none's. Sub-benchmarks are
// named mw=…/impl=…, so `benchstat -col /impl` lines them up.
func BenchmarkMiddleware(b *testing.B) {
	for _, mc := range middlewareCases {
		for _, impl := range mc.impls {
			b.Run("mw="+mc.name+"/impl="+impl.name, func(b *testing.B) {
				h := impl.build()
				req := mc.request()
				w := &wireWriter{h: make(http.Header)}
				body, _ := req.Body.(*ReplayBody)
				h.ServeHTTP(w, req)
				// go-chi/cors answers a preflight 200, the others 204: both are
				// "ok status" to Fetch.
				if w.code != 0 && w.code != mc.status && !(impl.name == "gocors" && w.code == 200) {
					b.Fatalf("status: got %d, want %d", w.code, mc.status)
				}
				// Some middleware change the request in place (chi's RealIP
				// sets RemoteAddr, RequestSize wraps Body): each request
				// starts from the same state.
				orig := *req
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					*req = orig
					if body != nil {
						body.Reset()
					}
					h.ServeHTTP(w, req)
				}
			})
		}
	}
}

// A middlewareImpl builds a handler: a router with one middleware.
type middlewareImpl struct {
	name  string
	build func() http.Handler
}

// A middlewareCase is one middleware, its request, and the status every
// implementation must answer it with.
type middlewareCase struct {
	name    string
	request func() *http.Request
	status  int
	impls   []middlewareImpl
}

func okHandler(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body) // so BodyLimit has a body to count
	}
	io.WriteString(w, "ok")
}

// waltzOne returns a waltz router serving method / through mw.
func waltzOne(method string, mw ...waltz.Middleware) middlewareImpl {
	return middlewareImpl{"waltz", func() http.Handler {
		r := waltz.New()
		r.Use(mw...)
		r.Handle(method, "/", func(c *waltz.Context) error { okHandler(c.Writer, c.Request); return nil })
		return r
	}}
}

// chiOne returns a chi router, named name, serving method / through mw.
func chiOne(name, method string, mw ...func(http.Handler) http.Handler) middlewareImpl {
	return middlewareImpl{name, func() http.Handler {
		r := chi.NewRouter()
		r.Use(mw...)
		r.MethodFunc(method, "/", okHandler)
		return r
	}}
}

func requestWith(method string, kv ...string) func() *http.Request {
	return func() *http.Request {
		r := newRequest(method, "/")
		r.RemoteAddr = "10.1.2.3:45678"
		r.Host = "api.example.com"
		for i := 0; i < len(kv); i += 2 {
			r.Header.Set(kv[i], kv[i+1])
		}
		if method == http.MethodPost {
			r.Body = NewReplayBody(strings.Repeat("x", 100))
			r.ContentLength = 100
		}
		return r
	}
}

const benchOrigin = "https://app.example.com"

var (
	waltzCORS = middleware.CORSOptions{AllowedOrigins: []string{benchOrigin}, AllowedHeaders: []string{"Content-Type", "X-Token"},
		AllowCredentials: true, MaxAge: time.Hour}
	goCORS = gocors.Options{AllowedOrigins: []string{benchOrigin}, AllowedMethods: []string{"GET", "PUT"},
		AllowedHeaders: []string{"Content-Type", "X-Token"}, AllowCredentials: true, MaxAge: 3600}
	rsCORS = rscors.Options{AllowedOrigins: []string{benchOrigin}, AllowedMethods: []string{"GET", "PUT"},
		AllowedHeaders: []string{"Content-Type", "X-Token"}, AllowCredentials: true, MaxAge: 3600}
	users = map[string]string{"admin": "correct horse battery staple"}
	// A bucket that never empties during a benchmark: what is measured is
	// the bookkeeping, not refusals.
	bigLimit = 1 << 30
)

var middlewareCases = []middlewareCase{
	{"none", requestWith("GET"), 200, []middlewareImpl{waltzOne("GET"), chiOne("chi", "GET")}},
	{"RequestID", requestWith("GET"), 200, []middlewareImpl{
		waltzOne("GET", middleware.RequestID(middleware.RequestIDOptions{})),
		chiOne("chi", "GET", chimw.RequestID),
	}},
	{"RealIP", requestWith("GET", "X-Forwarded-For", "203.0.113.7, 10.0.0.9"), 200, []middlewareImpl{
		waltzOne("GET", middleware.RealIP(middleware.RealIPOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})),
		chiOne("chi", "GET", chimw.RealIP), // trusts any peer: not the same guarantee
	}},
	{"CORS", requestWith("GET", "Origin", benchOrigin), 200, []middlewareImpl{
		waltzOne("GET", middleware.CORS(waltzCORS)),
		chiOne("gocors", "GET", gocors.Handler(goCORS)),
		chiOne("rscors", "GET", rscors.New(rsCORS).Handler),
	}},
	{"CORS-preflight", requestWith("OPTIONS", "Origin", benchOrigin, "Access-Control-Request-Method", "PUT",
		"Access-Control-Request-Headers", "content-type,x-token"), 204, []middlewareImpl{
		waltzOne("PUT", middleware.CORS(waltzCORS)),
		chiOne("gocors", "PUT", gocors.Handler(goCORS)),
		chiOne("rscors", "PUT", rscors.New(rsCORS).Handler),
	}},
	{"SecureHeaders", requestWith("GET"), 200, []middlewareImpl{
		waltzOne("GET", middleware.SecureHeaders(middleware.SecureHeadersOptions{})),
	}},
	{"BasicAuth", requestWith("GET", "Authorization", "Basic YWRtaW46Y29ycmVjdCBob3JzZSBiYXR0ZXJ5IHN0YXBsZQ=="), 200, []middlewareImpl{
		waltzOne("GET", middleware.BasicAuth(middleware.BasicAuthOptions{Users: users})),
		chiOne("chi", "GET", chimw.BasicAuth("Restricted", users)),
	}},
	{"BodyLimit", requestWith("POST"), 200, []middlewareImpl{
		waltzOne("POST", middleware.BodyLimit(1<<20)),
		chiOne("chi", "POST", chimw.RequestSize(1<<20)),
	}},
	{"RateLimit", requestWith("GET"), 200, []middlewareImpl{
		waltzOne("GET", middleware.RateLimit(middleware.RateLimitOptions{Limit: middleware.RatePolicy{Requests: bigLimit, Window: time.Second}})),
		chiOne("httprate", "GET", httprate.LimitByIP(bigLimit, time.Second)),
	}},
	{"CSRF", requestWith("POST", "Sec-Fetch-Site", "same-origin", "Origin", "https://api.example.com"), 200, []middlewareImpl{
		waltzOne("POST", middleware.CSRF(middleware.CSRFOptions{})),
		chiOne("stdlib", "POST", http.NewCrossOriginProtection().Handler),
	}},
}
