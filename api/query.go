package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/waltz-go/waltz/openapi"
)

// Typed QUERY operations (RFC 10008): an operation registered with
// waltz.MethodQuery binds and checks its content as a POST's body, and
// answers as a GET does. What differs from either is decided here, at
// registration:
//
//   - In must have a Body field: the content is the query (section 2);
//     a request without a Content-Type is a 400 (section 2.1), which the
//     engine's binding answers (typed.InPlan.RequireContentType), and one
//     of a type the Body does not consume a 415, as a POST's;
//   - every refusal of the route (status 400 and above) carries
//     Accept-Query with the Body's media types, as the router sets it for
//     every QUERY route, with the GET and HEAD of its pattern, the
//     OPTIONS and the 405 of its path
//     (the root's query.go asks for them through
//     seam.Contract.Accepts, op.go);
//   - an answer's validators are judged as a GET's (304, 412), and an
//     ETag is made to cover the content: the equivalent resource, whose
//     representation the validators are of, is the target resource with
//     the content taken in (sections 2.2, 2.6), so the tag the handler
//     gives (its data's version, say) has a digest of the content added.
//     A conditional QUERY that sends the same content with the tag it got
//     is answered 304; another content, even with that tag, is not.

// planQuery checks and completes o, a QUERY operation of the types in t.
func planQuery(o *operation, t *typedOp) error {
	if o.in.MediaTypes() == nil {
		return fmt.Errorf("a QUERY takes its query as content (RFC 10008 section 2): give %s a Body field", t.in)
	}
	o.in.RequireContentType()
	if o.out.HasValidators() {
		f, _ := t.in.FieldByName("Body")
		o.content, o.out.content = f.Index, true
	}
	return nil
}

// contentDigest returns the digest of the content of a QUERY whose In
// value, bound, is at in: of the Body as it was bound, written again as
// JSON, so that contents that mean the same (members in another order,
// other white space, a form and its JSON, a default left out or sent)
// have the same digest, and the same tag. 16 hex digits of its SHA-256.
func (o *operation) contentDigest(in unsafe.Pointer) string {
	// NOTE: in points to a bound value of the type o.in was planned from.
	body := reflect.NewAt(o.in.Type(), in).Elem().FieldByIndex(o.content).Interface()
	b, err := json.Marshal(body)
	if err != nil {
		// A body bound from JSON encodes again; should one not, its
		// answer's tag covers no content, and so is never current.
		return "-"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// contentTag returns the entity tag tag (`"v7"` or `W/"v7"`) made to
// cover the content whose digest is digest, weak or strong as tag is
// (`"v7.2f1c…"`); tag itself when digest or tag is "", or tag is not one
// entity tag.
func contentTag(tag, digest string) string {
	if digest == "" || len(tag) < 2 || tag[len(tag)-1] != '"' || !strings.HasPrefix(strings.TrimPrefix(tag, "W/"), `"`) {
		return tag
	}
	return tag[:len(tag)-1] + "." + digest + `"`
}

// setContentTag makes h's ETag, the answer's as Out set it (a
// representation's own), cover the content whose digest is digest;
// writeOut calls it after setting Out's header fields, for an operation
// whose outPlan says content.
func (p *outPlan) setContentTag(h http.Header, digest string) {
	if tags := h["Etag"]; len(tags) == 1 {
		h["Etag"] = []string{contentTag(tags[0], digest)}
	}
}

// queryNote is the description of a path item with a QUERY route in an
// OpenAPI 3.1 document, which has no field for the method: the operation
// is left out of it, rather than put under an extension (x-query) that
// no 3.1 tool reads, whose schemas would sit in the components as if
// nothing used them, and that a 3.1 validator or contract test would
// half see; the 3.2 document describes it (Info.OpenAPI).
const queryNote = "This path also answers QUERY (RFC 10008), which OpenAPI 3.1 has no field for: the OpenAPI 3.2 document describes it."

// plainQuery gives op, the operation of a plain QUERY route that takes
// the media types types (Registration.Accepts; none named: any), the
// content the router holds it to, and returns the codes of the router's
// refusals: a QUERY's content is required (RFC 10008 section 2), in one
// of types, each with any schema, since the handler alone knows what it
// reads; 400 without a Content-Type (section 2.1), 415 for a type not
// in types (when it named any).
func plainQuery(op *openapi.Operation, types []string) []int {
	codes := []int{http.StatusBadRequest}
	rb := &openapi.RequestBody{Required: true, Content: map[string]*openapi.MediaType{}}
	for _, t := range types {
		rb.Content[t] = &openapi.MediaType{Schema: &openapi.Schema{}}
	}
	if len(types) == 0 {
		rb.Content["*/*"] = &openapi.MediaType{Schema: &openapi.Schema{}}
	} else {
		codes = append(codes, http.StatusUnsupportedMediaType)
	}
	op.RequestBody = rb
	return codes
}

// describeAcceptQuery adds to the answers of op the Accept-Query field
// (RFC 10008 section 3) of a QUERY that takes the media types types, as
// the router sends it: on every answer of the GET or HEAD of its pattern
// (refusals false), on the refusals alone (status 400 and above) of the
// QUERY itself (refusals true), whose client sent a type it takes; never
// on those of the codes except, which only the router gives, before any
// route (routerAnswer).
func describeAcceptQuery(op *openapi.Operation, types []string, except []string, refusals bool) {
	doc := "The media types a QUERY here takes (RFC 10008 section 3): " + strings.Join(types, ", ") + "."
	for code, resp := range op.Responses {
		if refusals && code != "default" && code < "4" {
			continue // a 2xx or 3xx: "default" and "4XX" stay, a plain route's default holds its refusals
		}
		if !slices.Contains(except, code) {
			if resp.Headers == nil {
				resp.Headers = map[string]*openapi.Header{}
			}
			resp.Headers["Accept-Query"] = &openapi.Header{Description: doc, Schema: &openapi.Schema{Type: "string"}}
		}
	}
}

// describeAcceptBody adds to resp, the 415 of a typed PATCH or POST
// operation whose Body takes the media types types, the field that lists
// them, as the router sends it there: Accept-Patch (RFC 5789 section
// 2.2) or Accept-Post (W3C Linked Data Platform 1.0 section 7.1). Other
// methods' 415s carry neither.
func describeAcceptBody(resp *openapi.Response, method string, types []string) {
	field := ""
	switch method {
	case http.MethodPatch:
		field = "Accept-Patch"
	case http.MethodPost:
		field = "Accept-Post"
	}
	if field == "" || len(types) == 0 {
		return
	}
	if resp.Headers == nil {
		resp.Headers = map[string]*openapi.Header{}
	}
	resp.Headers[field] = &openapi.Header{
		Description: "The media types this operation's content may have: " + strings.Join(types, ", ") + ".",
		Schema:      &openapi.Schema{Type: "string"},
	}
}
