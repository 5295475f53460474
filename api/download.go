package api

import (
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/openapi"
)

// Download is the Body of a typed answer whose bytes are sent as they
// are: a file, an object from storage, an image made on the fly. An Out
// type whose Body field is a Download declares the media types it sends
// in [Operation.Produces] ("image/png", "image/webp"; none means
// "application/octet-stream"), which the document lists, each with a
// binary schema (a string of that contentMediaType).
//
// When Content is an [io.ReadSeeker] (an *os.File, a *bytes.Reader) and
// the answer's status is 200, it is answered as [waltz.FileServer]
// answers a file: Range (206 Partial Content, multipart/byteranges for
// several ranges, overlapping ones merged, more than 16 after merging
// ignored for the whole 200), If-Range, HEAD, conditional requests on
// ModTime and on an ETag set by a header field of Out (RFC 9110 section
// 13.2.2, judged as every precondition of waltz is: a 412 is an error
// answer, problem details), and 416 Range Not Satisfiable, an error
// answer too, with "Content-Range: bytes */size" (sections 13 and 14,
// 15.5.17). Any other reader is copied to the
// client as a 200 with no Content-Length, and ranges are ignored (section
// 14.2 lets a server do so). Either way, under a server's WriteTimeout,
// each MiB of the content gets the whole timeout (the connection's write
// deadline moves as it goes), so a download longer than WriteTimeout
// reaches a client that keeps reading; that costs one allocation for a
// content larger than a MiB, or of unknown size. Content is closed after the answer
// when it is an [io.Closer], whatever happens.
type Download struct {
	// Content is the bytes to send; nil is an error (500).
	Content io.Reader

	// Type is the Content-Type, parameters allowed ("text/csv;
	// charset=utf-8"), sent as given; "" means the type the operation's
	// negotiation picked (the first of Produces with no Accept field). A
	// media type Produces does not list is an error (500): the document
	// would not tell it. A type the request's Accept field does not accept is
	// a 406, as when negotiation finds none: set Type when the content
	// has a type of its own (a stored file's), which may not be the one
	// the client prefers.
	Type string

	// ModTime, when not zero, is sent as Last-Modified and answers
	// If-Modified-Since, If-Unmodified-Since and If-Range, for a
	// seekable Content only. A ModTime whose second has not ended (a
	// file written just now, or a time in the future) is not sent, and a
	// date equal to it is unsure: If-Range and If-Unmodified-Since false,
	// If-Modified-Since true, so that a file rewritten within one second
	// never gets a range spliced from two versions (RFC 9110 sections
	// 8.8.2.2, 13.1.5), as FileServer does.
	ModTime time.Time
}

var downloadType = reflect.TypeFor[Download]()

// octetStream is a download's media type when the operation declares none.
var octetStream = []string{"application/octet-stream"}

// sendDownload answers with d, the body of an Out whose headers are set
// already, at status code, in the representation rep of p's
// negotiation, or the one d's Type names. tag is Out's ETag, to be made
// that representation's, when the operation negotiates ("" otherwise).
func sendDownload(c *waltz.Context, p *outPlan, d *Download, code int, rep int, tag string) error {
	if cl, ok := d.Content.(io.Closer); ok {
		defer cl.Close()
	}
	if d.Content == nil {
		return fmt.Errorf("waltz: a Download with no Content")
	}
	types := octetStream
	if p.neg != nil {
		types = p.neg.types
	}
	ctype := d.Type
	// The media type of a Content-Type, which may carry parameters (RFC
	// 9110 section 8.3.1: text/csv; charset=utf-8): the type Produces
	// lists and Accept must accept.
	mt, _, _ := strings.Cut(ctype, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch {
	case ctype == "" && p.neg != nil:
		ctype = p.neg.types[rep]
	case ctype == "":
		ctype = types[0]
	case !slices.Contains(types, mt):
		return fmt.Errorf("waltz: a Download of type %q, which the operation does not declare (Produces: %v)", ctype, types)
	case p.neg != nil && header.Accept(c.Request.Header["Accept"], []string{mt}) < 0:
		// The handler's type, not the one negotiation picked: the
		// client must accept it too.
		return &waltz.HTTPError{Code: http.StatusNotAcceptable, Message: "this answer's content is " + mt + ", which the request's Accept field does not accept"}
	}
	w := c.Writer
	w.Header()["Content-Type"] = []string{ctype}
	if mt == "" {
		mt = ctype // the negotiated type, lower case
	}
	if s := p.neg.suffixOf(mt); s != "" && tag != "" {
		w.Header()["Etag"] = []string{repTag(tag, s)}
	}
	if rs, ok := d.Content.(io.ReadSeeker); ok && code == http.StatusOK {
		return seam.Router.ServeContent(c, ctype, d.ModTime, rs)
	}
	// Started unless writeOut found it so: this marks the status as sent.
	_ = seam.Router.Start(c, "Op", code, true)
	w.WriteHeader(code)
	if c.Request.Method == http.MethodHead {
		return nil
	}
	if _, err := io.Copy(seam.Router.Paced(c, -1), d.Content); err != nil {
		return fmt.Errorf("waltz: Download: sending its content: %w", err)
	}
	return nil
}

// downloadResponses adds to d, the operation object of a download that
// may answer 200 (ranged), the answers a seekable download's 200 can
// also give: Accept-Ranges and Last-Modified on the 200, 206 with the
// same content and its Content-Range, and 304; its 412 and 416 are error
// answers of the router's, among errorCodes, the 416 with its
// Content-Range (unsatisfiable). Another status is never ranged.
func downloadResponses(d *openapi.Operation) {
	ok := d.Responses[strconv.Itoa(http.StatusOK)]
	if ok == nil {
		return
	}
	str := func() *openapi.Schema { return &openapi.Schema{Type: "string"} }
	if ok.Headers == nil {
		ok.Headers = map[string]*openapi.Header{}
	}
	ok.Headers["Accept-Ranges"] = &openapi.Header{Description: "bytes: the content can be asked for in ranges (RFC 9110 section 14.3).", Schema: str()}
	if ok.Headers["Last-Modified"] == nil {
		ok.Headers["Last-Modified"] = &openapi.Header{Description: "When the content last changed, an HTTP-date.", Schema: str()}
	}
	partial := &openapi.Response{Description: "Partial Content: the range the Range field asked for.",
		Headers: map[string]*openapi.Header{"Content-Range": {Description: "The range sent, of the whole size (RFC 9110 section 14.4).", Schema: str()}},
		Content: ok.Content}
	for k, v := range ok.Headers {
		partial.Headers[k] = v
	}
	d.Responses["206"] = partial
	if d.Responses["304"] == nil {
		d.Responses["304"] = &openapi.Response{Description: "Not Modified"}
	}
}

// unsatisfiable adds to the 416 answer of a download's operation d, an
// error answer in the router's format, the Content-Range it carries.
func unsatisfiable(d *openapi.Operation) {
	if r := d.Responses[strconv.Itoa(http.StatusRequestedRangeNotSatisfiable)]; r != nil {
		r.Headers = map[string]*openapi.Header{"Content-Range": {Required: true,
			Description: "bytes */ and the whole size (RFC 9110 section 15.5.17).", Schema: &openapi.Schema{Type: "string"}}}
	}
}

// binaryContent returns the content of a download's answer: each of types
// with a binary schema.
func binaryContent(types []string) map[string]*openapi.MediaType {
	m := make(map[string]*openapi.MediaType, len(types))
	for _, t := range types {
		m[t] = &openapi.MediaType{Schema: &openapi.Schema{Type: "string", ContentMediaType: t}}
	}
	return m
}
