package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

type lineItem struct {
	N    int    `json:"n" minimum:"0"`
	Name string `json:"name"`
}

type linesIn struct {
	Count int `query:"count" minimum:"0" maximum:"1000000" default:"3"`
}

type linesOut struct {
	Total int `header:"X-Total-Count"`
	Body  Lines[lineItem]
}

// linesRouter serves GET /items, count items as JSON Lines; each run
// sends on done how many items it sent and the error it stopped at.
func linesRouter(done chan<- linesRun) *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodGet, "/items", func(c *waltz.Context, in *linesIn) (*linesOut, error) {
		return &linesOut{Total: in.Count, Body: func(s *LineSender[lineItem]) error {
			n := 0
			var err error
			for ; n < in.Count; n++ {
				if err = s.Send(lineItem{N: n, Name: "item"}); err != nil {
					break
				}
			}
			if done != nil {
				done <- linesRun{n, err}
			}
			return nil
		}}, nil
	}, Operation{ID: "items"})
	return r
}

type linesRun struct {
	sent int
	err  error
}

// TestLinesAnswer checks a JSON Lines answer: its fields, one item a
// line, and a HEAD's headers alone.
func TestLinesAnswer(t *testing.T) {
	r := linesRouter(nil)
	w := serve(t, r, "GET", "/items?count=3")
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/jsonl" || w.Header().Get("X-Total-Count") != "3" {
		t.Errorf("got %d %v", w.Code, w.Header())
	}
	want := `{"n":0,"name":"item"}` + "\n" + `{"n":1,"name":"item"}` + "\n" + `{"n":2,"name":"item"}` + "\n"
	if w.Body.String() != want {
		t.Errorf("body: got %q, want %q", w.Body, want)
	}
	if cc := w.Header().Get("Cache-Control"); cc != "" {
		t.Errorf("Cache-Control: got %q, want none (an export may be cached)", cc)
	}
	head := serve(t, r, "HEAD", "/items?count=3")
	if head.Code != 200 || head.Body.Len() != 0 || head.Header().Get("Content-Type") != "application/jsonl" {
		t.Errorf("HEAD: got %d %v %q", head.Code, head.Header(), head.Body)
	}
	if bad := serve(t, r, "GET", "/items?count=-1"); bad.Code != 422 {
		t.Errorf("a bad count: got %d, want 422 before the stream", bad.Code)
	}
}

// TestLinesClientStops reads a long export item by item over a real
// connection, stops halfway and closes it: the server's function sees
// its next Send fail and returns, having sent far fewer items than it
// would have.
func TestLinesClientStops(t *testing.T) {
	done := make(chan linesRun, 1)
	srv := httptest.NewServer(linesRouter(done))
	defer srv.Close()
	const total = 1000000
	resp, err := http.Get(srv.URL + "/items?count=1000000")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for i := range 5 {
		if !sc.Scan() {
			t.Fatalf("line %d: %v", i, sc.Err())
		}
		var it lineItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil || it.N != i {
			t.Fatalf("line %d: got %q (%v)", i, sc.Bytes(), err)
		}
	}
	resp.Body.Close() // halfway: the client leaves
	select {
	case run := <-done:
		if run.sent >= total || run.err == nil {
			t.Errorf("the server sent %d of %d items and stopped with %v; want it stopped by the client's leaving", run.sent, total, run.err)
		}
		t.Logf("the server stopped after %d items: %v", run.sent, run.err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server kept writing after the client left")
	}
}

// TestLinesRegisterPanics checks what Op refuses of a Lines body.
func TestLinesRegisterPanics(t *testing.T) {
	type chanOut struct{ Body Lines[chan int] }
	for _, tc := range []struct {
		name string
		reg  func(r *waltz.Router)
		want string
	}{
		{"another media type", func(r *waltz.Router) {
			Op(r, http.MethodGet, "/a", opFn[struct{}, linesOut], Operation{Produces: []string{"application/json"}})
		}, "a Lines body is application/jsonl"},
		{"items encoding/json cannot write", func(r *waltz.Router) {
			Op(r, http.MethodGet, "/a", opFn[struct{}, chanOut], Operation{})
		}, "cannot encode a chan int"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := panicMessage(func() { tc.reg(waltz.New()) }); !strings.Contains(msg, tc.want) {
				t.Errorf("panic: got %q, want one with %q", msg, tc.want)
			}
		})
	}
	// Produces may name it.
	Op(waltz.New(), http.MethodGet, "/a", opFn[struct{}, linesOut], Operation{Produces: []string{"application/jsonl"}})
}

// TestLinesDocument checks the answer as each version describes it: 3.2
// item by item, 3.1 in words.
func TestLinesDocument(t *testing.T) {
	r := linesRouter(nil)
	for _, tc := range []struct {
		version string
		want    string
	}{
		{"3.1", `{}`},
		{"3.2", `{"itemSchema":{"$ref":"#/components/schemas/lineItem"}}`},
	} {
		t.Run(tc.version, func(t *testing.T) {
			d := Describe(r, Info{OpenAPI: tc.version})
			mt := d.Paths["/items"].Get.Responses["200"].Content["application/jsonl"]
			b, err := json.Marshal(mt)
			if err != nil || string(b) != tc.want {
				t.Errorf("got %s (%v),\nwant %s", b, err, tc.want)
			}
			if desc := d.Paths["/items"].Get.Responses["200"].Description; desc != "JSON Lines (jsonlines.org): one lineItem a line, each sent as it is made." {
				t.Errorf("the answer's description: got %q", desc)
			}
			if d.Components.Schemas["lineItem"] == nil && tc.version == "3.2" {
				t.Error("no lineItem schema in the components")
			}
		})
	}
}

// TestLinesSendRefuses checks an item that cannot be encoded is refused
// before anything is written.
func TestLinesSendRefuses(t *testing.T) {
	type badOut struct{ Body Lines[any] }
	r := waltz.New()
	var got error
	Op(r, http.MethodGet, "/a", func(c *waltz.Context, in *struct{}) (*badOut, error) {
		return &badOut{func(s *LineSender[any]) error {
			got = s.Send(make(chan int))
			return s.Send("fine")
		}}, nil
	}, Operation{})
	w := serve(t, r, "GET", "/a")
	var ue *json.UnsupportedTypeError
	if !errors.As(got, &ue) || w.Body.String() != "\"fine\"\n" {
		t.Errorf("got %v and %q", got, w.Body)
	}
}
