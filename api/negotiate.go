package api

import (
	"bytes"
	"encoding"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/seam"
)

// Encoder writes a typed answer's body in one media type: it gets a
// pointer to the Out type's Body field and returns the bytes to send, or
// an error, which is answered 500 and logged (nothing of it reaches the
// client). [encoding/xml.Marshal] and [encoding/json.Marshal] are
// Encoders, and so is the Marshal function of most encoding libraries
// (CBOR, MessagePack, YAML).
type Encoder func(v any) ([]byte, error)

// UseEncoder registers enc as the encoder of the media type mediaType
// ("application/cbor", "application/vnd.acme+yaml") for the typed
// operations registered on r afterwards that list it in
// [Operation.Produces]. An operation's own [Operation.Encoders] win over
// the router's. The types that need no registration are
// "application/json" (and every "+json" type), "application/xml" and
// "text/xml" (encoding/xml) and "text/plain" (a Body of a string, a
// []byte, an [encoding.TextMarshaler] or a [fmt.Stringer]); registering
// one of them replaces the built-in encoder for the operations
// registered afterwards.
//
// UseEncoder panics with a message starting "waltz: " when mediaType is
// not a media type "type/subtype" without parameters or enc is nil.
// Register encoders before routes, as everything else of a Router: it is
// not safe to call while the router serves.
func UseEncoder(r *waltz.Router, mediaType string, enc Encoder) {
	if err := checkMediaType(mediaType); err != nil {
		panic("waltz: UseEncoder: " + err.Error())
	}
	if enc == nil {
		panic("waltz: UseEncoder: a nil Encoder for " + mediaType)
	}
	s := stateOf(r)
	if s.encoders == nil {
		s.encoders = make(map[string]Encoder)
	}
	s.encoders[strings.ToLower(mediaType)] = enc
}

// checkMediaType reports why t is not a media type "type/subtype" without
// parameters (RFC 9110 section 8.3.1), or nil.
func checkMediaType(t string) error {
	typ, sub, ok := strings.Cut(t, "/")
	if !ok || !header.IsToken(typ) || !header.IsToken(sub) {
		return fmt.Errorf("%q is no media type type/subtype (RFC 9110 section 8.3.1)", t)
	}
	if typ == "*" || sub == "*" {
		return fmt.Errorf("%q is a media range: an answer has one media type", t)
	}
	return nil
}

// negotiation is what a typed operation that declares Produces decides
// per request: the representation to send, by the request's Accept
// field. Planned at registration.
type negotiation struct {
	types []string  // the declared media types, lower case, the server's preferred first
	ctype []string  // the Content-Type sent for each
	enc   []Encoder // the encoder of each; nil for JSON, which takes the Out plan's path
	none  string    // the 406 answer's message, listing types
	body  reflect.Type

	// last is the Accept field of the last request and the index it
	// picked: a client sends the same field on every request, and most
	// clients of an API send one of a few, so comparing the field with
	// the last one saves parsing it again.
	last atomic.Pointer[acceptMemo]
}

// acceptMemo is an Accept field line and the representation it picks.
type acceptMemo struct {
	line string
	pick int
}

// planNegotiation returns the negotiation of op, whose Out type's Body is
// of type body (nil when Out has none), with the router's encoders
// routerEnc; nil when op declares no Produces. binary is set for a
// download's body, whose bytes are sent as they are, in any declared
// type. The error says which declared type cannot be encoded.
func planNegotiation(op *Operation, body reflect.Type, routerEnc map[string]Encoder, binary bool) (*negotiation, error) {
	if len(op.Produces) == 0 {
		return nil, nil
	}
	if body == nil {
		return nil, fmt.Errorf("Operation.Produces lists %s but the output type has no Body field", strings.Join(op.Produces, ", "))
	}
	n := &negotiation{body: body}
	for _, t := range op.Produces {
		if err := checkMediaType(t); err != nil {
			return nil, fmt.Errorf("Operation.Produces: %w", err)
		}
		lt := strings.ToLower(t)
		for _, seen := range n.types {
			if seen == lt {
				return nil, fmt.Errorf("Operation.Produces lists %q twice", t)
			}
		}
		var enc Encoder
		ctype := lt
		if !binary {
			var err error
			enc, ctype, err = encoderFor(lt, body, op.Encoders, routerEnc)
			if err != nil {
				return nil, err
			}
		}
		n.types = append(n.types, lt)
		n.ctype = append(n.ctype, ctype)
		n.enc = append(n.enc, enc)
	}
	n.none = "none of the media types this operation answers in is acceptable (Accept): " + strings.Join(n.types, ", ")
	return n, nil
}

// encoderFor returns the encoder of the media type t, lower case, for a
// Body of type body, and the Content-Type it sends: the operation's own,
// the router's, or a built-in one. A nil Encoder is JSON's, which the Out
// plan writes.
func encoderFor(t string, body reflect.Type, opEnc, routerEnc map[string]Encoder) (Encoder, string, error) {
	for k, e := range opEnc {
		if strings.EqualFold(k, t) {
			if e == nil {
				return nil, "", fmt.Errorf("Operation.Encoders has a nil Encoder for %q", k)
			}
			return e, t, nil
		}
	}
	if e := routerEnc[t]; e != nil {
		return e, t, nil
	}
	switch {
	case t == "application/json":
		return nil, seam.JSON, nil
	case strings.HasSuffix(t, "+json"):
		return marshalJSON, t, nil
	case t == "application/xml" || t == "text/xml":
		// What encoding/xml cannot write, as far as the type tells:
		// found now rather than at a request (xmlcheck.go).
		if err := checkXML(body); err != nil {
			return nil, "", fmt.Errorf("Operation.Produces: encoding/xml cannot write the Body type %s: %v", body, err)
		}
		// encoding/xml writes a slice or an array as one element per
		// item, and an XML document has exactly one root element (XML
		// 1.0 section 2.1).
		if e := derefType(body); (e.Kind() == reflect.Slice || e.Kind() == reflect.Array) &&
			!reflect.PointerTo(e).Implements(xmlMarshalerType) {
			return nil, "", fmt.Errorf("Operation.Produces: encoding/xml writes a Body of type %s as one element per item, "+
				"and an XML document has one root element (XML 1.0 section 2.1): make the Body a struct that holds the items, "+
				"such as struct { Items []T `xml:\"item\"` }", body)
		}
		return marshalXML, mime.FormatMediaType(t, map[string]string{"charset": "utf-8"}), nil
	case t == "text/plain":
		if !textBody(body) {
			return nil, "", fmt.Errorf("Operation.Produces: text/plain needs a Body of a string, a []byte, "+
				"an encoding.TextMarshaler or a fmt.Stringer, not %s", body)
		}
		return marshalText, seam.TextPlain, nil
	}
	return nil, "", fmt.Errorf("Operation.Produces: no encoder for %q: register one with UseEncoder or Operation.Encoders", t)
}

var (
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	stringerType      = reflect.TypeFor[fmt.Stringer]()
	xmlMarshalerType  = reflect.TypeFor[xml.Marshaler]()
)

// derefType returns t with its pointers taken away: *[]T is []T.
func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// textBody reports whether a Body of type t can be written as text/plain.
func textBody(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Kind() == reflect.String || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 ||
		pt.Implements(textMarshalerType) || pt.Implements(stringerType)
}

// marshalJSON is the encoder of "+json" types: JSON as for
// application/json, with the newline the JSON answers end with.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(b, '\n'), err
}

// xmlHeader starts every XML answer: the document's declaration, which
// names its encoding (XML 1.0 section 4.3.3).
const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// marshalXML is the built-in encoder of application/xml and text/xml.
func marshalXML(v any) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(xmlHeader)
	if err := xml.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	if b.Len() == len(xmlHeader) {
		// A nil pointer Body: a document with no root element, which
		// no XML parser takes.
		return nil, errors.New("encoding/xml wrote no root element: is the Body a nil pointer?")
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// marshalText is the built-in encoder of text/plain: v points to a
// string, a []byte, a TextMarshaler or a Stringer (textBody).
func marshalText(v any) ([]byte, error) {
	switch x := v.(type) {
	case encoding.TextMarshaler:
		return x.MarshalText()
	case fmt.Stringer:
		return []byte(x.String()), nil
	}
	rv := reflect.ValueOf(v).Elem()
	if rv.Kind() == reflect.String {
		return []byte(rv.String()), nil
	}
	return rv.Bytes(), nil
}

// pick returns the index in n.types of the representation to answer c's
// request with, and sets Vary: Accept, which every answer of a negotiated
// operation carries: it depends on the field, be it a 200 in one type or
// another or a 406 (RFC 9110 section 12.5.5). The error is the 406. A
// field of one line that is the last one's is not parsed again; another
// costs an allocation, to keep it as the last.
func (n *negotiation) pick(c *waltz.Context, call *seam.Call) (int, error) {
	h := c.Writer.Header()
	if v, ok := h["Vary"]; ok {
		h["Vary"] = append(v, "Accept")
	} else {
		h["Vary"] = seam.ContentType(&call.Vary, seam.VaryAccept)
	}
	lines := c.Request.Header["Accept"]
	var i int
	switch m := n.last.Load(); {
	case len(lines) == 0:
	case len(lines) == 1 && m != nil && m.line == lines[0]:
		i = m.pick
	default:
		i = header.Accept(lines, n.types)
		if len(lines) == 1 && len(lines[0]) <= maxMemo {
			n.last.Store(&acceptMemo{line: lines[0], pick: i})
		}
	}
	if i < 0 {
		return 0, &waltz.HTTPError{Code: http.StatusNotAcceptable, Message: n.none}
	}
	call.MediaType = n.types[i]
	return i, nil
}

// The validators of a negotiated operation's representations (RFC 9110
// sections 8.8.1 and 8.8.3: an entity tag tells apart the representations
// of a resource, those of content negotiation included). A handler gives
// one tag for the resource, as Out's ETag field; when Produces lists more
// than one type, the first of them goes out with that tag and each other
// with its media type added inside the quotes ("v7" as
// "v7-application/xml", W/"v7" as W/"v7-application/xml"), and so is it
// compared by If-None-Match and If-Match, for a 304 that carries it. So a
// cache that revalidates the XML never gets a 304 for the JSON it does not
// hold. A write's Operation.Current, whose tag is the resource's, takes
// the tag of any representation the router's operations send (baseTags).

// suffix returns what representation rep of n adds to the entity tag
// Out gives: "" for the first of Produces and for an operation with one
// (or none: n nil), else "-" and its media type.
func (n *negotiation) suffix(rep int) string {
	if n == nil || len(n.types) < 2 {
		return ""
	}
	return n.suffixOf(n.types[rep])
}

// suffixOf returns what the representation of the media type mt, lower
// case, adds to the entity tag Out gives; see suffix.
func (n *negotiation) suffixOf(mt string) string {
	if n == nil || len(n.types) < 2 || mt == n.types[0] {
		return ""
	}
	return "-" + mt
}

// repTag returns the entity tag tag, quoted (W/ for a weak one), as the
// representation whose suffix is suffix sends it: suffix added inside
// the quotes; tag itself for no suffix, or for a tag with no closing
// quote, which is no entity tag.
func repTag(tag, suffix string) string {
	if suffix == "" || len(tag) < 2 || tag[len(tag)-1] != '"' {
		return tag
	}
	return tag[:len(tag)-1] + suffix + `"`
}

// baseTags returns h with the suffixes (each "-type/subtype" and the
// closing quote) taken off the entity tags of its If-Match and
// If-None-Match fields: "v1-application/xml" is "v1" for a write's
// Current, whose tag is the resource's, so that a client may send the tag
// of whichever representation it read. It returns h itself when no tag
// has one, without an allocation.
func baseTags(h http.Header, suffixes []string) http.Header {
	out, cloned := h, false
	for _, k := range [...]string{"If-Match", "If-None-Match"} {
		vs := h[k]
		for i, v := range vs {
			nv := v
			for _, s := range suffixes {
				nv = strings.ReplaceAll(nv, s, `"`)
			}
			if nv == v {
				continue
			}
			if !cloned {
				out, cloned = maps.Clone(h), true
			}
			if len(out[k]) > 0 && &out[k][0] == &vs[0] {
				out[k] = slices.Clone(vs)
			}
			out[k][i] = nv
		}
	}
	return out
}

// maxMemo is the longest Accept field a negotiation keeps as its last
// (browsers send about 100 bytes; APIs' clients fewer).
const maxMemo = 256
