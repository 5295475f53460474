package typed

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/waltz-go/waltz/internal/header"
)

// Body is how a request body may be read: its limit and whether a JSON
// object may carry keys its destination lacks.
type Body struct {
	// MaxBytes is the most bytes read; zero or negative means no limit.
	MaxBytes int64
	// Strict refuses a JSON object key that matches no field (and a part
	// of a multipart body that names no member).
	Strict bool
	// Memory is the most bytes of a multipart body's files held in memory
	// for one request; the rest of a file goes to a temporary file
	// (Input.Temp). Zero or negative: every file past its first 512 bytes
	// goes to one.
	Memory int64
	// JSONChecked says the caller found the request's Content-Type a JSON
	// type already (a QUERY route's check, RFC 10008 section 2.1):
	// DecodeJSON then checks only its Content-Encoding.
	JSONChecked bool
}

// Reason says what is wrong with a body, for a caller that turns a
// BodyError into its own failure values.
type Reason uint8

const (
	ReasonSyntax    Reason = iota // malformed JSON, or data after the value: unreadable
	ReasonEmpty                   // no JSON value at all
	ReasonRead                    // the body could not be read (not a deadline)
	ReasonTooLarge                // longer than Body.MaxBytes: 413
	ReasonTimeout                 // the read deadline passed: 408
	ReasonMediaType               // a Content-Type or Content-Encoding the reader does not take: 415; none where one is required (RequireContentType), or two Content-Type fields: 400
)

// BodyError is a request body that could not be read or decoded. Its
// Message is safe to show the client: what it quotes from the request is
// clipped (see Quote).
type BodyError struct {
	Status  int    // 400, 408, 413 or 415
	Reason  Reason // what went wrong
	Message string // for the client: "malformed JSON at byte offset 9: ..."
	Err     error  // the reader's error, or nil

	// Encoding, for a 415 about Content-Encoding, is true: the answer
	// should say which codings are taken (Accept-Encoding: identity,
	// RFC 9110 section 15.5.16).
	Encoding bool

	// Part, for an error about one part of a multipart body (413 past
	// its size limit, 415 for its media type), is the part's name.
	Part string
	// Accept, for a 415 about a typed operation's Content-Type, lists the
	// media types the operation takes, for the answer's Accept-Post or
	// Accept-Patch (RFC 5789 section 3.1).
	Accept []string
}

// Error returns the message for the client.
func (e *BodyError) Error() string { return e.Message }

// Unwrap returns the reader's error, or nil.
func (e *BodyError) Unwrap() error { return e.Err }

// Every request body is read by ReadBody (or, for a reader that streams,
// by OpenBody and ReadError): one place for the limit, the read deadline
// and what each failure is.
//
//   - A Content-Length over the limit, or more bytes than the limit, is a
//     413 (ReasonTooLarge), RFC 9110 section 15.5.14; the body is read
//     through http.MaxBytesReader on the server's own writer, so that
//     net/http closes the connection rather than read the rest.
//   - The read deadline passing (http.Server.ReadTimeout) is a 408
//     (ReasonTimeout), RFC 9110 section 15.5.9: the caller's answer closes
//     the connection, since the rest of the body may still come.
//   - Any other read error is a 400 (ReasonRead).
//
// The media type (415) is the decoder's to check, before it reads: a JSON
// body's by DecodeJSON, a form's by the binder.

// OpenBody returns req's body to read at most maxBytes bytes of (zero or
// negative: no limit), through http.MaxBytesReader on w, the server's own
// writer; a nil body reads as empty. A Content-Length over maxBytes is a
// 413 *BodyError at once. Errors from reading the result are classified
// by ReadError.
func OpenBody(w http.ResponseWriter, req *http.Request, maxBytes int64) (io.Reader, error) {
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	if maxBytes > 0 {
		if req.ContentLength > maxBytes {
			return nil, tooLarge(maxBytes)
		}
		body = http.MaxBytesReader(w, body, maxBytes)
	}
	return body, nil
}

// ReadError returns the *BodyError of err, from reading a body OpenBody
// returned: 413 past the limit, 408 for the read deadline, 400 for the
// rest.
func ReadError(err error) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case isTimeout(err):
		return bodyTimeout(err)
	}
	return &BodyError{Status: http.StatusBadRequest, Reason: ReasonRead, Message: "the body could not be read", Err: err}
}

// ReadBody reads req's whole body, at most maxBytes bytes (zero or
// negative: no limit), appending it to buf, and returns the result. Its
// errors are *BodyError: 413 past the limit (before reading when the
// Content-Length says so), 408 when the read deadline passes, 400 when the
// body cannot be read otherwise.
func ReadBody(w http.ResponseWriter, req *http.Request, maxBytes int64, buf []byte) ([]byte, error) {
	body, err := OpenBody(w, req, maxBytes)
	if err != nil {
		return buf, err
	}
	// Room for a body of the length it announces, and the read that finds
	// its end, up to a bound: a Content-Length is the client's word.
	if n := req.ContentLength; n > 0 && n < maxPrealloc && cap(buf)-len(buf) <= int(n) {
		grown := make([]byte, len(buf), len(buf)+int(n)+1)
		copy(grown, buf)
		buf = grown
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, ReadError(err)
		}
	}
}

// maxPrealloc bounds what ReadBody makes room for from a Content-Length
// before any byte has come.
const maxPrealloc = 1 << 20

// bodyBuf is a buffer ReadBody reads into for the decoders here.
type bodyBuf struct {
	b []byte
}

// bodyBufs are the bodyBufs kept for the next request, up to
// maxPooledBody bytes each.
var bodyBufs = sync.Pool{New: func() any { return new(bodyBuf) }}

// maxPooledBody is the largest body buffer kept for the next request.
const maxPooledBody = 64 << 10

func getBuf() *bodyBuf { return bodyBufs.Get().(*bodyBuf) }

// putBuf puts bb back, keeping used, what was read into it, for its room.
func putBuf(bb *bodyBuf, used []byte) {
	if cap(used) <= maxPooledBody {
		bb.b = used[:0]
		bodyBufs.Put(bb)
	}
}

// checkJSONRequest returns a 415 BodyError unless the headers h announce
// an unencoded JSON body, and a 400 for two Content-Type lines; with
// typeKnown, a Content-Type the caller found JSON's already, it checks
// the encoding alone.
func checkJSONRequest(h http.Header, typeKnown bool) error {
	ct := ""
	if !typeKnown {
		var twice *BodyError
		if ct, twice = contentType(h); twice != nil {
			return twice // before the coding, as a typed body's binding does
		}
	}
	if ce := coding(h); ce != "" {
		return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType, Encoding: true,
			Message: fmt.Sprintf("Content-Encoding %s is not supported", Quote(ce))}
	}
	if typeKnown {
		return nil
	}
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
// parameters, in any ASCII letter case (header.MediaType: no Unicode
// folding, no white space but space and tab).
func IsJSONType(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	if mt == "application/json" {
		return true // the common case, with nothing to trim or fold
	}
	mt, ok := header.MediaType(mt)
	if !ok {
		return false
	}
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

// contentType returns the request's Content-Type, "" when it has none,
// or a 400 BodyError when it has the field twice. A media type is one
// value, not a list (RFC 9110 section 8.3), and section 5.3 forbids a
// sender to repeat such a field: a proxy may read the last where the
// first would be bound here, so neither is.
func contentType(h http.Header) (string, *BodyError) {
	switch v := h["Content-Type"]; len(v) {
	case 0:
		return "", nil
	case 1:
		return v[0], nil
	}
	return "", &BodyError{Status: http.StatusBadRequest, Reason: ReasonMediaType,
		Message: "the request has two Content-Type fields: a body has one media type (RFC 9110 sections 5.3, 8.3)"}
}

// coding returns the first content coding other than identity that the
// Content-Encoding lines of h name, "" when there is none
// ([header.Coded]): a body coded by any of them is not one the reader
// takes. Inlined, a request without the field makes no call.
func coding(h http.Header) string {
	if ce := h["Content-Encoding"]; len(ce) > 0 {
		return header.Coded(ce)
	}
	return ""
}
