package api

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/seam"
)

// What middleware declares about itself for the OpenAPI document: the
// error statuses it can answer with, how it authenticates, the request
// header fields it reads and the response header fields it sets. A Middleware is a func, which Go gives
// no identity to look it up by, so a declaring middleware says what it
// declares when it is asked: Responds, Authenticates and Reads return a
// middleware that, composed with a nil next (which a chain never passes:
// it always wraps a handler), panics with
// its *declaration, and otherwise is the middleware it was given. The
// document asks each route's middleware (declarationOf) and recovers the
// answer. Nothing is kept anywhere else, and a middleware that wraps a
// declaring one and composes it with the next it is given declares the
// same, since the question reaches the inner one.

// SecurityScheme says how a middleware authenticates requests, as the
// OpenAPI document's components/securitySchemes give it (OpenAPI 3.1
// section 4.8.27).
type SecurityScheme struct {
	Name         string // the scheme's key in the document, such as "bearerAuth"; letters, digits, '.', '-', '_'
	Type         string // "http" (Authorization with Scheme) or "apiKey" (a header, query parameter or cookie)
	Scheme       string // for "http": "bearer" or "basic" (RFC 9110 section 11)
	BearerFormat string // for "bearer", optional: what the token is, such as "JWT"
	In           string // for "apiKey": "header", "query" or "cookie"
	Param        string // for "apiKey": the header, query parameter or cookie that carries the key
	Description  string // for people reading the document: how to get a credential

	// Optional says that the middleware also lets through a request
	// that sends no credential, for the handler to serve as nobody's
	// (a credential sent and refused is still a 401). The operations
	// inside then list the empty security requirement, {}, beside the
	// scheme: anonymous access is supported (OpenAPI 3.1 section
	// 4.8.30). The scheme's entry in components is the same either way.
	Optional bool
}

// HeaderParam is a request header field a middleware reads, as the
// OpenAPI document's parameter object gives it (OpenAPI 3.1 section
// 4.8.12, in "header"): the Idempotency-Key of [middleware.Idempotency],
// say.
type HeaderParam struct {
	Name        string   // the field's name, such as "Idempotency-Key"; a token (RFC 9110 section 5.1)
	Description string   // what the field is and what the middleware does with it; CommonMark
	Required    bool     // requests without it are refused
	MaxLength   int      // the longest value, in characters; 0 is no bound
	Pattern     string   // a regular expression (ECMA-262, as JSON Schema reads it) every value matches; "" is none
	Example     string   // a value, for the document; "" is none
	Methods     []string // the methods whose operations read it; nil means every method
}

// declaration is what one middleware declared: the answer a declaring
// middleware gives when composed with a nil next.
type declaration struct {
	mw      waltz.Middleware // the middleware as it was given, which serves requests
	codes   []int
	scheme  *SecurityScheme
	headers []HeaderParam // request header fields (Reads)
	answers []HeaderParam // response header fields (Sets)
	hide    bool          // the routes inside are left out of the document (Hide)
}

// compose is the declaring middleware: next wrapped by d.mw, or, for a
// nil next, the panic that answers declarationOf.
func (d *declaration) compose(next waltz.HandlerFunc) waltz.HandlerFunc {
	if next == nil {
		panic(d)
	}
	return d.mw(next)
}

// declarationOf returns what mw declared, or nil: mw composed with a nil
// next, which a declaring middleware answers with a panic that carries
// its declaration. Another middleware composes without panicking, or
// panics with something else, and declares nothing.
func declarationOf(mw waltz.Middleware) (d *declaration) {
	defer func() {
		if v := recover(); v != nil {
			d, _ = v.(*declaration)
		}
	}()
	mw(nil)
	return nil
}

// declare returns mw declaring what add holds (codes, a scheme if not
// nil, request and response header fields), beside what mw itself
// declared.
func declare(mw waltz.Middleware, add declaration) waltz.Middleware {
	codes, scheme := add.codes, add.scheme
	d := &declaration{mw: mw}
	if old := declarationOf(mw); old != nil {
		*d = *old
	}
	d.headers = slices.Concat(d.headers, add.headers)
	d.answers = slices.Concat(d.answers, add.answers)
	d.codes = slices.Concat(d.codes, codes)
	slices.Sort(d.codes)
	d.codes = slices.Compact(d.codes)
	if scheme != nil {
		d.scheme = scheme
	}
	return d.compose
}

// Responds declares, for the OpenAPI document, that mw refuses some
// requests with the error statuses codes (429 for a rate limit, 413 for a
// body limit). It returns a middleware that serves requests as mw does,
// at no cost per request, and that composed with a nil next panics with
// what it declares, for the document to read (a chain never composes a
// middleware with a nil next). Every operation registered inside it then
// lists each code as an error response, beside what mw itself declared.
// The one code below 400 it takes is 304 Not Modified, of a middleware
// that answers a conditional request whose validators are current (RFC
// 9110 section 15.4.5): only a GET, a HEAD (section 13.1.2) or a QUERY
// (RFC 10008 section 2.6) gets one, so the document lists it for those
// operations alone, with no content and the header fields of the
// operation's success answer. The bundled middleware declares its own
// codes (ETag: 304 and 412). It panics on a nil mw or a code outside 400
// to 599 other than 304.
func Responds(mw waltz.Middleware, codes ...int) waltz.Middleware {
	if mw == nil {
		panic("waltz: Responds: nil middleware")
	}
	for _, c := range codes {
		if (c < 400 || c > 599) && c != http.StatusNotModified {
			panic(fmt.Sprintf("waltz: Responds: %d is no error status, nor 304", c))
		}
	}
	return declare(mw, declaration{codes: codes})
}

// Authenticates declares, for the OpenAPI document, that mw lets through
// only requests that authenticate as s says, and answers the others 401;
// with s.Optional, that it lets through a request with no credential
// too. It returns a middleware that serves requests as mw does,
// declaring as [Responds] does. Every operation registered inside it
// then has s in its security requirement, and a 401 response. Each
// middleware of a chain runs, so an operation inside two that
// authenticate needs both credentials: its requirement holds the schemes
// of all those that are not optional, and each optional one adds an
// alternative, those and it, before the last, those alone ({} when none
// is required). The bundled BasicAuth and BearerAuth declare themselves.
// It panics on a nil mw, and on an s without a Name or whose Type is
// neither "http" nor "apiKey".
func Authenticates(mw waltz.Middleware, s SecurityScheme) waltz.Middleware {
	if mw == nil {
		panic("waltz: Authenticates: nil middleware")
	}
	if s.Name == "" || s.Type != "http" && s.Type != "apiKey" {
		panic(fmt.Sprintf("waltz: Authenticates: SecurityScheme %q has Type %q: give a Name and the Type \"http\" or \"apiKey\"", s.Name, s.Type))
	}
	return declare(mw, declaration{codes: []int{401}, scheme: &s})
}

// Hide is a middleware that leaves the routes inside it out of the
// OpenAPI document ([Describe], and so apidocs and contracttest, which
// read it): the document's own route, a health check, a group of
// internal routes.
//
//	r.With(api.Hide).Get("/openapi.json", api.ServeOpenAPI(r, info))
//	internal := r.Group("/internal", api.Hide)
//
// The routes are served as if it were not there: composed with a
// handler, it returns that handler, so a request costs only the call
// every middleware's place in a chain costs, and no allocation. A typed
// operation inside it is bound, checked and answered as any other; its
// operation ID is still its own, which no other operation may take
// (Op), and no ID the document derives avoids it. The router's answers
// are the router's: a hidden method of a path the document shows is
// still named by the path's Allow and automatic OPTIONS, and a hidden
// QUERY's Accept-Query is still sent on its GET. [Hidden] lists the
// routes, for tools that read the document beside the router
// (contracttest probes no hidden method).
func Hide(next waltz.HandlerFunc) waltz.HandlerFunc {
	if next == nil {
		panic(hidden)
	}
	return next
}

// Hidden returns the routes of r that [Hide] leaves out of its document,
// in the order of [waltz.Router.Routes] (by pattern, then method; a
// Mount is one route of method "*"), or nil when there is none.
func Hidden(r *waltz.Router) []waltz.Route {
	var hs []waltz.Route
	for _, rt := range seam.Router.Routes(r) {
		if isHidden(routeMiddleware(rt)) {
			hs = append(hs, waltz.Route{Method: rt.Method, Pattern: rt.Pattern})
		}
	}
	return hs
}

// hidden is what Hide declares.
var hidden = &declaration{mw: func(next waltz.HandlerFunc) waltz.HandlerFunc { return next }, hide: true}

// isHidden reports whether one of the middleware mws is, or wraps, Hide.
func isHidden(mws []waltz.Middleware) bool {
	return slices.ContainsFunc(mws, func(mw waltz.Middleware) bool {
		d := declarationOf(mw)
		return d != nil && d.hide
	})
}

// Reads declares, for the OpenAPI document, that mw reads the request
// header fields hs. It returns a middleware that serves requests as mw
// does, declaring as [Responds] does. Every operation registered inside
// it whose method is among a field's Methods then lists the field as a
// header parameter, unless its In binds a field of that name itself. The
// bundled Idempotency declares its key's field. It panics on a nil mw, a
// Name that is not a token, a negative MaxLength, or a Method that is not
// a token.
func Reads(mw waltz.Middleware, hs ...HeaderParam) waltz.Middleware {
	return declare(mw, declaration{headers: checkFields("Reads", mw, hs)})
}

// Sets declares, for the OpenAPI document, that mw sets the response
// header fields hs on the answers the handler gives: Idempotent-Replayed
// of [middleware.Idempotency], say. It returns a middleware that serves
// requests as mw does, declaring as [Responds] does. Every operation
// registered inside it whose method is among a field's Methods then
// lists the field among the header fields of each of its answers that
// is no error (its success status, a 206 or a 304; a plain route's
// default answer): OpenAPI 3.1 section 4.8.17's headers, a header object
// of a string whose pattern and maxLength are the field's, required when
// Required is set (a field mw sets on every such answer). The error
// answers are left as they are: a validator that finds a field declared
// on an answer holds every other field it carries to the document. The
// Example is not written (a header object takes none). It panics as
// [Reads] does.
func Sets(mw waltz.Middleware, hs ...HeaderParam) waltz.Middleware {
	return declare(mw, declaration{answers: checkFields("Sets", mw, hs)})
}

// checkFields returns a copy of hs, the header fields that fn (Reads or
// Sets) declares mw reads or sets, their names canonical; it panics on a
// nil mw, a Name that is not a token, a negative MaxLength, or a Method
// that is not a token.
func checkFields(fn string, mw waltz.Middleware, hs []HeaderParam) []HeaderParam {
	if mw == nil {
		panic("waltz: " + fn + ": nil middleware")
	}
	hs = slices.Clone(hs)
	for i, h := range hs {
		if !header.IsToken(h.Name) {
			panic(fmt.Sprintf("waltz: %s: HeaderParam.Name %q is no header field name", fn, h.Name))
		}
		if h.MaxLength < 0 {
			panic(fmt.Sprintf("waltz: %s: HeaderParam %q has a negative MaxLength", fn, h.Name))
		}
		for _, m := range h.Methods {
			if !header.IsToken(m) {
				panic(fmt.Sprintf("waltz: %s: HeaderParam %q has the method %q, which is not a token", fn, h.Name, m))
			}
		}
		hs[i].Name = http.CanonicalHeaderKey(h.Name)
		hs[i].Methods = slices.Clone(h.Methods)
	}
	return hs
}

// declaredHeaders returns the request header fields the middleware mws
// declared for operations of method, in order, the first of each name;
// with answers, the response header fields instead.
func declaredHeaders(mws []waltz.Middleware, method string, answers bool) []HeaderParam {
	var hs []HeaderParam
	for _, mw := range mws {
		d := declarationOf(mw)
		if d == nil {
			continue
		}
		fields := d.headers
		if answers {
			fields = d.answers
		}
		for _, h := range fields {
			if (h.Methods == nil || slices.Contains(h.Methods, method)) &&
				!slices.ContainsFunc(hs, func(o HeaderParam) bool { return o.Name == h.Name }) {
				hs = append(hs, h)
			}
		}
	}
	return hs
}

// security returns the schemes and the error codes the middleware mws
// declared, in order, without repeats (a 304 is no error: notModified):
// of two schemes of one name, the first, unless only the second is
// required.
func security(mws []waltz.Middleware) (schemes []*SecurityScheme, codes []int) {
	for _, mw := range mws {
		d := declarationOf(mw)
		if d == nil {
			continue
		}
		for _, c := range d.codes {
			if c != http.StatusNotModified {
				codes = append(codes, c)
			}
		}
		if d.scheme == nil {
			continue
		}
		switch i := slices.IndexFunc(schemes, func(s *SecurityScheme) bool { return s.Name == d.scheme.Name }); {
		case i < 0:
			schemes = append(schemes, d.scheme)
		case schemes[i].Optional && !d.scheme.Optional:
			schemes[i] = d.scheme
		}
	}
	slices.Sort(codes)
	return schemes, slices.Compact(codes)
}

// notModified reports whether one of the middleware mws declared that it
// answers 304 Not Modified ([Responds]) to an operation of method: a
// GET, HEAD or QUERY, the methods a 304 answers (RFC 9110 section
// 13.1.2, RFC 10008 section 2.6).
func notModified(mws []waltz.Middleware, method string) bool {
	return safeMethod(method) && slices.ContainsFunc(mws, func(mw waltz.Middleware) bool {
		d := declarationOf(mw)
		return d != nil && slices.Contains(d.codes, http.StatusNotModified)
	})
}
