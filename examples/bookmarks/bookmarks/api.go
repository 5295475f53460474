// Package api is the bookmarks example's HTTP API, apart from its command
// so that tests in other modules (the OpenAPI checks) can serve the very
// router the command serves. Every operation is a typed one: its input
// type's tags say where each value comes from and what it must be, and
// the router derives binding, validation, problem details and the OpenAPI
// document from them.
package bookmarks

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/apidocs"
	"github.com/waltz-go/waltz/middleware"
)

// New returns the API's router: reads are open, writes need
// "Authorization: Bearer <token>" (RFC 6750), every error is an RFC 9457
// problem document, GET /openapi.json serves the OpenAPI 3.1 document,
// GET /openapi-3.2.json the 3.2 one, and GET /docs the same as a page.
// Its feed of changes keeps the last 1,000 in memory.
func New(store *Store, token string) *waltz.Router {
	return NewWithLog(store, token, api.NewMemoryLog(feedKeep))
}

// NewWithLog returns New's router with its feed of changes on log: a
// log that every instance shares (a Redis stream) makes a change made
// through one instance reach the feeds of all.
func NewWithLog(store *Store, token string, log api.EventLog) *waltz.Router {
	r := waltz.New()
	// An image and its form fit in 320 KiB; a bookmark is small, and its
	// writes take 16 KiB (BodyLimit below).
	r.MaxBodyBytes = 320 << 10
	r.DisallowUnknownFields = true
	r.RenderError = waltz.RenderProblem
	h := &handlers{store: store, feed: &feed{Feed: api.NewFeed[Change](log)}}

	g := r.Group("/api")
	// Reads answer JSON or XML, as the request's Accept field prefers.
	api.Op(g, http.MethodGet, "/bookmarks", h.list, api.Operation{
		ID: "listBookmarks", Summary: "List bookmarks, newest last", Tags: []string{"bookmarks"},
		Produces: reads,
	})
	api.Op(g, http.MethodGet, "/bookmarks/:id", h.get, api.Operation{
		ID: "getBookmark", Summary: "Read one bookmark", Tags: []string{"bookmarks"},
		Errors: []int{http.StatusNotFound}, Produces: reads,
	})
	registerDownloads(g, h)
	registerSearch(g, h)
	// BearerAuth declares itself to the document: its security scheme, and
	// its answers (401 without a valid token, 400 for a malformed one).
	writes := g.With(middleware.BearerAuth(middleware.BearerAuthOptions{Realm: "bookmarks", Tokens: []string{token}}))
	// A create sent with an Idempotency-Key runs once: a retry with the
	// same key and body (the first answer lost on the way) gets the first
	// answer again, marked Idempotent-Replayed, and creates nothing. Keys
	// are scoped by the caller's token and kept 24 hours in memory.
	creates := writes.With(middleware.BodyLimit(16<<10), middleware.Idempotency(middleware.IdempotencyOptions{}))
	api.Op(creates, http.MethodPost, "/bookmarks", h.create, api.Operation{
		ID: "createBookmark", Summary: "Save a bookmark", Tags: []string{"bookmarks"},
		Status: http.StatusCreated,
	})
	// An edit is a JSON Merge Patch (RFC 7396) that must say which
	// version it changes: If-Match with the ETag a GET gave. Without it
	// the answer is 428, with a stale one 412 (another edit came first,
	// and this one would overwrite it unseen), both before the handler
	// runs; an id that names nothing is a 404 first.
	api.Op(writes.With(middleware.BodyLimit(16<<10)), http.MethodPatch, "/bookmarks/:id", h.edit, api.Operation{
		ID: "editBookmark", Summary: "Change a bookmark", Tags: []string{"bookmarks"},
		Errors: []int{http.StatusNotFound}, Current: h.current,
	})
	api.Op(writes, http.MethodDelete, "/bookmarks/:id", h.remove, api.Operation{
		ID: "deleteBookmark", Summary: "Delete a bookmark", Tags: []string{"bookmarks"},
		Errors: []int{http.StatusNotFound},
	})
	registerImage(writes, h)
	info := api.Info{
		Title:       "Bookmarks",
		Version:     "1.0.0",
		Description: "Save links, tag them, find them again.",
		License:     "MIT",
	}
	// The document's own routes are not the API's: Hide leaves them out
	// of it.
	docs := r.With(api.Hide)
	docs.Get("/openapi.json", api.ServeOpenAPI(r, info))
	// The same operations in OpenAPI 3.2, which also describes the
	// QUERY search (3.1 has no field for it), the stream's items and the
	// groups as a tag hierarchy.
	info32 := info
	info32.OpenAPI = "3.2"
	docs.Get("/openapi-3.2.json", api.ServeOpenAPI(r, info32))
	// The same document as a page a person reads, which loads nothing
	// from elsewhere: GET /docs, and its stylesheet at /docs?css.
	docs.Handler(http.MethodGet, "/docs", apidocs.Handler(r, info))
	return r
}

// ListInput is the query of GET /api/bookmarks.
type ListInput struct {
	Tags    []string `query:"tag" maxItems:"8" doc:"only bookmarks that carry every one of these tags"`
	Without []string `query:"without" explode:"false" maxItems:"8" doc:"leave out bookmarks that carry any of these tags, comma-separated: without=draft,old"`
	Limit   int      `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"at most this many bookmarks"`
	Offset  int      `query:"offset" minimum:"0" maximum:"1000000" default:"0" doc:"skip this many first"`
}

// Page is one page of a list.
type Page struct {
	Items []Bookmark `json:"items" xml:"items"`
	Total int        `json:"total" xml:"total" minimum:"0" doc:"how many bookmarks match, on every page"`
}

// reads are the media types of the reads' answers, JSON first: a client
// that sends no Accept field gets JSON.
var reads = []string{"application/json", "application/xml"}

// ListOutput is the answer of GET /api/bookmarks.
type ListOutput struct{ Body Page }

// NewBookmark is the body of POST /api/bookmarks.
type NewBookmark struct {
	URL   string   `json:"url" required:"true" format:"uri" maxLength:"2048" example:"https://go.dev/doc/"`
	Title string   `json:"title" required:"true" minLength:"1" maxLength:"200" example:"Go documentation"`
	Tags  []string `json:"tags,omitempty" maxItems:"8" uniqueItems:"true"`
	// Pinned is sent as a string, "true" or "false" (the ,string option),
	// as some clients' forms and spreadsheets write it; the document says
	// so.
	Pinned bool `json:"pinned,string,omitempty" doc:"keep it at the top"`
}

// CreateInput is the input of POST /api/bookmarks: a JSON body, or the
// same members as an HTML form posts them. Any other media type is a 415
// that lists these two in Accept-Post.
type CreateInput struct {
	Body NewBookmark `consumes:"json,form"`
}

// CreateOutput is the answer of POST /api/bookmarks: 201 Created, the
// bookmark, and where it lives (RFC 9110 section 15.3.2).
type CreateOutput struct {
	Location string `header:"Location"`
	Body     Bookmark
}

// IDInput names one bookmark by its path.
type IDInput struct {
	ID int64 `path:"id" minimum:"1" doc:"the bookmark's ID"`
}

// BookmarkOutput is the answer of GET and PATCH /api/bookmarks/:id: the
// bookmark and its validators, which a GET's If-None-Match and
// If-Modified-Since revalidate (304) and a PATCH's If-Match names.
type BookmarkOutput struct {
	ETag     string    `header:"ETag" doc:"the bookmark's version, for If-Match and If-None-Match"`
	Modified time.Time `header:"Last-Modified"`
	Body     Bookmark
}

// BookmarkPatch is the body of PATCH /api/bookmarks/:id, a JSON Merge
// Patch (RFC 7396): a member left out is left as it is. A title or URL
// can be replaced, never removed; tags can be replaced, or removed with
// null.
type BookmarkPatch struct {
	URL   string                 `json:"url,omitempty" format:"uri" maxLength:"2048" example:"https://go.dev/blog/"`
	Title string                 `json:"title,omitempty" minLength:"1" maxLength:"200" example:"The Go Blog"`
	Tags  api.Optional[[]string] `json:"tags,omitzero" maxItems:"8" uniqueItems:"true" doc:"the bookmark's tags, all of them; null removes them"`
}

// EditInput is the input of PATCH /api/bookmarks/:id.
type EditInput struct {
	ID   int64 `path:"id" minimum:"1" doc:"the bookmark's ID"`
	Body BookmarkPatch

	version int // the version current read, which the handler changes
}

// handlers are the API's operations over one store, whose changes they
// tell the feed (feed.go).
type handlers struct {
	store *Store
	feed  *feed
}

func (h *handlers) list(c *waltz.Context, in *ListInput) (*ListOutput, error) {
	items, total := h.store.List(in.Tags, in.Without, in.Limit, in.Offset)
	return &ListOutput{Page{Items: items, Total: total}}, nil
}

func (h *handlers) create(c *waltz.Context, in *CreateInput) (*CreateOutput, error) {
	b := h.store.Create(in.Body.URL, in.Body.Title, in.Body.Tags, in.Body.Pinned)
	h.feed.publish(c, Change{Created: &b})
	return &CreateOutput{Location: "/api/bookmarks/" + strconv.FormatInt(b.ID, 10), Body: b}, nil
}

func (h *handlers) get(c *waltz.Context, in *IDInput) (*BookmarkOutput, error) {
	b, ok := h.store.Get(in.ID)
	if !ok {
		return nil, noSuchBookmark(in.ID)
	}
	return &BookmarkOutput{ETag: b.ETag(), Modified: b.Modified(), Body: b}, nil
}

// current reads the validators of the bookmark an edit changes, before
// the edit runs, and keeps its version for the edit.
func (h *handlers) current(c *waltz.Context, in *EditInput) (api.Validators, error) {
	b, ok := h.store.Get(in.ID)
	if !ok {
		return api.Validators{}, noSuchBookmark(in.ID)
	}
	in.version = b.Version()
	return api.Validators{ETag: b.ETag(), LastModified: b.Modified()}, nil
}

func (h *handlers) edit(c *waltz.Context, in *EditInput) (*BookmarkOutput, error) {
	b, ok, err := h.store.Update(in.ID, in.version, func(b *Bookmark) error {
		// The merged bookmark must keep Bookmark's rules: a 422 if not.
		return api.Merge(b, &in.Body)
	})
	switch {
	case !ok:
		return nil, noSuchBookmark(in.ID)
	case errors.Is(err, ErrChanged):
		// Another edit came between the precondition and this one.
		return nil, &waltz.HTTPError{Code: http.StatusPreconditionFailed, Message: "the bookmark changed since the ETag sent: read it again"}
	case err != nil:
		return nil, err
	}
	return &BookmarkOutput{ETag: b.ETag(), Modified: b.Modified(), Body: b}, nil
}

func (h *handlers) remove(c *waltz.Context, in *IDInput) (*struct{}, error) {
	if !h.store.Delete(in.ID) {
		return nil, noSuchBookmark(in.ID)
	}
	h.feed.publish(c, Change{Deleted: &Deleted{ID: in.ID}})
	return nil, nil
}

func noSuchBookmark(id int64) error {
	return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no bookmark with id " + strconv.FormatInt(id, 10)}
}
