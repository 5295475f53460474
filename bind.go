package waltz

import (
	"net/http"
	"strings"

	"github.com/waltz-go/waltz/internal/typed"
)

// MaxBodyBytes returns the largest request body, in bytes, that the
// Router serving c reads ([Router.MaxBodyBytes]; zero or negative means no
// limit), or 1 MiB, Bind's limit there, for a Context with no Router (from
// [NewContext] or [Context.Copy]). Middleware that reads the body itself,
// to hash or buffer it, holds it to this limit, so that a route's limit
// is the same whoever reads its body first.
func (c *Context) MaxBodyBytes() int64 {
	if c.router == nil {
		return defaultMaxBodyBytes
	}
	return c.router.MaxBodyBytes
}

// Bind decodes the request's JSON body into v, which must be a non-nil
// pointer (to a struct, map, slice or any value encoding/json decodes
// into), with the decoder of typed operations' bodies: what is JSON, how
// a key finds its member and where a failure is located are the same for
// both. The body must hold exactly one JSON value, with nothing but white
// space after it. Bind reads the body, so a second call finds it empty.
//
// A key matches a member's JSON name exactly, letter case included, as
// encoding/json/v2 does by default and as a typed body's schema says:
// {"Title":"x"} fills no member named "title"; it is an unknown key,
// ignored unless the Router's DisallowUnknownFields is set. Members are
// otherwise the ones encoding/json finds (json tags, embedded structs,
// ",string", json.Unmarshaler and encoding.TextUnmarshaler types), a key
// given twice counts once, its last value, and null leaves a value as it
// is. Bind decodes by the Go type alone: the tags of a typed operation's
// rules (required, minLength, default, ...) are not applied; declare an
// operation (package api) to have them checked and documented.
//
// Each problem with the request is an [*HTTPError] that the error handler
// renders as it is; return it as it is:
//
//   - 415 Unsupported Media Type (RFC 9110 section 15.5.16) when the
//     Content-Type is not application/json or application/<name>+json
//     (parameters such as charset are allowed), or when the body has a
//     Content-Encoding other than identity, which Bind does not decode
//     (every element of every Content-Encoding field counts, as a proxy
//     joins them into one list: section 5.3). In the handler of a
//     QUERY route whose [Registration.Accepts] names JSON types alone,
//     the route has checked the Content-Type already, and Bind does not
//     look again: a handler that gives the Context a Request of another
//     Content-Type has that request's body read as JSON;
//   - 413 Content Too Large (RFC 9110 section 15.5.14) when the body is
//     longer than the Router's MaxBodyBytes (1 MiB unless configured), which
//     Bind enforces with http.MaxBytesReader;
//   - 408 Request Timeout (RFC 9110 section 15.5.9), with "Connection:
//     close", when the body stops arriving before the server's read
//     deadline (http.Server.ReadTimeout);
//   - 400 Bad Request (RFC 9110 section 15.5.1) for a body that is not
//     one JSON value: an empty body, malformed JSON (RFC 8259; the
//     message gives the byte offset and what was wanted there, and a
//     string must be UTF-8) or data after the value; and for a request
//     with two Content-Type fields, whatever they say: a media type is
//     one value (sections 5.3 and 8.3), and a proxy may read the last
//     where the first would be bound;
//   - 422 Unprocessable Content (RFC 9110 section 15.5.21) for a body
//     that is JSON but whose values do not fit v: a value of another JSON
//     type than its member's (a string for an int), a number its member
//     cannot hold, a string its type does not read (base64 for []byte,
//     RFC 3339 for time.Time, an UnmarshalText or UnmarshalJSON that
//     fails), and, with DisallowUnknownFields, a key that matches no
//     member. Errors lists every such failure (the first 100), each with
//     its location ("body.author.name", "body.tags[1]", "body" for the
//     value itself), keyword ("type", "format", "additionalProperties")
//     and message, as a typed operation's answer lists them.
//
// A message says what is wrong and leaves the status to Code: "malformed
// JSON at byte offset 9: ...", not "Bad Request: malformed JSON ...". What
// it quotes from the request (a header value, a key, a number) is cut at
// 64 bytes and marked with "…", so a huge input is never echoed back. On
// any error v may hold a part of the body: use it only when Bind returns
// nil.
//
// A v that is not a non-nil pointer is the handler's mistake, not the
// client's: that error is not an HTTPError, so it becomes a plain 500.
//
// The plan of v's type is made on its first Bind and kept; a Bind then
// allocates only what v keeps (its strings, slices and maps).
func (c *Context) Bind(v any) error {
	// The failures go to the Context's own list, a typed operation's,
	// which no request allocates.
	call := &c.call
	call.Fails = call.Fails[:0]
	err := typed.DecodeJSON(c.resp.w, c.Request, c.bodyRules(), v, call)
	if err != typed.ErrInvalid {
		return c.bodyError(err)
	}
	fs := make([]FieldError, len(call.Fails))
	for i, f := range call.Fails {
		fs[i] = FieldError(f)
	}
	call.Clear()
	return &HTTPError{Code: http.StatusUnprocessableEntity, Message: errBindInvalid, Errors: fs}
}

// errBindInvalid is the message of Bind's 422.
const errBindInvalid = "the JSON body holds values that do not fit"

// bodyRules returns how c's request body may be read: the router's
// MaxBodyBytes and DisallowUnknownFields, and whether a QUERY route's
// check found its Content-Type JSON's already (Context.jsonChecked).
func (c *Context) bodyRules() typed.Body {
	if c.router == nil {
		return typed.Body{MaxBytes: defaultMaxBodyBytes}
	}
	return typed.Body{MaxBytes: c.router.MaxBodyBytes, Strict: c.router.DisallowUnknownFields, JSONChecked: c.jsonChecked}
}

// bodyError returns the HTTPError of a body the typed engine could not
// read (a *typed.BodyError), with the header fields its answer needs; any
// other error as it is.
func (c *Context) bodyError(err error) error {
	be, ok := err.(*typed.BodyError)
	if !ok {
		return err
	}
	switch {
	case be.Encoding:
		// RFC 9110 section 15.5.16: say which codings are accepted.
		c.Writer.Header().Set("Accept-Encoding", "identity")
	case len(be.Accept) > 0:
		// The media types a typed operation takes, for the methods that
		// have a field to list them in: Accept-Patch (RFC 5789 section
		// 3.1) and Accept-Post (W3C LDP section 7.1).
		switch c.Request.Method {
		case http.MethodPost:
			c.Writer.Header().Set("Accept-Post", strings.Join(be.Accept, ", "))
		case http.MethodPatch:
			c.Writer.Header().Set("Accept-Patch", strings.Join(be.Accept, ", "))
		}
	case be.Reason == typed.ReasonTimeout:
		// RFC 9110 section 15.5.9: the rest of the body may still come.
		c.Writer.Header().Set("Connection", "close")
	}
	e := &HTTPError{Code: be.Status, Message: be.Message, Err: be.Err}
	if be.Part != "" {
		// A part of a multipart body: its location, as a failure of it.
		kw := "contentMediaType"
		if be.Reason == typed.ReasonTooLarge {
			kw = "maxBytes"
		}
		e.Errors = []FieldError{{Location: "body." + typed.Clip(be.Part), Keyword: kw, Message: be.Message}}
	}
	return e
}
