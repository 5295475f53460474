package waltz

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestServeShutdown checks that a request in flight when ctx ends still gets
// its answer, and that serve then returns nil.
func TestServeShutdown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	r := New()
	r.Get("/slow", func(c *Context) error {
		close(started)
		time.Sleep(200 * time.Millisecond)
		return c.Text(http.StatusOK, "done")
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serveListener(ctx, ln, r) }()

	body := make(chan string, 1)
	go func() {
		res, err := http.Get("http://" + ln.Addr().String() + "/slow")
		if err != nil {
			body <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		body <- string(b)
	}()
	<-started
	cancel()
	if got := <-body; got != "done" {
		t.Errorf("in-flight request: got %q, want %q", got, "done")
	}
	if err := <-served; err != nil {
		t.Errorf("serveListener returned %v, want nil", err)
	}
}

func TestListenAndServeBadAddr(t *testing.T) {
	if err := ListenAndServe(context.Background(), "127.0.0.1:-1", New()); err == nil {
		t.Error("got nil error for a bad address")
	}
}
