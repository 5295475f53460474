package api_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// Note is an answer sent in JSON or XML: its xml tags name its elements
// as its json tags name its members.
type Note struct {
	ID   int64  `json:"id" xml:"id"`
	Text string `json:"text" xml:"text"`
}

type NoteID struct {
	ID int64 `path:"id" minimum:"1"`
}

type NoteAnswer struct{ Body Note }

// An operation that declares the media types it answers in gets the one
// the request's Accept field prefers, a 406 when it accepts none, and
// "Vary: Accept" on each answer.
func ExampleOperation_produces() {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/notes/:id", func(c *waltz.Context, in *NoteID) (*NoteAnswer, error) {
		return &NoteAnswer{Note{ID: in.ID, Text: "hello"}}, nil
	}, api.Operation{Produces: []string{"application/json", "application/xml"}})

	for _, accept := range []string{"", "application/xml", "application/json;q=0.5, */*;q=0.1", "text/html"} {
		req := httptest.NewRequest(http.MethodGet, "/notes/7", nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		body, _, _ := strings.Cut(strings.TrimPrefix(w.Body.String(), `<?xml version="1.0" encoding="UTF-8"?>`+"\n"), "\n")
		fmt.Printf("%q: %d %s, Vary %s: %s\n", accept, w.Code, w.Header().Get("Content-Type"), w.Header().Get("Vary"), body)
	}
	// Output:
	// "": 200 application/json, Vary Accept: {"id":7,"text":"hello"}
	// "application/xml": 200 application/xml; charset=utf-8, Vary Accept: <Note><id>7</id><text>hello</text></Note>
	// "application/json;q=0.5, */*;q=0.1": 200 application/json, Vary Accept: {"id":7,"text":"hello"}
	// "text/html": 406 text/plain; charset=utf-8, Vary Accept: none of the media types this operation answers in is acceptable (Accept): application/json, application/xml
}

type ReportOut struct{ Body api.Download }

// A Download is sent as http.ServeContent sends a file: here a range of
// it.
func ExampleDownload() {
	r := waltz.New()
	modified := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	api.Op(r, http.MethodGet, "/report", func(c *waltz.Context, in *struct{}) (*ReportOut, error) {
		return &ReportOut{api.Download{Content: strings.NewReader("a,b\n1,2\n"), Type: "text/csv", ModTime: modified}}, nil
	}, api.Operation{Produces: []string{"text/csv"}})

	req := httptest.NewRequest(http.MethodGet, "/report", nil)
	req.Header.Set("Range", "bytes=4-")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Header().Get("Content-Type"), w.Header().Get("Content-Range"), w.Header().Get("Last-Modified"))
	fmt.Printf("%q\n", w.Body.String())
	// Output:
	// 206 text/csv bytes 4-7/8 Fri, 02 Jan 2026 03:04:05 GMT
	// "1,2\n"
}

// NoteEvents is the event set of a stream of notes: each field is an
// event type, the data of the events of that name.
type NoteEvents struct {
	Added   *Note   `event:"added"`
	Removed *NoteID `event:"removed"`
}

type NoteStream struct{ Body api.Events[NoteEvents] }

// A typed event stream: Send takes a value of the event set, so an
// event of another type does not compile.
func ExampleEvents() {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/notes/events", func(c *waltz.Context, in *struct{}) (*NoteStream, error) {
		return &NoteStream{func(s *api.EventSender[NoteEvents]) error {
			if err := s.Send("1", NoteEvents{Added: &Note{ID: 1, Text: "hi"}}); err != nil {
				return nil
			}
			if err := s.Send("2", NoteEvents{Removed: &NoteID{ID: 1}}); err != nil {
				return nil
			}
			<-s.Done() // until the client leaves
			return nil
		}}, nil
	}, api.Operation{})
	srv := httptest.NewServer(r)
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/notes/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	fmt.Println(res.Header.Get("Content-Type"))
	br := bufio.NewReader(res.Body)
	for range 8 { // two events of three lines and a blank one each
		line, _ := br.ReadString('\n')
		fmt.Print(line)
	}
	// Output:
	// text/event-stream
	// id: 1
	// event: added
	// data: {"id":1,"text":"hi"}
	//
	// id: 2
	// event: removed
	// data: {"ID":1}
	//
}
