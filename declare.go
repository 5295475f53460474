package waltz

import (
	"fmt"
	"slices"
)

// What middleware declares about itself for the OpenAPI document: the
// error statuses it can answer with, and how it authenticates. A
// Middleware is a func, which Go gives no identity to look it up by, so
// a declaring middleware says what it declares when it is asked: Responds
// and Authenticates return a middleware that, composed with a nil next
// (which a chain never passes: it always wraps a handler), panics with
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
	Description  string
}

// declaration is what one middleware declared: the answer a declaring
// middleware gives when composed with a nil next.
type declaration struct {
	mw     Middleware // the middleware as it was given, which serves requests
	codes  []int
	scheme *SecurityScheme
}

// compose is the declaring middleware: next wrapped by d.mw, or, for a
// nil next, the panic that answers declarationOf.
func (d *declaration) compose(next HandlerFunc) HandlerFunc {
	if next == nil {
		panic(d)
	}
	return d.mw(next)
}

// declarationOf returns what mw declared, or nil: mw composed with a nil
// next, which a declaring middleware answers with a panic that carries
// its declaration. Another middleware composes without panicking, or
// panics with something else, and declares nothing.
func declarationOf(mw Middleware) (d *declaration) {
	defer func() {
		if v := recover(); v != nil {
			d, _ = v.(*declaration)
		}
	}()
	mw(nil)
	return nil
}

// declare returns mw declaring codes and scheme (if not nil), beside what
// mw itself declared.
func declare(mw Middleware, codes []int, scheme *SecurityScheme) Middleware {
	d := &declaration{mw: mw}
	if old := declarationOf(mw); old != nil {
		d.mw, d.codes, d.scheme = old.mw, old.codes, old.scheme
	}
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
// The bundled middleware declares its own codes. It panics on a nil mw or
// a code outside 400 to 599.
func Responds(mw Middleware, codes ...int) Middleware {
	if mw == nil {
		panic("waltz: Responds: nil middleware")
	}
	for _, c := range codes {
		if c < 400 || c > 599 {
			panic(fmt.Sprintf("waltz: Responds: %d is no error status", c))
		}
	}
	return declare(mw, codes, nil)
}

// Authenticates declares, for the OpenAPI document, that mw lets through
// only requests that authenticate as s says, and answers the others 401.
// It returns a middleware that serves requests as mw does, declaring as
// [Responds] does. Every operation registered inside it then has s as its
// security requirement and a 401 response. The bundled BasicAuth and
// BearerAuth declare themselves. It panics on a nil mw, and on an s
// without a Name or whose Type is neither "http" nor "apiKey".
func Authenticates(mw Middleware, s SecurityScheme) Middleware {
	if mw == nil {
		panic("waltz: Authenticates: nil middleware")
	}
	if s.Name == "" || s.Type != "http" && s.Type != "apiKey" {
		panic(fmt.Sprintf("waltz: Authenticates: SecurityScheme %q has Type %q: give a Name and the Type \"http\" or \"apiKey\"", s.Name, s.Type))
	}
	return declare(mw, []int{401}, &s)
}

// security returns the schemes and the error codes the middleware mws
// declared, in order, without repeats.
func security(mws []Middleware) (schemes []*SecurityScheme, codes []int) {
	for _, mw := range mws {
		d := declarationOf(mw)
		if d == nil {
			continue
		}
		codes = append(codes, d.codes...)
		if d.scheme != nil && !slices.ContainsFunc(schemes, func(s *SecurityScheme) bool { return s.Name == d.scheme.Name }) {
			schemes = append(schemes, d.scheme)
		}
	}
	slices.Sort(codes)
	return schemes, slices.Compact(codes)
}
