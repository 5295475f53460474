package waltz_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/waltz-go/waltz"
)

// get serves one request through h and prints the response's status, the
// chosen headers and the body.
func get(h http.Handler, method, target string, headers ...string) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	fmt.Print(w.Code)
	for _, k := range headers {
		fmt.Printf(" %s=%q", k, w.Header().Get(k))
	}
	if b, _ := io.ReadAll(w.Body); len(b) > 0 {
		fmt.Printf(" %s", bytes.TrimSuffix(b, []byte("\n")))
	}
	fmt.Println()
}

func Example() {
	r := waltz.New()
	r.Get("/", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "Hello")
	})
	r.Get("/user/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "Hello user "+c.Param("id"))
	})

	get(r, "GET", "/")
	get(r, "GET", "/user/123")
	get(r, "POST", "/", "Allow")
	get(r, "OPTIONS", "/user/1", "Allow")
	get(r, "GET", "/user/123/", "Location")
	get(r, "GET", "/nope")
	// Output:
	// 200 Hello
	// 200 Hello user 123
	// 405 Allow="GET, HEAD, OPTIONS" Method Not Allowed
	// 204 Allow="GET, HEAD, OPTIONS"
	// 301 Location="/user/123"
	// 404 Not Found
}

// Static segments beat params, params beat catch-alls, and a lookup
// backtracks when a branch leads nowhere.
func Example_precedence() {
	r := waltz.New()
	show := func(c *waltz.Context) error {
		return c.Text(http.StatusOK, fmt.Sprintf("%s %v", c.Pattern(), c.Params()))
	}
	r.Get("/files/new", show)
	r.Get("/files/:name", show)
	r.Get("/files/*path", show)
	r.Get("/a/:x/c", show)
	r.Get("/a/b/d", show)

	get(r, "GET", "/files/new")
	get(r, "GET", "/files/report.pdf")
	get(r, "GET", "/files/2024/report.pdf")
	get(r, "GET", "/files/a%2Fb")
	get(r, "GET", "/a/b/c")
	// Output:
	// 200 /files/new []
	// 200 /files/:name [{name report.pdf}]
	// 200 /files/*path [{path 2024/report.pdf}]
	// 200 /files/:name [{name a/b}]
	// 200 /a/:x/c [{x b}]
}

func ExampleGroup_Group() {
	r := waltz.New()
	v1 := r.Group("/api/v1")
	users := v1.Group("/users/:id")
	users.Get("/posts", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "posts of user "+c.Param("id"))
	})

	get(r, "GET", "/api/v1/users/7/posts")
	fmt.Println(r.Routes())
	// Output:
	// 200 posts of user 7
	// [{GET /api/v1/users/:id/posts}]
}

func ExampleMiddleware() {
	// A middleware that tags every response with the matched route's pattern,
	// which it can read because routing happens before any middleware runs.
	pattern := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			c.Writer.Header().Set("X-Route", c.Pattern())
			return next(c)
		}
	}
	r := waltz.New()
	r.Use(pattern)
	r.Get("/user/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, c.Param("id"))
	})

	get(r, "GET", "/user/42", "X-Route")
	get(r, "GET", "/missing", "X-Route")
	// Output:
	// 200 X-Route="/user/:id" 42
	// 404 X-Route="" Not Found
}

func ExampleHTTPError() {
	r := waltz.New()
	r.Get("/notes/:id", func(c *waltz.Context) error {
		if c.Param("id") != "1" {
			return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no such note"}
		}
		return c.JSON(http.StatusOK, map[string]string{"id": "1", "text": "hi"})
	})
	r.Get("/crash", func(c *waltz.Context) error {
		// Internals never reach the client; the default handler logs them.
		return fmt.Errorf("database password rejected")
	})

	get(r, "GET", "/notes/1")
	get(r, "GET", "/notes/2")
	get(r, "GET", "/crash")
	// Output:
	// 200 {"id":"1","text":"hi"}
	// 404 no such note
	// 500 Internal Server Error
}

func ExampleNewContext() {
	showUser := func(c *waltz.Context) error {
		if c.Param("id") == "0" {
			return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no such user"}
		}
		return c.Text(http.StatusOK, "user "+c.Param("id"))
	}

	// A unit test calls the handler directly, with the params it needs.
	w := httptest.NewRecorder()
	c := waltz.NewContext(w, httptest.NewRequest("GET", "/users/7", nil), waltz.Param{Key: "id", Value: "7"})
	err := showUser(c)
	fmt.Println(w.Code, w.Body.String(), err)

	// A returned error is the test's to check, or to render as a Router would.
	w = httptest.NewRecorder()
	c = waltz.NewContext(w, httptest.NewRequest("GET", "/users/0", nil), waltz.Param{Key: "id", Value: "0"})
	if err := showUser(c); err != nil {
		waltz.DefaultErrorHandler(c, err)
	}
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 200 user 7 <nil>
	// 404 no such user
}
