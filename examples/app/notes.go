package main

import (
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/waltz-go/waltz"
)

// maxNotes bounds the notes kept in memory: the oldest go first.
const maxNotes = 100

// Note is one note, as the API sends it.
type Note struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
}

// notes keeps the newest maxNotes notes. It is safe for concurrent use.
type notes struct {
	mu   sync.Mutex
	last int
	all  []Note
}

func newNotes() *notes { return &notes{} }

func (n *notes) len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.all)
}

// list answers GET /api/notes with every note, oldest first.
func (n *notes) list(c *waltz.Context) error {
	n.mu.Lock()
	list := append([]Note{}, n.all...)
	n.mu.Unlock()
	return c.JSON(http.StatusOK, list)
}

// create answers POST /api/notes, whose body is JSON ({"title": "..."})
// from the front end's script, or an HTML form (title=...) from a page
// without one. Either way it answers 201 with the new note.
func (n *notes) create(c *waltz.Context) error {
	var in struct {
		Title string `json:"title"`
	}
	if strings.HasPrefix(c.Request.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		in.Title = c.Request.PostFormValue("title")
	} else if err := c.Bind(&in); err != nil {
		return err
	}
	if in.Title == "" || len(in.Title) > 200 || !utf8.ValidString(in.Title) {
		return &waltz.HTTPError{Code: http.StatusBadRequest, Message: "title: 1 to 200 bytes of UTF-8"}
	}
	n.mu.Lock()
	n.last++
	note := Note{ID: n.last, Title: in.Title}
	if len(n.all) == maxNotes {
		n.all = append(n.all[:0], n.all[1:]...)
	}
	n.all = append(n.all, note)
	n.mu.Unlock()
	return c.JSON(http.StatusCreated, note)
}
