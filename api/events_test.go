package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

type evItem struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type evGone struct {
	ID int64 `json:"id"`
}

type evChange struct {
	Created *evItem `event:"created"`
	Deleted *evGone `event:"deleted" doc:"an item was deleted"`
}

type evIn struct {
	LastID int64 `header:"Last-Event-ID" minimum:"0"`
}

type evOut struct {
	Body Events[evChange]
}

// evRouter streams the changes after the client's Last-Event-ID, three
// of them, then waits for the client to leave; ended gets what the
// function returned.
func evRouter(ended chan<- error) *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodGet, "/changes", func(c *waltz.Context, in *evIn) (*evOut, error) {
		return &evOut{Body: func(s *EventSender[evChange]) error {
			for i := in.LastID + 1; i <= in.LastID+3; i++ {
				ch := evChange{Created: &evItem{ID: i, Name: "n" + strconv.FormatInt(i, 10)}}
				if i%3 == 0 {
					ch = evChange{Deleted: &evGone{ID: i}}
				}
				if err := s.Send(strconv.FormatInt(i, 10), ch); err != nil {
					ended <- err
					return err
				}
			}
			select {
			case <-s.Done():
			case <-time.After(5 * time.Second):
				ended <- errors.New("Done did not fire")
				return nil
			}
			// After Done, the stream is over: an error is dropped.
			err := s.Send("", evChange{Deleted: &evGone{}})
			ended <- err
			return err
		}}, nil
	}, Operation{ID: "changes"})
	return r
}

func TestEventsEndToEnd(t *testing.T) {
	ended := make(chan error, 1)
	srv := httptest.NewServer(evRouter(ended))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/changes", nil)
	req.Header.Set("Last-Event-ID", "4")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("got %d %q, want 200 text/event-stream", resp.StatusCode, ct)
	}
	br := bufio.NewReader(resp.Body)
	var lastID string
	var comments []string
	want := []sseEvent{
		{ID: "5", Event: "created", Data: `{"id":5,"name":"n5"}`},
		{ID: "6", Event: "deleted", Data: `{"id":6}`},
		{ID: "7", Event: "created", Data: `{"id":7,"name":"n7"}`},
	}
	for i, w := range want {
		got, err := readEvent(t, br, &lastID, &comments)
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if got.ID != w.ID || got.Event != w.Event || got.Data != w.Data {
			t.Errorf("event %d: got %+v, want %+v", i, got, w)
		}
	}
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("Send after the client left: got %v, want context.Canceled", err)
	}
}

// TestEventsBadLastID: Last-Event-ID binds as a typed header: a value
// against its rules is a 422, before any stream starts.
func TestEventsBadLastID(t *testing.T) {
	w := serveWith(t, evRouter(make(chan error, 1)), http.MethodGet, "/changes", "Last-Event-ID", "-3")
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), "header.Last-Event-Id") {
		t.Errorf("got %d %s, want a 422 naming Last-Event-ID", w.Code, w.Body)
	}
}

// TestEventsHead: a HEAD gets the stream's headers, and the function
// never runs.
func TestEventsHead(t *testing.T) {
	ran := false
	r := waltz.New()
	Op(r, http.MethodGet, "/changes", func(c *waltz.Context, in *struct{}) (*evOut, error) {
		return &evOut{Body: func(s *EventSender[evChange]) error { ran = true; return nil }}, nil
	}, Operation{})
	srv := httptest.NewServer(r)
	defer srv.Close()
	resp, err := srv.Client().Head(srv.URL + "/changes")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || ran {
		t.Errorf("got %d %q, ran %v; want 200 text/event-stream and no run", resp.StatusCode, resp.Header.Get("Content-Type"), ran)
	}
}

// TestEventsShutdown: a server that shuts down closes Done, and the
// stream ends cleanly for the client.
func TestEventsShutdown(t *testing.T) {
	base, stop := context.WithCancel(context.Background())
	defer stop()
	ended := make(chan error, 1)
	srv := httptest.NewUnstartedServer(evRouter(ended))
	srv.Config.BaseContext = func(net.Listener) context.Context { return base }
	srv.Start()
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/changes")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var id string
	var comments []string
	for range 3 {
		if _, err := readEvent(t, br, &id, &comments); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("Send after shutdown: got %v, want context.Canceled", err)
	}
	var rest bytes.Buffer
	if _, err := rest.ReadFrom(br); err != nil || rest.Len() != 0 {
		t.Errorf("after shutdown: got %q, %v, want a clean end", rest.String(), err)
	}
}

func TestEventsSendRefuses(t *testing.T) {
	w := &flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}
	plan, err := typed.PlanEvents(typeOf[evChange]())
	if err != nil {
		t.Fatal(err)
	}
	s := &EventSender[evChange]{es: testStream(w, context.Background()), plan: plan}
	for _, tc := range []struct {
		id   string
		ev   evChange
		want error
	}{
		{"", evChange{}, typed.ErrNoEvent},
		{"", evChange{Created: &evItem{}, Deleted: &evGone{}}, typed.ErrManyEvents},
		{"a\nb", evChange{Created: &evItem{}}, nil},
	} {
		err := s.Send(tc.id, tc.ev)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Send(%q, %+v): got %v, want %v", tc.id, tc.ev, err, tc.want)
		}
	}
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

type evNotPointer struct {
	Created evItem `event:"created"`
}

type evNoTag struct {
	Created *evItem
}

type evTwice struct {
	A *evItem `event:"x"`
	B *evGone `event:"x"`
}

type evBadName struct {
	A *evItem `event:"a:b"`
}

func TestEventsRegisterPanics(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func(r *waltz.Router)
		want     string
	}{
		{"not a pointer", func(r *waltz.Router) {
			Op(r, "GET", "/e", func(*waltz.Context, *struct{}) (*struct{ Body Events[evNotPointer] }, error) { return nil, nil }, Operation{})
		}, "must be a pointer"},
		{"no tag", func(r *waltz.Router) {
			Op(r, "GET", "/e", func(*waltz.Context, *struct{}) (*struct{ Body Events[evNoTag] }, error) { return nil, nil }, Operation{})
		}, "tagged event"},
		{"twice", func(r *waltz.Router) {
			Op(r, "GET", "/e", func(*waltz.Context, *struct{}) (*struct{ Body Events[evTwice] }, error) { return nil, nil }, Operation{})
		}, "taken by another field"},
		{"a colon", func(r *waltz.Router) {
			Op(r, "GET", "/e", func(*waltz.Context, *struct{}) (*struct{ Body Events[evBadName] }, error) { return nil, nil }, Operation{})
		}, "without CR, LF or ':'"},
		{"not a struct", func(r *waltz.Router) {
			Op(r, "GET", "/e", func(*waltz.Context, *struct{}) (*struct{ Body Events[int] }, error) { return nil, nil }, Operation{})
		}, "an event set must be a struct"},
		{"json", func(r *waltz.Router) {
			Op(r, "GET", "/e", func(*waltz.Context, *struct{}) (*evOut, error) { return nil, nil }, Operation{Produces: []string{"application/json"}})
		}, "text/event-stream"},
	} {
		msg := panicMessage(func() { tc.register(waltz.New()) })
		if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: panic got %q, want one starting \"waltz: \" with %q", tc.name, msg, tc.want)
		}
	}
}

// TestEventsDocument: text/event-stream, a oneOf of one object per
// event, each naming its event and its data's schema; Last-Event-ID as a
// header parameter.
func TestEventsDocument(t *testing.T) {
	r := evRouter(make(chan error, 1))
	type event struct {
		OneOf []struct {
			Properties struct {
				Event struct{ Enum []string }
				Data  struct {
					Type             string
					ContentMediaType string         `json:"contentMediaType"`
					ContentSchema    map[string]any `json:"contentSchema"`
				}
			}
		} `json:"oneOf"`
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string }
			Responses  map[string]struct {
				Content map[string]struct {
					Schema struct {
						Type             string
						ContentMediaType string `json:"contentMediaType"`
						ContentSchema    struct {
							Type  string
							Items struct {
								Ref string `json:"$ref"`
							}
						} `json:"contentSchema"`
					}
				}
			}
		}
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.Paths["/changes"]["get"]
	if len(op.Parameters) != 1 || !strings.EqualFold(op.Parameters[0].Name, "Last-Event-ID") || op.Parameters[0].In != "header" {
		t.Errorf("parameters: got %+v, want the Last-Event-ID header", op.Parameters)
	}
	c := op.Responses["200"].Content
	if len(c) != 1 {
		t.Fatalf("200 content: got %d types, want text/event-stream alone", len(c))
	}
	// 3.1: the schema is of the whole body, a string; what it holds, an
	// array of events, is its contentSchema, each event the component of
	// the event set's type.
	s := c["text/event-stream"].Schema
	if s.Type != "string" || s.ContentMediaType != "text/event-stream" || s.ContentSchema.Type != "array" ||
		s.ContentSchema.Items.Ref != "#/components/schemas/evChange" {
		t.Fatalf("text/event-stream schema: got %+v, want a string of text/event-stream, an array of evChange", s)
	}
	var ev event
	if err := json.Unmarshal(doc.Components.Schemas["evChange"], &ev); err != nil {
		t.Fatalf("component evChange: %v", err)
	}
	one := ev.OneOf
	if len(one) != 2 {
		t.Fatalf("events: got %d, want 2", len(one))
	}
	for i, want := range []struct{ name, ref string }{{"created", "evItem"}, {"deleted", "evGone"}} {
		p := one[i].Properties
		if len(p.Event.Enum) != 1 || p.Event.Enum[0] != want.name {
			t.Errorf("event %d: names %v, want [%s]", i, p.Event.Enum, want.name)
		}
		if p.Data.Type != "string" || p.Data.ContentMediaType != "application/json" || p.Data.ContentSchema["$ref"] != "#/components/schemas/"+want.ref {
			t.Errorf("event %d: data %+v, want a string of JSON of %s", i, p.Data, want.ref)
		}
		if doc.Components.Schemas[want.ref] == nil {
			t.Errorf("components: no %s", want.ref)
		}
	}
}

// TestEventsAllocs: a typed event costs what encoding its data costs,
// no more than a hand-written Send of the same JSON.
func TestEventsAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	w := &flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}
	plan, _ := typed.PlanEvents(typeOf[evChange]())
	es := testStream(w, context.Background())
	s := &EventSender[evChange]{es: es, plan: plan}
	item := &evItem{ID: 42, Name: "answer"}
	typedSend := func() { _ = s.Send("42", evChange{Created: item}) }
	handSend := func() {
		b, _ := json.Marshal(item)
		_ = es.Send(waltz.Event{ID: "42", Event: "created", Data: string(b)})
	}
	typedSend()
	handSend()
	typedN, handN := testing.AllocsPerRun(100, typedSend), testing.AllocsPerRun(100, handSend)
	if typedN > handN {
		t.Errorf("typed Send: got %v allocs, want at most the hand-written %v", typedN, handN)
	}
}

// BenchmarkEvents: a typed event beside a hand-written EventStream.Send
// of the same JSON:
//
//	go test -run '^$' -bench 'Events' -benchmem -count 6 > ev.txt
//	benchstat -col /impl ev.txt
func BenchmarkEvents(b *testing.B) {
	w := &flushNopWriter{NopWriter: nopWriter{H: make(http.Header)}}
	plan, _ := typed.PlanEvents(typeOf[evChange]())
	item := &evItem{ID: 42, Name: "answer"}
	b.Run("impl=typed", func(b *testing.B) {
		s := &EventSender[evChange]{es: testStream(w, context.Background()), plan: plan}
		b.ReportAllocs()
		for b.Loop() {
			_ = s.Send("42", evChange{Created: item})
		}
	})
	b.Run("impl=hand", func(b *testing.B) {
		es := testStream(w, context.Background())
		b.ReportAllocs()
		for b.Loop() {
			data, _ := json.Marshal(item)
			_ = es.Send(waltz.Event{ID: "42", Event: "created", Data: string(data)})
		}
	})
}
