package bookmarks

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// The feed of changes: GET /api/changes is a stream of server-sent
// events, one per bookmark created or deleted, each numbered. A client
// that reconnects sends the last number it saw as Last-Event-ID and gets
// what it missed first (of the last feedKeep changes), then the changes
// as they happen.

// feedKeep is how many past changes the feed keeps for clients that
// reconnect.
const feedKeep = 1000

// Change is one event of the feed: exactly one of its fields is set.
type Change struct {
	Created *Bookmark `event:"created" doc:"a bookmark was saved"`
	Deleted *Deleted  `event:"deleted" doc:"a bookmark was deleted"`
}

// Deleted names a deleted bookmark.
type Deleted struct {
	ID int64 `json:"id" minimum:"1" example:"1"`
}

// FeedInput is the input of GET /api/changes.
type FeedInput struct {
	LastID int64 `header:"Last-Event-ID" minimum:"0" doc:"the number of the last change the client saw: the feed starts after it"`
}

// FeedOutput is the answer of GET /api/changes.
type FeedOutput struct {
	Body api.Events[Change] `doc:"The changes, as server-sent events, each with its number as its id."`
}

// Feed keeps the last changes, numbered from 1, and wakes the streams
// that wait for the next one. It is safe for concurrent use.
type Feed struct {
	mu      sync.Mutex
	last    int64    // the number of the last change
	changes []Change // the last feedKeep changes, the last one last
	next    chan struct{}
}

func newFeed() *Feed { return &Feed{next: make(chan struct{})} }

// Publish adds ch to the feed and wakes every stream.
func (f *Feed) Publish(ch Change) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last++
	f.changes = append(f.changes, ch)
	if len(f.changes) > feedKeep {
		f.changes = f.changes[len(f.changes)-feedKeep:]
	}
	close(f.next)
	f.next = make(chan struct{})
}

// after returns the changes numbered after n that the feed still keeps,
// the number of the first of them, and a channel closed at the next
// change.
func (f *Feed) after(n int64) ([]Change, int64, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	first := f.last - int64(len(f.changes)) + 1
	if n >= first { // not n+1 > first: n may be the largest int64
		first = min(n, f.last) + 1
	}
	kept := f.changes[len(f.changes)-int(f.last-first+1):]
	return kept, first, f.next
}

// registerFeed registers GET /changes on g, the /api group.
func registerFeed(g *waltz.Group, h *handlers) {
	api.Op(g, http.MethodGet, "/changes", h.changes, api.Operation{
		ID: "listChanges", Summary: "Follow the changes, as server-sent events", Tags: []string{"changes"},
	})
}

func (h *handlers) changes(c *waltz.Context, in *FeedInput) (*FeedOutput, error) {
	return &FeedOutput{Body: func(s *api.EventSender[Change]) error {
		seen := in.LastID
		for {
			changes, first, next := h.feed.after(seen)
			for i, ch := range changes {
				if err := s.Send(strconv.FormatInt(first+int64(i), 10), ch); err != nil {
					return nil // the client left: the stream is over
				}
			}
			// A client that names a change this feed never had (from
			// before a restart) follows from the last one on.
			seen = first + int64(len(changes)) - 1
			select {
			case <-s.Done():
				return nil
			case <-next:
			}
		}
	}}, nil
}
