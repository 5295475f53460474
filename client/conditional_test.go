package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

// docIn is a conditional write's input: the server's Operation.Current
// owns If-Match, so no field of In holds it.
type docIn struct {
	ID   int `path:"id" minimum:"1"`
	Body struct {
		Text string `json:"text" minLength:"1"`
	}
}

// docIfMatchIn holds the precondition in a field of its own.
type docIfMatchIn struct {
	ID      int    `path:"id"`
	IfMatch string `header:"If-Match"`
	Body    struct {
		Text string `json:"text"`
	}
}

type docOut struct {
	ETag string `header:"ETag"`
	Body struct {
		Text string `json:"text"`
	}
}

// newDocServer serves a document at version 1, which a PUT changes only
// under If-Match (Operation.Current), counting requests.
func newDocServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	r := waltz.New()
	current := func(c *waltz.Context, in *docIn) (api.Validators, error) {
		if in.ID == 2 { // none yet: a PUT creates it
			return api.Validators{Absent: true}, nil
		}
		return api.Validators{ETag: `"v1"`, LastModified: changed}, nil
	}
	api.Op(r, http.MethodPut, "/docs/:id", func(c *waltz.Context, in *docIn) (*docOut, error) {
		out := &docOut{ETag: `"v2"`}
		out.Body.Text = in.Body.Text
		return out, nil
	}, api.Operation{Current: current})
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n.Add(1)
		r.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestConditional: a write declared conditional is refused before it is
// sent without a precondition, with the server's 428 naming If-Match;
// with one (from WithHeader, the Client's Header or a field of In) it
// goes, and the server judges it. Without the declaration the request
// goes and the server answers 428.
func TestConditional(t *testing.T) {
	srv, n := newDocServer(t)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	put := client.Op[docIn, docOut](c, "PUT /docs/:id", client.Conditional())
	in := docIn{ID: 1}
	in.Body.Text = "new"
	since := changed.Add(time.Hour).Format(http.TimeFormat)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		code int // the HTTPError's, 0 for none
		sent bool
	}{
		{"no precondition", context.Background(), http.StatusPreconditionRequired, false},
		{"If-Match", client.WithHeader(context.Background(), http.Header{"If-Match": {`"v1"`}}), 0, true},
		{"a stale If-Match", client.WithHeader(context.Background(), http.Header{"If-Match": {`"v0"`}}), http.StatusPreconditionFailed, true},
		{"If-Unmodified-Since", client.WithHeader(context.Background(), http.Header{"If-Unmodified-Since": {since}}), http.StatusPreconditionRequired, true},
		{"If-Unmodified-Since not a date", client.WithHeader(context.Background(), http.Header{"If-Unmodified-Since": {"yesterday"}}), http.StatusPreconditionRequired, false},
		{"an empty If-Match", client.WithHeader(context.Background(), http.Header{"If-Match": {""}}), http.StatusPreconditionRequired, false},
		{"if-match in lower case", client.WithHeader(context.Background(), http.Header{"if-match": {`"v1"`}}), 0, true},
		// A create: sent, and the server's 412, as the document exists.
		{"If-None-Match star", client.WithHeader(context.Background(), http.Header{"If-None-Match": {`*`}}), http.StatusPreconditionFailed, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := n.Load()
			out, err := put(tc.ctx, in)
			if sent := n.Load() > before; sent != tc.sent {
				t.Errorf("sent: got %v, want %v", sent, tc.sent)
			}
			var he *waltz.HTTPError
			switch {
			case tc.code == 0 && (err != nil || out.ETag != `"v2"`):
				t.Fatalf("got %+v, %v; want the write done", out, err)
			case tc.code != 0 && (!errors.As(err, &he) || he.Code != tc.code):
				t.Fatalf("got %v, want a %d HTTPError", err, tc.code)
			case tc.code != 0 && errors.Is(err, client.ErrNotSent) == tc.sent:
				t.Errorf("got %v: ErrNotSent is %v, want %v", err, errors.Is(err, client.ErrNotSent), !tc.sent)
			}
			if tc.sent || tc.code == 0 {
				return
			}
			if len(he.Errors) != 1 || he.Errors[0].Location != "header.If-Match" || he.Errors[0].Keyword != "required" ||
				!strings.Contains(he.Message, "If-Match") {
				t.Errorf("got %q with failures %+v, want a message and one failure naming header.If-Match, required", he.Message, he.Errors)
			}
		})
	}

	// An In that breaks its rules is refused first, as the server binds
	// before it judges preconditions.
	before := n.Load()
	_, err := put(context.Background(), docIn{})
	var he *waltz.HTTPError
	if !errors.As(err, &he) || he.Code != http.StatusUnprocessableEntity || n.Load() != before {
		t.Errorf("an invalid In without If-Match: got %v, want the 422, not sent", err)
	}

	// A create of a document that does not exist (api.Validators.Absent).
	create := docIn{ID: 2}
	create.Body.Text = "first"
	if _, err := put(client.WithHeader(context.Background(), http.Header{"If-None-Match": {`*`}}), create); err != nil {
		t.Errorf("If-None-Match: * for a new document: got %v, want the write done", err)
	}

	// The precondition from the Client's Header, or from a field of In.
	hc := &client.Client{URL: srv.URL, HTTP: srv.Client(), Header: http.Header{"If-Match": {`"v1"`}}}
	if _, err := client.Op[docIn, docOut](hc, "PUT /docs/:id", client.Conditional())(context.Background(), in); err != nil {
		t.Errorf("If-Match in Client.Header: got %v, want the write done", err)
	}
	own := client.Op[docIfMatchIn, docOut](c, "PUT /docs/:id", client.Conditional())
	fin := docIfMatchIn{ID: 1, IfMatch: `"v1"`}
	fin.Body.Text = "new"
	if _, err := own(context.Background(), fin); err != nil {
		t.Errorf("If-Match in a field of In: got %v, want the write done", err)
	}
	fin.IfMatch = ""
	if _, err := own(context.Background(), fin); !errors.As(err, &he) || he.Code != http.StatusPreconditionRequired || !errors.Is(err, client.ErrNotSent) {
		t.Errorf("the field of In empty: got %v, want a 428, not sent", err)
	}

	// Undeclared, the call is sent and the server refuses it.
	before = n.Load()
	_, err = client.Op[docIn, docOut](c, "PUT /docs/:id")(context.Background(), in)
	if !errors.As(err, &he) || he.Code != http.StatusPreconditionRequired || errors.Is(err, client.ErrNotSent) || n.Load() != before+1 {
		t.Errorf("not declared conditional: got %v, want the server's 428", err)
	}
}

// TestConditionalPanics: a read cannot be a conditional write.
func TestConditionalPanics(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		t.Run(method, func(t *testing.T) {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, "client.Conditional") || !strings.Contains(msg, method) {
					t.Errorf("got panic %q, want one naming client.Conditional and %s", msg, method)
				}
			}()
			client.Op[struct{}, emptyOut](&client.Client{}, method+" /x", client.Conditional())
		})
	}
}
