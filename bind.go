package waltz

import (
	"net/http"
	"strings"

	"github.com/waltz-go/waltz/internal/typed"
)

// defaultMaxBodyBytes is Bind's limit on a Context that has no Router (a
// [Context.Copy]): 1 MiB, as New sets Router.MaxBodyBytes.
const defaultMaxBodyBytes = 1 << 20

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
// pointer (to a struct, map, slice or any value encoding/json decodes). The
// body must hold exactly one JSON value, with nothing but white space after
// it. Bind reads the body, so a second call finds it empty.
//
// Each problem with the request is an [*HTTPError] that the error handler
// renders as it is; return it as it is:
//
//   - 415 Unsupported Media Type (RFC 9110 section 15.5.16) when the
//     Content-Type is not application/json or application/<name>+json
//     (parameters such as charset are allowed), or when the body has a
//     Content-Encoding, which Bind does not decode;
//   - 413 Content Too Large (RFC 9110 section 15.5.14) when the body is
//     longer than the Router's MaxBodyBytes (1 MiB unless configured), which
//     Bind enforces with http.MaxBytesReader;
//   - 408 Request Timeout (RFC 9110 section 15.5.9), with "Connection:
//     close", when the body stops arriving before the server's read
//     deadline (http.Server.ReadTimeout);
//   - 400 Bad Request for an empty body, malformed JSON (the message gives
//     the byte offset), a value of the wrong JSON type for its field (the
//     message names the field by its path of JSON names, such as
//     "author.name"; an element of an array by the array's, "tags", as
//     encoding/json reports it), data after the JSON value, and, when the
//     Router's DisallowUnknownFields is set, an object key that matches no
//     field.
//
// A message says what is wrong and leaves the status to Code: "malformed
// JSON at byte offset 9: ...", not "Bad Request: malformed JSON ...". What
// it quotes from the request (a header value, a key, a number) is cut at
// 64 bytes and marked with "…", so a huge input is never echoed back.
//
// A v that is not a non-nil pointer is the handler's mistake, not the
// client's: that error is not an HTTPError, so it becomes a plain 500.
func (c *Context) Bind(v any) error {
	return c.bodyError(typed.DecodeJSON(c.resp.w, c.Request, c.bodyRules(), v))
}

// bodyRules returns how c's request body may be read: the router's
// MaxBodyBytes and DisallowUnknownFields.
func (c *Context) bodyRules() typed.Body {
	if c.router == nil {
		return typed.Body{MaxBytes: defaultMaxBodyBytes}
	}
	return typed.Body{MaxBytes: c.router.MaxBodyBytes, Strict: c.router.DisallowUnknownFields}
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
