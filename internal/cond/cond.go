// Package cond evaluates the preconditions of a request (RFC 9110
// section 13) against the validators of the representation it targets:
// the one evaluator of middleware.ETag, waltz.FileServer (and a typed
// Download, which it serves alike) and typed operations, so that a
// conditional request gets one answer whichever of them judges it.
//
// It is the semantics of the fields, apart from their syntax: the
// entity-tag lists are read by internal/header's MatchETag, the dates by
// net/http's ParseTime. Like internal/header it allocates nothing and
// never panics, whatever the fields' text.
//
// What the caller decides, not this package: whether the target resource
// has a current representation at all (section 13.2.1 evaluates
// preconditions only when the answer without them would be a success or
// 412, so a 404 comes first, and a handler that creates a resource judges
// If-Match itself); and what a 304 or 412 looks like.
package cond

import (
	"net/http"
	"strings"
	"time"

	"github.com/waltz-go/waltz/internal/header"
)

// Validators are the validators of the selected representation (RFC 9110
// section 8.8) that the preconditions compare with.
type Validators struct {
	// ETag is the entity tag as an ETag field carries it, `"v7"` or
	// `W/"v7"` (section 8.8.3); "" when the representation has none.
	ETag string

	// LastModified is its modification date (section 8.8.2), compared to
	// the second, as a Last-Modified field carries it; the zero time when
	// it has none.
	LastModified time.Time
}

// Result is what the preconditions say to do, section 13.2.2's outcomes.
type Result uint8

const (
	// Perform the method (step 6), serving the Range field if the
	// request has one.
	Perform Result = iota

	// Whole: perform the method, ignoring the Range field: If-Range is
	// false (step 5, section 13.1.5), so the answer is the whole
	// representation, a 200.
	Whole

	// NotModified: answer 304 (steps 3 and 4, GET, HEAD and QUERY
	// only).
	NotModified

	// Failed: answer 412 Precondition Failed (steps 1 and 2, and step 3
	// on a method other than GET, HEAD and QUERY).
	Failed
)

// methodQuery is the QUERY method (RFC 10008), whose preconditions are a
// GET's on its selected representation, the query's results (section
// 2.6), and whose Range is a GET's (section 2.8).
const methodQuery = "QUERY"

// Evaluate evaluates the preconditions of a request of method with the
// header h on a resource whose current representation has the
// validators v, in the order of RFC 9110 section 13.2.2:
//
//  1. If-Match, when present (section 13.1.1): "*" is true (the
//     representation exists), a list of entity tags is true when one of
//     them matches v.ETag by the strong comparison (section 8.8.3.2: a
//     weak tag on either side never matches). False: Failed.
//  2. Else If-Unmodified-Since (section 13.1.4): true when v.LastModified
//     is earlier than or equal to the date, and not unsure (below).
//     False: Failed.
//  3. If-None-Match, when present (section 13.1.2): "*" is false, a list
//     is false when one of its tags matches v.ETag by the weak
//     comparison. False: NotModified for GET, HEAD and QUERY, Failed for
//     any other method. True: on to step 5, If-Modified-Since unread.
//  4. Else, for GET, HEAD and QUERY, If-Modified-Since (section
//     13.1.3): false, so NotModified, when v.LastModified is earlier
//     than or equal to the date, and not unsure (below).
//  5. For GET and QUERY, with both Range and If-Range (section 13.1.5): an entity
//     tag that matches v.ETag by the strong comparison, or a date equal
//     to v.LastModified and not unsure (below), is true and Perform
//     serves the range; anything else is false, Whole.
//  6. Otherwise Perform.
//
// A field's lines are one comma-separated list (section 5.3). An
// entity-tag list that is malformed anywhere matches nothing
// ([header.MatchETag]); a present but empty one is a list of no tags. A
// date field is ignored when it is not one valid HTTP-date (a second
// line, or a list, makes it invalid: sections 13.1.3 and 13.1.4), and so
// is every date field when v has no LastModified. Section 13.2.2 lets an
// origin server answer a false step 1 or 2 with a success when it can
// tell that the change asked for was made already; this evaluator cannot
// tell, so it says Failed.
//
// A date names a whole second, so it is a strong validator only when the
// representation did not change twice within that second (section
// 8.8.2.2). A date equal to v.LastModified to the second is unsure while
// that second has not ended (see [Settled]; the clock is read then): the
// representation may change again within it and keep the same date. An
// unsure date is answered as a changed representation is: If-Range is
// false (section 13.1.5 uses a date only as a strong validator: no range
// of one version is spliced onto another), If-Unmodified-Since is false
// (a second write within the second is not lost), If-Modified-Since is
// true (no 304 for a version the client may not have). Dates before or
// after v.LastModified's second are sure whatever the clock. Together
// with senders that send no Last-Modified before its second has ended,
// which makes every date a client holds name a finished second, a date
// equal to v.LastModified then names the representation itself.
//
// QUERY is judged as GET is (RFC 10008 sections 2.6 and 2.8): v are the
// validators of the query's results, which the caller makes cover the
// request's content.
//
// A caller that answers a HEAD with the fields its GET would carry, a
// range's included (RFC 9110 section 9.3.2; http.ServeContent does),
// passes http.MethodGet for it.
func Evaluate(h http.Header, method string, v Validators) Result {
	safe := method == http.MethodGet || method == http.MethodHead || method == methodQuery
	// Steps 1 and 2: the state the client expects the resource to be in.
	if im, ok := h["If-Match"]; ok {
		if !header.MatchETag(im, v.ETag, true) {
			return Failed
		}
	} else if t, ok := date(h, "If-Unmodified-Since", v); ok && (modified(v).After(t) || unsure(v, t)) {
		return Failed
	}
	// Steps 3 and 4: whether the client's copy is current.
	if inm, ok := h["If-None-Match"]; ok {
		if header.MatchETag(inm, v.ETag, false) {
			if safe {
				return NotModified
			}
			return Failed
		}
	} else if safe {
		if t, ok := date(h, "If-Modified-Since", v); ok && !modified(v).After(t) && !unsure(v, t) {
			return NotModified
		}
	}
	// Step 5: whether a range of the client's copy can be completed.
	if (method == http.MethodGet || method == methodQuery) && len(h["Range"]) > 0 && len(h["If-Range"]) > 0 && !ifRange(h["If-Range"], v) {
		return Whole
	}
	return Perform
}

// ifRange reports whether the If-Range field lines ir hold a validator
// of the representation (RFC 9110 section 13.1.5): one entity tag that
// matches v.ETag by the strong comparison, or one HTTP-date equal to
// v.LastModified to the second; a weak tag, a list, a second line or
// anything else is false.
func ifRange(ir []string, v Validators) bool {
	if len(ir) != 1 {
		return false
	}
	s := header.TrimOWS(ir[0])
	if opaque := strings.TrimPrefix(s, "W/"); strings.HasPrefix(opaque, `"`) {
		// An entity tag: a DQUOTE in the first three characters (section
		// 13.1.5). MatchETag reads a list; If-Range holds one tag, so
		// its only other DQUOTE is the last character.
		return strings.IndexByte(opaque[1:], '"') == len(opaque)-2 && header.MatchETag(ir, v.ETag, true)
	}
	t, err := http.ParseTime(s)
	return err == nil && !v.LastModified.IsZero() && modified(v).Equal(t) && !unsure(v, t)
}

// Date returns the HTTP-date of h's field name (If-Modified-Since or
// If-Unmodified-Since) and whether it is one to evaluate: a single line
// holding one valid HTTP-date. Whether v has a LastModified to compare it
// with is the caller's to ask.
func Date(h http.Header, name string) (time.Time, bool) {
	lines := h[name]
	if len(lines) != 1 {
		return time.Time{}, false
	}
	t, err := http.ParseTime(lines[0])
	return t, err == nil
}

// Settled reports whether the second of the modification time t has
// ended at the time now: only then does a Last-Modified field naming
// that second name one version of the representation, since a change
// after now falls in a later second (RFC 9110 section 8.8.2.2). A time
// in the future is not settled. A sender of a Last-Modified field sends
// none for a time that is not settled (an ETag still works), as Apache
// httpd does.
//
// The second ends SettleMargin late: a file system stamps a write with
// the kernel's coarse clock, which lags the process's by up to a tick (4
// ms at Linux's HZ 250, 10 ms at HZ 100), so a file written just after a
// second began may still get a time in the second before.
func Settled(t, now time.Time) bool {
	return !now.Before(t.Truncate(time.Second).Add(time.Second + SettleMargin))
}

// SettleMargin is how long after its end a second counts as ended for
// Settled: five times the longest kernel clock tick.
const SettleMargin = 50 * time.Millisecond

// unsure reports whether the date t, equal or not to v's LastModified,
// names its second while that second has not ended, which [Evaluate]
// cannot tell from a second version within it (RFC 9110 section
// 8.8.2.2). It reads the clock only for a date equal to it.
func unsure(v Validators, t time.Time) bool {
	return modified(v).Equal(t) && !Settled(v.LastModified, time.Now())
}

// date is Date, for a representation with a LastModified only.
func date(h http.Header, name string, v Validators) (time.Time, bool) {
	if v.LastModified.IsZero() {
		return time.Time{}, false
	}
	return Date(h, name)
}

// modified returns v's LastModified to the second, as a Last-Modified
// field carries it, so that it compares with the dates a client sends
// back.
func modified(v Validators) time.Time { return v.LastModified.Truncate(time.Second) }
