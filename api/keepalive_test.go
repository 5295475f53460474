package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestFeedPing: a stream with no event sends ": ping" every Ping, and a
// negative Ping sends none; a ping whose write fails ends the stream's
// wait on the log at once, though the request's context is not done.
func TestFeedPing(t *testing.T) {
	for _, tt := range []struct {
		ping  time.Duration
		pings bool
	}{{30 * time.Millisecond, true}, {-1, false}} {
		feed := NewFeed[fdChange](NewMemoryLog(10))
		feed.Ping = tt.ping
		srv := httptest.NewServer(fdRouter(feed))
		br := fdStream(t, srv, LogStart)
		got := make(chan string, 1)
		go func() {
			line, err := br.ReadString('\n')
			if err != nil {
				line = err.Error()
			}
			got <- line
		}()
		select {
		case line := <-got:
			if !tt.pings || line != ": ping\n" {
				t.Errorf("Ping %v: the stream sent %q", tt.ping, line)
			}
		case <-time.After(300 * time.Millisecond):
			if tt.pings {
				t.Errorf("Ping %v: no ping in 300 ms", tt.ping)
			}
		}
		srv.CloseClientConnections()
		srv.Close()
	}

	// A writer that fails from its first ping on, under a context that
	// never ends: the wait on the log must end by the ping alone.
	feed := NewFeed[fdChange](NewMemoryLog(10))
	feed.Ping = 20 * time.Millisecond
	var writes atomic.Int32
	w := &failingWriter{flushNopWriter: flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}, writes: &writes}
	done := make(chan error, 1)
	go func() {
		done <- feed.Follow(LogStart)(&EventSender[fdChange]{es: testStream(w, context.Background()), plan: feed.plan})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Follow returned %v after its client went, want nil", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Follow still waits on the log 2 s after its ping failed")
	}
}

// failingWriter fails every write of a ping.
type failingWriter struct {
	flushNopWriter
	writes *atomic.Int32
}

func (w *failingWriter) Write(b []byte) (int, error) {
	w.writes.Add(1)
	if strings.HasPrefix(string(b), ": ping") {
		return 0, errors.New("the client has gone")
	}
	return len(b), nil
}
