package waltz

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// defaultMaxBodyBytes is Bind's limit on a Context that has no Router (a
// [Context.Copy]): 1 MiB, as New sets Router.MaxBodyBytes.
const defaultMaxBodyBytes = 1 << 20

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
	req := c.Request
	if err := checkJSONRequest(c.Writer, req.Header); err != nil {
		return err
	}
	limit, strict := int64(defaultMaxBodyBytes), false
	if c.router != nil {
		limit, strict = c.router.MaxBodyBytes, c.router.DisallowUnknownFields
	}
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	if limit > 0 {
		if req.ContentLength > limit {
			return tooLarge(limit)
		}
		// The server's own writer, so that net/http closes the connection
		// instead of reading the rest of an oversized body.
		body = http.MaxBytesReader(c.resp.w, body, limit)
	}
	dec := json.NewDecoder(body)
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		if isTimeout(err) {
			return bodyTimeout(c.Writer, err)
		}
		return bindError(err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(mbe.Limit)
		}
		if err != nil && isTimeout(err) {
			return bodyTimeout(c.Writer, err)
		}
		return &HTTPError{Code: http.StatusBadRequest,
			Message: fmt.Sprintf("data after the JSON value, which ends at byte offset %d", end)}
	}
	return nil
}

// checkJSONRequest returns a 415 HTTPError unless the headers h announce an
// unencoded JSON body.
func checkJSONRequest(w http.ResponseWriter, h http.Header) error {
	if ce := h.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		// RFC 9110 section 15.5.16: say which codings are accepted.
		w.Header().Set("Accept-Encoding", "identity")
		return &HTTPError{Code: http.StatusUnsupportedMediaType,
			Message: fmt.Sprintf("Content-Encoding %s is not supported", quoteClient(ce))}
	}
	ct := h.Get("Content-Type")
	if !isJSONType(ct) {
		got := "none"
		if ct != "" {
			got = quoteClient(ct)
		}
		return &HTTPError{Code: http.StatusUnsupportedMediaType,
			Message: "Content-Type must be application/json, got " + got}
	}
	return nil
}

// isJSONType reports whether the Content-Type value ct is application/json
// or application/<name>+json (RFC 6839 section 3.1), with or without
// parameters, in any letter case.
func isJSONType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if mt == "application/json" {
		return true
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && len(sub) > len("+json") && strings.HasSuffix(sub, "+json")
}

func tooLarge(limit int64) error {
	return &HTTPError{Code: http.StatusRequestEntityTooLarge,
		Message: fmt.Sprintf("the body may be at most %d bytes", limit)}
}

// maxQuoted is how much of a value from the client an error message
// repeats, in bytes: enough to recognise it, too little to turn a 400 into
// an echo of a huge input.
const maxQuoted = 64

// clipClient returns s cut to at most maxQuoted bytes, at a UTF-8 boundary,
// with "…" after it when it was cut.
func clipClient(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	i := maxQuoted
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// quoteClient returns s from the client, clipped, as a Go-quoted string.
func quoteClient(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return strconv.Quote(clipClient(s))
}

// isTimeout reports whether err from reading the body is a read deadline
// passing, such as http.Server.ReadTimeout's.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// bodyTimeout answers a body that stopped arriving: 408 Request Timeout,
// with "Connection: close" since the rest of the body may still come (RFC
// 9110 section 15.5.9).
func bodyTimeout(w http.ResponseWriter, err error) error {
	w.Header().Set("Connection", "close")
	return &HTTPError{Code: http.StatusRequestTimeout, Message: "the request body did not arrive in time", Err: err}
}

// bindError turns an error from decoding a request body into an HTTPError
// whose message is safe to show the client; a v that cannot be decoded into
// is left a plain error, a 500.
func bindError(err error) error {
	var (
		mbe *http.MaxBytesError
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
		inv *json.InvalidUnmarshalError
	)
	bad := func(format string, args ...any) error {
		return &HTTPError{Code: http.StatusBadRequest, Message: fmt.Sprintf(format, args...), Err: err}
	}
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case errors.As(err, &inv):
		return fmt.Errorf("waltz: Bind: %w", err)
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included.
		return bad("malformed JSON at byte offset %d: %s", max(syn.Offset-1, 0), syn.Error())
	case errors.As(err, &typ):
		if typ.Field == "" {
			return bad("the body is a JSON %s, want %s", clipClient(typ.Value), jsonKind(typ.Type))
		}
		return bad("field %s is a JSON %s, want %s", quoteClient(typ.Field), clipClient(typ.Value), jsonKind(typ.Type))
	case err == io.EOF:
		return bad("empty body, want a JSON value")
	case err == io.ErrUnexpectedEOF:
		return bad("malformed JSON: the body ends inside a value")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no error type for this one; the key is quoted.
		key := strings.TrimPrefix(err.Error(), "json: unknown field ")
		if k, uerr := strconv.Unquote(key); uerr == nil {
			key = k
		}
		return bad("unknown field %s", quoteClient(key))
	}
	return bad("unreadable JSON body")
}

// jsonKind names the JSON type that decodes into t, so that messages speak
// JSON rather than Go.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.Kind().String()
}
