package middleware

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/internal/cond"
)

// ETagOptions configures [ETag]. The zero value tags bodies up to 64 KiB.
type ETagOptions struct {
	// MaxSize is the largest body, in bytes, that ETag holds to hash; 0
	// means 64 KiB. A larger body streams out as it is written, untagged.
	MaxSize int

	// Current, if set, returns the current entity tag of the request's
	// target resource, quoted as in an ETag field (`"v7"` or `W/"v7"`), or
	// "" when the resource does not exist. ETag calls it before the
	// handler, for every method but QUERY, and answers a failed If-Match with 412, a
	// failed If-None-Match with 304 (GET, HEAD) or 412 (other methods),
	// without running the handler; for GET and HEAD it sets the ETag field
	// to the tag, so the body is not hashed. For a resource that does not
	// exist ("") ETag judges nothing and the handler runs: RFC 9110
	// section 13.2.1 evaluates preconditions only where the answer without
	// them would be a success, so the handler's 404 wins over a 412. A
	// handler that creates the resource (a PUT) must then refuse an
	// If-Match itself with 412 (section 13.1.1: "*" and every tag are
	// false when there is no current representation). Current runs on the
	// request's goroutine and must not keep c. A QUERY (RFC 10008) is
	// answered with the result of its content, not with the target
	// resource's representation, so Current's tag is not its validator:
	// ETag tags a QUERY's 200 by its body, as a GET's without Current,
	// and the route's own refusals (a 400 without Content-Type, section
	// 2.1) come before any 304 or 412 (RFC 9110 section 13.2.1).
	//
	// A 304 Current answers carries the fields the 200 would (RFC 9110
	// section 15.4.5), but the handler, which alone knows the body, does
	// not run: under Compress, whether that 200 had "Vary:
	// Accept-Encoding" and a weak W/"v7" cannot be known from the tag.
	// For a GET or HEAD, Current sets the Content-Type the handler would
	// in c.Writer.Header(), and the Content-Length too when the body may
	// be under Compress's MinSize; Compress reads them on the 304 as it
	// does the 200's, and the router does not send them with it. Without
	// them the 304 carries the tag as Current returns it and no Vary.
	Current func(c *waltz.Context) string
}

// ETag returns middleware for conditional requests by entity tag (RFC 9110
// sections 8.8.3 and 13.1).
//
// For a GET, HEAD or QUERY answered 200 with no ETag field, it holds the body up
// to MaxSize bytes and tags it with a strong validator: the CRC-64 (ECMA)
// of the body, as 16 quoted hex digits, the same on every machine and
// restart. It sets Content-Length when the handler did not. A request
// whose If-None-Match matches the tag (weak comparison, section 13.1.2;
// "*" matches any) gets 304 Not Modified with the ETag, Vary,
// Cache-Control and other non-content fields and no body, Content-Type,
// Content-Length, Content-Encoding or Content-Language (section 15.4.5);
// one whose If-Match does not match (strong comparison, section 13.1.1)
// gets 412 Precondition Failed, which ETag returns as a shared
// &waltz.HTTPError{Code: 412} for the router's error handler to render
// (RenderError's format; nothing of the held body is sent). It declares
// both for the OpenAPI document ([api.Responds]): every operation inside
// it lists the 412, and a GET, HEAD or QUERY operation the 304 too, with
// the ETag field on its success answers and its 304 ([api.Sets]); a
// write does not get a 304 (section 13.1.2). A handler that sets its
// own ETag on a 200 gets the same answers, decided when it writes the
// status, with nothing held. A Flush before the end sends the body
// untagged, so streams are never held. A HEAD whose handler writes no
// body is not tagged: the tag of an empty body would not be the GET's.
//
// For other methods, ETag cannot judge the handler's tag: by the time the
// handler writes it, the change the request asked for is made, and a 412
// then would be a lie. The checkable case is [ETagOptions].Current, which
// tells the current tag before the handler runs; without it, unsafe
// requests pass through untouched and their handlers check If-Match.
// Date preconditions (If-Modified-Since, If-Unmodified-Since) and If-Range
// are left to a handler that is shown them, as [http.ServeContent] does
// them.
//
// A handler that answers conditional and range requests itself before it
// writes (http.ServeContent) cannot know the tag ETag will give its body.
// So for a GET with If-Match, If-None-Match or an If-Range holding a tag,
// and no ETag field set before the handler, ETag takes those fields out
// of the request while the handler runs (with If-Modified-Since,
// If-Unmodified-Since and Range, which they govern), judges them all on
// the tag of the body the handler wrote and the 200's Last-Modified, in
// RFC 9110 section 13.2.2's order (as FileServer and typed operations
// judge theirs: a date equal to a Last-Modified whose second has not
// ended is unsure, section 8.8.2.2), and, when the 200 says "Accept-Ranges: bytes" of an
// identity body, serves the Range from the held body through
// http.ServeContent: a 206 carrying the tag, the 200 when If-Range does
// not match, a 416 with "Content-Range: bytes */size". A body larger
// than MaxSize, or flushed, is sent whole and untagged, its fields judged
// on no tag: 412 for an If-Match other than "*", 304 for an If-None-Match
// of "*". A HEAD keeps its fields (its handler writes no
// body to tag). A handler can instead learn the tag first: its writer's
// method ContentTag(io.ReadSeeker) (string, error) gives the tag ETag
// would give a body, and hands back the fields ETag took out;
// waltz.FileServer without its own ETag option asks it, so that its 206s
// carry the tag too. A handler that sets its own ETag before it judges
// the request (waltz.FileServer with its ETag option, a typed Download
// whose Out sets one) calls the writer's method OwnTag(), which hands the
// fields back and leaves its 206, 304 and 412 as they are. A 304 keeps the Content-Type and Content-Length
// of the 200 it stands for, for Compress to read; the router drops them
// when it sends it.
//
// Register ETag inside Compress, r.Use(middleware.Compress(…),
// middleware.ETag(…)): it then tags the identity body, and Compress makes
// the tag weak on a compressed response, which If-None-Match still
// matches. Outside Compress it tags the compressed bytes, a strong tag of
// that representation (the same for HEAD, which Compress decides as GET).
//
// The writer it installs keeps Flush, Hijack, Unwrap (for
// [http.ResponseController]), WriteString, and ReadFrom, which hands a
// body it does not hold to the inner writer's ReadFrom (sendfile). The
// held body is pooled: a tagged response costs two allocations (the tag,
// and the header values of ETag and Content-Length), plus one for a
// Content-Length of 100 bytes or more; an untagged one costs none (held by
// testing.AllocsPerRun); a Range ETag serves from the held body costs
// what http.ServeContent does, and a copy of the request.
//
// ETag panics, with a message naming the field, if MaxSize is negative.
func ETag(o ETagOptions) waltz.Middleware {
	if o.MaxSize < 0 {
		panic(fmt.Sprintf("waltz: ETagOptions.MaxSize %d is negative", o.MaxSize))
	}
	e := &etagger{max: o.MaxSize, current: o.Current}
	if e.max == 0 {
		e.max = 64 << 10
	}
	e.pool.New = func() any {
		ew := &etagWriter{}
		ew.self, ew.limit = ew, e.max
		return ew
	}
	mw := api.Responds(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error { return e.serve(next, c) }
	}, http.StatusNotModified, http.StatusPreconditionFailed)
	return api.Sets(mw, api.HeaderParam{Name: "ETag", Methods: []string{http.MethodGet, http.MethodHead, waltz.MethodQuery},
		Description: "An entity tag of the representation (RFC 9110 section 8.8.3), which If-None-Match sends back for a 304 " +
			"and If-Match for a 412; absent on a body too large to hold or flushed before its end."})
}

type etagger struct {
	max     int
	current func(c *waltz.Context) string
	pool    sync.Pool // of *etagWriter
}

// errPreconditionFailed is the answer to a failed If-Match, or a failed
// If-None-Match on an unsafe method (RFC 9110 section 15.5.13).
var errPreconditionFailed = &waltz.HTTPError{Code: http.StatusPreconditionFailed}

func (e *etagger) serve(next waltz.HandlerFunc, c *waltz.Context) error {
	m := c.Request.Method
	safe := m == http.MethodGet || m == http.MethodHead || m == waltz.MethodQuery
	if e.current != nil && m != waltz.MethodQuery {
		tag := e.current(c)
		// RFC 9110 section 13.2.1: preconditions are evaluated for a
		// resource that exists; for one that does not, the handler's
		// answer (a 404) comes first. The dates and If-Range are the
		// handler's: Current tells no date.
		res := cond.Perform
		if tag != "" {
			res = cond.Evaluate(c.Request.Header, c.Request.Method, cond.Validators{ETag: tag})
		}
		switch res {
		case cond.Failed:
			return errPreconditionFailed
		case cond.NotModified: // GET and HEAD only
			c.Writer.Header()["Etag"] = []string{tag}
			notModified(c.Writer)
			return nil
		}
		if safe && tag != "" {
			c.Writer.Header()["Etag"] = []string{tag}
		}
	}
	if !safe {
		return next(c)
	}
	ew := e.pool.Get().(*etagWriter)
	ew.w, ew.req, ew.head = c.Writer, c.Request.Header, c.Request.Method == http.MethodHead
	orig := c.Writer
	if !ew.head && len(c.Writer.Header()["Etag"]) == 0 && tagConditional(c.Request.Header) {
		// The handler cannot know the tag ETag will give its body, so
		// it must not judge the fields that compare with it (nor the
		// dates and the range they govern): ETag takes them out of the
		// request while the handler runs, judges them on the held
		// body, and serves the range of it that was asked. A handler
		// that asks ContentTag knows the tag, and gets them back.
		ew.ranged = c.Request
		ew.strip()
	}
	c.Writer = ew
	defer func() {
		c.Writer = orig
		ew.restore()
		ew.reset()
		ew.req, ew.ranged, ew.failed, ew.own = nil, nil, false, ""
		e.pool.Put(ew)
	}()
	err := next(c)
	ew.restore()
	if !c.Response().Aborted() {
		// An aborted response gets nothing of what is held: a partial
		// body, tagged and sized, would look whole.
		ew.finish()
	}
	if ew.failed {
		// Nothing was sent: the 412 is the router's to render, as
		// every error answer is.
		c.Response().Unhold()
		return errPreconditionFailed
	}
	return err
}

// conditionalFields are the fields ETag judges for a handler that does
// not know the tag: the tag preconditions, the date preconditions they
// take precedence over (RFC 9110 section 13.2.2), and Range with
// If-Range.
var conditionalFields = [...]string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Range"}

// tagConditional reports whether h has a field that compares with the
// current entity tag: If-Match, If-None-Match, or an If-Range holding a
// tag rather than a date (RFC 9110 sections 13.1.1, 13.1.2, 13.1.5).
func tagConditional(h http.Header) bool {
	if len(h["If-Match"]) > 0 || len(h["If-None-Match"]) > 0 {
		return true
	}
	ir := h["If-Range"]
	return len(ir) > 0 && (strings.HasPrefix(ir[0], `"`) || strings.HasPrefix(ir[0], "W/"))
}

// notModified sends 304 with the fields section 15.4.5 keeps. The
// Content-Type and Content-Length of the 200 it stands for stay in the
// header for the writers beneath to read (Compress decides from them
// whether that 200 would have been compressed, and so which ETag and Vary
// the 304 carries); the request's waltz.Response drops them when it sends
// the 304.
func notModified(w http.ResponseWriter) {
	h := w.Header()
	delete(h, "Content-Encoding")
	delete(h, "Content-Language")
	w.WriteHeader(http.StatusNotModified)
}
