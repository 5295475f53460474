package benchmarks

import (
	"io"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/julienschmidt/httprouter"
	"github.com/labstack/echo/v4"
	"github.com/waltz-go/waltz"
)

// The hello app, served by cmd/server for load.sh and run in-process by
// cmd/instr for callgrind:
//
//	GET /          -> Hello
//	GET /user/:id  -> Hello user <id>
//
// Each router is used the way its own documentation writes a handler, since
// that is the code a user would run. "raw" is plain net/http with no router:
// the floor every router is compared with.

// TextPlain is the Content-Type every hello app sends.
const TextPlain = "text/plain; charset=utf-8"

// HelloApps builds the hello app with each router, by name: raw, waltz,
// httprouter, chi, gin, echo, servemux.
var HelloApps = map[string]func() http.Handler{
	"raw":        raw,
	"waltz":      waltzApp,
	"httprouter": httprouterApp,
	"chi":        chiApp,
	"gin":        ginApp,
	"echo":       echoApp,
	"servemux":   servemuxApp,
}

func raw() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		switch p := r.URL.Path; {
		case p == "/":
			w.Header().Set("Content-Type", TextPlain)
			io.WriteString(w, "Hello")
		case strings.HasPrefix(p, "/user/") && len(p) > len("/user/") && !strings.Contains(p[len("/user/"):], "/"):
			w.Header().Set("Content-Type", TextPlain)
			io.WriteString(w, "Hello user "+p[len("/user/"):])
		default:
			http.NotFound(w, r)
		}
	})
}

func waltzApp() http.Handler {
	r := waltz.New()
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "Hello") })
	r.Get("/user/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "Hello user "+c.Param("id"))
	})
	return r
}

func httprouterApp() http.Handler {
	r := httprouter.New()
	r.GET("/", func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		w.Header().Set("Content-Type", TextPlain)
		io.WriteString(w, "Hello")
	})
	r.GET("/user/:id", func(w http.ResponseWriter, _ *http.Request, ps httprouter.Params) {
		w.Header().Set("Content-Type", TextPlain)
		io.WriteString(w, "Hello user "+ps.ByName("id"))
	})
	return r
}

func chiApp() http.Handler {
	r := chi.NewRouter()
	r.Get("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", TextPlain)
		io.WriteString(w, "Hello")
	})
	r.Get("/user/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", TextPlain)
		io.WriteString(w, "Hello user "+chi.URLParam(r, "id"))
	})
	return r
}

func ginApp() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New() // no logger or recovery middleware, like the others
	r.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "Hello") })
	r.GET("/user/:id", func(c *gin.Context) { c.String(http.StatusOK, "Hello user "+c.Param("id")) })
	return r
}

func echoApp() http.Handler {
	e := echo.New()
	// echo's c.String sends "charset=UTF-8"; same length, same meaning.
	e.GET("/", func(c echo.Context) error { return c.String(http.StatusOK, "Hello") })
	e.GET("/user/:id", func(c echo.Context) error {
		return c.String(http.StatusOK, "Hello user "+c.Param("id"))
	})
	return e
}

func servemuxApp() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", TextPlain)
		io.WriteString(w, "Hello")
	})
	mux.HandleFunc("GET /user/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", TextPlain)
		io.WriteString(w, "Hello user "+r.PathValue("id"))
	})
	return mux
}
