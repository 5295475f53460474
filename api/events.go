package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"unsafe"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/typed"
)

// Events is the Body of a typed answer that is a stream of server-sent
// events (WHATWG HTML, "Server-sent events"), each of a type the event
// set E declares. E is a struct whose fields are the events, each a
// pointer to the event's data type, tagged with the event's name:
//
//	type Change struct {
//		Created *Bookmark `event:"created"`
//		Deleted *Removed  `event:"deleted" doc:"a bookmark was deleted"`
//	}
//
//	type FeedOutput struct{ Body api.Events[Change] }
//
// The handler binds and checks the request as any typed operation's, and
// returns the function that sends the events; it runs once the stream's
// headers are sent (text/event-stream, Cache-Control: no-cache, the
// Out's header fields), and the stream ends when it returns:
//
//	return &FeedOutput{Body: func(s *api.EventSender[Change]) error {
//		for {
//			select {
//			case <-s.Done():
//				return nil
//			case b := <-created:
//				if err := s.Send(strconv.FormatInt(b.ID, 10), Change{Created: &b}); err != nil {
//					return nil // the client is gone
//				}
//			}
//		}
//	}}, nil
//
// A value of another type than the set's cannot be sent: it does not
// compile. The document describes one event of the set as a component
// named after the set's type: a oneOf of one object per event (its name,
// its data as a string of JSON of the event type's schema, its id). The
// 3.2 document gives it as the stream's itemSchema; the 3.1 document,
// whose schema is of the whole body, as a string of text/event-stream
// whose contentSchema is an array of those events. The reconnecting
// client's Last-Event-ID binds as any header of In does, as the type
// of the IDs the stream sends (a number of the handler's own):
//
//	LastID int64 `header:"Last-Event-ID" minimum:"0"`
//
// A [Feed] makes such functions from an [EventLog]: events published
// to the log, by this instance or another that shares it, each with the
// log's ID, resumed after the client's Last-Event-ID, with a reset event
// rather than a silent gap. A log's IDs are its own text (a Redis
// stream's "1733…-0"), so its In binds them as a string:
//
//	LastID string `header:"Last-Event-ID"`
//	…
//	return &FeedOutput{Body: feed.Follow(in.LastID)}, nil
//
// On a HEAD request the function does not run: the headers are the
// whole answer. Its error, once the stream started, can only be logged
// (the error handler does); one after the client left or the server
// began to shut down (Done closed) is dropped, as the end of the stream.
// Op panics, naming the field, when E is not such a set.
type Events[E any] func(s *EventSender[E]) error

// eventSet returns E, for registration.
func (Events[E]) eventSet() reflect.Type { return reflect.TypeFor[E]() }

// run starts the stream on c and runs f with a sender by plan.
func (f Events[E]) run(c *waltz.Context, plan *typed.EventPlan) error {
	if f == nil {
		return fmt.Errorf("waltz: an Events body with no function")
	}
	es, err := c.EventStream()
	if err != nil {
		return err
	}
	if c.Request.Method == http.MethodHead {
		return nil
	}
	s := &EventSender[E]{es: es, plan: plan}
	if err := f(s); err != nil && !seam.Router.Ended(es) {
		return err
	}
	return nil
}

// eventsBody is an Events[E] of any E.
type eventsBody interface {
	eventSet() reflect.Type
	run(c *waltz.Context, plan *typed.EventPlan) error
}

var eventsBodyType = reflect.TypeFor[eventsBody]()

// EventSender sends the events of a typed event stream ([Events]). It
// wraps an [waltz.EventStream], and is used as one: from one goroutine at a
// time, and never after the function it was given to returns.
type EventSender[E any] struct {
	es   *waltz.EventStream
	plan *typed.EventPlan
}

// Send sends ev, a value of the event set with exactly one field set,
// as an event of that field's name whose data is the JSON of what the
// field points to, with the event ID id ("" sends none; it must hold no
// CR, LF or NUL). It returns an error, and sends nothing, when no field
// or several are set, the ID is invalid or the data cannot be encoded;
// otherwise its errors are [waltz.EventStream.Send]'s (the client is gone, the
// stream ended).
func (s *EventSender[E]) Send(id string, ev E) error {
	// NOTE: &ev points to a value of E, the type the plan was made from.
	name, data, err := s.plan.Event(unsafe.Pointer(&ev))
	if err != nil {
		return fmt.Errorf("waltz: event of %T: %w", ev, err)
	}
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("waltz: event %q: encoding its data: %w", name, err)
	}
	return seam.Router.SendEvent(s.es, id, name, b)
}

// Ping writes a comment line, as [waltz.EventStream.Ping] does.
func (s *EventSender[E]) Ping() error { return s.es.Ping() }

// Done is closed when the client has gone or the server began to shut
// down, as [waltz.EventStream.Done] is.
func (s *EventSender[E]) Done() <-chan struct{} { return s.es.Done() }

// Stream returns the untyped stream under s, for its WriteTimeout or an
// event of no declared type (a retry field, say).
func (s *EventSender[E]) Stream() *waltz.EventStream { return s.es }

// planEvents returns the event plan of an Out whose Body is of type body,
// an Events[E], declaring produces.
func planEvents(body reflect.Type, produces []string) (*typed.EventPlan, error) {
	set := reflect.Zero(body).Interface().(eventsBody).eventSet()
	if len(produces) > 1 || len(produces) == 1 && !strings.EqualFold(produces[0], "text/event-stream") {
		return nil, fmt.Errorf("an Events body is text/event-stream: Operation.Produces lists %v", produces)
	}
	return typed.PlanEvents(set)
}
