package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/typed"
	"github.com/waltz-go/waltz/openapi"
)

// Lines is the Body of a typed answer that is a stream of JSON Lines
// (application/jsonl, jsonlines.org): one JSON value of type T a line,
// each sent as it is made, for an export too large to hold or a feed
// read as it comes. It is produced as [Events] is: the handler binds and
// checks the request as any typed operation's, and returns the function
// that sends the items; it runs once the stream's headers are sent
// (Content-Type application/jsonl, the Out's header fields, a 200), and
// the stream ends when it returns:
//
//	type ExportOutput struct{ Body api.Lines[Bookmark] }
//
//	return &ExportOutput{Body: func(s *api.LineSender[Bookmark]) error {
//		for _, b := range store.All() {
//			if err := s.Send(b); err != nil {
//				return nil // the client is gone: stop
//			}
//		}
//		return nil
//	}}, nil
//
// Each item is written by encoding/json (one line: it never writes a
// line feed inside a value) and a line feed, and flushed, so a client
// reads the items one by one as they come; a client that stops reading
// and closes the connection makes the next Send fail, and the handler's
// function returns. An item of another type than T does not compile.
//
// The OpenAPI 3.2 document describes the answer as application/jsonl
// whose itemSchema is T's schema (3.2.0 section 4.14.3.1.1: a sequential
// media type, read item by item); 3.1, which has no item schema, as
// application/jsonl with no schema, its description naming what a line
// holds (a schema there would be of the whole body, one JSON value, which
// 3.1's validators would hold every answer of two lines to).
//
// On a HEAD request the function does not run: the headers are the
// whole answer. Its error, once the stream started, is logged and cuts
// the response, so that the client sees a truncated read rather than a
// list that looks whole; one after the client left or the server began
// to shut down (Done closed) is dropped, as the end of the stream. Op panics, naming the
// field, when encoding/json cannot encode a T, or when
// [Operation].Produces lists another type than application/jsonl.
type Lines[T any] func(s *LineSender[T]) error

// jsonLines is the media type of a Lines answer: JSON Lines, which
// OpenAPI 3.2 lists among the sequential media types (section 4.14.3.1);
// it is not registered with IANA, nor is application/x-ndjson, its twin.
const jsonLines = "application/jsonl"

// itemType returns T, for registration.
func (Lines[T]) itemType() reflect.Type { return reflect.TypeFor[T]() }

// run starts the stream on c and runs f with a sender.
func (f Lines[T]) run(c *waltz.Context) error {
	if f == nil {
		return fmt.Errorf("waltz: a Lines body with no function")
	}
	es, err := seam.Router.Lines(c)
	if err != nil {
		return err
	}
	if c.Request.Method == http.MethodHead {
		return nil
	}
	s := &LineSender[T]{es: es.(*waltz.EventStream)}
	if err := f(s); err != nil && !seam.Router.Ended(s.es) {
		return err
	}
	return nil
}

// linesBody is a Lines[T] of any T.
type linesBody interface {
	itemType() reflect.Type
	run(c *waltz.Context) error
}

var linesBodyType = reflect.TypeFor[linesBody]()

// LineSender sends the items of a typed stream of JSON Lines ([Lines]),
// as [EventSender] sends events: from one goroutine at a time, and never
// after the function it was given to returns.
type LineSender[T any] struct {
	es *waltz.EventStream // the stream, of JSON Lines: its writes, Done and write deadline are an event stream's
}

// Send writes item, as encoding/json encodes it, and a line feed, and
// flushes them to the client. It returns an error, and sends nothing,
// when item cannot be encoded; otherwise its errors are
// [waltz.EventStream.Send]'s: the client is gone (a write failed), the
// request's context is done, the stream ended.
func (s *LineSender[T]) Send(item T) error {
	b, err := json.Marshal(item)
	if err != nil {
		return fmt.Errorf("waltz: a JSON Lines item of %T: %w", item, err)
	}
	return seam.Router.SendLine(s.es, b)
}

// Done is closed when the client has gone or the server began to shut
// down, as [waltz.EventStream.Done] is.
func (s *LineSender[T]) Done() <-chan struct{} { return s.es.Done() }

// planLines returns the item type of an Out whose Body is of type body,
// a Lines[T], declaring produces.
func planLines(body reflect.Type, produces []string) (reflect.Type, error) {
	item := reflect.Zero(body).Interface().(linesBody).itemType()
	if len(produces) > 1 || len(produces) == 1 && !strings.EqualFold(produces[0], jsonLines) {
		return nil, fmt.Errorf("a Lines body is %s: Operation.Produces lists %v", jsonLines, produces)
	}
	return item, typed.CheckItem(item)
}

// describeLines makes resp, the success answer of status of an
// operation whose Body is a Lines of item, say so: its content is
// application/jsonl, in 3.2 with the items' schema (itemSchema); and,
// unless the Body's doc tag says otherwise, its description says what a
// line holds, which is all a 3.1 document can say of it. 3.1 has no item
// schema, and a schema there is of the whole body: the tools that read
// 3.1 (libopenapi-validator, a contract test) take a +json-like type for
// one JSON value and would refuse every answer of two lines or more.
func describeLines(resp *openapi.Response, status int, item reflect.Type, g *typed.Schemas, v32 bool) {
	if resp.Description == header.Phrase(status) {
		name := item.Name()
		if name == "" {
			name = "JSON value"
		}
		resp.Description = "JSON Lines (jsonlines.org): one " + name + " a line, each sent as it is made."
	}
	mt := &openapi.MediaType{}
	if v32 {
		// Made only here: a 3.1 document holds no schema nothing uses.
		mt.ItemSchema = g.Of(item)
	}
	resp.Content = map[string]*openapi.MediaType{jsonLines: mt}
}
