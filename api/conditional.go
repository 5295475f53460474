package api

import (
	"net/http"
	"slices"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/cond"
	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/openapi"
)

// Validators are the validators of a resource's current representation
// (RFC 9110 section 8.8), which conditional requests compare with: what
// [Operation].Current returns for a write that requires a precondition.
type Validators struct {
	// ETag is the entity tag, quoted as an ETag field carries it: `"v7"`,
	// or `W/"v7"` for a weak one (section 8.8.3). "" is none.
	ETag string

	// LastModified is when the representation last changed (section
	// 8.8.2), compared to the second. The zero time is none. While its
	// second has not ended, a date equal to it may name an earlier
	// version of that second (section 8.8.2.2): If-Unmodified-Since by
	// such a date is false, 412.
	LastModified time.Time

	// Absent says the resource has no current representation: it does
	// not exist yet, and a PUT may create it (section 9.3.4). Then
	// If-None-Match is true, "*" included, and makes the
	// request conditional (section 13.1.2: "*" asks that none exist, so
	// that two clients cannot both create it); If-Match is false, "*"
	// included (section 13.1.1: 412); If-Unmodified-Since is ignored
	// (section 13.1.4); a request with neither If-Match nor
	// If-None-Match is answered 428. ETag and LastModified are not read.
	// Another method, which changes a resource that exists, is answered
	// 404 Not Found (section 15.5.5) for an absent one.
	Absent bool
}

// The answers of a conditional request that does not go on.
var (
	// errPreconditionFailed: a precondition is false (RFC 9110 section
	// 15.5.13).
	errPreconditionFailed = &waltz.HTTPError{Code: http.StatusPreconditionFailed,
		Message: "the resource has changed since the validators the request sent: read it again"}
	// errPreconditionRequired: a write that must be conditional is not
	// (RFC 6585 section 3).
	errPreconditionRequired = &waltz.HTTPError{Code: http.StatusPreconditionRequired,
		Message: "this request must be conditional: send If-Match with the ETag of the representation it changes"}
	// errAbsent: If-Match for a resource that does not exist
	// (Validators.Absent; section 13.1.1).
	errAbsent = &waltz.HTTPError{Code: http.StatusPreconditionFailed,
		Message: "the resource does not exist: If-Match asks for a representation of it"}
	// errExists: If-None-Match of a representation the resource has,
	// "*" included, on a write (section 13.1.2): the request would
	// create what exists.
	errExists = &waltz.HTTPError{Code: http.StatusPreconditionFailed,
		Message: "the resource exists in a state If-None-Match refuses"}
	// errAbsentTarget: a write other than a PUT to a resource that does
	// not exist (Validators.Absent).
	errAbsentTarget = &waltz.HTTPError{Code: http.StatusNotFound,
		Message: "the resource does not exist: only a PUT creates it"}
	// errCreationRequired: errPreconditionRequired, for a resource that
	// does not exist (Validators.Absent).
	errCreationRequired = &waltz.HTTPError{Code: http.StatusPreconditionRequired,
		Message: "this request must be conditional: the resource does not exist; send If-None-Match: * to create it"}
)

// hasPrecondition reports whether h carries a precondition a write can be
// judged by with the validators v: If-Match; or, for a resource with no
// ETag, an If-Unmodified-Since date. A write that requires one answers
// 428 otherwise (RFC 6585 section 3). Where there is an ETag, a date
// alone is not enough: it is exact to the second only, so two edits in
// one second would both pass it, and the document requires If-Match.
func hasPrecondition(h http.Header, v Validators) bool {
	if len(h["If-Match"]) > 0 {
		return true
	}
	if v.ETag != "" {
		return false
	}
	_, ok := cond.Date(h, "If-Unmodified-Since")
	return ok && !v.LastModified.IsZero()
}

// checkCurrent judges the request's preconditions by v, the current
// validators of the resource a write changes, before the handler runs;
// err is Operation.Current's, which comes first (the 404 of a resource
// that does not exist and that the request cannot create: RFC 9110
// section 13.2.1 evaluates preconditions only for a resource that
// exists). A resource that a PUT may create (v.Absent; another method
// gets 404) has no representation to match: If-Match is false (412), If-None-Match true
// (the handler runs), and a request with neither 428. Otherwise a false
// precondition gets 412,
// If-None-Match's too ("*" is false for a resource that exists), judged
// by internal/cond in RFC 9110 section 13.2.2's order, and a request
// without one a write can be judged by 428. A tag the request sends may
// be that of any representation of the router's negotiated operations:
// suffixes are what those add to a tag (baseTags).
func checkCurrent(c *waltz.Context, v Validators, err error, suffixes []string) error {
	if err != nil {
		return err
	}
	h := c.Request.Header
	if v.Absent {
		switch {
		case c.Request.Method != http.MethodPut:
			return errAbsentTarget
		case len(h["If-Match"]) > 0:
			return errAbsent
		case len(h["If-None-Match"]) > 0:
			return nil
		}
		return errCreationRequired
	}
	if len(suffixes) > 0 {
		h = baseTags(h, suffixes)
	}
	switch cond.Evaluate(h, c.Request.Method, cond.Validators{ETag: v.ETag, LastModified: v.LastModified}) {
	case cond.Failed, cond.NotModified:
		im, inm := h["If-Match"], h["If-None-Match"]
		if len(inm) > 0 && header.MatchETag(inm, v.ETag, false) && (len(im) == 0 || header.MatchETag(im, v.ETag, true)) {
			return errExists
		}
		return errPreconditionFailed
	}
	if !hasPrecondition(h, v) {
		return errPreconditionRequired
	}
	return nil
}

// safeMethod reports whether method is GET, HEAD or QUERY, the methods a
// 304 answers (RFC 9110 section 15.4.5, RFC 10008 section 2.6).
func safeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == waltz.MethodQuery
}

// describeConditions adds to d the conditional request fields o reads
// and the 304 it may answer, whose fields are those of success (RFC 9110
// section 15.4.5), and a PUT's 201, described as success is, with
// content, the content of Out's Body (answerAs); the 412 and 428 are
// among errorCodes.
func (o *operation) describeConditions(d *openapi.Operation, success *openapi.Response, content map[string]*openapi.MediaType) {
	switch {
	case o.current:
		// A PUT may create the resource it names (RFC 9110 section
		// 9.3.4), with If-None-Match: * in place of If-Match
		// (Validators.Absent): If-Match is then not required of every
		// request, though one that changes a resource is refused 428
		// without it.
		creates := o.method == http.MethodPut
		addHeader(d, "If-Match", !creates, "The ETag of the representation this request changes, as it was read (RFC 9110 section 13.1.1), "+
			"compared strongly: a weak tag never matches. A stale one is answered 412, and none 428 "+
			"(for a resource that has no ETag, an If-Unmodified-Since date may stand for it).")
		addHeader(d, "If-Unmodified-Since", false, "An HTTP-date (RFC 9110 section 13.1.4): the request fails with 412 if the resource changed since; "+
			"read only without If-Match, and enough on its own only for a resource that has no ETag.")
		if creates {
			addHeader(d, "If-None-Match", false, "* to create the resource only if it does not exist (RFC 9110 section 13.1.2): "+
				"412 if it does. A request that creates it without If-None-Match is answered 428.")
			if o.createdListed(d) {
				// A PUT that creates answers 201 (section 9.3.4), which
				// the handler says through Out's Status field: the same
				// answer, by another status.
				created := o.answerAs(http.StatusCreated, success, content)
				created.Description = "Created: the resource did not exist, and the PUT made it (RFC 9110 section 9.3.4)."
				d.Responses["201"] = created
			}
		}
		// An In that binds If-Match itself keeps its parameter, which is
		// required all the same (but on a PUT): the request is refused
		// 428 without it.
		for _, p := range d.Parameters {
			if p.In == "header" && http.CanonicalHeaderKey(p.Name) == "If-Match" {
				p.Required = !creates
			}
		}
	case o.revalidates():
		addHeader(d, "If-None-Match", false, "ETags the client holds (RFC 9110 section 13.1.2): a match (weak comparison) is answered 304.")
		addHeader(d, "If-Modified-Since", false, "An HTTP-date (RFC 9110 section 13.1.3): unchanged since is answered 304; read only without If-None-Match.")
		// A read evaluates If-Match and If-Unmodified-Since too (section
		// 13.2.2): they are what its 412 answers.
		addHeader(d, "If-Match", false, "ETags (RFC 9110 section 13.1.1), compared strongly: none matching the representation's is answered 412.")
		addHeader(d, "If-Unmodified-Since", false, "An HTTP-date (RFC 9110 section 13.1.4): changed since is answered 412; read only without If-Match.")
		d.Responses["304"] = notModifiedResponse(success.Headers)
	}
}

// createdListed reports whether the document d of o, a PUT with Current
// whose Out has a Status field, is to list 201 as the answer of a PUT
// that created its resource: when the Status field has no enum, the 201
// beside the success status (a handler may answer it), and when its
// enum lists 201, in place of describeStatuses' plain one. An enum
// without 201 is the list of the operation's answers: a handler that
// answers 201 is refused at run time, and the document does not list it.
func (o *operation) createdListed(d *openapi.Operation) bool {
	if !o.out.HasStatus() || o.out.SuccessStatus() == http.StatusCreated {
		return false
	}
	if ss := o.out.Statuses(); ss != nil {
		return slices.Contains(ss, http.StatusCreated)
	}
	return d.Responses["201"] == nil
}

// notModifiedResponse returns the response object of a 304, which has
// no content and the header fields fields of the success answer it
// stands for (RFC 9110 section 15.4.5), a map it shares.
func notModifiedResponse(fields map[string]*openapi.Header) *openapi.Response {
	return &openapi.Response{Description: header.Phrase(http.StatusNotModified) +
		": the representation the client holds is current; no content.", Headers: fields}
}
