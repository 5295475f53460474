package client

import (
	"net/http"
	"strings"

	"github.com/waltz-go/waltz"
)

// A conditional write, as the client knows it: the server's
// Operation.Current, which makes a write require a precondition, is on
// no type the two share, so the caller declares it at Op (Conditional),
// as it names the route there. Then a call without a precondition is
// the server's 428, known before it is sent.

// Conditional declares the operation a conditional write: one whose
// server sets [api.Operation].Current and so answers a request without
// a precondition 428 Precondition Required (RFC 6585 section 3), and one
// with a stale one 412 (RFC 9110 section 13.1.1).
//
// A call then needs If-Match, with the ETag of the representation it
// changes as it was read, or an If-Unmodified-Since HTTP-date (which
// the server takes alone only for a resource with no ETag), or, to
// create a resource that does not exist, If-None-Match: * (which the
// server takes on a PUT whose Current says the resource is absent: see
// [api.Validators].Absent), from [WithHeader], [Client].Header or a
// header field of In. Without any (or with an empty one) the call is
// refused before it is sent,
// after In's own rules: a 428 [*waltz.HTTPError] whose Err is
// [ErrNotSent] and whose Errors name header.If-Match, keyword
// "required". A call with one is sent, and the server judges it: 412
// for a stale ETag, 428 for a date where the resource has an ETag.
//
// Op panics on Conditional for a GET or HEAD, which a server refuses
// for Operation.Current: a read is made conditional by If-None-Match
// and answered 304.
func Conditional() Option { return func(s *settings) { s.conditional = true } }

// errNoPrecondition is the refusal of a conditional write sent with no
// precondition: the server's 428, with its message, and the field that
// is missing.
func errNoPrecondition() error {
	return &waltz.HTTPError{Code: http.StatusPreconditionRequired,
		Message: "this request must be conditional: send If-Match with the ETag of the representation it changes",
		Errors: []waltz.FieldError{{Location: "header.If-Match", Keyword: "required",
			Message: "is required: a conditional write (client.Conditional)"}},
		Err: ErrNotSent}
}

// hasPrecondition reports whether h, a request's header fields under
// their canonical names (see merge), carries a precondition a
// conditional write can be judged by: a non-empty If-Match or
// If-None-Match (a create: RFC 9110 section 13.1.2), or an
// If-Unmodified-Since that is an HTTP-date (RFC 9110 section 13.1.4: a
// recipient ignores one that is not).
func hasPrecondition(h http.Header) bool {
	for _, name := range [...]string{"If-Match", "If-None-Match"} {
		for _, v := range h[name] {
			if strings.TrimSpace(v) != "" {
				return true
			}
		}
	}
	if vs := h["If-Unmodified-Since"]; len(vs) > 0 {
		_, err := http.ParseTime(vs[0])
		return err == nil
	}
	return false
}
