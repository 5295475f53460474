package waltz_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/waltz-go/waltz"
)

// A Server with its grace period set, listening before it says so; the
// context ends as signal.NotifyContext's would on Ctrl-C.
func ExampleServer() {
	r := waltz.New()
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "Hello") })
	ctx, stop := context.WithCancel(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("listening")
	srv := &waltz.Server{ShutdownTimeout: 5 * time.Second}
	srv.Handler = r
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, ln) }()

	res, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.StatusCode, string(body))
	stop()
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	fmt.Println("shut down cleanly")
	// Output:
	// listening
	// 200 Hello
	// shut down cleanly
}
