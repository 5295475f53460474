package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// Bookmark is what the example API stores.
type Bookmark struct {
	ID   int64    `json:"id"`
	URL  string   `json:"url" format:"uri" doc:"The bookmarked page."`
	Tags []string `json:"tags,omitempty" maxItems:"5" maxLength:"20"`
}

// ListBookmarks is the input of GET /bookmarks.
type ListBookmarks struct {
	Tag   string `query:"tag" maxLength:"20"`
	Limit int    `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Sort  string `query:"sort" enum:"new,old" default:"new"`
}

// BookmarkList is the answer of GET /bookmarks.
type BookmarkList struct {
	Total int `header:"X-Total-Count"`
	Body  []Bookmark
}

// CreateBookmark is the input of POST /bookmarks.
type CreateBookmark struct {
	Body struct {
		URL  string   `json:"url" format:"uri" required:"true"`
		Tags []string `json:"tags,omitempty" maxItems:"5" maxLength:"20"`
	}
}

// Created is the answer of POST /bookmarks.
type Created struct {
	Location string `header:"Location"`
	Body     Bookmark
}

// Example_typed registers two typed operations, shows a validation
// failure answered as problem details, and serves the OpenAPI document.
func Example_typed() {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/bookmarks", func(c *waltz.Context, in *ListBookmarks) (*BookmarkList, error) {
		list := []Bookmark{{ID: 1, URL: "https://go.dev", Tags: []string{in.Tag}}}
		return &BookmarkList{Total: len(list), Body: list[:min(in.Limit, len(list))]}, nil
	}, api.Operation{ID: "listBookmarks", Summary: "List bookmarks"})
	api.Op(r, http.MethodPost, "/bookmarks", func(c *waltz.Context, in *CreateBookmark) (*Created, error) {
		b := Bookmark{ID: 2, URL: in.Body.URL, Tags: in.Body.Tags}
		return &Created{Location: fmt.Sprintf("/bookmarks/%d", b.ID), Body: b}, nil
	}, api.Operation{ID: "createBookmark", Status: http.StatusCreated})
	r.With(api.Hide).Get("/openapi.json", api.ServeOpenAPI(r, api.Info{Title: "Bookmarks", Version: "1.0.0"}))

	send := func(method, target, body string) {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(w.Code, w.Header().Get("Content-Type"))
		fmt.Println(strings.TrimSpace(w.Body.String()))
	}
	send("GET", "/bookmarks?tag=go&limit=5", "")
	send("GET", "/bookmarks?limit=500&sort=up", "")
	send("POST", "/bookmarks", `{"url":"https://pkg.go.dev"}`)
	send("POST", "/bookmarks", `{"url":"not a url","tags":["ok","`+strings.Repeat("x", 30)+`"]}`)

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/openapi.json", nil))
	fmt.Println(w.Code, strings.Contains(w.Body.String(), `"operationId": "listBookmarks"`))
	// Output:
	// 200 application/json
	// [{"id":1,"url":"https://go.dev","tags":["go"]}]
	// 422 application/problem+json
	// {"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the request's values break the operation's rules","instance":"/bookmarks","errors":[{"location":"query.limit","keyword":"maximum","message":"must be at most 100, got \"500\""},{"location":"query.sort","keyword":"enum","message":"must be one of \"new\", \"old\", got \"up\""}]}
	// 201 application/json
	// {"id":2,"url":"https://pkg.go.dev"}
	// 422 application/problem+json
	// {"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the request's values break the operation's rules","instance":"/bookmarks","errors":[{"location":"body.url","keyword":"format","message":"must be an absolute URI such as https://example.com/a, got \"not a url\""},{"location":"body.tags[1]","keyword":"maxLength","message":"must be at most 20 characters long, got \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\""}]}
	// 200 true
}

// ExampleRenderProblem makes every error of the router an RFC 9457
// problem document, its own 404 included, for clients that accept JSON.
func ExampleRenderProblem() {
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	for _, accept := range []string{"application/json", "text/plain"} {
		req := httptest.NewRequest("GET", "/nowhere", nil)
		req.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(w.Code, w.Header().Get("Content-Type"), strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// 404 application/problem+json {"type":"about:blank","title":"Not Found","status":404,"instance":"/nowhere"}
	// 404 text/plain; charset=utf-8 Not Found
}

// Example_mapValues checks a rule on each value of a map, locating each
// failure at its key.
func Example_mapValues() {
	type Tagged struct {
		Body struct {
			Labels map[string]string `json:"labels,omitempty" minLength:"1" maxLength:"63"`
		}
	}
	r := waltz.New()
	api.Op(r, http.MethodPut, "/labels", func(c *waltz.Context, in *Tagged) (*struct{}, error) {
		return nil, nil
	}, api.Operation{})
	req := httptest.NewRequest("PUT", "/labels", strings.NewReader(`{"labels":{"a":"","b.c":"`+strings.Repeat("x", 64)+`","ok":"x"}}`))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	// Output:
	// 422 {"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the request's values break the operation's rules","instance":"/labels","errors":[{"location":"body.labels.a","keyword":"minLength","message":"must be at least 1 character long, got \"\""},{"location":"body.labels[\"b.c\"]","keyword":"maxLength","message":"must be at most 63 characters long, got \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\""}]}
}
