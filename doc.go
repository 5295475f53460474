// Package waltz is a small, fast HTTP router and microframework on net/http,
// with no dependencies outside the standard library.
//
// A radix tree matches each request's method and path to a route, binding
// ":param" and "*catchall" segments; handlers receive a pooled [Context] and
// return an error; middleware chains are composed once, at registration.
// Serving a static or param route costs no allocation in the router.
//
//	r := waltz.New()
//	r.Get("/", func(c *waltz.Context) error {
//		return c.Text(http.StatusOK, "Hello")
//	})
//	r.Get("/user/:id", func(c *waltz.Context) error {
//		return c.Text(http.StatusOK, "Hello user "+c.Param("id"))
//	})
//
// A [Router] is a [net/http.Handler]. [Server] serves it with safe
// timeouts, readiness probes, a drain and a graceful shutdown;
// [ListenAndServe] does so in one call.
//
// This package is the router. The API contract (operations whose input and
// output are Go types, their validation, problem details and OpenAPI
// document) is the package github.com/waltz-go/waltz/api, above it; this
// package imports nothing of it.
//
// # Guides
//
// The guides in the repository's docs/ directory explain each part with
// examples, read in order: docs/routing.md (path syntax, precedence,
// redirects, 405, OPTIONS, HEAD, groups, names and URLs),
// docs/middleware.md (order, the bundled set, net/http middleware),
// docs/resources.md (handlers, errors, resources, files, events),
// docs/typed-operations.md and docs/media.md (package api),
// docs/client.md, docs/deployment.md, docs/performance.md and
// docs/migrating.md.
//
// # Path syntax
//
// A pattern starts with '/' and is a list of segments separated by '/':
//
//	Syntax     Matches                                  Example
//	static     exactly that text                         /users/new
//	:name      one whole, non-empty segment              /users/:id        GET /users/42 → id=42
//	:name<c>   a segment whose value meets c             /users/:id<int>   GET /users/42 → id=42
//	*name      the rest of the path, possibly empty;     /files/*path      GET /files/a/b → path=a/b
//	           last segment only                                           GET /files/   → path=""
//
// A param's constraint c is one of a small set, or a regular expression:
//
//	<int>      a decimal integer that fits an int64: optional '-', digits ("-7", "007")
//	<uint>     decimal digits that fit a uint64
//	<uuid>     a UUID's text form, 8-4-4-4-12 hex digits in either case (RFC 9562)
//	<alpha>    ASCII letters
//	<alnum>    ASCII letters and digits
//	<[a-z-]+>  anything else is a regular expression (Go's RE2 syntax), which must
//	           match the whole decoded value; it holds no '/' (write \x2F)
//
// A name of letters that is not in the set is refused, so a typo
// ("<integer>") never becomes a regular expression. Constraints are
// compiled at registration; a named one is checked at no allocation.
// [Router.URL] refuses a value that breaks one.
//
// A name is letters, digits and '_', unique within its pattern. A ':' or '*'
// that does not start a segment is literal text ("/v1/items:batch").
// Patterns are written unescaped and hold no '%', '?' or '#'; no segment is
// empty except a trailing one ("/users/" is a pattern of its own, distinct
// from "/users"), and none is "." or ".." (RFC 3986 section 5.2.4).
//
// Registration panics with a [*RouteError] whose message starts "waltz: ",
// names the pattern, the method and where each was registered, when a
// pattern breaks these rules or when one method and one route shape are
// registered twice (GET /users/:id and GET /users/:uid are one shape).
//
// # Precedence
//
// At every segment a static match is tried first, then a constrained
// param, then a param, then a catch-all, and a lookup backtracks: with
// /a/:x/c and /a/b/d registered, GET /a/b/c matches /a/:x/c, since the
// static b leads nowhere. A route that matches the path but has no handler
// for the request's method does not stop the search either; the request
// gets a 405 only when no route matches both its path and its method and
// no redirect applies. Where two patterns differ, the first segment from
// the left where they differ in kind decides, so no route set is refused
// for ambiguity (http.ServeMux refuses some; docs/routing.md compares).
//
// Two constrained params at the same place must be disjoint: no value may
// meet both, whatever their methods, or registration panics naming both
// routes (/a/:n<int> beside /a/:m<uint>: "7" meets both). The check walks
// the product of the two constraints' automata, and errs only toward a
// conflict. A plain param beside constrained ones takes what none of them
// does.
//
// This section is the one statement of these rules; the tests refer to it.
//
// # Escaped paths
//
// Matching works segment by segment on the path as the client sent it
// (URL.RawPath when net/http kept one). An encoded slash (%2F) is data
// inside a segment, never a separator: GET /files/a%2Fb on /files/:name
// gives name "a/b". Values are percent-decoded once, with path rules.
// Matching is byte-exact and case-sensitive. A malformed escape gets 400.
// Values are not cleaned: a catch-all may hold ".." and decoded slashes,
// so a handler that maps it to files must confine it ([os.Root],
// [net/http.FS], [FileServer]).
//
// # 404, 405 and redirects
//
// When no route matches the path as sent with the request's method (or
// the one that matches ends in a catch-all), the router tries the path
// with its trailing slash toggled ([Router.RedirectTrailingSlash]), then
// cleaned of "//", "." and ".." ([Router.RedirectFixedPath]), then both.
// The first that a route serves for the method wins: 301 for GET and
// HEAD, 308 for other methods, which keeps the method and body (RFC 9110
// section 15.4). The Location is a path only, escaped once, with the raw
// query kept, never starting with "//": no request can send a browser to
// another host. A redirect beats a 405, and a catch-all redirects only to
// a more specific route.
//
// When routes match the path but none has the method, and no redirect
// applies, the answer is 405 Method Not Allowed with an Allow header that
// lists each method once, sorted (RFC 9110 section 15.5.6); for a method
// the router knows nowhere (none of RFC 9110's, PATCH or QUERY, and no
// route or mount serves it), 501 Not Implemented instead (sections 9.1
// and 15.6.2). GET routes
// answer HEAD (section 9.3.2) unless a HEAD route is registered. With
// [Router.HandleOPTIONS] (on by default), OPTIONS gets 204 with Allow
// (section 9.3.7) where no OPTIONS route is registered. Anything else is a
// 404. [Router.NotFound] and [Router.MethodNotAllowed], when set, answer
// those requests instead. Where a QUERY route (RFC 10008, [Router.Query])
// is, the 405 and the OPTIONS also carry Accept-Query, and so do the
// route's refusals (status 400 and above) and the GET and HEAD of its
// pattern; a QUERY without a Content-Type is a 400. The OPTIONS of a path whose PATCH or
// POST is a typed operation (package api) with a body carries
// Accept-Patch (RFC 5789 section 3.1) or Accept-Post (W3C LDP section
// 7.1) with the media types it takes.
//
// # Middleware
//
// A [Middleware] wraps a [HandlerFunc]. Routing happens first, so every
// middleware can read [Context.Pattern]. Middleware runs in registration
// order, outermost first: the router's ([Router.Use]), each enclosing
// group's ([Group.Group]), [Group.With]'s, a resource's own, then the
// handler. Router middleware also runs for the router's own answers (404,
// 405, OPTIONS, redirects). Middleware that rewrites what is routed goes to
// [Router.Pre]. Standard func(http.Handler) http.Handler middleware joins a
// chain through [WrapMiddleware]. The package
// github.com/waltz-go/waltz/middleware holds the bundled set.
//
// # Errors
//
// A handler's or middleware's non-nil error goes to [Router.ErrorHandler],
// by default [DefaultErrorHandler], where it is returned, before the
// middleware outside resumes, so every middleware sees the final response.
// An [*HTTPError] becomes its code and message; any other error a bare 500,
// logged with log/slog. [Router.RenderError] is the format of the body:
// text by default, RFC 9457 problem details with [RenderProblem].
//
// # Context lifetime
//
// Contexts are pooled: a Context, its Params and its Response must not be
// used after the handler returns. Take a [Context.Copy] for work that
// outlives the request. In unit tests, [NewContext] makes a Context with
// params for calling a handler directly.
package waltz
