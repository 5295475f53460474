package api_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// Shelf is a resource with typed verbs: each is an operation, with its
// own input and output types, at the resource's path.
type Shelf struct{ books []string }

func (*Shelf) Paths() []string { return []string{"/books"} }

type NewBook struct {
	Body struct {
		Title string `json:"title" minLength:"1" maxLength:"80"`
	}
}

type Books struct{ Body []string }

func (s *Shelf) list(c *waltz.Context, in *struct{}) (*Books, error) {
	return &Books{Body: s.books}, nil
}

func (s *Shelf) add(c *waltz.Context, in *NewBook) (*Books, error) {
	s.books = append(s.books, in.Body.Title)
	return &Books{Body: s.books}, nil
}

func (s *Shelf) Verbs() []api.TypedVerb {
	return []api.TypedVerb{
		api.Verb(http.MethodGet, s.list, api.Operation{ID: "listBooks"}),
		api.Verb(http.MethodPost, s.add, api.Operation{ID: "addBook", Status: http.StatusCreated}),
	}
}

// A resource's typed verbs are registered at each of its paths, and the
// router answers the methods it lacks with 405.
func ExampleVerb() {
	r := waltz.New()
	r.Resource(&Shelf{})

	for _, req := range []*http.Request{
		httptest.NewRequest(http.MethodPost, "/books", strings.NewReader(`{"title":"Dune"}`)),
		httptest.NewRequest(http.MethodGet, "/books", nil),
		httptest.NewRequest(http.MethodDelete, "/books", nil),
	} {
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Printf("%s %d %s Allow=%q\n", req.Method, w.Code, strings.TrimSpace(w.Body.String()), w.Header().Get("Allow"))
	}
	// Output:
	// POST 201 ["Dune"] Allow=""
	// GET 200 ["Dune"] Allow=""
	// DELETE 405 Method Not Allowed Allow="GET, HEAD, OPTIONS, POST"
}

// Booking is the input of POST /bookings: its tags say what each value
// may be, and its Validate method what the tags cannot say.
type Booking struct {
	Body struct {
		From string `json:"from" format:"date"`
		To   string `json:"to" format:"date"`
	}
}

// Validate runs once the tags' rules pass: the dates are well formed.
func (b *Booking) Validate(c *waltz.Context) []waltz.FieldError {
	if b.Body.To < b.Body.From {
		return []waltz.FieldError{{Location: "body.to", Keyword: "after", Message: "must not be before from"}}
	}
	return nil
}

// A Validate method's failures are answered 422 as the tags' are.
func Example_validate() {
	r := waltz.New()
	api.Op(r, http.MethodPost, "/bookings", func(c *waltz.Context, in *Booking) (*struct{}, error) {
		return nil, nil
	}, api.Operation{Status: http.StatusNoContent})

	for _, body := range []string{
		`{"from":"2026-03-01","to":"2026-03-04"}`,
		`{"from":"2026-03-04","to":"2026-03-01"}`,
		`{"from":"2026-03-04","to":"March"}`,
	} {
		req := httptest.NewRequest(http.MethodPost, "/bookings", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(strings.TrimSpace(fmt.Sprint(w.Code, " ", w.Body.String())))
	}
	// Output:
	// 204
	// 422 {"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the request's values break the operation's rules","instance":"/bookings","errors":[{"location":"body.to","keyword":"after","message":"must not be before from"}]}
	// 422 {"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"the request's values break the operation's rules","instance":"/bookings","errors":[{"location":"body.to","keyword":"format","message":"must be a date such as 2006-01-02, got \"March\""}]}
}
