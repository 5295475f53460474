package waltz

import (
	"bufio"
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

// TestServeOptionsStar checks that "OPTIONS *" reaches the router through
// the server ListenAndServe runs (RFC 9110 section 9.3.7).
func TestServeOptionsStar(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := New()
	r.Get("/a", nopHandler)
	r.Delete("/b", nopHandler)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go serveListener(ctx, ln, r)

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got, want := res.Header.Get("Allow"), "DELETE, GET, HEAD, OPTIONS"; res.StatusCode != 204 || got != want {
		t.Errorf("got %d Allow %q, want 204 Allow %q", res.StatusCode, got, want)
	}
}
