package bookmarks

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// The feed of changes: GET /api/changes is a stream of server-sent
// events, one per bookmark created or deleted, each with the ID the
// feed's log gave it. A client that reconnects sends the last ID it saw
// as Last-Event-ID and gets what it missed first, then the changes as
// they happen; "0" reads every change the log keeps. The log is in
// memory (the last feedKeep changes) unless the command is given a
// shared one (a Redis stream: redisstore/cmd/bookmarks), so that a
// change made through one instance reaches the streams of all, and a
// client resumes on any of them. A client whose ID the log no longer
// keeps (or never had: another log's, or one from before a restart) gets
// a reset event first: changes may be missing, read the list again.

// feedKeep is how many past changes the memory log keeps for clients
// that reconnect.
const feedKeep = 1000

// Change is one event of the feed: exactly one of its fields is set.
type Change struct {
	Created *Bookmark  `event:"created" doc:"a bookmark was saved"`
	Deleted *Deleted   `event:"deleted" doc:"a bookmark was deleted"`
	Reset   *api.Reset `event:"reset" doc:"the feed cannot go on right after the client's Last-Event-ID: changes may be missing, so read the list again; the changes the log keeps follow, from the oldest"`
}

// Deleted names a deleted bookmark.
type Deleted struct {
	ID int64 `json:"id" minimum:"1" example:"1"`
}

// FeedInput is the input of GET /api/changes.
type FeedInput struct {
	LastID string `header:"Last-Event-ID" maxLength:"64" pattern:"^[0-9][-0-9a-f]*$" doc:"the id of the last change the client saw: the feed starts after it; 0 for every change kept"`
}

// FeedOutput is the answer of GET /api/changes.
type FeedOutput struct {
	Body api.Events[Change] `doc:"The changes, as server-sent events, each with the feed's ID for it as its id."`
}

// feed is the feed of changes on its log, and the state of the log
// lines of its failed publications.
type feed struct {
	*api.Feed[Change]
	loggedAt atomic.Int64 // Unix nanoseconds of the last line
	unlogged atomic.Int64 // failures since, without a line
}

// publish publishes ch for the request c made. A change the log cannot
// take (its store is unreachable) is logged, at most one line a second,
// and the request's answer stands: the bookmark is saved.
func (f *feed) publish(c *waltz.Context, ch Change) {
	_, err := f.Publish(c.Request.Context(), ch)
	if err == nil {
		return
	}
	now := time.Now().UnixNano()
	last := f.loggedAt.Load()
	if last != 0 && now-last < int64(time.Second) || !f.loggedAt.CompareAndSwap(last, now) {
		f.unlogged.Add(1)
		return
	}
	c.Logger().ErrorContext(context.WithoutCancel(c.Request.Context()), "bookmarks: a change did not reach the feed",
		"err", err, "unlogged", f.unlogged.Swap(0))
}

// registerFeed registers GET /changes on g, the /api group.
func registerFeed(g *waltz.Group, h *handlers) {
	api.Op(g, http.MethodGet, "/changes", h.changes, api.Operation{
		ID: "listChanges", Summary: "Follow the changes, as server-sent events", Tags: []string{"changes"},
	})
}

func (h *handlers) changes(c *waltz.Context, in *FeedInput) (*FeedOutput, error) {
	return &FeedOutput{Body: h.feed.Follow(in.LastID)}, nil
}
