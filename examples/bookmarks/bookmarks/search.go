package bookmarks

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// The search and the export: QUERY /api/search finds bookmarks by tags,
// text and the time they were made, a query too structured for a query
// string, sent as a JSON body with the QUERY method (RFC 10008), which is
// safe and idempotent as a GET is: a client may send it again, and a
// cache may keep its answer. GET /api/export streams every bookmark as
// JSON Lines, one a line, as it is written (those of some tags, with
// ?tag=): a client reads them one by one, and may stop when it has what
// it wants.

// Search is the query of QUERY /api/search: every rule is one more
// filter, and a bookmark must pass them all.
type Search struct {
	Tags  []string   `json:"tags,omitempty" maxItems:"8" uniqueItems:"true" doc:"only bookmarks that carry every one of these tags"`
	Text  string     `json:"text,omitempty" maxLength:"200" doc:"only bookmarks whose title or URL holds this text, in any letter case"`
	From  *time.Time `json:"from,omitempty" doc:"only bookmarks saved at or after this time (RFC 3339)"`
	To    *time.Time `json:"to,omitempty" doc:"only bookmarks saved before this time (RFC 3339)"`
	Limit int        `json:"limit,omitempty" minimum:"1" maximum:"100" default:"20" doc:"at most this many bookmarks"`
}

// SearchInput is the input of QUERY /api/search: the query, as JSON or
// as the form a browser posts. A QUERY without a Content-Type is a 400;
// of another media type, a 415 whose Accept-Query lists these two.
type SearchInput struct {
	Body Search `consumes:"json,form"`
}

// Validate checks what tags cannot say: the range is a range.
func (in *SearchInput) Validate(c *waltz.Context) []waltz.FieldError {
	if f, t := in.Body.From, in.Body.To; f != nil && t != nil && t.Before(*f) {
		return []waltz.FieldError{{Location: "body.to", Keyword: "after", Message: "must not be before from"}}
	}
	return nil
}

// SearchOutput is the answer of QUERY /api/search: a page of what it
// found, and the validators of the store it searched, which a client
// revalidates the same query with (If-None-Match, If-Modified-Since):
// 304 while no bookmark changed. The router makes the ETag cover the
// query, so another query never matches it.
type SearchOutput struct {
	ETag     string    `header:"ETag" doc:"the store's version and the query's digest"`
	Modified time.Time `header:"Last-Modified" doc:"when a bookmark last changed"`
	Body     Page
}

// ExportInput is the input of GET /api/export.
type ExportInput struct {
	Tags []string `query:"tag" maxItems:"8" doc:"only bookmarks that carry every one of these tags"`
}

// ExportOutput is the answer of GET /api/export.
type ExportOutput struct {
	Body api.Lines[Bookmark] `doc:"Every bookmark, oldest first, one JSON object a line (JSON Lines), each sent as it is written."`
}

// registerSearch registers the search and the export on g, the /api
// group.
func registerSearch(g *waltz.Group, h *handlers) {
	api.Op(g, waltz.MethodQuery, "/search", h.search, api.Operation{
		ID: "searchBookmarks", Summary: "Find bookmarks by tags, text and date", Tags: []string{"bookmarks"},
	})
	api.Op(g, http.MethodGet, "/export", h.export, api.Operation{
		ID: "exportBookmarks", Summary: "Every bookmark, as JSON Lines", Tags: []string{"bookmarks"},
	})
}

func (h *handlers) search(c *waltz.Context, in *SearchInput) (*SearchOutput, error) {
	items, total, version, changed := h.store.Search(in.Body)
	return &SearchOutput{ETag: `"s` + strconv.FormatInt(version, 10) + `"`, Modified: changed, Body: Page{Items: items, Total: total}}, nil
}

func (h *handlers) export(c *waltz.Context, in *ExportInput) (*ExportOutput, error) {
	all := h.store.All(in.Tags)
	return &ExportOutput{Body: func(s *api.LineSender[Bookmark]) error {
		for _, b := range all {
			if err := s.Send(b); err != nil {
				return nil // the client stopped reading: so do we
			}
		}
		return nil
	}}, nil
}

// Search returns at most q.Limit bookmarks that pass every filter of q,
// oldest first, how many pass in all, and the store's version (its count
// of changes) and when it last changed.
func (s *Store) Search(q Search) (items []Bookmark, total int, version int64, changed time.Time) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	items = []Bookmark{}
	text := strings.ToLower(q.Text)
	for _, b := range s.items {
		switch {
		case !hasAll(b.Tags, q.Tags),
			text != "" && !strings.Contains(strings.ToLower(b.Title), text) && !strings.Contains(strings.ToLower(b.URL), text),
			q.From != nil && b.Created.Before(*q.From),
			q.To != nil && !b.Created.Before(*q.To):
			continue
		}
		if len(items) < q.Limit {
			items = append(items, clone(b))
		}
		total++
	}
	return items, total, s.changes, s.changed
}

// All returns every bookmark that carries all of tags, oldest first.
func (s *Store) All(tags []string) []Bookmark {
	s.mu.RLock()
	defer s.mu.RUnlock()
	all := make([]Bookmark, 0, len(s.items))
	for _, b := range s.items {
		if hasAll(b.Tags, tags) {
			all = append(all, clone(b))
		}
	}
	return all
}
