// Command drainserver is the server of the reliability suite's drain
// check: a waltz.Server speaking HTTP/1.1 and h2c on a loopback port,
// which it prints, with the bundled Logger (to io.Discard) and Recoverer,
// /readyz, /livez, and POST /work (reads its body, answers "done"). It
// exits 0 when Run returned nil after SIGTERM, 1 otherwise. The check
// builds it without the race detector, as a service is deployed, so that
// what it measures is the server's and not the detector's.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

func main() {
	drain := flag.Duration("drain", waltz.DrainDelay, "the Server's DrainDelay")
	grace := flag.Duration("grace", waltz.ShutdownTimeout, "the Server's ShutdownTimeout")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv := &waltz.Server{DrainDelay: *drain, ShutdownTimeout: *grace}
	srv.Protocols = &p
	srv.ErrorLog = log.New(io.Discard, "", 0)
	r := waltz.New()
	r.Use(middleware.Logger(slog.New(slog.DiscardHandler)), middleware.Recoverer)
	r.Get("/readyz", srv.Ready)
	r.Get("/livez", srv.Live)
	r.Post("/work", func(c *waltz.Context) error {
		if _, err := io.Copy(io.Discard, c.Request.Body); err != nil {
			return err
		}
		return c.Text(http.StatusOK, "done")
	})
	srv.Handler = r
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("listening", ln.Addr())
	if err := srv.Run(ctx, ln); err != nil {
		log.Fatal(err)
	}
	os.Exit(0)
}
