package waltz_test

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/waltz-go/waltz"
)

// Constrained params at one place: each route takes the values its
// constraint accepts, and a plain param takes the rest.
func Example_constraints() {
	r := waltz.New()
	show := func(c *waltz.Context) error {
		return c.Text(http.StatusOK, fmt.Sprintf("%s %v", c.Pattern(), c.Params()))
	}
	r.Get("/articles/:id<int>", show)
	r.Get("/articles/:slug<[a-z-]+>", show)
	r.Get("/articles/:any", show)

	get(r, "GET", "/articles/42")
	get(r, "GET", "/articles/hello-world")
	get(r, "GET", "/articles/Hello")

	// Two constraints that can both match one value conflict.
	defer func() {
		var re *waltz.RouteError
		if errors.As(recover().(error), &re) {
			fmt.Println("panic: a *waltz.RouteError")
		}
	}()
	r.Get("/articles/:n<uint>", show)
	// Output:
	// 200 /articles/:id<int> [{id 42}]
	// 200 /articles/:slug<[a-z-]+> [{slug hello-world}]
	// 200 /articles/:any [{any Hello}]
	// panic: a *waltz.RouteError
}

// The router's own answers: a 405 that lists the methods, a 501 for a
// method the router knows nowhere, the automatic OPTIONS, and the
// redirects to the one form of a path that is served.
func Example_answers() {
	r := waltz.New()
	r.Get("/users/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "user "+c.Param("id"))
	})
	r.Post("/users", func(c *waltz.Context) error {
		return c.NoContent(http.StatusCreated)
	})

	get(r, "DELETE", "/users/7", "Allow")
	get(r, "BREW", "/users/7", "Allow")
	get(r, "OPTIONS", "/users/7", "Allow")
	get(r, "OPTIONS", "/users/7/", "Location")
	get(r, "GET", "/users/7/", "Location")
	get(r, "GET", "//users/./7?tab=posts", "Location")
	get(r, "POST", "/users/", "Location")
	// Output:
	// 405 Allow="GET, HEAD, OPTIONS" Method Not Allowed
	// 501 Allow="" Not Implemented
	// 204 Allow="GET, HEAD, OPTIONS"
	// 308 Location="/users/7"
	// 301 Location="/users/7"
	// 301 Location="/users/7?tab=posts"
	// 308 Location="/users"
}
