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
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	if err := waltz.ListenAndServe(ctx, ":3000", r); err != nil {
//		log.Fatal(err)
//	}
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
// A name of letters alone that is not in the set is refused, so a typo
// ("<integer>") never becomes a regular expression that matches only
// itself. A constraint is compiled when the route is registered; a request
// checks a named one with a loop over the value's bytes, at no allocation,
// and runs the regexp package only for a regular expression. The value
// checked is the decoded one, the value the handler gets. [Router.URL]
// refuses a value that breaks the constraint, and the OpenAPI document
// carries it (an integer type, format uuid, a pattern). A typed
// operation's field type does not constrain its route: ID int64
// path:"id" on /items/:id answers /items/x with 422 naming path.id, which
// tells a client what is wrong, where a constraint would make it 404 or
// another route's; write /items/:id<int> when the route should depend on
// it, and the document says both.
//
// The syntax keeps waltz's :name and puts the constraint where ASP.NET's
// {id:int} and chi's {id:[0-9]+} put theirs, after the name; '<' and '>'
// never appear unescaped in a request path (RFC 3986 section 2), so no
// static text is lost to it, and '{' stays an error with a hint, which
// spells chi's {name:regexp} as :name<regexp>.
//
// A name is letters, digits and '_', unique within its pattern. A ':' or '*'
// that does not start a segment is literal text ("/v1/items:batch").
// Patterns are written unescaped and hold no '%', '?' or '#'; no segment is
// empty except a trailing one ("/users/" is a pattern of its own, distinct
// from "/users"), and none is "." or "..", which clients remove before
// they send a path (RFC 3986 section 5.2.4).
//
// Registration panics with a [*RouteError] whose message starts "waltz: ",
// names the pattern and the method, and says where it was registered, when
// a pattern breaks these rules or when the same method and the same route
// shape are registered twice (GET /users/:id and GET /users/:uid are the
// same shape; the message names both and both file:line places). Routes that
// differ only in a param's name at the same place, for different methods,
// work side by side, each with its own names.
//
// # Precedence
//
// At every segment a static match is tried first, then a constrained
// param, then a param, then a catch-all, and a lookup backtracks: with /a/:x/c and /a/b/d registered,
// GET /a/b/c matches /a/:x/c, since the static b leads nowhere. A route that
// matches the path but has no handler for the request's method does not stop
// the search either; the request gets a 405 only when no route matches both
// its path and its method and no redirect below applies.
//
// The standard library's ServeMux instead picks, among the patterns that
// match a request, the one whose set of matching requests is a strict
// subset of every other's, and rejects two patterns that overlap when
// neither is more specific (/a/{x}/c beside /a/b/{rest...}, or /{x}/b
// beside /a/{y}). waltz accepts every such pair and decides at the first
// segment, from the left, where the two patterns differ in kind: GET /a/b/c
// goes to /a/b/*rest and GET /a/b to /a/:y. When one pattern is strictly
// more specific than the other the two rules agree, since it is at least as
// specific at every segment. The left-to-right rule is what a radix tree
// walks in one pass with backtracking, costs nothing at lookup, is
// predictable from the path alone, never rejects a route set for
// ambiguity (GitHub's API, with /repos/:owner/:repo/:archive_format/:ref
// beside /repos/:owner/:repo/contents/*path, registers as it is), and is
// what httprouter, chi, gin and echo users expect. ServeMux also redirects
// an unclean path ("//a", "/./a") before matching, where waltz matches the
// path as sent first (see Redirects), and its "/dir/" pattern matches a
// whole subtree, which waltz spells /dir/*rest.
//
// Two constrained params at the same place (after the same text) must
// be disjoint: no value may meet both, whatever their routes' methods,
// or registration panics naming both routes, since which one a request
// reached would depend on the order they were registered in. /a/:id<int>
// beside /a/:slug<[a-z-]+> and /a/:key<uuid> is fine; /a/:n<int> beside
// /a/:m<uint> is not ("7" meets both), nor are two regular expressions
// that can match one value (<[a-m]+> and <[k-z]+>), nor two spellings of
// one language (<[0-9]+> and <uint>): write one route, or one spelling.
// Disjointness is decided, not guessed: each constraint is a regular
// language (the named ones as the expressions above), and the check walks
// the product of the two automata for a value both accept. It errs only
// toward a conflict: it ignores the int and uint ranges and takes
// assertions such as \b to hold everywhere. A plain param beside
// constrained ones takes what none of them does.
//
// This section is the one statement of these rules; the tests and the
// README refer to it.
//
// # Escaped paths
//
// Matching works segment by segment on the path as the client sent it:
// URL.RawPath when net/http kept one (and it still encodes URL.Path), else
// URL.Path. An encoded slash (%2F) is data inside a segment, never a
// separator: GET /files/a%2Fb on /files/:name gives name "a/b". Values are
// percent-decoded once with path rules: '+' stays '+', %2B is '+', %20 is a
// space, hex digits in either case. Static text is compared after decoding,
// so /%61bout matches /about. Matching is byte-exact and so case-sensitive
// in every script (/Π is not /π). A malformed escape (%zz) gets 400 Bad
// Request. A request without RawPath (the common case) is matched on
// URL.Path as it is, with no decoding and no allocation. The query never
// takes part, and %3F in a path is a '?' inside a value. An empty path
// (the absolute-form target "GET http://host") is "/" (RFC 9110 section
// 4.2.3).
//
// A catch-all takes the rest of the path, possibly empty (/static/ gives
// ""), but never a rest that starts with '/'. It may hold "." and ".."
// segments and decoded slashes, so a handler that maps it to files must
// confine it ([os.Root], [net/http.FS], [path/filepath.Localize]).
//
// # Redirects
//
// When no route matches the path as sent with the request's method, or the
// route that matches takes the end of the path with a catch-all, the
// router tries in order:
// the path with its trailing slash toggled ([Router.RedirectTrailingSlash]),
// the path cleaned of "//", "." and ".." segments
// ([Router.RedirectFixedPath]), then cleaned and toggled. The first that a
// route serves for the request's method wins. The answer is 301 Moved
// Permanently for GET and HEAD and 308 Permanent Redirect for other methods,
// which keeps the method and body (RFC 9110 section 15.4); never for
// CONNECT. The target is checked with the same lookup, so a redirect never
// leads to another redirect. The Location header is a path only, escaped
// exactly once (%2F, %20, %23 survive), built without reading Host or
// X-Forwarded-* headers, never starting with "//" or with a slash and a
// backslash, with the raw query kept byte for byte: no request can send a
// browser to another host.
// Cleaning works on the escaped path, so "..%2F" is a name, not a parent.
// A catch-all route /static/*file answers /static/ and redirects /static
// there. Both switches are on by default.
//
// A catch-all does not turn the redirects off under it, for any method:
// when the route that matches the path as sent ends in a catch-all, a
// candidate wins only if the route it matches is more specific, that is,
// at the first segment where the two patterns differ in kind (static,
// param, catch-all), the candidate's comes first. With GET /*path serving
// a front end beside GET and POST /api/bookmarks, GET /api/bookmarks/ and
// GET /api/./bookmarks get 301 and POST /api/bookmarks/ gets 308 to
// /api/bookmarks, while GET /some/page/ stays with the catch-all (its
// variant /some/page matches only the catch-all again), and so does GET
// /a/ under /a/*rest beside /:name (the static "a" comes before the
// param). An automatic OPTIONS answer is not a route and redirects nothing.
//
// A redirect beats a 405: with GET /a/ and POST /a registered, GET /a is
// redirected (301) to /a/, as httprouter and ServeMux do, since the
// resource for GET lives there; and with GET /b and POST /b/, POST /b gets
// 308 to /b/ and GET /b/ 301 to /b. With the switches off, or when no route
// for the method is found at any candidate, the answer is the 405 below.
// An automatic OPTIONS answer (below) is given where the path is, never
// redirected.
//
// # 405, OPTIONS and HEAD
//
// When routes match the path but none with the request's method, and no
// redirect applies, the answer is 405 Method Not Allowed with an Allow
// header listing each of their methods once, sorted (RFC 9110 section
// 15.5.6). GET routes answer HEAD (section 9.3.2) unless a HEAD route is
// registered; net/http's server
// drops the body of a response to HEAD and sends the headers GET would.
// A handler that streams until its client leaves ends on a HEAD: once the
// headers are flushed, writes and flushes fail with
// [net/http.ErrBodyNotAllowed], and [Context.EventStream] gives a stream
// that is already over.
// With [Router.HandleOPTIONS] (on by default) an OPTIONS request to a path
// that has no OPTIONS route gets 204 No Content with Allow (section 9.3.7),
// and "OPTIONS *" gets every method the router serves ([ListenAndServe]
// lets it through; a plain [net/http.Server] answers it itself unless
// DisableGeneralOptionsHandler is set). Allow lists OPTIONS whenever the
// automatic answer is on. Each such answer puts an Allow value slice of its
// own in the header map (one allocation), so a middleware that edits it in
// place changes that response only.
//
// # Middleware
//
// A [Middleware] wraps a [HandlerFunc]. Routing happens first, so every
// middleware can read [Context.Pattern]. Middleware runs in registration
// order, outermost first: the router's (from [Group.Use] on the Router),
// then each enclosing group's, outer to inner, then [Group.With]'s, then a
// resource's own (its Middleware method), then the handler. Router
// middleware also runs for the router's own answers (404, 405, OPTIONS,
// redirects). A group copies its parent's middleware when it
// is made, so adding to one group never changes another, and a group's
// middleware never runs for a route outside it that merely shares its
// prefix. Use must come before the group registers routes or makes groups,
// and panics otherwise. Middleware that must run before routing, because
// it rewrites what is routed (a format suffix, a method override, a
// prefix), goes to [Router.Pre]; the router's answers to the rewritten
// request go through Use's middleware and the error rendering as any
// other. Standard func(http.Handler) http.Handler middleware
// joins a chain through [WrapMiddleware], at 2 allocations per request (and 2
// more once per chain on a route with params, for r.PathValue); it sees the
// route's params with r.PathValue and its pattern in r.Pattern. The
// subpackage waltz/middleware holds the set a production app needs
// (logging, recovery, request IDs, real IP, CORS, CSRF, security headers,
// authentication, body and rate limits, timeouts, compression, ETags).
//
// # Groups, route names and URLs
//
// [Group.Group] registers routes under a prefix with extra middleware. A
// group's route "" is its prefix itself, so a REST collection lives in its
// group: in Group("/bookmarks"), Get("", list) serves /bookmarks and
// Get("/:id", show) serves /bookmarks/7. A route named at registration
// ([Registration.Name]) has its path built by [Router.URL], each value
// escaped as a path segment, for Location headers and links:
//
//	r.Get("/users/:id", showUser).Name("user")
//	loc, err := r.URL("user", "id", "42") // "/users/42"
//
// # Route identity for traces and metrics
//
// ServeHTTP sets r.Pattern on the request it is given to the matched
// route's pattern ("/users/:id"), or "" when no route matched, as
// [net/http.ServeMux] does: a handler wrapping the router (otelhttp, a
// metrics recorder) reads the route once ServeHTTP returns, and a label
// taken from it has one value per route whatever paths clients send.
//
// # Resources
//
// A [Resource] is a type with a Paths method and one method per HTTP verb it
// answers (Get, Post, Put, Patch, Delete, Head, Options, each a
// func(c *Context) error), after Drash's resource classes. [Group.Resource]
// registers every verb for every path under the group's prefix, so 405, the
// Allow header and automatic OPTIONS follow from the methods the type has,
// and HEAD falls back to Get as for any route. An optional
// Middleware() []Middleware runs around each verb, inside the router's and
// the group's middleware. Verbs are found once, at registration: a method
// named like a verb with another signature (Get(w, r), say), a resource
// without paths or verbs, or a bad path panics with a message naming the
// type, and registers nothing. A resource route costs what a plain route
// costs: no allocation.
//
//	type Note struct{ store *Store }
//
//	func (*Note) Paths() []string { return []string{"/notes/:id"} }
//	func (n *Note) Get(c *waltz.Context) error    { ... }
//	func (n *Note) Delete(c *waltz.Context) error { ... }
//
//	r.Group("/api", auth).Resource(&Note{store}) // PATCH → 405, Allow: DELETE, GET, HEAD, OPTIONS
//
// # net/http handlers and middleware
//
// [Group.Mount] hands a path prefix, with every method and sub-path, to an
// http.Handler (another Router, http.FileServerFS), with the prefix
// stripped from URL.Path and URL.RawPath. [Group.Handler] registers an
// http.Handler as one route; it reads params with r.PathValue.
// [WrapMiddleware] runs standard middleware in a chain; the Context then
// sees the request and writer that middleware passes on.
//
// # Static files and server-sent events
//
// [FileServer] serves an fs.FS (an [os.Root]'s, to keep ".." and symbolic
// links inside the root) on a catch-all GET route, with Range, conditional
// requests, content-hash ETags, precompressed siblings and an SPA fallback;
// a bad name is a 400 or 404, never a 500. [Context.EventStream] streams
// server-sent events, flushing each one and ending when the client goes
// away or the [Server] shuts down.
//
//	r.Get("/files/*path", waltz.FileServer(root.FS(), waltz.FileServerOptions{}))
//
// # Request bodies
//
// [Context.Bind] decodes a JSON body into a value: 415 for another
// Content-Type, 413 past [Router.MaxBodyBytes] (1 MiB unless set), 400 with
// the byte offset or field for malformed JSON, a wrong type, data after the
// value, or an unknown field when [Router.DisallowUnknownFields] is set. Each
// is an [*HTTPError], so the error handler renders it.
//
// # Errors
//
// A handler's or middleware's non-nil error goes to [Router.ErrorHandler],
// by default [DefaultErrorHandler]: an [*HTTPError] becomes its code and
// message, any other error a bare 500 "Internal Server Error" while the
// error is logged with log/slog ([Router.Logger]). The router's own 404 and
// 405 answers are HTTPErrors too, so one error handler shapes every error
// page.
//
// An error is answered where it is returned, before the middleware outside
// it resumes, and once however far it travels. So every middleware sees
// the final response after its next handler returns: a logger logs the
// status the client got, a compressor compresses error pages, and the
// error is still returned for logging. A response helper (Text, JSON, ...)
// called after the response has started writes nothing and returns
// [ErrResponseStarted], which the error handler logs. An error that wraps
// [net/http.ErrAbortHandler], returned after the response started (the
// bundled Recoverer returns one for a late panic), makes the router abort
// the response, so the client sees a truncated read rather than a short
// body that looks whole. After a hijack nothing of waltz writes to the
// connection ([Response.Hijacked]).
//
// Whether the response has started is one answer, [Response.Started],
// whatever writers middleware stacked: one that holds a status back (ETag
// to tag the body, Compress to size it) says so with [Hold], so the error
// handler, Recoverer and Timeout agree with it, a panic after a held
// partial body aborts the response, and the holder drops that part. An
// error answered before the response started is rendered without the
// ETag, Content-Length, Content-Encoding, Content-Range and Last-Modified
// set for the body it replaces, whichever error handler renders it.
// # Typed operations
//
// [Op] registers a handler of the shape func(c *Context, in *In) (*Out,
// error) on a Router or a Group. The Go types In and Out are the
// operation's contract, written once: they drive the binding of the
// request, its validation, the problem details of its errors and its
// OpenAPI document. Methods cannot have type parameters, so Op is a
// function that takes the Router or Group ([Registrar]) as its first
// argument:
//
//	type ListBookmarks struct {
//		Tag    []string `query:"tag" maxItems:"10" doc:"Only bookmarks with every one of these tags."`
//		Limit  int      `query:"limit" minimum:"1" maximum:"100" default:"20"`
//		Offset int      `query:"offset" minimum:"0"`
//	}
//	type BookmarkList struct {
//		Total int `header:"X-Total-Count"`
//		Body  []Bookmark
//	}
//
//	waltz.Op(r, http.MethodGet, "/bookmarks", listBookmarks, waltz.Operation{
//		ID: "listBookmarks", Summary: "List bookmarks", Tags: []string{"bookmarks"}})
//
//	func listBookmarks(c *waltz.Context, in *ListBookmarks) (*BookmarkList, error) { ... }
//
// Each exported field of In says where its value comes from:
//
//	Tag             Binds
//	path:"id"       the route param id (the pattern must have it; always required)
//	query:"limit"   the query parameter limit; a slice field takes every repetition
//	header:"X-Id"   the request header X-Id
//	cookie:"s"      the cookie s
//	(field Body)    the request body, in the media types its consumes tag names (JSON alone without one)
//
// A Body field's consumes tag lists the kinds of body the operation
// takes, comma-separated: json (application/json), form
// (application/x-www-form-urlencoded, for a body struct of scalars,
// pointers to them and slices of them, its fields named by their JSON
// names) and multipart (multipart/form-data, for a body struct with a
// [File] member, which takes it alone and without the tag: see
// "Uploads"). Without the tag an operation takes JSON alone (a body with
// a File member, multipart alone), so a form an
// HTML page on another site can post without a preflight never reaches
// it. The tag sits on the Body field, not on In, because it says what
// the body is, beside the body's type and doc, and a Go type has no tag
// of its own to carry it. A body in any other media type, or with a
// Content-Encoding, is a 415 whose problem names the media types taken,
// listed also in Accept-Post for a POST and Accept-Patch for a PATCH (RFC
// 5789 section 3.1); the document's requestBody lists exactly those.
//
//	Body NewBookmark `consumes:"json,form"`
//
// Embedded structs' fields count as In's own; unexported fields are left
// alone; a blank field `_ struct{} strict:"query"` refuses query
// parameters that name no field (they are ignored otherwise). A field may
// be a string, a bool, an int or uint of any size, a float32 or float64, a
// [time.Time] (RFC 3339), a [time.Duration] ("1.5s"), any type whose
// pointer is an [encoding.TextUnmarshaler], a pointer to one of these (nil
// when the value is absent), or a slice of them or of pointers to them
// for a repeated query parameter (at most 100 values unless maxItems says
// otherwise). A slice tagged explode:"false" takes one value of
// comma-separated items instead (?ids=1,2,3; an escaped comma, %2C,
// belongs to an item; an empty value is no items), which the document
// writes as style form, explode false. A ';' in a query or form body
// makes it unreadable (400), as [url.ParseQuery] reports it, rather than
// dropping a pair the client meant. Text
// values are read as their standards write them, the same in every place:
// a bool is any word [strconv.ParseBool] takes (1, t, T, TRUE, true, True
// and the false ones), as OpenAPI tools read a boolean parameter; an
// integer is a JSON number whose value is whole (JSON Schema counts 1.0
// and 1e2 as integers; 1.5 is refused), kept exact to its last digit by
// bounds and multipleOf; a [time.Time] is RFC 3339 section 5.6's
// date-time exactly (t and z in either case, a leap second 23:59:60 UTC
// read as the instant after it; 24:00, one-digit hours and a comma
// before the fraction refused). An empty value is a value, in a query,
// a header, a cookie or a form: a string's "", and for any other type a
// 422 "type" failure, never taken as absent (the document sets no
// allowEmptyValue, and OpenAPI tools refuse "" for a number likewise);
// leave the parameter out to get its default. A scalar given twice
// is an error. A location quotes a client's key with its control
// characters and invalid UTF-8 as %XX (query.a%0D%0Ab). A Body of pointer type is optional. The body obeys
// [Context.Bind]'s limits (413, 415, unknown fields).
//
// Validation keywords are JSON Schema's, as tags, and each shows in the
// document:
//
//	required:"true"            the value must be present (a path param always is)
//	default:"20"               the value when absent (checked against the rules at registration)
//	minimum, maximum           bounds on a number, inclusive
//	exclusiveMinimum, exclusiveMaximum, multipleOf
//	minLength, maxLength       bounds on a string, in characters
//	pattern:"^[a-z]+$"         a regular expression (Go syntax), compiled at registration
//	format:"email"             also uuid, date-time, date, time, uri, ipv4, ipv6
//	enum:"asc,desc"            the allowed values, comma-separated, or a JSON array
//	                           when one holds a comma: enum:`["a,b","c"]`
//	minItems, maxItems, uniqueItems   on a slice; uniqueItems on items of any kind
//
// Each format is its standard's grammar and nothing looser: date-time,
// date and time RFC 3339 section 5.6; email RFC 5321 section 4.1.2's
// mailbox (a quoted local part such as "joe bloggs"@example.com, and
// address literals, taken); uri RFC 3986 section 3's absolute URI (raw
// non-ASCII, spaces and bad escapes refused); ipv4 dotted-quad without
// leading zeros; ipv6 RFC 4291 section 2.2 without a zone; uuid RFC 9562's
// hex-and-dash form. uniqueItems compares items as JSON values (an
// object's members in any order, 1 and 1.0 the same), in O(n log n), and
// is not checked once minItems or maxItems has failed. The official JSON
// Schema Test Suite's cases for these keywords and formats pass.
//
//	doc:"..." example:"..."    the description and an example, for the document
//
// The same tags work on the fields of the body's types, at any depth, by
// their JSON names. A member of a body struct is required (the key must be
// there; null will do for a pointer, slice or map) unless its json tag
// has omitempty or omitzero, as the schema says, since encoding/json
// writes every other member; required:"true" makes an omitempty member
// required too. The rules of an absent member, or of one sent as null,
// are not checked; null for a member of another type (a string, a number,
// a struct) is a "type" failure, as the schema has no null for it. A *In
// with a method Validate(c *Context) []FieldError is asked after the
// tags' rules pass.
//
// A JSON body is read in one pass, as RFC 8259 writes JSON. A body that
// is not JSON (a syntax error, data after the value, invalid UTF-8 inside
// a string, arrays and objects nested deeper than 10,000) is a 400; every
// other failure is a 422 located at its member, all of them in one answer
// (the first 100): body.kids[1].age, body.m.x, and a name or map key that
// is empty or holds a space, a control character, . [ ] " or \ in
// brackets as a quoted string, body.m["a.b"]. A wrong JSON type, a
// [time.Time] that is no RFC 3339 date-time, an
// [encoding.TextUnmarshaler]'s or [encoding/json.Unmarshaler]'s error,
// bad base64 for a []byte and a ,string member that does not hold its
// value's JSON text are each such a failure, and hide no other. Members
// are the ones encoding/json finds (embedded structs and pointers to
// them, whose rules hold too; of two members of one name at the same
// depth the one named by a json tag, or else neither; json:"-"; ,string),
// and a key must match a member's JSON name exactly, letter case
// included, as the schema's properties do: a key "Title" is no member
// "title", and is ignored as an unknown key (refused with
// [Router.DisallowUnknownFields]). Of a repeated key the last counts. A
// member with default:"..." gets it when its key is absent. A member
// type whose pointer is an [encoding/json.Unmarshaler] decodes itself:
// it gets its JSON text, null included, and is not called when the key
// is absent, so it can tell absent, null and a value apart. An optional
// Body (*T) given an empty body or null is left nil.
//
// Out's field Body is the success answer's JSON body, a Status int field
// its status (0 means [Operation.Status], itself 200 by default, or 204
// without a Body), and fields tagged header:"Location" its headers. An
// Out whose Body holds a type encoding/json cannot encode (a chan, a
// func, a map with struct keys) panics in Op, rather than answer 500 to
// every request.
//
// A [Resource] has typed verbs too: its Verbs method returns them, each
// made by [Verb] (waltz.Verb(http.MethodGet, b.list, waltz.Operation{}))
// and registered for each of its paths, beside its plain verb methods.
//
// A request that fails gets every failure at once: 422 Unprocessable
// Content when values break the rules (a wrong type, a bound, a missing
// value), 400 when the request cannot be read (malformed JSON, a bad
// percent-escape), each failure a [FieldError] with its location
// ("query.limit", "path.id", "body.tags[1]"), its keyword and a message.
// The answer stays small whatever was sent: it lists the first 100
// failures, a body location is cut at 256 bytes, a quoted value at 64.
// Everything reflection can decide happens in Op, into a binding plan; a
// bad tag, a type that cannot be bound or a path field that names no
// param of the pattern panics there, naming the type, the field and the
// file:line. A request runs only precomputed setters: binding scalar path,
// query, header and cookie values costs no allocation.
//
// # Uploads
//
// A Body struct with a member of type [File] (or *File, optional, or
// []File, a repeated part) is a multipart/form-data body (RFC 7578), the
// form a browser sends with a file input or FormData; each member is the
// part named by its JSON name:
//
//	type CoverForm struct {
//		Image File      `json:"image" accept:"image/png,image/jpeg" maxBytes:"2MiB"`
//		Pages []File    `json:"pages,omitempty" accept:"application/pdf" maxItems:"4"`
//		Alt   string    `json:"alt,omitempty" maxLength:"200"`
//		Meta  CoverMeta `json:"meta,omitempty"` // a part holding one JSON value
//	}
//	type SetCover struct {
//		ID   int64 `path:"id"`
//		Body CoverForm
//	}
//
// A scalar member (a pointer to one, a slice of them) binds from its
// part's text and is checked as a query value is; any other member binds
// from a part holding JSON (its Content-Type application/json, or none)
// as a body does, its rules checked at "body.meta...". A File member is
// required unless it is a pointer, a slice or omitempty. Its tags:
//
//	accept:"image/png,image/*"   the media types taken, as type/subtype or type/*
//	maxBytes:"2MiB"              the largest file: bytes, or KiB, MiB, GiB
//	minItems, maxItems           on []File: how many parts (at most 100 without maxItems)
//
// With accept, a part is taken only when its declared Content-Type is
// listed and its first 512 bytes agree, as [http.DetectContentType] reads
// them: they sniff as the declared type; or, for a type the sniffer does
// not recognize (text/csv, image/avif), as its generic answer for the
// family (text/plain for a text type, application/octet-stream for
// another) or as a listed type the format is built on (a .docx sniffs as
// application/zip: list both). So a PNG declared image/gif, or text
// declared image/png, is refused. A part that declares no type is taken
// when its sniffed type is listed, and that is its [File.Type]; so is
// one declared application/octet-stream, unless accept lists it: RFC
// 7578 section 4.4's type of a file whose type the sender does not know,
// which [mime/multipart.Writer.CreateFormFile] gives every file. A
// refused type is a 415 and a file past maxBytes a 413, each naming the
// part in its message and as the location of its one [FieldError]
// ("body.image"); more parts of a name than maxItems, or a second part
// of a single File, a 422. A part with no name is a 400, as are a body
// that ends before its closing boundary and a malformed part header; a
// part that is itself multipart (multipart/mixed) is a 415; more than
// 1,000 parts, or more than 1 MiB of text and JSON parts, a 413.
//
// The body is read part by part as it arrives (mime/multipart.Reader),
// never whole: a file's first bytes stay in memory while the request has
// [Router.UploadMemory] left (1 MiB), the rest of it goes to a
// temporary file in [os.TempDir]. The whole body stays within
// [Router.MaxBodyBytes], so raise it for a route group that takes files
// (and keep the others small with middleware.BodyLimit). Every temporary
// file is removed when the handler returns, whatever it returns, and if
// it panics: a [File] is valid only while the handler runs.
//
// The document shows such a body as multipart/form-data alone: an object
// whose file members are strings of format binary (with
// contentMediaType when accept names one type), and an encoding that
// gives each file part its accepted types and each JSON part
// application/json.
//
// # Media types of typed answers
//
// An operation answers JSON unless [Operation.Produces] lists the media
// types its answer can be sent in, the preferred first. Then the
// request's Accept field picks one (RFC 9110 section 12.5.1: the most
// specific range that matches decides a type's weight, the highest
// weight wins, the server's order breaks ties, an element with a
// malformed weight is skipped), the first with no field. When none is
// acceptable the answer is 406, listing the types, before the handler
// runs. Every answer of such an operation carries "Vary: Accept", since
// it depends on the field; one with no Produces answers JSON whatever
// Accept says and carries none. The types that need nothing more are
// application/json and any +json type, application/xml and text/xml
// (encoding/xml: give the body's fields xml tags that match their JSON
// names, so that both say the same; Op panics on a Body that is a slice,
// which encoding/xml writes as one element per item where a document has
// one root element, so hold the items in a struct, and a nil pointer
// Body is a 500, logged), and text/plain for a Body that is a
// string, a []byte, an encoding.TextMarshaler or a fmt.Stringer; any
// other takes an [Encoder], registered on the router or the operation:
//
//	r.Encoder("application/cbor", cbor.Marshal)
//	waltz.Op(r, http.MethodGet, "/bookmarks/:id", get, waltz.Operation{
//		Produces: []string{"application/json", "application/xml", "application/cbor"}})
//
// [Context.MediaType] tells the handler the type picked. The document
// lists exactly the declared types.
//
// An Out whose Body is a [Download] sends bytes as they are, in one of
// the types of Produces (application/octet-stream without): a seekable
// content is answered as [http.ServeContent] answers, ranges and
// conditions included, with [FileServer]'s rules:
//
//	type Picture struct{ Body waltz.Download }
//	return &Picture{waltz.Download{Content: f, Type: "image/png", ModTime: fi.ModTime()}}, nil
//
// An Out whose Body is an [Events] of an event set answers a stream of
// server-sent events, each of a type the set declares; see Events.
//
// # Conditional requests
//
// An Out carries its validators (RFC 9110 section 8.8) in two header
// fields of known names: ETag, a string holding the quoted entity tag
// (`"v7"`, or `W/"v7"` for a weak one), and Last-Modified, a
// [time.Time]. A GET or HEAD whose answer is a 200 with them is judged by
// section 13.2.2's order after the handler returns: If-Match (strong
// comparison, so a weak tag never satisfies it) or else
// If-Unmodified-Since, 412 when false; then If-None-Match (weak
// comparison) or else If-Modified-Since, 304 Not Modified with the
// answer's header fields and no content when the client's copy is
// current. No body is encoded for a 304.
//
// A write says that it must be conditional, and how to read the
// validators it compares with, by [Operation].Current, a function of its
// bound input:
//
//	waltz.Op(api, http.MethodPatch, "/bookmarks/:id", h.edit, waltz.Operation{
//		Current: func(c *waltz.Context, in *EditBookmark) (waltz.Validators, error) {
//			b, ok := store.Get(in.ID)
//			if !ok {
//				return waltz.Validators{}, &waltz.HTTPError{Code: http.StatusNotFound}
//			}
//			return waltz.Validators{ETag: b.ETag(), LastModified: b.Modified}, nil
//		}})
//
// Current runs after binding and validation, before the handler. Its
// error is the answer (a 404 wins over a 412: section 13.2.1 evaluates
// preconditions only for a resource that exists); then a request without
// If-Match gets 428 Precondition Required (RFC 6585 section 3), and one
// whose precondition is false 412 Precondition Failed, and the handler
// does not run. An If-Unmodified-Since date alone stands for If-Match
// only where Current's validators have no ETag: a date is exact to the
// second, so two edits in one second would both pass it. Op panics on a
// Current whose input type is not the operation's, or on a GET or HEAD.
// The document shows the fields (If-Match required where Current is;
// If-None-Match and If-Modified-Since on a GET whose Out carries
// validators), the ETag and Last-Modified answers, 304 with no content,
// 412 and 428.
//
// # JSON Merge Patch
//
// A PATCH that changes some members of a resource and removes others
// sends a JSON Merge Patch (RFC 7396): a member left out stays as it is,
// null removes it, a value replaces it. A body member of type
// [Optional][T] tells the three apart (Present, Null, Value); the rules
// of its tags apply to a value sent, and it is never required. A plain
// member with omitempty is one a patch may set but not remove. Tag an
// Optional member omitzero, so that encoding/json (and a Go client)
// leaves out an absent one rather than write it as null:
//
//	type BookmarkPatch struct {
//		Title string                   `json:"title,omitempty" minLength:"1"`
//		Tags  waltz.Optional[[]string] `json:"tags,omitzero" maxItems:"8"`
//	}
//
// A body struct with an Optional member is a merge patch: its operation
// takes application/merge-patch+json (RFC 7396 section 4) and answers
// any other Content-Type 415 with Accept-Patch, and the document lists
// that media type, the Optional members nullable and none required.
// [Merge] applies the patch to the stored resource (section 2, objects
// merged member by member at any depth) and checks the result against
// the rules of the resource's own type: a patch may leave each member
// valid and the whole invalid, and that is a 422 too.
//
//	b := stored // a copy
//	if err := waltz.Merge(&b, &in.Body); err != nil {
//		return nil, err // a 422 listing what the merged bookmark breaks
//	}
//
// # Problem details
//
// An [*HTTPError] can carry a problem Type and a list of [FieldError]s.
// [DefaultErrorHandler] holds the rules of every error answer (what may be
// sent, when to log), and [Router.RenderError] the format of its body. A
// typed operation's errors are RFC 9457 problem details
// (application/problem+json, with type, title, status, detail, instance
// and errors); one line makes them the answer of the whole router, its
// 404, 405 and 400 and the bundled middleware's refusals included:
//
//	r.RenderError = waltz.RenderProblem
//
// A client whose Accept field prefers text/plain or text/html gets the
// text answer instead. For another JSON shape, set RenderError to a
// function of your own; the rules stay.
//
// # OpenAPI
//
// [Router.OpenAPI] returns the OpenAPI 3.1 document of everything
// registered, typed operations in full (JSON Schema 2020-12 from the Go
// types, named types in components/schemas), plain routes with their
// methods and path params. The schemas describe what the server takes:
// a member with the ,string option is a string (with the pattern of the
// number it holds, or "true"/"false"; bounds on that number, which JSON
// Schema cannot set on a string, are the server's to check); a map with integer keys has
// propertyNames; members of one name in embedded structs follow
// encoding/json's rules (the one dropped is neither listed nor
// required); a member with a default is not required. The component
// Problem is always waltz's problem details, which every error response
// refers to: a type of your own named Problem is written as Problem2.
// The bytes are the same for the same registrations. Serving it is one
// line:
//
//	r.Get("/openapi.json", r.ServeOpenAPI(waltz.APIInfo{Title: "Bookmarks", Version: "1.0.0"}))
//
// [Operation] gives an operation's ID, summary, description and tags, and
// the error statuses its handler returns. Middleware declares what it
// adds: [Responds] the statuses it refuses requests with, [Authenticates]
// its [SecurityScheme], which becomes the security requirement of the
// operations inside it, [Reads] the request header fields it reads
// ([HeaderParam], such as Idempotency-Key). The bundled middleware
// declares its own.
//
// # Context lifetime
//
// Contexts are pooled: a Context, its Params and its Response must not be
// used after the handler returns. Take a [Context.Copy] for work that
// outlives the request. A Context goes back to the pool only when
// everything the router started for the request has returned: the chain,
// and the rest of the chain that standard middleware ([WrapMiddleware])
// may run on a goroutine of its own, which gets a Context of its own. So
// http.TimeoutHandler can be wrapped. Native middleware must call next on
// its own goroutine before it returns; a handler that starts a goroutine
// passes it c.Copy(), never c. In unit tests, [NewContext] makes a
// Context with params for calling a handler directly.
package waltz
