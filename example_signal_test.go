//go:build unix

package waltz_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/waltz-go/waltz"
)

// The main of the ListenAndServe documentation, on a loopback port, with
// the Ctrl-C sent by the example itself: ListenAndServe returns nil, so
// the program exits 0.
func ExampleListenAndServe() {
	r := waltz.New()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // a second signal (Ctrl-C, SIGTERM) ends the process at once
	time.AfterFunc(100*time.Millisecond, func() { syscall.Kill(os.Getpid(), syscall.SIGINT) })
	if err := waltz.ListenAndServe(ctx, "127.0.0.1:0", r); err != nil {
		log.Fatal(err)
	}
	fmt.Println("shut down cleanly")
	// Output:
	// shut down cleanly
}
