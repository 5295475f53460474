// Command server serves the two routes of the hello example with one router,
// for load.sh to drive end to end:
//
//	GET /          -> Hello
//	GET /user/:id  -> Hello user <id>
//
// The apps are benchmarks.HelloApps.
//
//	go run ./cmd/server -router waltz -addr 127.0.0.1:8080
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/waltz-go/waltz/benchmarks"
)

var handlers = benchmarks.HelloApps

func main() {
	name := flag.String("router", "waltz", "raw, waltz, httprouter, chi, gin, echo or servemux")
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (keep it on loopback)")
	flag.Parse()
	mk, ok := handlers[*name]
	if !ok {
		fmt.Fprintf(os.Stderr, "server: unknown router %q\n", *name)
		os.Exit(2)
	}
	srv := &http.Server{
		Addr:              *addr,
		Handler:           mk(),
		ReadHeaderTimeout: 10 * time.Second,
	}
	log.Fatal(srv.ListenAndServe())
}
