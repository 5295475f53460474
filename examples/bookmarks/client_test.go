package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

const clientToken = "t0ken"

// served is the bookmarks API on a real HTTP server, counting the
// requests that reach it.
type served struct {
	*httptest.Server
	requests atomic.Int64
}

func serve(t *testing.T) *served {
	t.Helper()
	return serveStore(t, bookmarks.NewStore())
}

// serveStore is serve over store.
func serveStore(t *testing.T, store *bookmarks.Store) *served {
	t.Helper()
	s := &served{}
	h := bookmarks.New(store, clientToken)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// bookmarksClient is the example's operations, as a Go client calls them:
// from the api package's types and each operation's method and pattern.
type bookmarksClient struct {
	list   func(context.Context, bookmarks.ListInput) (*bookmarks.ListOutput, error)
	get    func(context.Context, bookmarks.IDInput) (*bookmarks.BookmarkOutput, error)
	create func(context.Context, bookmarks.CreateInput) (*bookmarks.CreateOutput, error)
	remove func(context.Context, bookmarks.IDInput) (*struct{}, error)
}

// bookmarksRoutes are the routes the client calls, as the router lists
// them (TestClientRoutes).
var bookmarksRoutes = []string{"GET /api/bookmarks", "GET /api/bookmarks/:id", "POST /api/bookmarks", "DELETE /api/bookmarks/:id",
	"PUT /api/bookmarks/:id/image", "GET /api/bookmarks/:id/image", "GET /api/changes", "QUERY /api/search", "GET /api/export"}

func newBookmarksClient(c *client.Client) *bookmarksClient {
	return &bookmarksClient{
		list:   client.Op[bookmarks.ListInput, bookmarks.ListOutput](c, bookmarksRoutes[0]),
		get:    client.Op[bookmarks.IDInput, bookmarks.BookmarkOutput](c, bookmarksRoutes[1]),
		create: client.Op[bookmarks.CreateInput, bookmarks.CreateOutput](c, bookmarksRoutes[2]),
		remove: client.Op[bookmarks.IDInput, struct{}](c, bookmarksRoutes[3]),
	}
}

// TestClientRoundTrip drives every operation of the example through the
// typed client against its real server: the path, the query (repeated
// and defaulted params), the JSON body and the Authorization field go
// out; a body, a header with a body and 201, and a 204 come back.
func TestClientRoundTrip(t *testing.T) {
	srv := serve(t)
	bc := newBookmarksClient(&client.Client{URL: srv.URL, HTTP: srv.Client(),
		Header: http.Header{"Authorization": {"Bearer " + clientToken}}})
	ctx := context.Background()

	var made []bookmarks.Bookmark
	for _, nb := range []bookmarks.NewBookmark{
		{URL: "https://go.dev/doc/", Title: "Go", Tags: []string{"go", "docs"}},
		{URL: "https://www.rfc-editor.org/rfc/rfc9457", Title: "RFC 9457", Tags: []string{"http", "docs"}},
		{URL: "https://go.dev/blog/", Title: "Blog & news/?", Tags: []string{"go"}},
	} {
		out, err := bc.create(ctx, bookmarks.CreateInput{Body: nb})
		if err != nil {
			t.Fatalf("create %q: %v", nb.Title, err)
		}
		b := out.Body
		if b.ID != int64(len(made)+1) || b.URL != nb.URL || b.Title != nb.Title || !reflect.DeepEqual(b.Tags, nb.Tags) ||
			b.Created.IsZero() {
			t.Errorf("create %q: got %+v", nb.Title, b)
		}
		if want := "/api/bookmarks/" + strconv.FormatInt(b.ID, 10); out.Location != want {
			t.Errorf("create %q: got Location %q, want %q", nb.Title, out.Location, want)
		}
		made = append(made, b)
	}

	got, err := bc.get(ctx, bookmarks.IDInput{ID: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Body, made[2]) {
		t.Errorf("get 3: got %+v, want %+v", got.Body, made[2])
	}

	for _, tc := range []struct {
		name  string
		in    bookmarks.ListInput
		ids   []int64
		total int
	}{
		{"defaults", bookmarks.ListInput{}, []int64{1, 2, 3}, 3},
		{"one tag", bookmarks.ListInput{Tags: []string{"docs"}}, []int64{1, 2}, 2},
		{"two tags, repeated", bookmarks.ListInput{Tags: []string{"docs", "go"}}, []int64{1}, 1},
		{"a page", bookmarks.ListInput{Limit: 1, Offset: 2}, []int64{3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := bc.list(ctx, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, b := range out.Body.Items {
				ids = append(ids, b.ID)
			}
			if !reflect.DeepEqual(ids, tc.ids) || out.Body.Total != tc.total {
				t.Errorf("got ids %v of %d, want %v of %d", ids, out.Body.Total, tc.ids, tc.total)
			}
		})
	}

	if out, err := bc.remove(ctx, bookmarks.IDInput{ID: 2}); err != nil || out == nil {
		t.Fatalf("delete 2: got %v, %v; want an empty answer", out, err)
	}
	_, err = bc.get(ctx, bookmarks.IDInput{ID: 2})
	if he := httpError(t, err, http.StatusNotFound); he != nil && he.Message != "no bookmark with id 2" {
		t.Errorf("get deleted: got message %q, want %q", he.Message, "no bookmark with id 2")
	}
	_, err = bc.remove(ctx, bookmarks.IDInput{ID: 2})
	httpError(t, err, http.StatusNotFound)
}

// httpError checks that err is a *waltz.HTTPError with the status code,
// an answer of the server's, and returns it.
func httpError(t *testing.T, err error, code int) *waltz.HTTPError {
	t.Helper()
	var he *waltz.HTTPError
	if !errors.As(err, &he) || he.Code != code {
		t.Errorf("got error %v, want a %d *waltz.HTTPError", err, code)
		return nil
	}
	if errors.Is(err, client.ErrNotSent) {
		t.Errorf("got %v, the client's own refusal; want the server's answer", err)
	}
	return he
}

// TestClientIdempotencyKey: a create retried with the same
// Idempotency-Key (client.WithHeader) makes one bookmark, and the retry
// gets the first answer.
func TestClientIdempotencyKey(t *testing.T) {
	srv := serve(t)
	bc := newBookmarksClient(&client.Client{URL: srv.URL, HTTP: srv.Client(),
		Header: http.Header{"Authorization": {"Bearer " + clientToken}}})
	ctx := client.WithHeader(context.Background(), http.Header{"Idempotency-Key": {`"5f1c0a7e-7d3b-4c36-9d2e-0b8f3c2a1e44"`}})
	in := bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "https://go.dev/", Title: "Go"}}
	first, err := bc.create(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := bc.create(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, again) {
		t.Errorf("the retry got %+v, want the first answer %+v", again, first)
	}
	list, err := bc.list(context.Background(), bookmarks.ListInput{})
	if err != nil || list.Body.Total != 1 {
		t.Errorf("got %v, %d bookmarks; want one", err, list.Body.Total)
	}
}

// TestClientPicture: the picture download comes back as a reader of its
// bytes, a PNG, with its type, Last-Modified and Cache-Control; the feed of
// changes, an event stream, is no call a client makes (Op refuses it).
func TestClientPicture(t *testing.T) {
	srv := serve(t)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client(), Header: http.Header{"Authorization": {"Bearer " + clientToken}}}
	ctx := context.Background()
	made, err := newBookmarksClient(c).create(ctx, bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "https://go.dev/", Title: "Go"}})
	if err != nil {
		t.Fatal(err)
	}
	// Its Last-Modified is sent once its second has ended (RFC 9110
	// section 8.8.2.2).
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 100*time.Millisecond))) // past the second and its margin (cond.SettleMargin)
	pic, err := client.Op[bookmarks.IDInput, bookmarks.PictureOutput](c, "GET /api/bookmarks/:id/image")(ctx, bookmarks.IDInput{ID: made.Body.ID})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(pic.Body.Content)
	pic.Body.Content.(io.Closer).Close()
	if err != nil || img.Bounds().Dx() == 0 || pic.Body.Type != "image/png" || !pic.Body.ModTime.Equal(made.Body.Created) ||
		pic.CacheControl != "max-age=3600" {
		t.Errorf("got a picture %v (%v), type %q, modified %v, Cache-Control %q; want a PNG of image/png, %v, max-age=3600",
			img != nil, err, pic.Body.Type, pic.Body.ModTime, pic.CacheControl, made.Body.Created)
	}
	defer func() {
		if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "a client cannot read it") {
			t.Errorf("got %v, want Op to refuse the event stream", v)
		}
	}()
	client.Op[bookmarks.FeedInput, bookmarks.FeedOutput](c, "GET /api/changes")
}

// TestClientFeed: the typed client follows the feed of changes from the
// start while bookmarks are created, the server closing its connections
// every few events; the stream comes back after each with Last-Event-ID,
// and every change arrives once, in order.
func TestClientFeed(t *testing.T) {
	h := bookmarks.New(bookmarks.NewStore(), clientToken)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client()}
	const total = 60
	go func() {
		// In process: the connections closed are the stream's alone.
		for i := range total {
			req := httptest.NewRequest(http.MethodPost, "/api/bookmarks", strings.NewReader(`{"url":"https://go.dev/","title":"`+fmt.Sprint(i)+`"}`))
			req.Header.Set("Authorization", "Bearer "+clientToken)
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			if h.ServeHTTP(w, req); w.Code != http.StatusCreated {
				t.Errorf("create %d: got %d", i, w.Code)
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	follow := client.Events[bookmarks.FeedInput, bookmarks.Change](c, "GET /api/changes", client.Reconnect(10*time.Millisecond))
	n := 0
	for ev, err := range follow(ctx, bookmarks.FeedInput{LastID: "0"}) {
		if err != nil {
			t.Fatalf("after %d changes: %v", n, err)
		}
		if b := ev.Data.Created; b == nil || b.Title != fmt.Sprint(n) || b.ID != int64(n+1) {
			t.Fatalf("change %d (id %q): got %+v, want bookmark %d created: each once, in order", n, ev.ID, ev.Data, n+1)
		}
		if n++; n == total {
			break
		}
		if n%7 == 0 {
			srv.CloseClientConnections()
		}
	}
	if n != total {
		t.Errorf("got %d changes, want %d", n, total)
	}
}

// TestClientRoutes: the routes the client calls are the router's own,
// as Routes lists them: method and pattern are all a client needs.
func TestClientRoutes(t *testing.T) {
	have := map[string]bool{}
	for _, rt := range bookmarks.New(bookmarks.NewStore(), clientToken).Routes() {
		have[rt.Method+" "+rt.Pattern] = true
	}
	for _, rt := range bookmarksRoutes {
		if !have[rt] {
			t.Errorf("route %q is none of the router's", rt)
		}
	}
}

// TestClientUnauthorized: a write without the token is the server's 401.
func TestClientUnauthorized(t *testing.T) {
	srv := serve(t)
	bc := newBookmarksClient(&client.Client{URL: srv.URL, HTTP: srv.Client()})
	_, err := bc.create(context.Background(), bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "https://go.dev/", Title: "Go"}})
	httpError(t, err, http.StatusUnauthorized)
	_, err = bc.remove(context.Background(), bookmarks.IDInput{ID: 1})
	httpError(t, err, http.StatusUnauthorized)
}

// looseNew is a bookmark as a client with no rules writes it, so that the
// server, not the client, judges it.
type looseNew struct {
	URL   string   `json:"url"`
	Title string   `json:"title"`
	Tags  []string `json:"tags,omitempty"`
}

type looseCreate struct{ Body looseNew }

type looseList struct {
	Limit  int `query:"limit"`
	Offset int `query:"offset"`
}

type looseID struct {
	ID int64 `path:"id"`
}

// TestClientRefusesWhatTheServerRefuses: an In that breaks the rules is
// refused before it is sent (the server counts no request), with the very
// failures the server answers when the same values reach it, which a
// client without the rules sends: a 422 problem whose errors list each
// location.
func TestClientRefusesWhatTheServerRefuses(t *testing.T) {
	srv := serve(t)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client(), Header: http.Header{"Authorization": {"Bearer " + clientToken}}}
	bc := newBookmarksClient(c)
	ctx := context.Background()
	loose := client.Op[looseCreate, bookmarks.CreateOutput](c, "POST /api/bookmarks")
	looseL := client.Op[looseList, bookmarks.ListOutput](c, "GET /api/bookmarks")
	looseG := client.Op[looseID, bookmarks.BookmarkOutput](c, "GET /api/bookmarks/:id")

	for _, tc := range []struct {
		name   string
		strict func() error
		loose  func() error
		where  string
	}{
		{"three rules of the body",
			func() error {
				_, err := bc.create(ctx, bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "go.dev", Title: "", Tags: []string{"go", "go"}}})
				return err
			},
			func() error {
				_, err := loose(ctx, looseCreate{looseNew{URL: "go.dev", Title: "", Tags: []string{"go", "go"}}})
				return err
			}, "body.url body.title body.tags"},
		{"query rules",
			func() error { _, err := bc.list(ctx, bookmarks.ListInput{Limit: 101, Offset: -1}); return err },
			func() error { _, err := looseL(ctx, looseList{Limit: 101, Offset: -1}); return err },
			"query.limit query.offset"},
		{"path rule",
			func() error { _, err := bc.get(ctx, bookmarks.IDInput{ID: -4}); return err },
			func() error { _, err := looseG(ctx, looseID{ID: -4}); return err },
			"path.id"},
		{"too many tags",
			func() error {
				_, err := bc.list(ctx, bookmarks.ListInput{Tags: strings.Split("a,b,c,d,e,f,g,h,i", ",")})
				return err
			},
			func() error {
				_, err := client.Op[struct {
					Tags []string `query:"tag"`
				}, bookmarks.ListOutput](c, "GET /api/bookmarks")(ctx, struct {
					Tags []string `query:"tag"`
				}{strings.Split("a,b,c,d,e,f,g,h,i", ",")})
				return err
			},
			"query.tag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.requests.Load()
			err := tc.strict()
			if n := srv.requests.Load() - before; n != 0 {
				t.Errorf("the refused call sent %d requests, want none", n)
			}
			var mine *waltz.HTTPError
			if !errors.As(err, &mine) || mine.Code != http.StatusUnprocessableEntity || !errors.Is(err, client.ErrNotSent) {
				t.Fatalf("got %v, want a 422 *waltz.HTTPError with ErrNotSent", err)
			}
			err = tc.loose()
			if n := srv.requests.Load() - before; n != 1 {
				t.Errorf("the loose call sent %d requests, want 1", n)
			}
			theirs := httpError(t, err, http.StatusUnprocessableEntity)
			if theirs == nil {
				return
			}
			if !reflect.DeepEqual(mine.Errors, theirs.Errors) || mine.Message != theirs.Message {
				t.Errorf("the client refused with\n\t%s %v\nthe server answered\n\t%s %v", mine.Message, mine.Errors,
					theirs.Message, theirs.Errors)
			}
			var where []string
			for _, f := range theirs.Errors {
				where = append(where, f.Location)
			}
			if got := strings.Join(where, " "); got != tc.where {
				t.Errorf("got locations %q, want %q", got, tc.where)
			}
		})
	}
}

// TestClientNamesTheMember: an answer that does not fit Out is an error
// naming the member that does not.
func TestClientNamesTheMember(t *testing.T) {
	srv := serve(t)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client(), Header: http.Header{"Authorization": {"Bearer " + clientToken}}}
	ctx := context.Background()
	if _, err := newBookmarksClient(c).create(ctx, bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "https://go.dev/", Title: "Go"}}); err != nil {
		t.Fatal(err)
	}
	type wrongBody struct {
		Body struct {
			ID string `json:"id"`
		}
	}
	type wrongHeader struct {
		Location int `header:"Location"`
		Body     bookmarks.Bookmark
	}
	_, err := client.Op[bookmarks.IDInput, wrongBody](c, "GET /api/bookmarks/:id")(ctx, bookmarks.IDInput{ID: 1})
	if err == nil || !strings.Contains(err.Error(), "body.id: must be a string, got a JSON number") {
		t.Errorf("got %v, want an error naming body.id", err)
	}
	_, err = client.Op[bookmarks.CreateInput, wrongHeader](c, "POST /api/bookmarks")(ctx, bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "https://go.dev/", Title: "Go"}})
	if err == nil || !strings.Contains(err.Error(), "header Location: must be an integer") {
		t.Errorf("got %v, want an error naming header Location", err)
	}
}

// TestClientImage: the multipart upload goes through the client too, a
// file part and a text part; a file the server would refuse whole, or a
// text part against its rules, is refused without a request.
func TestClientImage(t *testing.T) {
	srv := serve(t)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client(), Header: http.Header{"Authorization": {"Bearer " + clientToken}}}
	ctx := context.Background()
	if _, err := newBookmarksClient(c).create(ctx, bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "https://go.dev/", Title: "Go"}}); err != nil {
		t.Fatal(err)
	}
	put := client.Op[bookmarks.ImageInput, bookmarks.ImageOutput](c, "PUT /api/bookmarks/:id/image")
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	out, err := put(ctx, bookmarks.ImageInput{ID: 1, Body: bookmarks.ImageForm{Image: api.NewFile("cover.png", "image/png", pic.Bytes()), Alt: "a gopher"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Body.Type != "image/png" || out.Body.Size != int64(pic.Len()) || out.Body.Alt != "a gopher" || out.Body.Modified.IsZero() {
		t.Errorf("got %+v, want the PNG's type, size and alt", out.Body)
	}
	_, err = put(ctx, bookmarks.ImageInput{ID: 9, Body: bookmarks.ImageForm{Image: api.NewFile("cover.png", "", pic.Bytes())}})
	httpError(t, err, http.StatusNotFound)

	for _, tc := range []struct {
		name string
		in   bookmarks.ImageInput
		code int
		loc  string
	}{
		{"not an image", bookmarks.ImageInput{ID: 1, Body: bookmarks.ImageForm{Image: api.NewFile("a.txt", "text/plain", []byte("hello"))}}, 415, ""},
		{"a PNG said to be a GIF", bookmarks.ImageInput{ID: 1, Body: bookmarks.ImageForm{Image: api.NewFile("a.gif", "image/gif", pic.Bytes())}}, 415, ""},
		{"too large", bookmarks.ImageInput{ID: 1, Body: bookmarks.ImageForm{Image: api.NewFile("a.png", "image/png", make([]byte, 256<<10+1))}}, 413, ""},
		{"no image", bookmarks.ImageInput{ID: 1}, 422, "body.image"},
		{"alt too long", bookmarks.ImageInput{ID: 1, Body: bookmarks.ImageForm{Image: api.NewFile("a.png", "", pic.Bytes()), Alt: strings.Repeat("a", 201)}}, 422, "body.alt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.requests.Load()
			_, err := put(ctx, tc.in)
			if n := srv.requests.Load() - before; n != 0 {
				t.Errorf("sent %d requests, want none", n)
			}
			var he *waltz.HTTPError
			if !errors.As(err, &he) || he.Code != tc.code || !errors.Is(err, client.ErrNotSent) {
				t.Fatalf("got %v, want a %d refusal", err, tc.code)
			}
			if tc.loc != "" && (len(he.Errors) != 1 || he.Errors[0].Location != tc.loc) {
				t.Errorf("got failures %v, want one at %s", he.Errors, tc.loc)
			}
		})
	}
}

// TestClientMergePatch: an edit through the client is a JSON Merge Patch
// with If-Match, declared a conditional write (client.Conditional), so
// that an edit without If-Match is refused before it is sent. A member
// left absent stays (the title), one sent as null goes (the tags), and
// the tag the edit names must be current: the same edit again is refused
// with 412 and changes nothing. A patch type whose Optional member lacks
// omitzero is refused at Op, since it would send an absent member as
// null.
func TestClientMergePatch(t *testing.T) {
	srv := serve(t)
	c := &client.Client{URL: srv.URL, HTTP: srv.Client(), Header: http.Header{"Authorization": {"Bearer " + clientToken}}}
	bc := newBookmarksClient(c)
	edit := client.Op[bookmarks.EditInput, bookmarks.BookmarkOutput](c, "PATCH /api/bookmarks/:id", client.Conditional())
	made, err := bc.create(context.Background(), bookmarks.CreateInput{Body: bookmarks.NewBookmark{URL: "https://go.dev/", Title: "Go", Tags: []string{"go"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := made.Body.ID
	read, err := bc.get(context.Background(), bookmarks.IDInput{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	patch := bookmarks.EditInput{ID: id, Body: bookmarks.BookmarkPatch{Tags: api.OptionalNull[[]string]()}}
	before := srv.requests.Load()
	_, err = edit(context.Background(), patch)
	var he *waltz.HTTPError
	if !errors.As(err, &he) || he.Code != http.StatusPreconditionRequired || !errors.Is(err, client.ErrNotSent) || srv.requests.Load() != before {
		t.Errorf("an edit without If-Match: got %v, want a 428 refused before it is sent", err)
	}
	ctx := client.WithHeader(context.Background(), http.Header{"If-Match": {read.ETag}})
	got, err := edit(ctx, patch)
	if err != nil {
		t.Fatal(err)
	}
	if got.Body.Title != "Go" || len(got.Body.Tags) != 0 || got.ETag == read.ETag {
		t.Errorf("got %+v with ETag %s, want the title kept, the tags removed and a new ETag (was %s)", got.Body, got.ETag, read.ETag)
	}
	_, err = edit(ctx, bookmarks.EditInput{ID: id, Body: bookmarks.BookmarkPatch{Tags: api.OptionalOf([]string{"x"})}})
	if !errors.As(err, &he) || he.Code != http.StatusPreconditionFailed {
		t.Errorf("the same If-Match again: got %v, want a 412 HTTPError", err)
	}
	after, err := bc.get(context.Background(), bookmarks.IDInput{ID: id})
	if err != nil || len(after.Body.Tags) != 0 {
		t.Errorf("after the refused edit: got %+v, %v; want the tags still removed", after, err)
	}

	type loosePatch struct {
		Tags api.Optional[[]string] `json:"tags"`
	}
	type looseInput struct {
		ID   int64 `path:"id"`
		Body loosePatch
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "omitzero") {
			t.Errorf("Op of a patch without omitzero: got panic %v, want one that names omitzero", r)
		}
	}()
	client.Op[looseInput, bookmarks.BookmarkOutput](c, "PATCH /api/bookmarks/:id")
}
