package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

// The typed client beside a hand-written net/http client that sends the
// same requests and reads the same answers, against one server: in
// memory (a RoundTripper that calls the router), and over loopback TCP.
//
//	go test ./client -run '^$' -bench Call -count 6 | tee /tmp/call.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /client /tmp/call.txt

type benchItem struct {
	ID      int64     `json:"id"`
	Title   string    `json:"title" minLength:"1" maxLength:"200"`
	Tags    []string  `json:"tags,omitempty" maxItems:"8"`
	Created time.Time `json:"created"`
}

type benchGetIn struct {
	ID     int64  `path:"id" minimum:"1"`
	Fields string `query:"fields" enum:"all,short" default:"all"`
	Limit  int    `query:"limit" minimum:"1" maximum:"100" default:"20"`
}

type benchGetOut struct{ Body benchItem }

type benchPostIn struct {
	Body benchItem
}

type benchPostOut struct {
	Location string `header:"Location"`
	Body     benchItem
}

var benchCreated = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func benchRouter() *waltz.Router {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/items/:id", func(c *waltz.Context, in *benchGetIn) (*benchGetOut, error) {
		return &benchGetOut{benchItem{ID: in.ID, Title: "item " + in.Fields, Tags: []string{"a", "b"}, Created: benchCreated}}, nil
	}, api.Operation{})
	api.Op(r, http.MethodPost, "/items", func(c *waltz.Context, in *benchPostIn) (*benchPostOut, error) {
		in.Body.ID = 7
		return &benchPostOut{Location: "/items/7", Body: in.Body}, nil
	}, api.Operation{Status: http.StatusCreated})
	return r
}

// memoryTransport serves a request with h in the calling goroutine.
type memoryTransport struct{ h http.Handler }

func (m memoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, req)
	return rec.Result(), nil
}

// handGet is GET /items/:id as one writes it with net/http alone.
func handGet(ctx context.Context, hc *http.Client, base string, id int64, fields string, limit int) (*benchItem, error) {
	q := url.Values{}
	if fields != "" {
		q.Set("fields", fields)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	u := base + "/items/" + strconv.FormatInt(id, 10)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, errors.New(resp.Status)
	}
	var it benchItem
	if err := json.NewDecoder(resp.Body).Decode(&it); err != nil {
		return nil, err
	}
	return &it, nil
}

// handPost is POST /items as one writes it with net/http alone.
func handPost(ctx context.Context, hc *http.Client, base string, it *benchItem) (*benchItem, string, error) {
	b, err := json.Marshal(it)
	if err != nil {
		return nil, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/items", bytes.NewReader(b))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return nil, "", errors.New(resp.Status)
	}
	var out benchItem
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return &out, resp.Header.Get("Location"), nil
}

func BenchmarkCall(b *testing.B) {
	r := benchRouter()
	srv := httptest.NewServer(r)
	defer srv.Close()
	ctx := context.Background()
	post := benchItem{Title: "a title", Tags: []string{"x", "y"}, Created: benchCreated}
	for _, tr := range []struct {
		name string
		hc   *http.Client
		base string
	}{
		{"memory", &http.Client{Transport: memoryTransport{r}}, "http://in.memory"},
		{"tcp", srv.Client(), srv.URL},
	} {
		c := &client.Client{URL: tr.base, HTTP: tr.hc}
		get := client.Op[benchGetIn, benchGetOut](c, "GET /items/:id")
		create := client.Op[benchPostIn, benchPostOut](c, "POST /items")
		b.Run("op=get/via="+tr.name+"/client=typed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := get(ctx, benchGetIn{ID: 42, Fields: "short", Limit: 5})
				if err != nil || out.Body.ID != 42 {
					b.Fatal(err)
				}
			}
		})
		b.Run("op=get/via="+tr.name+"/client=hand", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				it, err := handGet(ctx, tr.hc, tr.base, 42, "short", 5)
				if err != nil || it.ID != 42 {
					b.Fatal(err)
				}
			}
		})
		b.Run("op=post/via="+tr.name+"/client=typed", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := create(ctx, benchPostIn{post})
				if err != nil || out.Location != "/items/7" {
					b.Fatal(err)
				}
			}
		})
		b.Run("op=post/via="+tr.name+"/client=hand", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				it, loc, err := handPost(ctx, tr.hc, tr.base, &post)
				if err != nil || loc != "/items/7" || it.ID != 7 {
					b.Fatal(err)
				}
			}
		})
	}
}
