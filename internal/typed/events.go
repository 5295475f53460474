package typed

import (
	"errors"
	"reflect"
	"strings"
	"unsafe"

	"github.com/waltz-go/waltz/openapi"
)

// EventPlan is the plan of an event set: a struct type whose fields,
// each a pointer tagged event:"name", are the events a stream sends, one
// per value of the set (the field that is not nil).
type EventPlan struct {
	typ    reflect.Type
	events []eventField
}

// eventField is one event of a set.
type eventField struct {
	name  string       // the event type on the wire ("event:" field)
	index int          // the field's index in the set's type
	off   uintptr      // the field's offset
	data  reflect.Type // the type its pointer points to
	doc   string
}

// PlanEvents makes the plan of the event set t. The error names the type
// and the field that cannot be planned: t is no struct, a field is not a
// pointer or has no event tag, a name is empty, holds a CR, LF or colon,
// or is taken twice, or t declares no event.
func PlanEvents(t reflect.Type) (*EventPlan, error) {
	if t.Kind() != reflect.Struct {
		return nil, PlanError(t, nil, "an event set must be a struct of pointer fields tagged event:\"name\"")
	}
	p := &EventPlan{typ: t}
	for i := range t.NumField() {
		f := t.Field(i)
		name, ok := f.Tag.Lookup("event")
		switch {
		case !f.IsExported():
			return nil, PlanError(t, &f, "an event field must be exported")
		case !ok:
			return nil, PlanError(t, &f, "an event field is tagged event:\"name\"")
		case name == "" || strings.ContainsAny(name, "\r\n:"):
			return nil, PlanError(t, &f, "event name %q must be non-empty, without CR, LF or ':'", name)
		case f.Type.Kind() != reflect.Pointer:
			return nil, PlanError(t, &f, "an event field must be a pointer (*%s): the one that is not nil is the event sent", f.Type)
		}
		for _, e := range p.events {
			if e.name == name {
				return nil, PlanError(t, &f, "event name %q is taken by another field", name)
			}
		}
		p.events = append(p.events, eventField{name: name, index: i, off: f.Offset, data: f.Type.Elem(), doc: f.Tag.Get("doc")})
	}
	if len(p.events) == 0 {
		return nil, PlanError(t, nil, "an event set declares no event")
	}
	return p, nil
}

// ErrNoEvent and ErrManyEvents are what [EventPlan.Event] returns for a
// value of the set with no field set, or more than one.
var (
	ErrNoEvent    = errors.New("no field of the event set is set")
	ErrManyEvents = errors.New("more than one field of the event set is set")
)

// Event returns the name of the event that set, a pointer to a value of
// p's type, holds, and its data as a pointer to the event's type in an
// interface (no allocation). It is ErrNoEvent or ErrManyEvents when not
// exactly one field is set.
func (p *EventPlan) Event(set unsafe.Pointer) (string, any, error) {
	found := -1
	for i, e := range p.events {
		// NOTE: set points to a value of p's type; e.off is the offset of
		// one of its pointer fields.
		if deref(fieldAt(set, e.off)) != nil {
			if found >= 0 {
				return "", nil, ErrManyEvents
			}
			found = i
		}
	}
	if found < 0 {
		return "", nil, ErrNoEvent
	}
	e := p.events[found]
	return e.name, reflect.NewAt(e.data, deref(fieldAt(set, e.off))).Interface(), nil
}

// Lookup returns the index, in the set's type, of the field of the event
// named name and the type of its data (what the field points to), and
// whether the set declares that event.
func (p *EventPlan) Lookup(name string) (int, reflect.Type, bool) {
	for _, e := range p.events {
		if e.name == name {
			return e.index, e.data, true
		}
	}
	return 0, nil, false
}

// Schema returns the schema of one event of the set on the wire, as an
// EventSource's parser reads it (WHATWG HTML, "Server-sent events"): an
// object whose event is one of the names, whose data is a string of
// JSON of that event's schema, made in g, and whose id is a string. It
// is a oneOf of one object per event.
func (p *EventPlan) Schema(g *Schemas) *openapi.Schema {
	s := &openapi.Schema{}
	for _, e := range p.events {
		data := &openapi.Schema{Type: "string", ContentMediaType: "application/json", ContentSchema: g.of(e.data), Description: e.doc}
		one := &openapi.Schema{Type: "object", Required: []string{"event", "data"}}
		one.Properties = openapi.Properties{
			{Name: "event", Schema: &openapi.Schema{Type: "string", Enum: []any{e.name}}},
			{Name: "data", Schema: data},
			{Name: "id", Schema: &openapi.Schema{Type: "string"}},
			{Name: "retry", Schema: &openapi.Schema{Type: "integer", Minimum: num("0")}},
		}
		s.OneOf = append(s.OneOf, one)
	}
	return s
}

// Ref returns the schema of one event of the set, Schema's, as a $ref to
// a component named after the set's type (an event set Change gives
// the component Change), made in g on first use, so that a client
// generator names the event's type; Schema's own, in place, for an
// anonymous set type. A JSON value of the set's type, should one be
// described too, is a component of another name.
func (p *EventPlan) Ref(g *Schemas) *openapi.Schema {
	if p.typ.Name() == "" {
		return p.Schema(g)
	}
	name, ok := g.events[p.typ]
	if !ok {
		name = g.nameFor(p.typ)
		g.events[p.typ] = name
		// Taken before the events' data are described: a data type of
		// the set's name (or the set itself) takes another.
		g.defs[name] = &openapi.Schema{}
		*g.defs[name] = *p.Schema(g)
	}
	return &openapi.Schema{Ref: openapi.SchemaRef + name}
}
