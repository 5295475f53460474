package benchmarks

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// humaOps is the API on huma v2 over a ServeMux (its humago adapter). The
// config drops DefaultConfig's create hook, which would add a Link header
// and a "$schema" field to every answer: the other implementations send
// neither, so each answer carries the same bytes of JSON.
func humaOps() http.Handler {
	mux := http.NewServeMux()
	config := huma.DefaultConfig("bench", "1.0.0")
	config.CreateHooks = nil
	api := humago.New(mux, config)
	huma.Register(api, huma.Operation{
		OperationID: "get-item",
		Method:      http.MethodGet,
		Path:        "/orgs/{org}/items/{id}",
	}, humaGet)
	huma.Register(api, huma.Operation{
		OperationID:   "create-item",
		Method:        http.MethodPost,
		Path:          "/orgs/{org}/items",
		DefaultStatus: http.StatusCreated,
	}, humaPost)
	return mux
}

type humaGetInput struct {
	Org      string `path:"org"`
	ID       int64  `path:"id"`
	Limit    int    `query:"limit" default:"20" minimum:"1" maximum:"100"`
	Archived bool   `query:"archived"`
	Sort     string `query:"sort" default:"created" enum:"created,updated,name"`
}

type humaItemOutput struct {
	Body opItem
}

func humaGet(_ context.Context, in *humaGetInput) (*humaItemOutput, error) {
	return &humaItemOutput{opItem{Org: in.Org, ID: in.ID, Limit: in.Limit, Archived: in.Archived, Sort: in.Sort}}, nil
}

type humaPostInput struct {
	Org  string `path:"org"`
	Body struct {
		Name     string   `json:"name" minLength:"1" maxLength:"64"`
		Priority int      `json:"priority" minimum:"1" maximum:"5"`
		Tags     []string `json:"tags,omitempty" maxItems:"8"`
	}
}

func humaPost(_ context.Context, in *humaPostInput) (*humaItemOutput, error) {
	b := in.Body
	return &humaItemOutput{opItem{Org: in.Org, ID: 1, Name: b.Name, Priority: b.Priority, Tags: b.Tags}}, nil
}
