package bookmarks

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Bookmark is one saved link, as the API sends and stores it. Its tags'
// rules are what every bookmark keeps, whatever a patch sends (Merge
// checks them on the result).
type Bookmark struct {
	ID      int64     `json:"id" xml:"id" minimum:"1" example:"1"`
	URL     string    `json:"url" xml:"url" format:"uri" maxLength:"2048" example:"https://go.dev/doc/"`
	Title   string    `json:"title" xml:"title" minLength:"1" maxLength:"200" example:"Go documentation"`
	Tags    []string  `json:"tags" xml:"tags" maxItems:"8" uniqueItems:"true"`
	Created time.Time `json:"created" xml:"created"`
	Pinned  bool      `json:"pinned,string,omitempty" xml:"pinned,omitempty"`

	version  int       // counts the bookmark's changes, from 1: its entity tag
	modified time.Time // when it last changed, to the second
}

// ETag returns the bookmark's entity tag (RFC 9110 section 8.8.3): a
// strong one, which changes with every change of the bookmark.
func (b Bookmark) ETag() string { return `"v` + strconv.Itoa(b.version) + `"` }

// Modified returns when the bookmark last changed.
func (b Bookmark) Modified() time.Time { return b.modified }

// Version returns the bookmark's version, which Update compares.
func (b Bookmark) Version() int { return b.version }

// ErrChanged is Update's error when the bookmark changed since the
// version the caller read.
var ErrChanged = errors.New("the bookmark changed since it was read")

// Store keeps bookmarks in memory, oldest first. It is safe for concurrent
// use: handlers run on many goroutines at once.
type Store struct {
	mu     sync.RWMutex
	last   int64 // the ID of the last bookmark created; IDs are never reused
	items  []Bookmark
	images map[int64]Image // by bookmark ID; see image.go
	now    func() time.Time

	// changes counts the creates, updates and deletes, and changed is
	// when the last was, to the second: the validators of what a search
	// finds (search.go).
	changes int64
	changed time.Time
}

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{now: time.Now, changed: time.Now().UTC().Truncate(time.Second)}
}

// change records a change of the store's bookmarks, at now. The caller
// holds the lock.
func (s *Store) change(now time.Time) {
	s.changes++
	s.changed = now
}

// List returns at most limit bookmarks that carry every one of tags (every
// bookmark when tags is empty) and none of without, skipping the first
// offset of them, and the number of bookmarks that match in all.
func (s *Store) List(tags, without []string, limit, offset int) ([]Bookmark, int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	page := []Bookmark{}
	total := 0
	for _, b := range s.items {
		if !hasAll(b.Tags, tags) || slices.ContainsFunc(without, func(t string) bool { return slices.Contains(b.Tags, t) }) {
			continue
		}
		if total >= offset && len(page) < limit {
			page = append(page, clone(b))
		}
		total++
	}
	return page, total
}

// Create stores a new bookmark with the next ID and returns it.
func (s *Store) Create(url, title string, tags []string, pinned bool) Bookmark {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last++
	if tags == nil {
		tags = []string{}
	}
	now := s.now().UTC().Truncate(time.Second)
	b := Bookmark{ID: s.last, URL: url, Title: title, Tags: slices.Clone(tags), Created: now, version: 1, modified: now, Pinned: pinned}
	s.items = append(s.items, b)
	s.change(now)
	return clone(b)
}

// Get returns the bookmark with the given ID and reports whether there is
// one.
func (s *Store) Get(id int64) (Bookmark, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if i, ok := s.find(id); ok {
		return clone(s.items[i]), true
	}
	return Bookmark{}, false
}

// Update changes the bookmark with the given ID by edit, which gets a
// copy of it, if it is still at version (the one the caller read), and
// returns it as stored: a compare-and-swap, so that two writers that read
// the same version cannot both change it. It reports false when there is
// no such bookmark; the error is ErrChanged, or edit's (nothing is
// stored then).
func (s *Store) Update(id int64, version int, edit func(b *Bookmark) error) (Bookmark, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(id)
	if !ok {
		return Bookmark{}, false, nil
	}
	if s.items[i].version != version {
		return Bookmark{}, true, ErrChanged
	}
	b := clone(s.items[i])
	if err := edit(&b); err != nil {
		return Bookmark{}, true, err
	}
	b.ID, b.Created = s.items[i].ID, s.items[i].Created // not the edit's to change
	if b.Tags == nil {
		b.Tags = []string{}
	}
	b.version, b.modified = version+1, s.now().UTC().Truncate(time.Second)
	s.items[i] = b
	s.change(b.modified)
	return clone(b), true, nil
}

// Delete removes the bookmark with the given ID and reports whether there
// was one.
func (s *Store) Delete(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(id)
	if ok {
		s.items = slices.Delete(s.items, i, i+1)
		delete(s.images, id)
		s.change(s.now().UTC().Truncate(time.Second))
	}
	return ok
}

// find returns the index of the bookmark with the given ID: items are in
// ID order, since IDs only grow.
func (s *Store) find(id int64) (int, bool) {
	return slices.BinarySearchFunc(s.items, id, func(b Bookmark, id int64) int {
		switch {
		case b.ID < id:
			return -1
		case b.ID > id:
			return 1
		}
		return 0
	})
}

// clone returns b with its own copy of Tags, so a caller never shares the
// store's slice.
func clone(b Bookmark) Bookmark {
	b.Tags = slices.Clone(b.Tags)
	return b
}

// hasAll reports whether have holds every one of want.
func hasAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
