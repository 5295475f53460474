package api

import (
	"slices"
	"sync"
	"time"
)

// Bookmark is one saved link, as the API sends and stores it.
type Bookmark struct {
	ID      int64     `json:"id" xml:"id" minimum:"1" example:"1"`
	URL     string    `json:"url" xml:"url" format:"uri" example:"https://go.dev/doc/"`
	Title   string    `json:"title" xml:"title" example:"Go documentation"`
	Tags    []string  `json:"tags" xml:"tags"`
	Created time.Time `json:"created" xml:"created"`
}

// Store keeps bookmarks in memory, oldest first. It is safe for concurrent
// use: handlers run on many goroutines at once.
type Store struct {
	mu     sync.RWMutex
	last   int64 // the ID of the last bookmark created; IDs are never reused
	items  []Bookmark
	images map[int64]Image // by bookmark ID; see image.go
	now    func() time.Time
}

// NewStore returns an empty Store.
func NewStore() *Store { return &Store{now: time.Now} }

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
func (s *Store) Create(url, title string, tags []string) Bookmark {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last++
	if tags == nil {
		tags = []string{}
	}
	b := Bookmark{ID: s.last, URL: url, Title: title, Tags: slices.Clone(tags), Created: s.now().UTC().Truncate(time.Second)}
	s.items = append(s.items, b)
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

// Delete removes the bookmark with the given ID and reports whether there
// was one.
func (s *Store) Delete(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.find(id)
	if ok {
		s.items = slices.Delete(s.items, i, i+1)
		delete(s.images, id)
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
