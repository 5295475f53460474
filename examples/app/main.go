// Command app is a small notes app that uses waltz's bundled middleware the
// way the README shows it, on two origins, as a browser front end and its API
// are often deployed:
//
//   - the front end, on -addr (origin A): static files (index.html, app.css,
//     app.js) embedded in the binary, and /config.json, which tells the page
//     where the API is;
//   - the API, on -api-addr (origin B): JSON under /api (a session cookie,
//     notes, and an admin group behind a bearer token) and a server-sent
//     events stream at /events.
//
// The page on origin A calls origin B with credentials (the session cookie)
// and a custom header, so the API answers CORS preflights for origin A and
// trusts it for cross-origin writes; every other origin is refused. Run it
// with
//
//	go run ./examples/app -addr 127.0.0.1:8081 -api-addr 127.0.0.1:8082
//
// and open http://127.0.0.1:8081/. The admin API wants the -admin-token:
//
//	curl -H 'Authorization: Bearer dev-admin-token' 127.0.0.1:8082/api/admin/stats
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"syscall"

	"github.com/waltz-go/waltz"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8081", "address of the front end (origin A), host:port")
	apiAddr := flag.String("api-addr", "127.0.0.1:8082", "address of the API (origin B), host:port")
	frontOrigin := flag.String("front-origin", "", `origin the browser sees for the front end, such as "https://app.example.com" (default: http:// and -addr)`)
	apiOrigin := flag.String("api-origin", "", `origin the browser sees for the API, such as "https://api.example.com" (default: http:// and -api-addr)`)
	token := flag.String("admin-token", "dev-admin-token", "bearer token of the admin API")
	var proxies []netip.Prefix
	flag.Func("trusted-proxy", "network of a proxy in front of the app whose X-Forwarded-For is believed, such as 10.0.0.0/8; repeatable", func(s string) error {
		p, err := netip.ParsePrefix(s)
		proxies = append(proxies, p)
		return err
	})
	flag.Parse()
	cfg := Config{
		FrontOrigin:    orDefault(*frontOrigin, "http://"+*addr),
		APIOrigin:      orDefault(*apiOrigin, "http://"+*apiAddr),
		AdminToken:     *token,
		TrustedProxies: proxies,
		Log:            slog.New(slog.NewTextHandler(os.Stderr, nil)),
	}
	// Ctrl-C or SIGTERM lets requests in flight finish on both servers, then
	// exits.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // a second signal (Ctrl-C, SIGTERM) ends the process at once
	front, api := NewApp(cfg)
	errc := make(chan error, 2)
	go func() { errc <- waltz.ListenAndServe(ctx, *addr, front) }()
	go func() { errc <- waltz.ListenAndServe(ctx, *apiAddr, api) }()
	log.Printf("app: front end on %s, API on %s", cfg.FrontOrigin, cfg.APIOrigin)
	failed := false
	for range 2 {
		if err := <-errc; err != nil {
			stop() // one server failed: stop the other one too
			log.Print(err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
