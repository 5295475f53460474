package waltz

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"
)

// What middleware declares about itself for the OpenAPI document: the
// error statuses it can answer with, and how it authenticates. A
// middleware is known by its function value: each closure a constructor
// returns is a value of its own (the value's word points at the closure),
// so two BearerAuth middleware with other options are told apart.

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

// declaration is what one middleware declared.
type declaration struct {
	mw     Middleware // kept, so that its address is not reused
	codes  []int
	scheme *SecurityScheme
}

var declarations sync.Map // uintptr, the middleware value's word, to *declaration

// mwKey returns the word that a func value is: the address of its
// closure, or of its function for one that captures nothing.
func mwKey(mw Middleware) uintptr { return *(*uintptr)(unsafe.Pointer(&mw)) }

var declareMu sync.Mutex

// declare records codes and scheme (if not nil) for mw.
func declare(mw Middleware, codes []int, scheme *SecurityScheme) {
	declareMu.Lock()
	defer declareMu.Unlock()
	d := &declaration{mw: mw}
	if v, ok := declarations.Load(mwKey(mw)); ok {
		old := v.(*declaration)
		d.codes, d.scheme = old.codes, old.scheme
	}
	d.codes = slices.Concat(d.codes, codes)
	slices.Sort(d.codes)
	d.codes = slices.Compact(d.codes)
	if scheme != nil {
		d.scheme = scheme
	}
	declarations.Store(mwKey(mw), d)
}

// declared returns what mw declared, or nil.
func declared(mw Middleware) *declaration {
	v, _ := declarations.Load(mwKey(mw))
	d, _ := v.(*declaration)
	return d
}

// Responds declares, for the OpenAPI document, that mw refuses some
// requests with the error statuses codes (429 for a rate limit, 413 for a
// body limit), and returns mw. Every operation registered inside mw then
// lists each code as an error response. The bundled middleware declares
// its own codes. It panics on a nil mw or a code outside 400 to 599.
func Responds(mw Middleware, codes ...int) Middleware {
	if mw == nil {
		panic("waltz: Responds: nil middleware")
	}
	for _, c := range codes {
		if c < 400 || c > 599 {
			panic(fmt.Sprintf("waltz: Responds: %d is no error status", c))
		}
	}
	declare(mw, codes, nil)
	return mw
}

// Authenticates declares, for the OpenAPI document, that mw lets through
// only requests that authenticate as s says, and answers the others 401,
// and returns mw. Every operation registered inside mw then has s as its
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
	declare(mw, []int{401}, &s)
	return mw
}

// security returns the schemes and the error codes the middleware mws
// declared, in order, without repeats.
func security(mws []Middleware) (schemes []*SecurityScheme, codes []int) {
	for _, mw := range mws {
		d := declared(mw)
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
