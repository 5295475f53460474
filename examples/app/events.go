package main

import (
	"fmt"
	"net/http"
	"time"

	"github.com/waltz-go/waltz"
)

// eventCount is how many events one /events stream sends before it ends.
const eventCount = 3

// eventGap is the pause between two events.
const eventGap = 50 * time.Millisecond

// events answers GET /events with a server-sent events stream (WHATWG HTML,
// "Server-sent events") of eventCount "tick" events, one every eventGap,
// each flushed to the client as it is written, then ends. It stops early
// when the client goes away.
func events(c *waltz.Context) error {
	w := c.Writer
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	rc := http.NewResponseController(w)
	t := time.NewTicker(eventGap)
	defer t.Stop()
	for i := 1; i <= eventCount; i++ {
		if _, err := fmt.Fprintf(w, "event: tick\nid: %d\ndata: {\"n\":%d}\n\n", i, i); err != nil {
			return err
		}
		if err := rc.Flush(); err != nil {
			return err
		}
		if i == eventCount {
			break
		}
		select {
		case <-c.Request.Context().Done():
			return nil
		case <-t.C:
		}
	}
	return nil
}
