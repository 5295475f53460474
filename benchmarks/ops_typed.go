package benchmarks

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// typedOps is the API on waltz's typed operations: the input types' tags
// say where each value comes from and the rules it must keep, which the
// hand-written handlers check in code.
func typedOps() http.Handler {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/orgs/:org/items/:id", typedGet, api.Operation{ID: "get-item"})
	api.Op(r, http.MethodPost, "/orgs/:org/items", typedPost, api.Operation{ID: "create-item", Status: http.StatusCreated})
	return r
}

// typedQueryOps is typedOps with a QUERY in the POST's place: post's
// shape, answered 200, for the query case.
func typedQueryOps() http.Handler {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/orgs/:org/items/:id", typedGet, api.Operation{ID: "get-item"})
	api.Op(r, waltz.MethodQuery, "/orgs/:org/items", typedPost, api.Operation{ID: "query-items"})
	return r
}

// negotiatedOps is typedOps whose GET answers JSON or XML, by the
// request's Accept field.
func negotiatedOps() http.Handler {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/orgs/:org/items/:id", typedGet, api.Operation{ID: "get-item",
		Produces: []string{"application/json", "application/xml"}})
	api.Op(r, http.MethodPost, "/orgs/:org/items", typedPost, api.Operation{ID: "create-item", Status: http.StatusCreated})
	return r
}

type typedGetInput struct {
	Org      string `path:"org"`
	ID       int64  `path:"id"`
	Limit    int    `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Archived bool   `query:"archived"`
	Sort     string `query:"sort" enum:"created,updated,name" default:"created"`
}

type typedItemOutput struct{ Body opItem }

func typedGet(_ *waltz.Context, in *typedGetInput) (*typedItemOutput, error) {
	return &typedItemOutput{opItem{Org: in.Org, ID: in.ID, Limit: in.Limit, Archived: in.Archived, Sort: in.Sort}}, nil
}

type typedPostInput struct {
	Org  string `path:"org"`
	Body struct {
		Name     string   `json:"name" required:"true" minLength:"1" maxLength:"64"`
		Priority int      `json:"priority" required:"true" minimum:"1" maximum:"5"`
		Tags     []string `json:"tags,omitempty" maxItems:"8"`
	}
}

func typedPost(_ *waltz.Context, in *typedPostInput) (*typedItemOutput, error) {
	b := in.Body
	return &typedItemOutput{opItem{Org: in.Org, ID: 1, Name: b.Name, Priority: b.Priority, Tags: b.Tags}}, nil
}

// ProblemApp is a router with one plain route, POST /orgs/:org/items,
// whose handler returns the HTTPError that the typed POST answers
// post-invalid's body with (read back from that answer), rendered as
// problem details: the cost of routing and of that problem document
// alone, without reading or checking a body.
func ProblemApp() http.Handler {
	rec := httptest.NewRecorder()
	typedOps().ServeHTTP(rec, jsonRequest("/orgs/acme/items", opInvalidBody))
	var p struct {
		Detail string             `json:"detail"`
		Errors []waltz.FieldError `json:"errors"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || len(p.Errors) == 0 {
		panic("benchmarks: the typed post-invalid answer is no problem document: " + rec.Body.String())
	}
	he := &waltz.HTTPError{Code: rec.Code, Message: p.Detail, Errors: p.Errors}
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	r.Post("/orgs/:org/items", func(*waltz.Context) error { return he })
	return r
}
