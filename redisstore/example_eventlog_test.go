package redisstore_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/redisstore"
)

// Change is an event set: a creation, and the reset event of a stream
// that cannot resume without a gap.
type Change struct {
	Created *Item      `event:"created"`
	Reset   *api.Reset `event:"reset" doc:"changes may have been missed: read the list again"`
}

// Item is a creation's data.
type Item struct {
	Name string `json:"name"`
}

// ChangesIn binds the reconnecting client's last event ID.
type ChangesIn struct {
	LastID string `header:"Last-Event-ID"`
}

// ChangesOut is the stream.
type ChangesOut struct{ Body api.Events[Change] }

// A feed that every instance of a service shares: what one instance
// publishes, another's stream sends, with the Redis stream's ID.
func ExampleNewEventLog() {
	addr := exampleRedis // the shared Redis, host:port
	newInstance := func() (*waltz.Router, *api.Feed[Change]) {
		rdb := redis.NewClient(&redis.Options{
			Addr:                  addr,
			ContextTimeoutEnabled: true, // EventLogOptions.Timeout bounds every call
			MaxRetries:            -1,   // a failed call is not sent again within the deadline
			DialerRetries:         1,    // nor is a refused dial
		})
		feed := api.NewFeed[Change](redisstore.NewEventLog(rdb, "example:changes", redisstore.EventLogOptions{Keep: 10_000}))
		r := waltz.New()
		api.Op(r, http.MethodGet, "/changes", func(c *waltz.Context, in *ChangesIn) (*ChangesOut, error) {
			return &ChangesOut{Body: feed.Follow(in.LastID)}, nil
		}, api.Operation{})
		return r, feed
	}
	_, a := newInstance()
	b, _ := newInstance()

	id, err := a.Publish(context.Background(), Change{Created: &Item{Name: "first"}})
	fmt.Println(err)

	srv := httptest.NewServer(b)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/changes", nil)
	req.Header.Set("Last-Event-ID", api.LogStart)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for range 3 {
		line, _ := br.ReadString('\n')
		fmt.Print(strings.Replace(line, id, "<the ID Publish returned>", 1))
	}
	// Output:
	// <nil>
	// id: <the ID Publish returned>
	// event: created
	// data: {"name":"first"}
}
