package main

import (
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

// Config is what the app needs to know about where it runs.
type Config struct {
	FrontOrigin    string                // origin of the front end as browsers see it, "http://127.0.0.1:8081"
	APIOrigin      string                // origin of the API as browsers see it, "http://127.0.0.1:8082"
	AdminToken     string                // bearer token of the admin API
	TrustedProxies []netip.Prefix        // proxies whose X-Forwarded-For is believed; none by default
	RateLimit      middleware.RatePolicy // requests per client to /api; zero means 100 a minute
	Timeout        time.Duration         // deadline of an /api request; zero means 5 seconds
	Log            *slog.Logger          // where request logs go
}

//go:embed static
var staticFiles embed.FS

// NewApp returns the two routers of the app: the front end, for origin A,
// and the API, for origin B.
func NewApp(cfg Config) (front, api *waltz.Router) {
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	return newFront(cfg), newAPI(cfg, newNotes(), newSessions())
}

// common returns the middleware both origins start with, in the order the
// README recommends.
func common(cfg Config, secure middleware.SecureHeadersOptions) []waltz.Middleware {
	return []waltz.Middleware{
		middleware.RealIP(middleware.RealIPOptions{TrustedProxies: cfg.TrustedProxies}),
		middleware.RequestID(middleware.RequestIDOptions{}),
		middleware.Logger(cfg.Log),
		middleware.Recoverer,
		middleware.SecureHeaders(secure),
	}
}

// newFront returns the front end's router: static files and /config.json.
func newFront(cfg Config) *waltz.Router {
	r := waltz.New()
	r.Use(common(cfg, middleware.SecureHeadersOptions{
		// The page's scripts and styles come from its own origin, and it
		// talks to the API's.
		ContentSecurityPolicy: "default-src 'self'; connect-src 'self' " + cfg.APIOrigin +
			"; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
	})...)
	// The defaults cover HTML, CSS, JavaScript and JSON.
	r.Use(middleware.Compress(middleware.CompressOptions{}))
	r.Get("/config.json", func(c *waltz.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"api": cfg.APIOrigin})
	})
	static, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the embedded directory is there at compile time
	}
	// embed.FS has no modification times: ETag lets browsers revalidate,
	// and no-cache makes them do it on every load.
	r.Get("/*path", waltz.FileServer(static, waltz.FileServerOptions{ETag: true, CacheControl: "no-cache"}))
	return r
}

// newAPI returns the API's router: JSON under /api, events at /events.
func newAPI(cfg Config, notes *notes, sessions *sessions) *waltz.Router {
	r := waltz.New()
	r.Use(common(cfg, middleware.SecureHeadersOptions{})...)
	r.Use(
		// The front end's scripts may call with the session cookie and
		// the X-Client header, and read the request ID.
		middleware.CORS(middleware.CORSOptions{
			AllowedOrigins:   []string{cfg.FrontOrigin},
			AllowedMethods:   []string{http.MethodGet, http.MethodPost},
			AllowedHeaders:   []string{"Content-Type", "X-Client"},
			ExposedHeaders:   []string{"X-Request-Id"},
			AllowCredentials: true,
			MaxAge:           10 * time.Minute,
		}),
		// Browsers' writes from other origins are refused, but the
		// front end's.
		middleware.CSRF(middleware.CSRFOptions{TrustedOrigins: []string{cfg.FrontOrigin}}),
		// Outermost of the middleware that touch the body, so error pages
		// and the event stream are compressed too.
		middleware.Compress(middleware.CompressOptions{}),
	)
	// The event stream stays out of the /api group: a stream outlives any
	// per-request deadline.
	r.Get("/events", events)

	g := r.Group("/api",
		middleware.RateLimit(middleware.RateLimitOptions{Limit: cfg.RateLimit}),
		middleware.BodyLimit(64<<10),
		middleware.Timeout(middleware.TimeoutOptions{Duration: cfg.Timeout}),
		// Inside Compress, so the tag is the identity body's.
		middleware.ETag(middleware.ETagOptions{}),
	)
	g.Post("/session", sessions.create)
	g.Get("/me", sessions.me)
	g.Get("/notes", notes.list)
	g.Post("/notes", notes.create)

	admin := g.Group("/admin", middleware.BearerAuth(middleware.BearerAuthOptions{
		Realm: "admin", Tokens: []string{cfg.AdminToken},
	}))
	admin.Get("/stats", func(c *waltz.Context) error {
		return c.JSON(http.StatusOK, map[string]int{"notes": notes.len(), "sessions": sessions.len()})
	})
	return r
}
