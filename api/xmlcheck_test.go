package api

import (
	"encoding/xml"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// Bodies encoding/xml cannot write, as far as their types tell.
type (
	xAnyBody struct {
		ID    int `xml:"id"`
		Extra any `xml:"extra"`
	}
	xMeta     struct{ Meta map[string]string }
	xItemsMap struct {
		XMLName xml.Name `xml:"items"`
		Items   []xMeta  `xml:"item"`
	}
	xDeepAny struct {
		Page struct {
			Rows []*struct{ Cell error }
		}
	}
	// Out of JSON, which refuses them too, and in XML.
	xChan struct {
		C chan int `json:"-"`
	}
	xFunc struct {
		F func() `json:"-"`
	}
	xComplex struct {
		Z complex128 `json:"-"`
	}
	xAttr struct {
		At struct{ A int } `xml:"at,attr"`
	}
	xComment struct {
		Note int `xml:",comment"`
	}
	xEmbedded struct {
		xMeta
		ID int
	}
	xBadTag struct {
		Inner *struct {
			A int `xml:"a,attr,chardata"`
		}
	}
)

// Bodies it can write: the members it cannot are left out, or write
// themselves.
type (
	xMarshals struct{ m map[string]int }
	xWriter   interface {
		xml.Marshaler
	}
	xFine struct {
		XMLName  xml.Name          `xml:"fine"`
		ID       int               `xml:"id,attr"`
		Tags     []string          `xml:"tag,attr"`
		Skipped  map[string]string `xml:"-"`
		Also     any               `xml:"-"`
		When     time.Time         `xml:"when"`
		Self     xMarshals         `xml:"self"`
		Writer   xWriter           `xml:"writer"`
		Text     string            `xml:",chardata"`
		Note     string            `xml:",comment"`
		Children []xFine           `xml:"child"`
		Raw      []byte            `xml:"raw"`
		private  map[int]int
	}
)

func (x xMarshals) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if x.m["fail"] != 0 {
		return errors.New("xMarshals: told to fail")
	}
	return e.EncodeElement(len(x.m), start)
}

// TestXMLRefused: an operation that produces XML panics at registration
// on a Body type whose values encoding/xml may fail to write: a map, a
// channel, a function or a complex number anywhere in it, an interface
// member (whatever it holds is known at run time only), an attribute or
// comment member of a type those cannot hold, a bad tag behind a
// pointer; each message names the member.
func TestXMLRefused(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func(r *waltz.Router)
		want     string
	}{
		{"an any member", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xAnyBody }, error) { return nil, nil },
				Operation{Produces: []string{"application/json", "application/xml"}})
		}, "the member Extra is an interface (interface {})"},
		{"a map in a slice's items", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xItemsMap }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "the member Items[].Meta is a map[string]string"},
		{"an error deep inside", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body *xDeepAny }, error) { return nil, nil },
				Operation{Produces: []string{"text/xml"}})
		}, "the member Page.Rows[].Cell is an interface (error)"},
		{"a channel", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xChan }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "the member C is a chan int"},
		{"a func", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xFunc }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "the member F is a func()"},
		{"a complex number", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xComplex }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "the member Z is a complex128"},
		{"a struct attribute", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xAttr }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "the member At is a struct { A int }"},
		{"an int comment", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xComment }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "a comment member must be a string"},
		{"an embedded struct's map", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xEmbedded }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "the member Meta is a map[string]string"},
		{"a bad tag behind a nil pointer", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body xBadTag }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "invalid tag in field A"},
		{"an unnamed struct Body", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body struct{ S string } }, error) { return nil, nil },
				Operation{Produces: []string{"application/json", "application/xml"}})
		}, "name the type, or give it a member XMLName"},
		{"a pointer to an unnamed struct Body", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body *struct{ S string } }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "name the type, or give it a member XMLName"},
		{"an any Body", func(r *waltz.Router) {
			Op(r, "GET", "/x", func(*waltz.Context, *struct{}) (*struct{ Body any }, error) { return nil, nil },
				Operation{Produces: []string{"application/xml"}})
		}, "the Body is an interface"},
	} {
		msg := panicMessage(func() { tc.register(waltz.New()) })
		if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, "encoding/xml cannot write") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: panic got %q, want one starting \"waltz: \" with %q", tc.name, msg, tc.want)
		}
	}
}

// TestXMLWrites: a Body whose members encoding/xml cannot write are left
// out of XML (xml:"-", unexported) or write themselves registers, a
// recursive type included, and is answered; a Marshaler that fails at
// run time is a 500 that leaks nothing and is logged, and the same
// operation's JSON is not touched by it.
func TestXMLWrites(t *testing.T) {
	logs := silenceLogs(t)
	r := waltz.New()
	Op(r, "GET", "/x/:n", func(c *waltz.Context, in *struct {
		N int `path:"n"`
	}) (*struct{ Body xFine }, error) {
		f := xFine{ID: in.N, Tags: []string{"a", "b"}, Text: "t", Self: xMarshals{map[string]int{"x": 1}},
			Children: []xFine{{ID: 2}}, Skipped: map[string]string{"k": "v"}, Also: map[string]int{}}
		if in.N == 0 {
			f.Self.m["fail"] = 1
		}
		return &struct{ Body xFine }{f}, nil
	}, Operation{Produces: []string{"application/json", "application/xml"}})
	w := serveWith(t, r, "GET", "/x/1", "Accept", "application/xml")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `<fine id="1" tag="a" tag="b">`) ||
		!strings.Contains(w.Body.String(), `<self>1</self>`) {
		t.Errorf("got %d %q, want 200 with the element fine", w.Code, w.Body)
	}
	w = serveWith(t, r, "GET", "/x/0", "Accept", "application/xml")
	if w.Code != 500 || strings.Contains(w.Body.String(), "fine") || strings.Contains(w.Body.String(), "told to fail") {
		t.Errorf("a Marshaler's failure: got %d %q, want a 500 that says nothing of it", w.Code, w.Body)
	}
	if !strings.Contains(logs.String(), "xMarshals: told to fail") || !strings.Contains(logs.String(), "status=500") {
		t.Errorf("a Marshaler's failure is not logged: %q", logs.String())
	}
	if w := serveWith(t, r, "GET", "/x/0", "Accept", "application/json"); w.Code != 200 {
		t.Errorf("JSON of the same: got %d %q, want 200", w.Code, w.Body)
	}
	if w := serveWith(t, r, "GET", "/x/1", "Accept", "application/xml"); w.Code != http.StatusOK {
		t.Errorf("again: got %d", w.Code)
	}
}
