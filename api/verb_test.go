package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

type noteRes struct{ mw []string }

type noteIDIn struct {
	ID int `path:"id" minimum:"1"`
}

type noteOut struct {
	Body struct {
		ID   int    `json:"id"`
		Text string `json:"text"`
	}
}

func (*noteRes) Paths() []string { return []string{"/notes/:id", "/n/:id"} }

func (n *noteRes) Delete(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }

func (n *noteRes) Middleware() []waltz.Middleware {
	return []waltz.Middleware{func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error { n.mw = append(n.mw, c.Pattern()); return next(c) }
	}}
}

func (n *noteRes) Verbs() []TypedVerb {
	return []TypedVerb{Verb(http.MethodGet, n.get, Operation{ID: "getNote"})}
}

func (n *noteRes) get(c *waltz.Context, in *noteIDIn) (*noteOut, error) {
	out := &noteOut{}
	out.Body.ID, out.Body.Text = in.ID, "hello"
	return out, nil
}

func TestTypedResource(t *testing.T) {
	r := waltz.New()
	res := &noteRes{}
	r.Resource(res)
	for _, tc := range []struct {
		method, target string
		code           int
		body           string
	}{
		{"GET", "/notes/3", 200, `{"id":3,"text":"hello"}`},
		{"GET", "/n/4", 200, `{"id":4,"text":"hello"}`},
		{"GET", "/notes/0", 422, ""},
		{"DELETE", "/notes/3", 204, ""},
		{"PUT", "/notes/3", 405, ""},
	} {
		w, _ := serveTyped(t, r, tc.method, tc.target, "", "")
		if w.Code != tc.code || tc.body != "" && strings.TrimSpace(w.Body.String()) != tc.body {
			t.Errorf("%s %s: got %d %s, want %d %s", tc.method, tc.target, w.Code, w.Body, tc.code, tc.body)
		}
	}
	if got := strings.Join(res.mw, ","); got != "/notes/:id,/n/:id,/notes/:id,/notes/:id" {
		t.Errorf("the resource's middleware saw %s", got)
	}
	doc := string(OpenAPI(r, Info{}))
	for _, want := range []string{`"operationId": "getNote"`, `"operationId": "getNote-2"`, `"operationId": "delete-notes-id"`} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %s", want)
		}
	}
}

type clashRes struct{}

func (clashRes) Paths() []string            { return []string{"/c"} }
func (clashRes) Get(c *waltz.Context) error { return nil }
func (clashRes) Verbs() []TypedVerb {
	return []TypedVerb{Verb(http.MethodGet, opFn[noOut, noOut], Operation{})}
}
func (badVerbRes) Paths() []string             { return []string{"/b/:id"} }
func (badVerbRes) Post(c *waltz.Context) error { return nil }
func (badVerbRes) Verbs() []TypedVerb {
	return []TypedVerb{Verb(http.MethodGet, opFn[badPathIn, noOut], Operation{})}
}
func (wrongVerbsRes) Paths() []string            { return []string{"/w"} }
func (wrongVerbsRes) Get(c *waltz.Context) error { return nil }
func (wrongVerbsRes) Verbs() []string            { return nil }

type (
	badVerbRes    struct{}
	wrongVerbsRes struct{}
)

func TestTypedResourcePanics(t *testing.T) {
	for _, tc := range []struct {
		res  waltz.Resource
		want string
	}{
		{clashRes{}, "two handlers for GET"},
		{badVerbRes{}, `typed verb GET at "/b/:id": type api.badPathIn, field ID (int): tag path:"idd" names no param`},
		{wrongVerbsRes{}, "method Verbs has type func() []string, want func() []api.TypedVerb"},
	} {
		r := waltz.New()
		func() {
			defer func() {
				msg := ""
				if err, ok := recover().(error); ok {
					msg = err.Error()
				}
				if !strings.Contains(msg, tc.want) {
					t.Errorf("got %q, want %q", msg, tc.want)
				}
			}()
			r.Resource(tc.res)
		}()
		if len(r.Routes()) != 0 {
			t.Errorf("%T: got routes %v after the panic, want none", tc.res, r.Routes())
		}
	}
}
