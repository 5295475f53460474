package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

// thingIn takes a value from every place a request has.
type thingIn struct {
	Kind    string    `path:"kind" enum:"book,film"`
	Rest    string    `path:"rest"`
	Q       string    `query:"q" maxLength:"20"`
	Page    int       `query:"page" minimum:"1" default:"1"`
	Tags    []string  `query:"tag" maxItems:"3"`
	Since   time.Time `query:"since"`
	Verbose *bool     `query:"verbose" default:"true"`
	Trace   string    `header:"X-Trace" pattern:"^[a-f0-9]*$"`
	Lang    string    `header:"Accept-Language"`
	Session string    `cookie:"session" required:"true"`
	Theme   string    `cookie:"theme"`
}

// thingOut gives back an answer of every shape: a status, headers of
// several types, a body.
type thingOut struct {
	Status  int
	ETag    string    `header:"ETag"`
	Count   *int      `header:"X-Count"`
	Changed time.Time `header:"Last-Modified"`
	Body    echo
}

// echo is what the server bound, as it saw it.
type echo struct {
	In     thingIn `json:"in"`
	Path   string  `json:"path"`
	Query  string  `json:"query"`
	Cookie string  `json:"cookie"`
	Type   string  `json:"type"`
}

// noteIn is a body that a form fills as well as JSON.
type noteIn struct {
	ID   int `path:"id"`
	Body struct {
		Text string   `json:"text" minLength:"1"`
		Pin  bool     `json:"pin,omitempty"`
		Tags []string `json:"tags,omitempty" uniqueItems:"true"`
	} `consumes:"json,form"`
}

type noteOut struct {
	Status int
	Body   struct {
		ID   int      `json:"id"`
		Text string   `json:"text"`
		Pin  bool     `json:"pin"`
		Tags []string `json:"tags"`
		Type string   `json:"type"`
	}
}

type emptyOut struct{}

type fileOut struct {
	ETag string `header:"ETag"`
	Body api.Download
}

type greeting struct {
	Text string `json:"text" xml:"text"`
}

type greetingOut struct{ Body greeting }

var changed = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// newServer serves the operations the tests call, under /v2, counting
// requests.
func newServer(t *testing.T, render func(*waltz.Context, *waltz.HTTPError)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	r := waltz.New()
	r.RenderError = render
	g := r.Group("/v2")
	api.Op(g, http.MethodGet, "/things/:kind/*rest", func(c *waltz.Context, in *thingIn) (*thingOut, error) {
		n := len(in.Tags)
		cookie := ""
		if ck := c.Request.Header["Cookie"]; len(ck) > 0 {
			cookie = ck[0]
		}
		return &thingOut{Status: http.StatusAccepted, ETag: `"v1"`, Count: &n, Changed: changed,
			Body: echo{In: *in, Path: c.Request.URL.EscapedPath(), Query: c.Request.URL.RawQuery, Cookie: cookie}}, nil
	}, api.Operation{})
	api.Op(g, http.MethodPut, "/notes/:id<int>", func(c *waltz.Context, in *noteIn) (*noteOut, error) {
		out := &noteOut{Status: http.StatusCreated}
		out.Body.ID, out.Body.Text, out.Body.Pin, out.Body.Tags = in.ID, in.Body.Text, in.Body.Pin, in.Body.Tags
		out.Body.Type = c.Request.Header.Get("Content-Type")
		return out, nil
	}, api.Operation{})
	api.Op(g, http.MethodDelete, "/notes/:id<int>", func(c *waltz.Context, in *struct {
		ID int `path:"id"`
	}) (*emptyOut, error) {
		if in.ID == 404 {
			return nil, &waltz.HTTPError{Code: http.StatusNotFound, Message: "no note 404", Type: "https://example.com/probs/gone"}
		}
		return nil, nil
	}, api.Operation{})
	api.Op(g, http.MethodGet, "/codes/:code<[a-z]{3}>", func(c *waltz.Context, in *struct {
		Code string `path:"code"`
	}) (*emptyOut, error) {
		return &emptyOut{}, nil
	}, api.Operation{})
	api.Op(g, http.MethodGet, "/files/:name", func(c *waltz.Context, in *struct {
		Name string `path:"name"`
	}) (*fileOut, error) {
		return &fileOut{ETag: `"f1"`, Body: api.Download{Content: strings.NewReader("a,b\n" + in.Name + "\n"), ModTime: changed}}, nil
	}, api.Operation{Produces: []string{"text/csv"}})
	api.Op(g, http.MethodGet, "/greeting", func(c *waltz.Context, in *struct{}) (*greetingOut, error) {
		return &greetingOut{Body: greeting{Text: "hello"}}, nil
	}, api.Operation{Produces: []string{"application/xml", "application/json"}})
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n.Add(1)
		r.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestEveryPlace(t *testing.T) {
	srv, _ := newServer(t, nil)
	c := &client.Client{URL: srv.URL + "/v2/", HTTP: srv.Client(),
		Header: http.Header{"Cookie": {"pref=1"}, "Accept-Language": {"fr"}}}
	get := client.Op[thingIn, thingOut](c, "GET /things/:kind/*rest")
	verbose := false
	in := thingIn{Kind: "book", Rest: "a b/c%d/é", Q: "x&y=z +", Tags: []string{"go", "a,b"},
		Since: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Verbose: &verbose, Trace: "abc123", Lang: "en",
		Session: "s 1,2", Theme: ""}
	out, err := get(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.Page = 1 // the server's default, for the zero value left out
	if !reflect.DeepEqual(out.Body.In, want) {
		t.Errorf("the server bound\n\t%+v\nwant\n\t%+v", out.Body.In, want)
	}
	for _, tc := range []struct{ what, got, want string }{
		{"path", out.Body.Path, "/v2/things/book/a%20b/c%25d/%C3%A9"},
		{"query", out.Body.Query, "q=x%26y%3Dz+%2B&tag=go&tag=a%2Cb&since=2026-01-02T03%3A04%3A05.000000006Z&verbose=false"},
		{"cookie", out.Body.Cookie, `pref=1; session="s 1,2"`},
		{"ETag", out.ETag, `"v1"`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.what, tc.got, tc.want)
		}
	}
	if out.Status != http.StatusAccepted || out.Count == nil || *out.Count != 2 || !out.Changed.Equal(changed) {
		t.Errorf("got status %d, X-Count %v, Last-Modified %v; want 202, 2, %v", out.Status, out.Count, out.Changed, changed)
	}

	// The client's own Accept-Language goes when the In's is left out.
	in.Lang = ""
	if out, err = get(context.Background(), in); err != nil || out.Body.In.Lang != "fr" {
		t.Errorf("got %v, Accept-Language %q; want the Client's fr", err, out.Body.In.Lang)
	}
}

func TestBodies(t *testing.T) {
	srv, _ := newServer(t, nil)
	c := &client.Client{URL: srv.URL + "/v2", HTTP: srv.Client()}
	for _, tc := range []struct {
		name  string
		put   func(context.Context, noteIn) (*noteOut, error)
		ctype string
	}{
		{"JSON", client.Op[noteIn, noteOut](c, "PUT /notes/:id<int>"), "application/json"},
		{"form", client.Op[noteIn, noteOut](c, "PUT /notes/:id<int>", client.Form()), "application/x-www-form-urlencoded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in noteIn
			in.ID, in.Body.Text, in.Body.Pin, in.Body.Tags = -7, "héllo & bye", true, []string{"a", "b c"}
			out, err := tc.put(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			b := out.Body
			if out.Status != 201 || b.ID != -7 || b.Text != in.Body.Text || !b.Pin || !reflect.DeepEqual(b.Tags, in.Body.Tags) ||
				b.Type != tc.ctype {
				t.Errorf("got %d %+v, want 201 and the note as %s", out.Status, b, tc.ctype)
			}
		})
	}
}

// TestRefused: an In the server would refuse is not sent; the error
// lists every failure, at its location.
func TestRefused(t *testing.T) {
	srv, n := newServer(t, nil)
	c := &client.Client{URL: srv.URL + "/v2", HTTP: srv.Client()}
	get := client.Op[thingIn, thingOut](c, "GET /things/:kind/*rest")
	put := client.Op[noteIn, noteOut](c, "PUT /notes/:id<int>")
	code := client.Op[struct {
		Code string `path:"code"`
	}, emptyOut](c, "GET /codes/:code<[a-z]{3}>")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
		want string // "location keyword" of each failure
	}{
		{"every place", func() error {
			_, err := get(ctx, thingIn{Kind: "song", Rest: "/x", Q: strings.Repeat("q", 21), Page: -1,
				Tags: []string{"1", "2", "3", "4"}, Trace: "XYZ", Lang: "fr\n"})
			return err
		}, "path.rest pattern, path.kind enum, query.q maxLength, query.page minimum, query.tag maxItems, " +
			"header.X-Trace pattern, header.Accept-Language format"},
		{"dot segment", func() error {
			_, err := get(ctx, thingIn{Kind: "book", Rest: "a/../b", Session: "s"})
			return err
		}, "path.rest pattern"},
		{"cookie value", func() error {
			_, err := get(ctx, thingIn{Kind: "book", Rest: "a", Session: "a;b"})
			return err
		}, "cookie.session format"},
		{"body", func() error {
			_, err := put(ctx, noteIn{ID: 1})
			return err
		}, "body.text minLength"},
		{"constraint", func() error {
			_, err := code(ctx, struct {
				Code string `path:"code"`
			}{"abcd"})
			return err
		}, "path.code pattern"},
		{"empty param", func() error {
			_, err := code(ctx, struct {
				Code string `path:"code"`
			}{""})
			return err
		}, "path.code minLength"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := n.Load()
			err := tc.call()
			if sent := n.Load() - before; sent != 0 {
				t.Errorf("sent %d requests, want none", sent)
			}
			var he *waltz.HTTPError
			if !errors.As(err, &he) || he.Code != 422 || !errors.Is(err, client.ErrNotSent) {
				t.Fatalf("got %v, want a 422 *waltz.HTTPError that was not sent", err)
			}
			var got []string
			for _, f := range he.Errors {
				got = append(got, f.Location+" "+f.Keyword)
			}
			if strings.Join(got, ", ") != tc.want {
				t.Errorf("got failures\n\t%s\nwant\n\t%s", strings.Join(got, ", "), tc.want)
			}
		})
	}
}

// TestErrorAnswers: an error answer is a *waltz.HTTPError, from a
// problem document or from text.
func TestErrorAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		render func(*waltz.Context, *waltz.HTTPError)
		typ    string
	}{
		{"problem", nil, "https://example.com/probs/gone"},
		{"text", waltz.RenderText, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := newServer(t, tc.render)
			c := &client.Client{URL: srv.URL + "/v2", HTTP: srv.Client()}
			del := client.Op[struct {
				ID int `path:"id"`
			}, emptyOut](c, "DELETE /notes/:id<int>")
			_, err := del(context.Background(), struct {
				ID int `path:"id"`
			}{404})
			var he *waltz.HTTPError
			if !errors.As(err, &he) || he.Code != 404 || he.Message != "no note 404" || he.Type != tc.typ ||
				errors.Is(err, client.ErrNotSent) {
				t.Errorf("got %#v, want the server's 404 %q of type %q", err, "no note 404", tc.typ)
			}
			out, err := del(context.Background(), struct {
				ID int `path:"id"`
			}{1})
			if err != nil || out == nil {
				t.Errorf("got %v, %v; want an empty answer", out, err)
			}
		})
	}
	// A problem the server found in the request that the client let
	// through: the Out type of the client is looser than the server's.
	srv, _ := newServer(t, nil)
	c := &client.Client{URL: srv.URL + "/v2", HTTP: srv.Client()}
	put := client.Op[struct {
		ID   string `path:"id"`
		Body struct {
			Text int `json:"text"`
		}
	}, noteOut](c, "PUT /notes/:id")
	_, err := put(context.Background(), struct {
		ID   string `path:"id"`
		Body struct {
			Text int `json:"text"`
		}
	}{ID: "7"})
	var he *waltz.HTTPError
	if !errors.As(err, &he) || he.Code != 422 || len(he.Errors) != 1 || he.Errors[0].Location != "body.text" {
		t.Errorf("got %v, want the server's 422 naming body.text", err)
	}
}

// TestOtherBodies: a download's bytes come back as they were sent, in a
// Content the caller closes; an operation that negotiates is asked for
// JSON.
func TestOtherBodies(t *testing.T) {
	srv, _ := newServer(t, nil)
	c := &client.Client{URL: srv.URL + "/v2", HTTP: srv.Client()}
	file, err := client.Op[struct {
		Name string `path:"name"`
	}, fileOut](c, "GET /files/:name")(context.Background(), struct {
		Name string `path:"name"`
	}{"x y"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(file.Body.Content)
	file.Body.Content.(io.Closer).Close()
	if string(b) != "a,b\nx y\n" || file.Body.Type != "text/csv" || !file.Body.ModTime.Equal(changed) || file.ETag != `"f1"` {
		t.Errorf("got %q %q %v ETag %s, want the CSV, text/csv, %v and \"f1\"", b, file.Body.Type, file.Body.ModTime, file.ETag, changed)
	}
	g, err := client.Op[struct{}, greetingOut](c, "GET /greeting")(context.Background(), struct{}{})
	if err != nil || g.Body.Text != "hello" {
		t.Errorf("got %v, %+v; want the JSON greeting, though XML is the server's first choice", err, g)
	}
}

// TestConcurrentCalls: one call value serves many goroutines (run with
// -race).
func TestConcurrentCalls(t *testing.T) {
	srv, _ := newServer(t, nil)
	c := &client.Client{URL: srv.URL + "/v2", HTTP: srv.Client(), Header: http.Header{"Cookie": {"a=1"}}}
	get := client.Op[thingIn, thingOut](c, "GET /things/:kind/*rest")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				rest := fmt.Sprintf("r%d/%d", i, j)
				out, err := get(context.Background(), thingIn{Kind: "film", Rest: rest, Session: rest})
				if err != nil || out.Body.In.Rest != rest || out.Body.In.Session != rest {
					t.Errorf("got %v, %+v; want rest and session %q", err, out, rest)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestOpPanics: what registration would refuse, and what a client cannot
// do, panics at Op with a message naming it.
func TestOpPanics(t *testing.T) {
	c := &client.Client{}
	for _, tc := range []struct {
		name string
		op   func()
		want string
	}{
		{"no method", func() { client.Op[struct{}, emptyOut](c, "/x") }, `route "/x" is not "METHOD /pattern"`},
		{"bad pattern", func() { client.Op[struct{}, emptyOut](c, "GET /x/{id}") }, `route "GET /x/{id}": pattern has '{'`},
		{"bad constraint", func() { client.Op[struct{}, emptyOut](c, "GET /x/:id<nope>") }, `unknown constraint <nope>`},
		{"unknown param", func() {
			client.Op[struct {
				ID int `path:"id"`
			}, emptyOut](c, "GET /x/:key")
		}, `field ID (int): tag path:"id" names no param of the pattern`},
		{"no MarshalText", func() {
			client.Op[struct {
				V onlyUnmarshal `query:"v"`
			}, emptyOut](c, "GET /x")
		}, `field V (client_test.onlyUnmarshal): a client cannot send it`},
		{"form of a nested body", func() {
			client.Op[struct{ Body struct{ A struct{ B int } } }, emptyOut](c, "POST /x", client.Form())
		}, `client.Form: the Body field does not take forms`},
		{"nil client", func() { client.Op[struct{}, emptyOut](nil, "GET /x") }, `the Client is nil`},
		{"event stream", func() { client.Op[struct{}, struct{ Body api.Events[greeting] }](c, "GET /x") },
			`field Body (api.Events[`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) {
					t.Errorf("got panic %q, want one starting \"waltz: \" with %q", msg, tc.want)
				}
			}()
			tc.op()
		})
	}
}

type onlyUnmarshal struct{ s string }

func (o *onlyUnmarshal) UnmarshalText(b []byte) error { o.s = string(b); return nil }

// TestHeaderNames: a field of Client.Header or WithHeader whose name is
// not written canonically is the same field as its canonical name's (RFC
// 9110 section 5.1: names are case-insensitive): the call's replaces the
// Client's, an In's replaces both, and an Accept of the call's is sent
// alone, not beside the one the call sets.
func TestHeaderNames(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string][]string{"token": r.Header.Values("X-Token"), "accept": r.Header.Values("Accept")})
	}))
	defer srv.Close()
	type in struct {
		Token string `header:"X-Token"`
	}
	type out struct {
		Body struct {
			Token  []string `json:"token"`
			Accept []string `json:"accept"`
		}
	}
	c := &client.Client{URL: srv.URL, HTTP: srv.Client(), Header: http.Header{"x-token": {"client"}}}
	call := client.Op[in, out](c, "GET /h")
	for _, tc := range []struct {
		name        string
		call        http.Header
		in          in
		token, acpt string
	}{
		{"client", nil, in{}, "[client]", "[application/json]"},
		{"call", http.Header{"X-TOKEN": {"call"}, "accept": {"application/problem+json"}}, in{}, "[call]", "[application/problem+json]"},
		{"in", http.Header{"x-Token": {"call"}}, in{Token: "in"}, "[in]", "[application/json]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := call(client.WithHeader(context.Background(), tc.call), tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if g := fmt.Sprint(got.Body.Token); g != tc.token {
				t.Errorf("X-Token: got %s, want %s", g, tc.token)
			}
			if g := fmt.Sprint(got.Body.Accept); g != tc.acpt {
				t.Errorf("Accept: got %s, want %s", g, tc.acpt)
			}
		})
	}
}
