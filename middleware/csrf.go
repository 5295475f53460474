package middleware

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// CSRFOptions configures [CSRF]. The zero value trusts no other origin and
// exempts no route.
type CSRFOptions struct {
	// TrustedOrigins are origins, "scheme://host[:port]", whose
	// cross-origin requests are let through (the front end on another
	// origin, say), compared exactly with the request's Origin header, as
	// [http.CrossOriginProtection.AddTrustedOrigin] does; so they are
	// written as browsers send them, in lower case, without a path, a
	// trailing slash or the scheme's default port (RFC 6454 section
	// 6.2). Any other form panics at construction.
	TrustedOrigins []string

	// BypassPatterns are waltz route patterns, exactly as registered with
	// the group prefix (as [waltz.Context.Pattern] reports them), such as
	// "/hooks/:provider", whose requests are never checked: endpoints for
	// other servers (webhooks) that authenticate requests otherwise. A
	// pattern is compared with the matched route's, so it never exempts
	// a path the router would redirect, answer 404, or send to another
	// route. A pattern not starting with '/' panics at construction; one
	// that names no route exempts nothing.
	BypassPatterns []string
}

// CSRF returns middleware that refuses cross-origin browser requests with
// unsafe methods, the cross-site request forgery that a form or a script
// on another site can send with the user's cookies. It is net/http's
// [http.CrossOriginProtection]: GET, HEAD and OPTIONS always pass, and so
// does QUERY, safe as they are (RFC 10008 section 2; a browser sends it
// cross-origin only after a CORS preflight, so [CORS] decides who may);
// for other methods a request is refused when its Sec-Fetch-Site header (W3C
// Fetch Metadata) is neither "same-origin" nor "none", or, without that
// header, when the host of its Origin header differs from its Host;
// requests with neither header (not from a browser) pass. Origins in
// o.TrustedOrigins and routes in o.BypassPatterns pass too.
//
// A refused request is not passed on: CSRF returns
// &waltz.HTTPError{Code: 403, Message: "cross-origin request",
// Err: cause}, with the cause from CrossOriginProtection.Check, for the
// router's error handler to render (403 Forbidden, RFC 9110 section
// 15.5.4).
//
// A request let through costs no allocation, a refused one 1, as the tests
// hold. It panics at construction, with a message starting "waltz: " that
// names the field, on a malformed trusted origin or bypass pattern.
func CSRF(o CSRFOptions) waltz.Middleware {
	cop := http.NewCrossOriginProtection()
	for i, origin := range o.TrustedOrigins {
		err := checkOrigin(origin)
		if err == nil {
			err = cop.AddTrustedOrigin(origin)
		}
		if err != nil {
			panic(fmt.Sprintf("waltz: CSRFOptions.TrustedOrigins[%d] %q: %v", i, origin, err))
		}
	}
	bypass := make(map[string]bool, len(o.BypassPatterns))
	for i, p := range o.BypassPatterns {
		if !strings.HasPrefix(p, "/") {
			panic(fmt.Sprintf("waltz: CSRFOptions.BypassPatterns[%d] %q is not a route pattern: it must start with '/'", i, p))
		}
		bypass[p] = true
	}
	return api.Responds(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			if p := c.Pattern(); p != "" && bypass[p] || c.Request.Method == waltz.MethodQuery {
				return next(c)
			}
			if err := cop.Check(c.Request); err != nil {
				return &waltz.HTTPError{Code: http.StatusForbidden, Message: "cross-origin request", Err: err}
			}
			return next(c)
		}
	}, http.StatusForbidden)
}
