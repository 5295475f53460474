package main

import (
	"embed"
	"io/fs"
	"log/slog"
	"net/http"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// Config is what the app needs to know about where it runs.
type Config struct {
	FrontOrigin string       // origin of the front end as the browser sees it, "http://127.0.0.1:8081"
	APIOrigin   string       // origin of the API as the browser sees it, "http://127.0.0.1:8082"
	AdminToken  string       // bearer token of the admin API
	Log         *slog.Logger // where request logs go
}

//go:embed static
var staticFiles embed.FS

// NewApp returns the two routers of the app: the front end, for origin A,
// and the API, for origin B.
func NewApp(cfg Config) (front, api *waltz.Router) {
	return newFront(cfg), newAPI(cfg, newNotes(), newSessions())
}

// newFront returns the front end's router: static files and /config.json.
func newFront(cfg Config) *waltz.Router {
	r := waltz.New()
	r.Use(
		middleware.Logger(cfg.Log),
		middleware.Recoverer,
	)
	r.Get("/config.json", func(c *waltz.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"api": cfg.APIOrigin})
	})
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the embedded directory is there at compile time
	}
	r.Handler(http.MethodGet, "/*path", http.FileServerFS(static))
	return r
}

// newAPI returns the API's router: JSON under /api, events at /events.
func newAPI(cfg Config, notes *notes, sessions *sessions) *waltz.Router {
	r := waltz.New()
	r.Use(
		middleware.Logger(cfg.Log),
		middleware.Recoverer,
	)
	// The event stream stays out of the /api group: a stream is meant to
	// outlive any per-request deadline.
	r.Get("/events", events)

	api := r.Group("/api")
	api.Post("/session", sessions.create)
	api.Get("/me", sessions.me)
	api.Get("/notes", notes.list)
	api.Post("/notes", notes.create)

	admin := api.Group("/admin")
	admin.Get("/stats", func(c *waltz.Context) error {
		return c.JSON(http.StatusOK, map[string]int{"notes": notes.len(), "sessions": sessions.len()})
	})
	return r
}
