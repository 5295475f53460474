package main

import (
	"fmt"
	"time"

	"github.com/waltz-go/waltz"
)

// eventCount is how many events one /events stream sends before it ends.
const eventCount = 3

// eventGap is the pause between two events.
const eventGap = 50 * time.Millisecond

// events answers GET /events with a server-sent events stream (WHATWG HTML,
// "Server-sent events") of eventCount "tick" events, one every eventGap,
// then ends. It stops early when the client goes away.
func events(c *waltz.Context) error {
	es, err := c.EventStream()
	if err != nil {
		return err
	}
	t := time.NewTicker(eventGap)
	defer t.Stop()
	for i := 1; ; i++ {
		ev := waltz.Event{ID: fmt.Sprint(i), Event: "tick", Data: fmt.Sprintf(`{"n":%d}`, i)}
		if err := es.Send(ev); err != nil {
			return nil // the client is gone: nobody to answer
		}
		if i == eventCount {
			return nil
		}
		select {
		case <-es.Done():
			return nil
		case <-t.C:
		}
	}
}
