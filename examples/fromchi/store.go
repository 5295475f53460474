// Package fromchi is a small REST API written twice: once the way chi's
// users write one (sub-routers, a middleware that loads the article a
// param names into the context, regular-expression params, a format
// suffix), and once ported to waltz. The test sends both the same
// requests and requires the same answers, except where RFC 9110 asks for
// another, each such difference listed with its rule.
//
// It is a module of its own, since only it requires chi.
package fromchi

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Article is what the API serves.
type Article struct {
	ID    int    `json:"id"`
	Slug  string `json:"slug"`
	Title string `json:"title"`
}

// Store holds articles in memory.
type Store struct {
	mu       sync.Mutex
	articles map[int]Article
	next     int
}

// NewStore returns a store with two articles.
func NewStore() *Store {
	s := &Store{articles: map[int]Article{}, next: 1}
	s.Add(Article{Slug: "hello-world", Title: "Hello, world"})
	s.Add(Article{Slug: "second-post", Title: "A second post"})
	return s
}

// Add stores a, giving it the next ID, and returns it.
func (s *Store) Add(a Article) Article {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.ID = s.next
	s.next++
	s.articles[a.ID] = a
	return a
}

// Get returns the article with id.
func (s *Store) Get(id int) (Article, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.articles[id]
	return a, ok
}

// BySlug returns the article with slug.
func (s *Store) BySlug(slug string) (Article, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.articles {
		if a.Slug == slug {
			return a, true
		}
	}
	return Article{}, false
}

// Put replaces the article with a.ID.
func (s *Store) Put(a Article) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.articles[a.ID] = a
}

// Delete removes the article with id.
func (s *Store) Delete(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.articles, id)
}

// List returns the articles in ID order.
func (s *Store) List() []Article {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := make([]Article, 0, len(s.articles))
	for _, a := range s.articles {
		list = append(list, a)
	}
	slices.SortFunc(list, func(a, b Article) int { return a.ID - b.ID })
	return list
}

// text is an article in the ".txt" format.
func text(a Article) string { return fmt.Sprintf("%d %s %s\n", a.ID, a.Slug, a.Title) }

// validSlug reports whether s is a slug the API accepts.
func validSlug(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz-") == ""
}
