package main

import (
	"slices"
	"strconv"
	"sync"
)

// Note is one note, as the API sends and stores it.
type Note struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Store keeps notes in memory. It is safe for concurrent use: handlers run
// on many goroutines at once.
type Store struct {
	mu    sync.RWMutex
	last  int // the number of the last note created; IDs are never reused
	notes map[string]Note
}

// NewStore returns an empty Store.
func NewStore() *Store {
	return &Store{notes: make(map[string]Note)}
}

// List returns every note, oldest first.
func (s *Store) List() []Note {
	s.mu.RLock()
	defer s.mu.RUnlock()
	list := make([]Note, 0, len(s.notes))
	for _, n := range s.notes {
		list = append(list, n)
	}
	slices.SortFunc(list, func(a, b Note) int { return byNumber(a.ID) - byNumber(b.ID) })
	return list
}

func byNumber(id string) int {
	n, _ := strconv.Atoi(id)
	return n
}

// Get returns the note with the given ID and reports whether there is one.
func (s *Store) Get(id string) (Note, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n, ok := s.notes[id]
	return n, ok
}

// Create stores a new note with the next ID and returns it.
func (s *Store) Create(title, body string) Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last++
	n := Note{ID: strconv.Itoa(s.last), Title: title, Body: body}
	s.notes[n.ID] = n
	return n
}

// Update replaces the title and body of the note with the given ID, and
// reports whether there was one.
func (s *Store) Update(id, title, body string) (Note, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.notes[id]; !ok {
		return Note{}, false
	}
	n := Note{ID: id, Title: title, Body: body}
	s.notes[id] = n
	return n, true
}

// Delete removes the note with the given ID and reports whether there was
// one.
func (s *Store) Delete(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.notes[id]
	delete(s.notes, id)
	return ok
}
