package waltz

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/typed"
)

// The QUERY method (RFC 10008) as the router serves it. Routing knows it
// as a standard method (methods.go: its slot, Allow); this file holds what
// section 2 asks of every route that takes it, decided once, at
// registration, for QUERY routes alone:
//
//   - a QUERY without a Content-Type is a 400 (section 2.1: "servers MUST
//     fail the request if the Content-Type request field is missing"),
//     and so is one with two (RFC 9110 sections 5.3, 8.3: a proxy may
//     read the last); one of a media type the route does not take is a
//     415;
//   - the route says what it takes in Accept-Query (section 3) where a
//     client looks for it: the automatic OPTIONS (appendix A.2) and the
//     405 of its path, the GET and HEAD of its pattern (appendix A.3
//     finds the formats with a HEAD: advertiseQuery), and each refusal
//     of the route, status 400 and above (after a 415 a client looks
//     there), whoever writes it, a middleware or the error path:
//     Response.WriteHeader sets it (acceptQueryOnError). A QUERY's
//     success does not carry it: its client sent a type the route takes,
//     and section 3 leaves to the resource which answers have the field
//     ("will depend on the resource being accessed", appendix A.3). So
//     an answered QUERY costs what a POST of its shape does (benchmarks'
//     query case), where the field on every answer cost a call and a
//     header map insert, about 190 instructions.
//
// A typed operation (package api) gives its media types through the seam
// (seam.Contract.Accepts) and checks the Content-Type in its binding,
// with the failure's location; a plain route names them with
// Registration.Accepts, and a wrapper checks them before its handler
// (and tells Bind, where every type is JSON's, that it need not check
// again: Context.jsonChecked).
// Routes of other methods pay nothing: the wrapper is on plain QUERY
// routes only, and the answers look only at a router that has QUERY
// routes.

// queryRoute is what the router keeps of one QUERY route.
type queryRoute struct {
	// accepts is the Accept-Query field (RFC 10008 section 3, an RFC
	// 9651 list of tokens) of the route (accept.go); "" for a plain
	// route that named none.
	accepts
	types []string // the media types, lower case: type/subtype, type/* or */*
	typed bool     // a typed operation's, whose binding checks the Content-Type
	// json: types are JSON's own or +json types, no range: a QUERY that
	// passed check holds JSON, and Bind need not look again.
	json bool
}

// newQueryRoute returns the queryRoute of a QUERY route registered with
// op (nil for a plain route): a typed operation's media types come from
// the contract.
func newQueryRoute(op any) *queryRoute {
	q := &queryRoute{typed: op != nil}
	if op != nil && seam.Contract.Accepts != nil {
		q.set(seam.Contract.Accepts(op))
	}
	return q
}

// set makes types, valid media ranges, q's.
func (q *queryRoute) set(types []string) {
	q.types = make([]string, len(types))
	for i, t := range types {
		q.types[i] = strings.ToLower(t)
	}
	q.accepts.set(q.types)
	q.json = len(q.types) > 0 && !slices.ContainsFunc(q.types, func(t string) bool { return !typed.IsJSONType(t) })
}

// wrap returns h behind q's check of a plain route's Content-Type; a
// typed operation's h as it is, since its binding checks it. It is the
// innermost handler of the route's chain, so its 400 and 415 go through
// the route's middleware like the handler's own errors. A route that
// takes JSON alone tells Bind the type is checked (Context.jsonChecked),
// so the request pays for one check, as a POST's does.
func (q *queryRoute) wrap(h HandlerFunc) HandlerFunc {
	if q.typed {
		return h
	}
	return func(c *Context) error {
		if err := q.check(c.Request.Header["Content-Type"]); err != nil {
			return err
		}
		if !q.json {
			return h(c)
		}
		// The check holds for this call of the handler alone, however
		// it ends: a middleware that binds after it, a recoverer after
		// its panic, or a second dispatch of the Context (a Pre
		// middleware) checks for itself.
		c.jsonChecked = true
		defer func() { c.jsonChecked = false }()
		return h(c)
	}
}

// advertiseQuery makes the GET and HEAD routes of a QUERY route's
// pattern answer its Accept-Query (RFC 10008 section 3; appendix A.3
// finds a resource's query formats with a HEAD): e was just registered,
// q is its queryRoute when e is a QUERY route. Either order of
// registration ends the same. The field is set before the route's
// middleware run, so every answer carries it, one a middleware writes
// itself included. The value is read as each request comes, so that
// Accepts, called after, counts; a route that named no types sends none.
// The QUERY route's own refusals get it from Response.WriteHeader.
func (r *Router) advertiseQuery(e *endpoint, q *queryRoute) {
	if q == nil && e.method != http.MethodGet && e.method != http.MethodHead || r.queries == nil {
		return // most routes: no QUERY beside them
	}
	p, err := parsePattern(e.pattern)
	if err != nil {
		return // add parsed it already
	}
	l := r.tree.find(p) // the routes of e's pattern, whatever its param names
	if l == nil {
		return
	}
	var eps []*endpoint // the routes to wrap: the GET and HEAD of the pattern
	if q != nil {
		eps = append(eps, l.get(http.MethodGet), l.get(http.MethodHead))
	} else if qe := l.get(MethodQuery); qe != nil {
		q, eps = r.queries[qe.pattern], []*endpoint{e}
	}
	if q == nil {
		return // a GET or HEAD with no QUERY at its pattern
	}
	for _, ep := range eps {
		if ep == nil {
			continue
		}
		next := ep.chain
		ep.chain = func(c *Context) error {
			if q.value != "" {
				c.Writer.Header()["Accept-Query"] = q.field
			}
			return next(c)
		}
	}
}

// acceptQueryOnError puts the Accept-Query of c's route, when it is a
// QUERY route that names its media types, on the refusal (status 400 or
// above) about to be sent: Response.WriteHeader calls it for every such
// status, whoever writes it. The value is the route's shared slice
// (queryRoute.field).
func (c *Context) acceptQueryOnError() {
	e := c.route
	if e == nil || e.method != MethodQuery || c.router == nil {
		return
	}
	if q := c.router.queries[e.pattern]; q != nil && q.value != "" {
		c.resp.w.Header()["Accept-Query"] = q.field
	}
}

// check returns the error of a QUERY whose Content-Type field lines are
// ct: a 400 without one (RFC 10008 section 2.1), a 415 for a media type
// the route does not take (when it named any); nil otherwise.
func (q *queryRoute) check(ct []string) error {
	if len(ct) == 1 {
		// The common case first: exactly a type the route named, which
		// has no parameters to cut and no space to trim.
		for _, t := range q.types {
			if ct[0] == t {
				return nil
			}
		}
	}
	if len(ct) > 1 {
		// One media type, one field (RFC 9110 sections 5.3, 8.3): a
		// proxy may read the last where the first would pass here.
		return &HTTPError{Code: http.StatusBadRequest, Message: errTwoQueryTypes}
	}
	mt := ""
	if len(ct) > 0 {
		mt, _, _ = strings.Cut(ct[0], ";")
		mt = header.TrimOWS(mt)
	}
	if mt == "" {
		return &HTTPError{Code: http.StatusBadRequest, Message: errNoQueryType}
	}
	if len(q.types) == 0 {
		return nil
	}
	for _, t := range q.types {
		if mediaMatch(t, mt) {
			return nil
		}
	}
	return &HTTPError{Code: http.StatusUnsupportedMediaType,
		Message: fmt.Sprintf("a QUERY of %s is not taken here: it takes %s", quoteClip(strings.ToLower(mt)), q.value)}
}

// errTwoQueryTypes is the message of a QUERY with two Content-Type
// fields.
const errTwoQueryTypes = "the QUERY has two Content-Type fields: its content has one media type (RFC 9110 sections 5.3, 8.3)"

// errNoQueryType is the message of a QUERY without a Content-Type, for
// plain and typed routes alike.
const errNoQueryType = "a QUERY request must say what its content is in Content-Type (RFC 10008 section 2.1)"

// mediaMatch reports whether the media type mt (type/subtype, in any
// letter case) is in the media range r (lower case): itself, type/* or
// */* (RFC 10008 section 3's only wildcards).
func mediaMatch(r, mt string) bool {
	if r == mt || r == "*/*" || header.EqualFold(r, mt) {
		return true
	}
	n := len(r) - 1 // "type/" of "type/*"
	return n > 0 && r[n] == '*' && r[n-1] == '/' && len(mt) > n && header.EqualFold(mt[:n], r[:n])
}

// quoteClip quotes what a client sent for a message, cut at 64 bytes.
func quoteClip(s string) string {
	if len(s) > 64 {
		return fmt.Sprintf("%q…", s[:64])
	}
	return fmt.Sprintf("%q", s)
}
