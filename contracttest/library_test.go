package contracttest_test

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/contracttest"
	"github.com/waltz-go/waltz/middleware"
)

// The library API: books, their authors and tags, in memory, on typed
// operations alone. Reads are open, writes need a bearer token; lists
// page by limit and offset; a book's cover is uploaded as a multipart
// image and downloaded with ranges; a book is edited by a JSON Merge
// Patch under If-Match; every change goes to a feed of events.

// withID is the input of an operation on the book or author named by
// the path, with a body.
type withID[B any] struct {
	ID   int64 `path:"id" minimum:"1"`
	Body B
}

// NewAuthor is the body of POST /api/authors.
type NewAuthor struct {
	Name string `json:"name" minLength:"1" maxLength:"100" example:"Ursula K. Le Guin"`
	Born string `json:"born,omitempty" format:"date" example:"1929-10-21"`
	Site string `json:"site,omitempty" format:"uri" maxLength:"2048"`
}

// Author is a writer of books, as the API sends it.
type Author struct {
	ID int64 `json:"id" minimum:"1"`
	NewAuthor
}

// Book is one book of the library, as the API sends it. Its rules hold
// for every book, whatever a patch sends.
type Book struct {
	ID     int64 `json:"id" minimum:"1"`
	Author int64 `json:"author" minimum:"1" doc:"the author's ID"`
	NewBook
	Added time.Time `json:"added"`

	version  int       // counts the book's changes, from 1: its entity tag
	modified time.Time // when it last changed, to the second
}

// validators returns the book's ETag and Last-Modified.
func (b *Book) validators() api.Validators {
	return api.Validators{ETag: `"b` + strconv.Itoa(b.version) + `"`, LastModified: b.modified}
}

// out returns the book and its validators as an answer.
func (b *Book) out() *BookOut {
	v := b.validators()
	return &BookOut{v.ETag, v.LastModified, *b}
}

// NewBook is the body of POST /api/authors/:id/books.
type NewBook struct {
	Title     string   `json:"title" minLength:"1" maxLength:"200"`
	ISBN      string   `json:"isbn,omitempty" pattern:"^97[89][0-9]{10}$" doc:"ISBN-13"`
	Language  string   `json:"language" enum:"en,fr,de,es,it"`
	Published string   `json:"published,omitempty" format:"date"`
	Pages     int      `json:"pages,omitempty" minimum:"1" maximum:"10000"`
	Tags      []string `json:"tags,omitempty" maxItems:"8" uniqueItems:"true" minLength:"1" maxLength:"20" pattern:"^[a-z0-9-]+$"`
}

// BookPatch is the body of PATCH /api/books/:id, a JSON Merge Patch: the
// title and language can be replaced, the rest replaced or removed.
type BookPatch struct {
	Title     string                 `json:"title,omitempty" minLength:"1" maxLength:"200"`
	Language  string                 `json:"language,omitempty" enum:"en,fr,de,es,it"`
	ISBN      api.Optional[string]   `json:"isbn,omitzero" pattern:"^97[89][0-9]{10}$"`
	Published api.Optional[string]   `json:"published,omitzero" format:"date"`
	Pages     api.Optional[int]      `json:"pages,omitzero" minimum:"1" maximum:"10000"`
	Tags      api.Optional[[]string] `json:"tags,omitzero" maxItems:"8" uniqueItems:"true" minLength:"1" maxLength:"20" pattern:"^[a-z0-9-]+$"`
}

// Paging is the query of a list.
type Paging struct {
	Limit  int `query:"limit" minimum:"1" maximum:"50" default:"20"`
	Offset int `query:"offset" minimum:"0" maximum:"10000" default:"0"`
}

// ListBooksIn is the input of GET /api/books.
type ListBooksIn struct {
	Paging
	Tag      string `query:"tag" minLength:"1" maxLength:"20" pattern:"^[a-z0-9-]+$" doc:"only books with this tag"`
	Language string `query:"language" enum:"en,fr,de,es,it"`
}

// IDIn names one book or author by its path.
type IDIn struct {
	ID int64 `path:"id" minimum:"1"`
}

// Page is one page of a list and how many items match in all.
type Page[T any] struct {
	Items []T `json:"items"`
	Total int `json:"total" minimum:"0"`
}

// pageOut is the answer of a list: its page, and its total as a header
// field too.
type pageOut[T any] struct {
	Total int `header:"X-Total-Count" minimum:"0"`
	Body  Page[T]
}

// BookOut is a book with its validators.
type BookOut struct {
	ETag     string    `header:"ETag"`
	Modified time.Time `header:"Last-Modified"`
	Body     Book
}

// CoverForm is the body of PUT /api/books/:id/cover.
type CoverForm struct {
	Image api.File `json:"image" accept:"image/png,image/jpeg,image/webp" maxBytes:"512KiB"`
}

// Cover is a cover as the library keeps it.
type Cover struct {
	Data     []byte
	Type     string
	Modified time.Time
}

// Change is one event of the feed of changes.
type Change struct {
	Created *Book      `event:"created"`
	Changed *Book      `event:"changed"`
	Deleted *IDIn      `event:"deleted"`
	Reset   *api.Reset `event:"reset" doc:"changes may be missing: read the books again"`
}

// FeedIn is the input of GET /api/changes.
type FeedIn struct {
	LastID string `header:"Last-Event-ID" maxLength:"64" pattern:"^[0-9][-0-9a-f]*$"`
}

// library is the API's state: its authors, books, covers and feed.
type library struct {
	mu      sync.Mutex
	authors []Author
	books   []Book
	next    int64 // the next book's ID; IDs are never reused
	covers  map[int64]Cover
	feed    *api.Feed[Change]
}

// out wraps a value as the Body of an answer.
type out[T any] struct{ Body T }

// created is a 201's answer: where the new item lives, and the item.
type created[T any] struct {
	Location string `header:"Location"`
	Body     T
}

func notFound(what string, id int64) error {
	return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no " + what + " " + strconv.FormatInt(id, 10)}
}

// page returns the items of s that keep, within the paging p.
func page[T any](s []T, p Paging, keep func(T) bool) *pageOut[T] {
	pg := Page[T]{Items: []T{}}
	for _, v := range s {
		if !keep(v) {
			continue
		}
		if pg.Total >= p.Offset && len(pg.Items) < p.Limit {
			pg.Items = append(pg.Items, v)
		}
		pg.Total++
	}
	return &pageOut[T]{pg.Total, pg}
}

// book returns the index of the book id; the caller holds the lock.
func (l *library) book(id int64) (int, bool) {
	i := slices.IndexFunc(l.books, func(b Book) bool { return b.ID == id })
	return i, i >= 0
}

// newLibrary returns the library API's router, its writes behind token,
// on a catalogue of 10 authors and 100 books (IDs from 1), each with a
// cover, so that most IDs a run sends name one.
func newLibrary(token string) *waltz.Router {
	var cover bytes.Buffer
	_ = png.Encode(&cover, image.NewGray(image.Rect(0, 0, 8, 12))) // writing to memory does not fail
	l := &library{next: 101, covers: map[int64]Cover{}, feed: api.NewFeed[Change](api.NewMemoryLog(100))}
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range int64(100) {
		if i < 10 {
			l.authors = append(l.authors, Author{i + 1, NewAuthor{Name: "Author " + strconv.FormatInt(i+1, 10), Born: "1929-10-21"}})
		}
		l.books = append(l.books, Book{ID: i + 1, Author: i%10 + 1, NewBook: NewBook{Title: "Volume " + strconv.FormatInt(i+1, 10),
			ISBN: "9780061054884", Language: "en", Published: "1974-05-01", Pages: 387, Tags: []string{"novel"}},
			Added: then, version: 1, modified: then})
		l.covers[i+1] = Cover{cover.Bytes(), "image/png", then}
	}
	r := waltz.New()
	r.DisallowUnknownFields = true
	r.RenderError = waltz.RenderProblem
	all := r.Group("/api")
	// Every operation but the feed runs under the library's lock, an
	// edit's precondition and change as one.
	g := all.With(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			l.mu.Lock()
			defer l.mu.Unlock()
			return next(c)
		}
	})
	w := g.With(middleware.BearerAuth(middleware.BearerAuthOptions{Realm: "library", Tokens: []string{token}}))
	tags := []string{"books"}
	missing := []int{http.StatusNotFound}

	api.Op(g, http.MethodGet, "/authors", func(c *waltz.Context, in *Paging) (*pageOut[Author], error) {
		return page(l.authors, *in, func(Author) bool { return true }), nil
	}, api.Operation{ID: "listAuthors", Tags: []string{"authors"}})
	api.Op(w, http.MethodPost, "/authors", func(c *waltz.Context, in *struct{ Body NewAuthor }) (*created[Author], error) {
		a := Author{int64(len(l.authors)) + 1, in.Body}
		l.authors = append(l.authors, a)
		return &created[Author]{"/api/authors/" + strconv.FormatInt(a.ID, 10), a}, nil
	}, api.Operation{ID: "createAuthor", Tags: []string{"authors"}, Status: http.StatusCreated})
	api.Op(g, http.MethodGet, "/authors/:id<int>", func(c *waltz.Context, in *IDIn) (*out[Author], error) {
		if i := slices.IndexFunc(l.authors, func(a Author) bool { return a.ID == in.ID }); i >= 0 {
			return &out[Author]{l.authors[i]}, nil
		}
		return nil, notFound("author", in.ID)
	}, api.Operation{ID: "getAuthor", Tags: []string{"authors"}, Errors: missing})

	api.Op(w, http.MethodPost, "/authors/:id<int>/books", func(c *waltz.Context, in *withID[NewBook]) (*created[Book], error) {
		if !slices.ContainsFunc(l.authors, func(a Author) bool { return a.ID == in.ID }) {
			return nil, notFound("author", in.ID)
		}
		now := time.Now().UTC().Truncate(time.Second)
		b := Book{ID: l.next, Author: in.ID, NewBook: in.Body, Added: now, version: 1, modified: now}
		b.Tags = slices.Clone(b.Tags) // the In value goes back to its pool
		l.next++
		l.books = append(l.books, b)
		l.feed.Publish(c.Request.Context(), Change{Created: &b})
		return &created[Book]{"/api/books/" + strconv.FormatInt(b.ID, 10), b}, nil
	}, api.Operation{ID: "createBook", Tags: tags, Status: http.StatusCreated, Errors: missing})
	api.Op(g, http.MethodGet, "/books", func(c *waltz.Context, in *ListBooksIn) (*pageOut[Book], error) {
		return page(l.books, in.Paging, func(b Book) bool {
			return (in.Tag == "" || slices.Contains(b.Tags, in.Tag)) && (in.Language == "" || b.Language == in.Language)
		}), nil
	}, api.Operation{ID: "listBooks", Tags: tags})
	api.Op(g, http.MethodGet, "/books/:id<int>", func(c *waltz.Context, in *IDIn) (*BookOut, error) {
		if i, ok := l.book(in.ID); ok {
			return l.books[i].out(), nil
		}
		return nil, notFound("book", in.ID)
	}, api.Operation{ID: "getBook", Tags: tags, Errors: missing})

	api.Op(w, http.MethodPatch, "/books/:id<int>", func(c *waltz.Context, in *withID[BookPatch]) (*BookOut, error) {
		i, ok := l.book(in.ID)
		if !ok {
			return nil, notFound("book", in.ID)
		}
		b := l.books[i]
		b.Tags = slices.Clone(b.Tags)
		if err := api.Merge(&b, &in.Body); err != nil {
			return nil, err
		}
		b.version, b.modified = b.version+1, time.Now().UTC().Truncate(time.Second)
		l.books[i] = b
		l.feed.Publish(c.Request.Context(), Change{Changed: &b})
		return b.out(), nil
	}, api.Operation{ID: "editBook", Tags: tags, Errors: missing,
		Current: func(c *waltz.Context, in *withID[BookPatch]) (api.Validators, error) {
			if i, ok := l.book(in.ID); ok {
				return l.books[i].validators(), nil
			}
			return api.Validators{}, notFound("book", in.ID)
		}})
	api.Op(w, http.MethodDelete, "/books/:id<int>", func(c *waltz.Context, in *IDIn) (*struct{}, error) {
		i, ok := l.book(in.ID)
		if !ok {
			return nil, notFound("book", in.ID)
		}
		l.books = slices.Delete(l.books, i, i+1)
		delete(l.covers, in.ID)
		l.feed.Publish(c.Request.Context(), Change{Deleted: &IDIn{in.ID}})
		return nil, nil
	}, api.Operation{ID: "deleteBook", Tags: tags, Errors: missing})

	api.Op(w, http.MethodPut, "/books/:id<int>/cover", func(c *waltz.Context, in *withID[CoverForm]) (*struct{}, error) {
		f, err := in.Body.Image.Open()
		if err != nil {
			return nil, err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			return nil, err
		}
		if _, ok := l.book(in.ID); !ok {
			return nil, notFound("book", in.ID)
		}
		l.covers[in.ID] = Cover{data, in.Body.Image.Type(), time.Now().UTC().Truncate(time.Second)}
		return nil, nil
	}, api.Operation{ID: "putCover", Tags: tags, Errors: missing})
	api.Op(g, http.MethodGet, "/books/:id<int>/cover", func(c *waltz.Context, in *IDIn) (*out[api.Download], error) {
		cv, ok := l.covers[in.ID]
		if !ok {
			return nil, notFound("cover of book", in.ID)
		}
		return &out[api.Download]{api.Download{Content: bytes.NewReader(cv.Data), Type: cv.Type, ModTime: cv.Modified}}, nil
	}, api.Operation{ID: "getCover", Tags: tags, Errors: missing, Produces: []string{"image/png", "image/jpeg", "image/webp"}})

	api.Op(g, http.MethodGet, "/tags", func(c *waltz.Context, in *struct{}) (*out[map[string]int], error) {
		count := map[string]int{}
		for _, b := range l.books {
			for _, t := range b.Tags {
				count[t]++
			}
		}
		return &out[map[string]int]{count}, nil
	}, api.Operation{ID: "listTags", Summary: "Count the books of each tag", Tags: tags})
	api.Op(all, http.MethodGet, "/changes", func(c *waltz.Context, in *FeedIn) (*out[api.Events[Change]], error) {
		return &out[api.Events[Change]]{l.feed.Follow(in.LastID)}, nil
	}, api.Operation{ID: "listChanges", Tags: []string{"changes"}})
	return r
}

// TestLibrary runs the contract self-test on the library API, with the
// token its writes need and no known disagreement.
func TestLibrary(t *testing.T) {
	const token = "library-t0ken"
	contracttest.Run(t, newLibrary(token), contracttest.Options{
		Credentials: map[string]string{"bearerAuth": token},
	})
}
