package typed

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
)

// Body is how a request body may be read: its limit and whether a JSON
// object may carry keys its destination lacks.
type Body struct {
	// MaxBytes is the most bytes read; zero or negative means no limit.
	MaxBytes int64
	// Strict refuses a JSON object key that matches no field.
	Strict bool
}

// Reason says what is wrong with a body, for a caller that turns a
// BodyError into its own failure values.
type Reason uint8

const (
	ReasonSyntax       Reason = iota // malformed JSON, or data after the value: unreadable
	ReasonType                       // a JSON value of the wrong type for its field
	ReasonEmpty                      // no JSON value at all
	ReasonUnknownField               // a key that matches no field, with Body.Strict
	ReasonRead                       // the body could not be read (not a deadline)
	ReasonTooLarge                   // longer than Body.MaxBytes: 413
	ReasonTimeout                    // the read deadline passed: 408
	ReasonMediaType                  // a Content-Type or Content-Encoding the reader does not take: 415
)

// BodyError is a request body that could not be read or decoded. Its
// Message is safe to show the client: what it quotes from the request is
// clipped (see Quote).
type BodyError struct {
	Status  int    // 400, 408, 413 or 415
	Reason  Reason // what went wrong
	Message string // for the client: "malformed JSON at byte offset 9: ..."
	Err     error  // the reader's or decoder's error, or nil

	// Field, for ReasonType, is the member whose value had the wrong type,
	// as encoding/json names it ("author.name"; "" for the body itself),
	// and Value and Want the JSON type sent and the one wanted.
	Field, Value, Want string

	// Encoding, for a 415 about Content-Encoding, is true: the answer
	// should say which codings are taken (Accept-Encoding: identity,
	// RFC 9110 section 15.5.16).
	Encoding bool
}

// Error returns the message for the client.
func (e *BodyError) Error() string { return e.Message }

// Unwrap returns the reader's or decoder's error, or nil.
func (e *BodyError) Unwrap() error { return e.Err }

// DecodeJSON decodes the JSON body of req into v, a non-nil pointer, as
// Context.Bind documents it: the body must be exactly one JSON value; a
// Content-Type other than JSON's, or a Content-Encoding, is a 415; a body
// past b.MaxBytes a 413 (read through http.MaxBytesReader on w, the
// server's own writer, so that net/http closes the connection); a read
// deadline passing a 408; anything else wrong a 400. Those are
// *BodyError; a v that is not a non-nil pointer is a plain error.
func DecodeJSON(w http.ResponseWriter, req *http.Request, b Body, v any) error {
	if err := checkJSONRequest(req.Header); err != nil {
		return err
	}
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	if b.MaxBytes > 0 {
		if req.ContentLength > b.MaxBytes {
			return tooLarge(b.MaxBytes)
		}
		body = http.MaxBytesReader(w, body, b.MaxBytes)
	}
	dec := json.NewDecoder(body)
	if b.Strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		if isTimeout(err) {
			return bodyTimeout(err)
		}
		return decodeError(err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(mbe.Limit)
		}
		if err != nil && isTimeout(err) {
			return bodyTimeout(err)
		}
		return &BodyError{Status: http.StatusBadRequest, Reason: ReasonSyntax,
			Message: fmt.Sprintf("data after the JSON value, which ends at byte offset %d", end)}
	}
	return nil
}

// checkJSONRequest returns a 415 BodyError unless the headers h announce
// an unencoded JSON body.
func checkJSONRequest(h http.Header) error {
	if ce := h.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType, Encoding: true,
			Message: fmt.Sprintf("Content-Encoding %s is not supported", Quote(ce))}
	}
	ct := h.Get("Content-Type")
	if !IsJSONType(ct) {
		got := "none"
		if ct != "" {
			got = Quote(ct)
		}
		return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType,
			Message: "Content-Type must be application/json, got " + got}
	}
	return nil
}

// IsJSONType reports whether the Content-Type value ct is application/json
// or application/<name>+json (RFC 6839 section 3.1), with or without
// parameters, in any letter case.
func IsJSONType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	if mt == "application/json" {
		return true
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && len(sub) > len("+json") && strings.HasSuffix(sub, "+json")
}

func tooLarge(limit int64) error {
	return &BodyError{Status: http.StatusRequestEntityTooLarge, Reason: ReasonTooLarge,
		Message: fmt.Sprintf("the body may be at most %d bytes", limit)}
}

// isTimeout reports whether err from reading the body is a read deadline
// passing, such as http.Server.ReadTimeout's.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// bodyTimeout is a body that stopped arriving: 408 Request Timeout, whose
// answer closes the connection since the rest of the body may still come
// (RFC 9110 section 15.5.9).
func bodyTimeout(err error) error {
	return &BodyError{Status: http.StatusRequestTimeout, Reason: ReasonTimeout,
		Message: "the request body did not arrive in time", Err: err}
}

// decodeError turns an error from decoding a request body into a
// BodyError whose message is safe to show the client; a v that cannot be
// decoded into is left a plain error.
func decodeError(err error) error {
	var (
		mbe *http.MaxBytesError
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
		inv *json.InvalidUnmarshalError
	)
	bad := func(r Reason, format string, args ...any) *BodyError {
		return &BodyError{Status: http.StatusBadRequest, Reason: r, Message: fmt.Sprintf(format, args...), Err: err}
	}
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case errors.As(err, &inv):
		return fmt.Errorf("waltz: Bind: %w", err)
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included.
		return bad(ReasonSyntax, "malformed JSON at byte offset %d: %s", max(syn.Offset-1, 0), syn.Error())
	case errors.As(err, &typ):
		want := JSONKind(typ.Type)
		var e *BodyError
		if typ.Field == "" {
			e = bad(ReasonType, "the body is a JSON %s, want %s", Clip(typ.Value), want)
		} else {
			e = bad(ReasonType, "field %s is a JSON %s, want %s", Quote(typ.Field), Clip(typ.Value), want)
		}
		e.Field, e.Value, e.Want = typ.Field, typ.Value, want
		return e
	case err == io.EOF:
		return bad(ReasonEmpty, "empty body, want a JSON value")
	case err == io.ErrUnexpectedEOF:
		return bad(ReasonSyntax, "malformed JSON: the body ends inside a value")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		// encoding/json has no error type for this one; the key is quoted.
		key := strings.TrimPrefix(err.Error(), "json: unknown field ")
		if k, uerr := strconv.Unquote(key); uerr == nil {
			key = k
		}
		return bad(ReasonUnknownField, "unknown field %s", Quote(key))
	}
	return bad(ReasonRead, "unreadable JSON body")
}

// JSONKind names the JSON type that decodes into t, so that messages speak
// JSON rather than Go.
func JSONKind(t reflect.Type) string {
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
