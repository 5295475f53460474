package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

// The types of an operation, in a package the server and its clients
// share.
type (
	GreetIn struct {
		Name  string `path:"name" maxLength:"10"`
		Times int    `query:"times" minimum:"1" maximum:"3" default:"1"`
	}
	GreetOut struct {
		Lang string `header:"Content-Language"`
		Body struct {
			Lines []string `json:"lines"`
		}
	}
)

// The client needs In, Out, the method and the pattern; the server may
// run in another process.
func Example() {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/greet/:name", func(c *waltz.Context, in *GreetIn) (*GreetOut, error) {
		out := &GreetOut{Lang: "en"}
		for range in.Times {
			out.Body.Lines = append(out.Body.Lines, "Hello, "+in.Name)
		}
		return out, nil
	}, api.Operation{})
	srv := httptest.NewServer(r)
	defer srv.Close()

	c := &client.Client{URL: srv.URL}
	greet := client.Op[GreetIn, GreetOut](c, "GET /greet/:name")

	out, err := greet(context.Background(), GreetIn{Name: "Ada", Times: 2})
	fmt.Println(out.Lang, out.Body.Lines, err)

	// Times left out: the server's default.
	out, err = greet(context.Background(), GreetIn{Name: "Grace"})
	fmt.Println(out.Body.Lines, err)

	// Against the rules: refused before it is sent, as the server would.
	_, err = greet(context.Background(), GreetIn{Name: "Bartholomew", Times: 4})
	var he *waltz.HTTPError
	if errors.As(err, &he) {
		fmt.Println(he.Code, errors.Is(err, client.ErrNotSent))
		for _, f := range he.Errors {
			fmt.Println(f.Location, f.Keyword, f.Message)
		}
	}
	// Output:
	// en [Hello, Ada Hello, Ada] <nil>
	// [Hello, Grace] <nil>
	// 422 true
	// path.name maxLength must be at most 10 characters long, got "Bartholomew"
	// query.times maximum must be at most 3, got "4"
}

// The types of a conditional write: the server's Operation.Current
// requires If-Match, which no field of In holds.
type (
	NoteIn struct {
		ID   int `path:"id"`
		Body struct {
			Text string `json:"text"`
		}
	}
	NoteOut struct {
		ETag string `header:"ETag"`
	}
)

// A write the server makes conditional is declared so at Op: a call
// without If-Match is refused before it is sent, with the server's 428.
func ExampleConditional() {
	r := waltz.New()
	api.Op(r, http.MethodPut, "/notes/:id", func(c *waltz.Context, in *NoteIn) (*NoteOut, error) {
		return &NoteOut{ETag: `"v2"`}, nil
	}, api.Operation{Current: func(c *waltz.Context, in *NoteIn) (api.Validators, error) {
		return api.Validators{ETag: `"v1"`}, nil
	}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	c := &client.Client{URL: srv.URL}

	edit := client.Op[NoteIn, NoteOut](c, "PUT /notes/:id", client.Conditional())

	_, err := edit(context.Background(), NoteIn{ID: 1})
	var he *waltz.HTTPError
	if errors.As(err, &he) {
		fmt.Println(he.Code, errors.Is(err, client.ErrNotSent), he.Errors[0].Location, he.Errors[0].Keyword)
	}

	ctx := client.WithHeader(context.Background(), http.Header{"If-Match": {`"v1"`}})
	out, err := edit(ctx, NoteIn{ID: 1})
	fmt.Println(out.ETag, err)
	// Output:
	// 428 true header.If-Match required
	// "v2" <nil>
}

// The output of a download: its Body's Content is the answer's body as
// it arrives.
type ReportOut struct {
	Status int
	ETag   string `header:"ETag"`
	Body   api.Download
}

// A download is read from the answer as it arrives, and closed by the
// caller; an answer with no content, such as a 304, leaves Body zero.
func Example_download() {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/report", func(c *waltz.Context, in *struct{}) (*ReportOut, error) {
		return &ReportOut{ETag: `"r1"`, Body: api.Download{Content: strings.NewReader("a,b\n1,2\n")}}, nil
	}, api.Operation{Produces: []string{"text/csv"}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	report := client.Op[struct{}, ReportOut](&client.Client{URL: srv.URL}, "GET /report")

	out, err := report(context.Background(), struct{}{})
	if err != nil {
		return
	}
	defer out.Body.Content.(io.Closer).Close()
	n, err := io.Copy(os.Stdout, out.Body.Content)
	fmt.Println(n, out.Body.Type, err)

	ctx := client.WithHeader(context.Background(), http.Header{"If-None-Match": {out.ETag}})
	again, err := report(ctx, struct{}{})
	fmt.Println(again.Status, again.Body.Content == nil, err)
	// Output:
	// a,b
	// 1,2
	// 8 text/csv <nil>
	// 304 true <nil>
}
