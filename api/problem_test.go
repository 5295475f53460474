package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/middleware"
)

// The contract's errors as the router renders them, and what the bundled
// middleware declares to the document.

// TestTypedProblemWithoutRouterChoice holds that typed operations answer
// problem details while the rest of the router keeps text.
func TestTypedProblemWithoutRouterChoice(t *testing.T) {
	r := waltz.New()
	type in struct {
		N int `query:"n" maximum:"1"`
	}
	type out struct{}
	api.Op(r, "GET", "/typed", func(c *waltz.Context, in *in) (*out, error) {
		return nil, &waltz.HTTPError{Code: 404, Message: "no such thing", Type: "https://example.com/probs/missing"}
	}, api.Operation{})
	for _, tc := range []struct{ target, ctype string }{
		{"/typed?n=2", "application/problem+json"},
		{"/typed", "application/problem+json"},
		{"/plain", "text/plain; charset=utf-8"},
	} {
		w := serveAccept(r, "GET", tc.target, "", "")
		if got := w.Header().Get("Content-Type"); got != tc.ctype {
			t.Errorf("%s: got %q %s, want %q", tc.target, got, w.Body, tc.ctype)
		}
	}
	w := serveAccept(r, "GET", "/typed", "", "")
	var p waltz.Problem
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	if p.Type != "https://example.com/probs/missing" || p.Detail != "no such thing" || p.Instance != "/typed" {
		t.Errorf("got %+v", p)
	}
}

// TestProblemTextDescribed holds that every error answer of a typed
// operation has its media type in the document's response of its status:
// the problem details, and the text a client whose Accept prefers text
// gets instead.
func TestProblemTextDescribed(t *testing.T) {
	r := waltz.New()
	type in struct {
		ID int `path:"id" maximum:"9"`
	}
	type out struct {
		Body struct{ N int } `json:"n"`
	}
	api.Op(r, "GET", "/things/:id", func(c *waltz.Context, in *in) (*out, error) {
		return nil, &waltz.HTTPError{Code: http.StatusNotFound, Message: "no such thing"}
	}, api.Operation{Errors: []int{http.StatusNotFound}})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(r, api.Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	responses := doc.Paths["/things/{id}"]["get"].Responses
	for _, tc := range []struct{ target, accept, want string }{
		{"/things/10", "", "application/problem+json"},
		{"/things/10", "text/html", "text/plain"},
		{"/things/1", "text/plain, application/json;q=0.5", "text/plain"},
		{"/things/1", "application/json", "application/problem+json"},
	} {
		w := serveAccept(r, "GET", tc.target, "", tc.accept)
		got, _, _ := strings.Cut(w.Header().Get("Content-Type"), ";")
		if got != tc.want {
			t.Errorf("%s, Accept %q: got %d %q, want %s", tc.target, tc.accept, w.Code, got, tc.want)
		}
		if responses[strconv.Itoa(w.Code)].Content[got] == nil {
			t.Errorf("%s, Accept %q: %d %s is not in the document: %v", tc.target, tc.accept, w.Code, got, responses[strconv.Itoa(w.Code)].Content)
		}
	}
}

// TestBundledDeclarations holds that the bundled middleware's refusals
// reach the document of a typed operation inside it, and that two
// instances of one constructor keep their own declarations.
func TestBundledDeclarations(t *testing.T) {
	r := waltz.New()
	type in struct{}
	type out struct{}
	h := func(c *waltz.Context, in *in) (*out, error) { return nil, nil }
	auth := middleware.BearerAuth(middleware.BearerAuthOptions{Tokens: []string{"t"}})
	keyAuth := middleware.BearerAuth(middleware.BearerAuthOptions{Tokens: []string{"t"}, Header: "X-API-Key"})
	limit := middleware.RateLimit(middleware.RateLimitOptions{FailOpen: true})
	slow := middleware.Timeout(middleware.TimeoutOptions{Duration: time.Second, Code: http.StatusGatewayTimeout})
	api.Op(r.With(auth, limit), "GET", "/a", h, api.Operation{ID: "a"})
	api.Op(r.With(keyAuth, slow, middleware.BodyLimit(10)), "GET", "/b", h, api.Operation{ID: "b"})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]any
			Security  []map[string][]string
		}
		Components struct{ SecuritySchemes map[string]map[string]string }
	}
	if err := json.Unmarshal(api.OpenAPI(r, api.Info{}), &doc); err != nil {
		t.Fatal(err)
	}
	codes := func(path string) string {
		var cs []string
		for c := range doc.Paths[path]["get"].Responses {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		return strings.Join(cs, ",")
	}
	if got, want := codes("/a"), "204,400,401,429"; got != want {
		t.Errorf("/a: got responses %s, want %s", got, want)
	}
	if got, want := codes("/b"), "204,400,401,413,504"; got != want {
		t.Errorf("/b: got responses %s, want %s", got, want)
	}
	if got := doc.Paths["/a"]["get"].Security; len(got) != 1 || got[0]["bearerAuth"] == nil {
		t.Errorf("/a: got security %v, want bearerAuth", got)
	}
	if got := doc.Components.SecuritySchemes["bearerAuthXAPIKey"]; got["type"] != "apiKey" || got["name"] != "X-API-Key" || got["in"] != "header" {
		t.Errorf("got scheme %v, want an apiKey in header X-API-Key", got)
	}
}

// serveAccept sends one request through h, with a JSON body when body is
// not "" and an Accept field when accept is not "".
func serveAccept(h http.Handler, method, target, body, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}
