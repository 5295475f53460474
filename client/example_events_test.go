package client_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

type (
	// Score is an event's data.
	Score struct {
		Team   string `json:"team"`
		Points int    `json:"points"`
	}
	// ScoreEvents is the event set of GET /scores.
	ScoreEvents struct {
		Scored *Score     `event:"scored"`
		Reset  *api.Reset `event:"reset"`
	}
	// ScoresIn binds the reconnecting client's last event ID.
	ScoresIn struct {
		LastID string `header:"Last-Event-ID"`
	}
	// ScoresOut is the stream.
	ScoresOut struct{ Body api.Events[ScoreEvents] }
)

// A typed event stream, read as typed values: the client reconnects by
// itself after a dropped connection, with the last event's ID, so each
// event comes once; the loop ends when ctx does, or when it stops.
func ExampleEvents() {
	feed := api.NewFeed[ScoreEvents](api.NewMemoryLog(100))
	r := waltz.New()
	api.Op(r, http.MethodGet, "/scores", func(c *waltz.Context, in *ScoresIn) (*ScoresOut, error) {
		return &ScoresOut{Body: feed.Follow(in.LastID)}, nil
	}, api.Operation{})
	srv := httptest.NewServer(r)
	defer srv.Close()
	for _, s := range []Score{{"red", 1}, {"blue", 2}, {"red", 3}} {
		feed.Publish(context.Background(), ScoreEvents{Scored: &s})
	}

	c := &client.Client{URL: srv.URL}
	scores := client.Events[ScoresIn, ScoreEvents](c, "GET /scores")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for ev, err := range scores(ctx, ScoresIn{LastID: api.LogStart}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		switch {
		case ev.Data.Scored != nil:
			fmt.Println(ev.Data.Scored.Team, ev.Data.Scored.Points)
		case ev.Data.Reset != nil:
			fmt.Println("missed some: read the scores again")
		}
		if n++; n == 2 {
			srv.CloseClientConnections() // dropped: the stream comes back
		}
		if n == 3 {
			break
		}
	}
	// Output:
	// red 1
	// blue 2
	// red 3
}
