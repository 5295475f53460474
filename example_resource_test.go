package waltz_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/waltz-go/waltz"
)

// exrShow serves one request to h and prints the status, the headers named
// in show, and the body. header holds name, value pairs.
func exrShow(h http.Handler, method, target, body string, show []string, header ...string) {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	line := fmt.Sprintf("%s %s: %d", method, target, w.Code)
	for _, name := range show {
		line += fmt.Sprintf(" %s=%q", name, w.Header().Get(name))
	}
	fmt.Println(strings.TrimSpace(line + " " + w.Body.String()))
}

// taskList is the collection resource of a task list.
type taskList struct{ store *taskStore }

func (*taskList) Paths() []string { return []string{"/tasks"} }

func (t *taskList) Get(c *waltz.Context) error {
	return c.JSON(http.StatusOK, t.store.all())
}

func (t *taskList) Post(c *waltz.Context) error {
	var task struct{ Title string }
	if err := c.Bind(&task); err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, t.store.add(task.Title))
}

// taskItem is one task: it has no Post, and its own middleware.
type taskItem struct{ store *taskStore }

func (*taskItem) Paths() []string { return []string{"/tasks/:id"} }

func (t *taskItem) Get(c *waltz.Context) error {
	title, ok := t.store.get(c.Param("id"))
	if !ok {
		return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no such task"}
	}
	return c.Text(http.StatusOK, title)
}

func (t *taskItem) Delete(c *waltz.Context) error {
	t.store.remove(c.Param("id"))
	return c.NoContent(http.StatusNoContent)
}

func (*taskItem) Middleware() []waltz.Middleware {
	return []waltz.Middleware{func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			c.Writer.Header().Set("Cache-Control", "no-store")
			return next(c)
		}
	}}
}

type taskStore struct {
	mu     sync.Mutex
	titles []string
}

func (s *taskStore) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.titles...)
}

func (s *taskStore) add(title string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.titles = append(s.titles, title)
	return len(s.titles) - 1
}

func (s *taskStore) get(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, t := range s.titles {
		if fmt.Sprint(i) == id && t != "" {
			return t, true
		}
	}
	return "", false
}

func (s *taskStore) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.titles {
		if fmt.Sprint(i) == id {
			s.titles[i] = ""
		}
	}
}

func ExampleGroup_Resource() {
	store := &taskStore{}
	r := waltz.New()
	g := r.Group("/api")
	g.Resource(&taskList{store})
	g.Resource(&taskItem{store})

	exrShow(r, "POST", "/api/tasks", `{"Title":"write docs"}`, nil, "Content-Type", "application/json")
	exrShow(r, "GET", "/api/tasks", "", nil)
	exrShow(r, "GET", "/api/tasks/0", "", []string{"Cache-Control"})
	exrShow(r, "POST", "/api/tasks/0", "", []string{"Allow"})
	exrShow(r, "DELETE", "/api/tasks/0", "", nil)
	exrShow(r, "GET", "/api/tasks/0", "", nil)
	// Output:
	// POST /api/tasks: 201 0
	// GET /api/tasks: 200 ["write docs"]
	// GET /api/tasks/0: 200 Cache-Control="no-store" write docs
	// POST /api/tasks/0: 405 Allow="DELETE, GET, HEAD, OPTIONS" Method Not Allowed
	// DELETE /api/tasks/0: 204
	// GET /api/tasks/0: 404 no such task
}

func ExampleGroup_Group_middleware() {
	auth := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			if c.Request.Header.Get("Authorization") != "Bearer s3cret" {
				c.Writer.Header().Set("WWW-Authenticate", `Bearer realm="admin"`) // a 401 must say how (RFC 9110 §11.6.1)
				return &waltz.HTTPError{Code: http.StatusUnauthorized}
			}
			return next(c)
		}
	}
	r := waltz.New()
	r.Get("/api/status", func(c *waltz.Context) error { return c.Text(http.StatusOK, "up") })
	admin := r.Group("/api/admin", auth)
	admin.Get("/users", func(c *waltz.Context) error { return c.Text(http.StatusOK, "alice, bob") })

	exrShow(r, "GET", "/api/status", "", nil)
	exrShow(r, "GET", "/api/admin/users", "", []string{"WWW-Authenticate"})
	exrShow(r, "GET", "/api/admin/users", "", nil, "Authorization", "Bearer s3cret")
	// Output:
	// GET /api/status: 200 up
	// GET /api/admin/users: 401 WWW-Authenticate="Bearer realm=\"admin\"" Unauthorized
	// GET /api/admin/users: 200 alice, bob
}

func ExampleGroup_Mount() {
	files := fstest.MapFS{"css/site.css": {Data: []byte("body{margin:0}")}}
	v1 := waltz.New()
	v1.Get("/users/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "user "+c.Param("id")+" at "+c.Request.URL.Path)
	})

	r := waltz.New()
	r.Mount("/static", http.FileServerFS(files))
	r.Mount("/v1", v1)

	exrShow(r, "GET", "/static/css/site.css", "", nil)
	exrShow(r, "GET", "/static/missing.css", "", nil)
	exrShow(r, "GET", "/v1/users/7", "", nil)
	exrShow(r, "DELETE", "/v1/users/7", "", []string{"Allow"})
	// Output:
	// GET /static/css/site.css: 200 body{margin:0}
	// GET /static/missing.css: 404 404 page not found
	// GET /v1/users/7: 200 user 7 at /users/7
	// DELETE /v1/users/7: 405 Allow="GET, HEAD, OPTIONS" Method Not Allowed
}

func ExampleGroup_Handler() {
	r := waltz.New()
	r.Handler(http.MethodGet, "/repos/:owner/*path", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprintf(w, "owner=%s path=%s", req.PathValue("owner"), req.PathValue("path"))
	}))

	exrShow(r, "GET", "/repos/waltz-go/src/a%2Fb.go", "", nil)
	// Output:
	// GET /repos/waltz-go/src/a%2Fb.go: 200 owner=waltz-go path=src/a/b.go
}

func ExampleWrapMiddleware() {
	// Standard middleware, as rs/cors or gorilla/handlers provide it.
	poweredBy := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Powered-By", "waltz")
			next.ServeHTTP(w, r)
		})
	}
	r := waltz.New()
	r.Use(waltz.WrapMiddleware(poweredBy))
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "hello") })

	exrShow(r, "GET", "/", "", []string{"X-Powered-By"})
	exrShow(r, "GET", "/missing", "", []string{"X-Powered-By"})
	// Output:
	// GET /: 200 X-Powered-By="waltz" hello
	// GET /missing: 404 X-Powered-By="waltz" Not Found
}

func ExampleContext_Bind() {
	r := waltz.New()
	r.MaxBodyBytes = 64
	r.DisallowUnknownFields = true
	r.Post("/notes", func(c *waltz.Context) error {
		var note struct {
			Title string `json:"title"`
			Stars int    `json:"stars"`
		}
		if err := c.Bind(&note); err != nil {
			return err
		}
		return c.Text(http.StatusCreated, fmt.Sprintf("%q, %d stars", note.Title, note.Stars))
	})
	const ct = "Content-Type"

	exrShow(r, "POST", "/notes", `{"title":"hi","stars":3}`, nil, ct, "application/json")
	exrShow(r, "POST", "/notes", `title=hi`, nil, ct, "application/x-www-form-urlencoded")
	exrShow(r, "POST", "/notes", `{"title":"hi","stars":"3"}`, nil, ct, "application/json")
	exrShow(r, "POST", "/notes", `{"title":"hi","color":"red"}`, nil, ct, "application/json")
	exrShow(r, "POST", "/notes", `{"Title":"hi"}`, nil, ct, "application/json")
	exrShow(r, "POST", "/notes", `{"title":"hi",}`, nil, ct, "application/json")
	exrShow(r, "POST", "/notes", `{"title":"`+strings.Repeat("a", 64)+`"}`, nil, ct, "application/json")
	// Output:
	// POST /notes: 201 "hi", 3 stars
	// POST /notes: 415 Content-Type must be application/json, got "application/x-www-form-urlencoded"
	// POST /notes: 422 the JSON body holds values that do not fit
	// body.stars: must be an integer, got a string
	// POST /notes: 422 the JSON body holds values that do not fit
	// body: has an unknown member "color"
	// POST /notes: 422 the JSON body holds values that do not fit
	// body: has an unknown member "Title"
	// POST /notes: 400 malformed JSON at byte offset 14: want a string, an object member's key
	// POST /notes: 413 the body may be at most 64 bytes
}
