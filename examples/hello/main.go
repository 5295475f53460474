// Command hello serves the classic Polka benchmark app with waltz:
//
//	GET /          → "Hello"
//	GET /user/:id  → "Hello user <id>"
//
// both as text/plain; charset=utf-8. Run it with
//
//	go run ./examples/hello -addr :3000
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/waltz-go/waltz"
)

func main() {
	addr := flag.String("addr", ":3000", "address to listen on, host:port")
	flag.Parse()
	// Ctrl-C or SIGTERM lets requests in flight finish, then exits 0.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // a second signal (Ctrl-C, SIGTERM) ends the process at once
	if err := run(ctx, *addr); err != nil {
		log.Fatal(err)
	}
}

// run listens on addr, says so once the address is bound, and serves until
// ctx is done.
func run(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	log.Printf("hello: listening on %s", ln.Addr())
	srv := &waltz.Server{}
	srv.Handler = newRouter()
	return srv.Run(ctx, ln)
}

// newRouter returns the app's routes, apart from main so tests can serve them.
func newRouter() *waltz.Router {
	r := waltz.New()
	r.Get("/", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "Hello")
	})
	r.Get("/user/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "Hello user "+c.Param("id"))
	})
	return r
}
