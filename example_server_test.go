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

// pingDB stands for a database handle's PingContext.
type pingDB struct{}

func (pingDB) PingContext(ctx context.Context) error { return ctx.Err() }

// A Server's readiness and liveness probes: Ready answers 200 while its
// checks pass, and 503 from the moment Run's context ends, while the
// server drains (keeps serving, closing each connection after its answer)
// before it shuts down.
func ExampleServer_Ready() {
	db := pingDB{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	r := waltz.New()
	srv := &waltz.Server{ReadyChecks: []waltz.ReadyCheck{
		{Name: "postgres", Timeout: time.Second, Check: db.PingContext},
	}}
	srv.DrainDelay = 200 * time.Millisecond // the example's; 5 s by default

	r.Get("/readyz", srv.Ready) // 200 "ready", or 503 "not ready: postgres timed out"
	r.Get("/livez", srv.Live)   // 200 while the process answers, during the drain too
	srv.Handler = r

	done := make(chan error, 1)
	go func() {
		err := srv.Run(ctx, ln) // ctx from signal.NotifyContext(..., syscall.SIGTERM)
		done <- err
	}()
	get := func(path string) (int, []byte) {
		res, err := http.Get("http://" + ln.Addr().String() + path)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, body
	}
	probe := func(path string) {
		code, body := get(path)
		fmt.Printf("%s %d %s", path, code, body)
	}
	probe("/readyz")
	stop() // SIGTERM
	// The drain starts as Run sees ctx end, a moment later: a load
	// balancer probes until it sees the 503.
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if code, _ := get("/readyz"); code == http.StatusServiceUnavailable {
			break
		}
	}
	probe("/readyz")
	probe("/livez")
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	fmt.Println("drained and shut down")
	// Output:
	// /readyz 200 ready
	// /readyz 503 not ready: draining
	// /livez 200 live
	// drained and shut down
}
