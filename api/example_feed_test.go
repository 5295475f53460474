package api_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// NoteChanges is the event set of the notes feed: one field per event,
// and the reset event a Feed sends when it cannot resume without a gap.
type NoteChanges struct {
	Added *Note      `event:"added"`
	Reset *api.Reset `event:"reset" doc:"notes may have been missed: read them all again"`
}

// NotesFeedIn binds the reconnecting client's last event ID.
type NotesFeedIn struct {
	LastID string `header:"Last-Event-ID"`
}

// NotesFeedOut is the stream.
type NotesFeedOut struct {
	Body api.Events[NoteChanges]
}

// logTag matches the tag of a MemoryLog's IDs.
var logTag = regexp.MustCompile(`([0-9])-[0-9a-f]{8}`)

// A Feed publishes typed events to a log and streams them from it: the
// log's IDs are the stream's, a reconnecting client resumes after its
// Last-Event-ID, and an ID the log no longer keeps gets the reset event
// first.
func ExampleFeed() {
	feed := api.NewFeed[NoteChanges](api.NewMemoryLog(2)) // the last 2 events

	r := waltz.New()
	api.Op(r, http.MethodGet, "/notes/changes", func(c *waltz.Context, in *NotesFeedIn) (*NotesFeedOut, error) {
		return &NotesFeedOut{Body: feed.Follow(in.LastID)}, nil
	}, api.Operation{ID: "noteChanges"})

	ctx := context.Background()
	first, _ := feed.Publish(ctx, NoteChanges{Added: &Note{ID: 1, Text: "hi"}})
	second, _ := feed.Publish(ctx, NoteChanges{Added: &Note{ID: 2, Text: "ho"}})
	feed.Publish(ctx, NoteChanges{Added: &Note{ID: 3, Text: "hum"}})
	feed.Publish(ctx, NoteChanges{Added: &Note{ID: 4, Text: "ha"}})

	srv := httptest.NewServer(r)
	defer srv.Close()
	show := func(lastID string, lines int) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/notes/changes", nil)
		req.Header.Set("Last-Event-ID", lastID)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		br := bufio.NewReader(resp.Body)
		for range lines {
			line, _ := br.ReadString('\n')
			// An ID ends with the log's own tag, new at each start.
			fmt.Print(logTag.ReplaceAllString(line, "$1-…"))
		}
	}
	show(second, 4) // after the second: the third (and the fourth)
	fmt.Println("--")
	show(first, 8) // the second is no longer kept
	// Output:
	// id: 3-…
	// event: added
	// data: {"id":3,"text":"hum"}
	//
	// --
	// id: 0
	// event: reset
	// data: {"lastEventId":"1-…"}
	//
	// id: 3-…
	// event: added
	// data: {"id":3,"text":"hum"}
}
