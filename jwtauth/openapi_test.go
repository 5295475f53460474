package jwtauth_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/jwtauth"
	"github.com/waltz-go/waltz/openapi"
)

// TestOpenAPI holds what New declares for the document: the Bearer
// scheme as an http bearer scheme with bearerFormat JWT; another scheme
// or field as an apiKey in its header, named for it; Optional as the
// scheme or nothing ({}); 401 and 400 always, and 503 with a JWKS.
func TestOpenAPI(t *testing.T) {
	keys := []jwtauth.Key{{Algorithm: "HS256", Secret: secret}}
	r := waltz.New()
	type out struct{ Body string }
	h := func(c *waltz.Context, in *struct{}) (*out, error) { return &out{}, nil }
	for path, o := range map[string]jwtauth.Options{
		"/bearer":   {Keys: keys},
		"/token":    {Keys: keys, Scheme: "Token"},
		"/header":   {Keys: keys, Header: "X-Access-Token"},
		"/optional": {Keys: keys, Optional: true},
		"/jwks":     {JWKS: jwtauth.JWKS{URL: "https://id.example.com/jwks"}},
	} {
		api.Op(r.With(jwtauth.New[jwt.RegisteredClaims](o)), http.MethodGet, path, h, api.Operation{})
	}
	doc := api.Describe(r, api.Info{Title: "t", Version: "1"})
	want := map[string]openapi.SecurityScheme{
		"bearerJWT":      {Type: "http", Scheme: "bearer", BearerFormat: "JWT", Description: `A JWT, sent as "Authorization: Bearer <JWT>".`},
		"Token":          {Type: "apiKey", In: "header", Name: "Authorization", Description: `A JWT, sent as "Authorization: Token <JWT>".`},
		"X-Access-Token": {Type: "apiKey", In: "header", Name: "X-Access-Token", Description: `A JWT, sent as "X-Access-Token: <JWT>".`},
	}
	if len(doc.Components.SecuritySchemes) != len(want) {
		t.Errorf("got the schemes %v", slices.Sorted(maps.Keys(doc.Components.SecuritySchemes)))
	}
	for name, s := range want {
		if got := doc.Components.SecuritySchemes[name]; got == nil || *got != s {
			b, _ := json.Marshal(got)
			t.Errorf("%s: got %s, want %+v", name, b, s)
		}
	}
	bearer := []openapi.SecurityRequirement{{"bearerJWT": {}}}
	for path, tc := range map[string]struct {
		reqs  []openapi.SecurityRequirement
		codes []string
	}{
		"/bearer":   {bearer, []string{"200", "400", "401"}},
		"/token":    {[]openapi.SecurityRequirement{{"Token": {}}}, []string{"200", "400", "401"}},
		"/header":   {[]openapi.SecurityRequirement{{"X-Access-Token": {}}}, []string{"200", "400", "401"}},
		"/optional": {[]openapi.SecurityRequirement{{"bearerJWT": {}}, {}}, []string{"200", "400", "401"}},
		"/jwks":     {bearer, []string{"200", "400", "401", "503"}},
	} {
		op := doc.Paths[path].Get
		if !reflect.DeepEqual(op.Security, tc.reqs) {
			t.Errorf("%s: got the requirements %v, want %v", path, op.Security, tc.reqs)
		}
		if got := slices.Sorted(maps.Keys(op.Responses)); !reflect.DeepEqual(got, tc.codes) {
			t.Errorf("%s: got the answers %v, want %v", path, got, tc.codes)
		}
	}
}
