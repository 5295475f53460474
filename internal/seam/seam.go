// Package seam is the one door between the router (package waltz) and the
// API contract built on it (package api). The root imports nothing of the
// contract, and the contract reaches nothing of the router's insides but
// what passes here; being internal, nothing outside this module can use it.
//
// Two kinds of thing pass:
//
//   - Call, the state of a typed operation's request that the router's
//     Context keeps for the contract (its binding failures, its uploads'
//     temporary files, the media type negotiation picked), so that a typed
//     request allocates nothing the Context cannot keep.
//   - Hooks: functions the root sets when it is initialized (Router), and
//     ones the contract sets when it is linked in (Contract). Their values
//     are the root's own types (*waltz.Context, *waltz.Group, …) passed as
//     any, which this package cannot name; each side asserts them back.
//
// Registration goes through them once per route; a request through Enter,
// Start and, for a download or an event, ServeContent and SendEvent: a
// call through a func value, a few instructions each.
package seam

import (
	"context"
	"io"
	"net/http"
	"time"
	"unsafe"

	"github.com/waltz-go/waltz/internal/typed"
)

// Call is what a typed operation keeps of one request in the Context that
// serves it.
type Call struct {
	// SentTo is the Writer a response helper sent a status to: the
	// Context's Text, JSON, Blob … or a typed answer. Both sides' helpers
	// keep it, as the root's Context.started reads it; nil until one does.
	SentTo http.ResponseWriter

	// Path is where the engine finds the matched pattern's param values:
	// the Context, set once when it is made.
	Path typed.PathValues

	// Fails are the binding failures of the request, sent by the engine
	// through In.Fails (or, for Context.Bind, given as its sink); the
	// pooled Context keeps the array (see Clear).
	Fails []Failure

	// Temp lists the temporary files of the request's uploads, removed
	// when its handler returns.
	Temp typed.Temp

	// Spare is a zeroed input value (a *In) of the last typed operation
	// the Context served, for the next request of that operation to take
	// rather than its pool's; see api's take and give.
	Spare any

	// MediaType is the media type negotiation picked for the answer;
	// see api.MediaType.
	MediaType string

	// Content is the digest of a typed QUERY's content, which its
	// answer's ETag covers (api's query.go): set by such an operation
	// for each request before its answer, and read only by it.
	Content string

	// JSON, Text and Vary are value slices of the Context's own for a
	// typed answer's Content-Type (JSON's, text/plain's) and Vary fields
	// (see ContentType): one slot per value, so that a slot is written
	// only when a middleware edited it, never to switch between values
	// while a recorder of an earlier answer still reads it.
	JSON, Text, Vary [1]string
}

// Failure is one binding failure, as waltz.FieldError has it.
type Failure struct {
	Location, Keyword, Message string
}

// Fail keeps one binding failure: Call is the engine's FailureSink.
func (c *Call) Fail(location, keyword, message string) {
	c.Fails = append(c.Fails, Failure{location, keyword, message})
}

// keptFails is the most binding failures whose array a pooled Context
// keeps from one request to the next.
const keptFails = 16

// Clear empties Fails once an answer has copied them, keeping its array
// for the Context's next request unless a body of many failures made it
// large.
func (c *Call) Clear() {
	if cap(c.Fails) > keptFails {
		c.Fails = nil
		return
	}
	clear(c.Fails)
	c.Fails = c.Fails[:0]
}

// Route is a registered route as the document reads it.
type Route struct {
	Method, Pattern string
	Op              any      // what the contract registered it with (Router.Route's op); nil for a plain route
	Middleware      any      // the route's []waltz.Middleware, outermost first
	Accepts         []string // a plain QUERY route's media types (Registration.Accepts), lower case; else nil
}

// Param is a path param of a pattern, with what its constraint says of
// its values, for the document.
type Param struct {
	Name string
	// Type, Format and Pattern are the JSON Schema of the constraint's
	// values: Type "integer" for int and uint (Minimum0 for uint), a
	// Format such as "uuid", or a Pattern (anchored); all empty for a
	// param without a constraint.
	Type, Format, Pattern string
	Minimum0              bool
	CatchAll              bool // a catch-all, whose value spans segments
}

// Verb is a typed verb of a resource, as the root's Group.Resource
// registers it beside the resource's verb methods.
type Verb struct {
	Method string
	// Check returns what would stop the verb registering at path on the
	// group g, the nth (from 0) of the resource's paths.
	Check func(g any, path string, nth int) error
	// Register registers the verb at path inside the resource's
	// middleware mw (a []waltz.Middleware); at is the registering call.
	Register func(g any, path string, nth int, mw any, at uintptr) error
}

// Router holds the hooks the root sets in its init; the contract calls
// them. The any values are the root's types: g a *waltz.Group, c a
// *waltz.Context, r a *waltz.Router, es a *waltz.EventStream.
var Router struct {
	// Route registers h (a waltz.HandlerFunc) for method and path on g,
	// inside inner (a []waltz.Middleware) and then g's middleware, with
	// op on its route for the document and the error answers. It returns
	// the *waltz.Registration.
	Route func(g any, method, path string, h, inner, op any, at uintptr) (any, error)
	// Pattern returns g's prefix and path, and the pattern's params.
	Pattern func(g any, path string) (string, []Param, error)
	// RouterOf returns the *waltz.Router of g.
	RouterOf func(g any) any
	// Prefixes returns the prefixes of g and of the groups it was made
	// from, outermost first, each once, none empty ("/api",
	// "/api/users/:id").
	Prefixes func(g any) []string
	// MountedAt returns the prefixes, from the outermost router's root,
	// at which other routers mount r (Group.Mount with r as its
	// handler), through their own mounts, each once, in the order of the
	// mounts: "/v1", "/t/:tenant" ("" at a root's own prefix); none when
	// no router mounts r. A chain that comes back to a router on it adds
	// none.
	MountedAt func(r any) []string
	// Contract returns the contract's slot on r, where it keeps what it
	// knows of the router (its encoders, say).
	Contract func(r any) *any
	// Routes returns r's routes in Routes' order.
	Routes func(r any) []Route
	// Params returns pattern in OpenAPI's path template syntax
	// ("/a/{id}") and its params; pattern as it is, and none, for one
	// that does not parse.
	Params func(pattern string) (string, []Param)

	// Enter returns c's Call for its request, a typed operation's, its
	// MediaType cleared.
	Enter func(c any) *Call
	// Call returns c's Call, and whether the route c serves is a typed
	// operation's.
	Call func(c any) (*Call, bool)
	// Start returns the error a response helper named helper returns for
	// code when the response has started (waltz.ErrResponseStarted);
	// otherwise, with mark, it records that a status is about to go to
	// c's Writer, and returns nil.
	Start func(c any, helper string, code int, mark bool) error
	// Whole records that c's answer went out whole (a typed operation's,
	// not a download or a stream), so that an error after it is logged,
	// not an abort.
	Whole func(c any)
	// BodyError returns the waltz.HTTPError of an error the engine's
	// body reader returned (a *typed.BodyError), with the header fields
	// its answer needs; any other error as it is.
	BodyError func(c any, err error) error
	// ServeContent answers c's request with the content rs of the media
	// type ctype, modified at modtime (zero: unknown), as FileServer
	// answers (ranges, conditional requests, HEAD).
	ServeContent func(c any, ctype string, modtime time.Time, rs io.ReadSeeker) error
	// Paced returns c's writer, or one that gives each span of a long
	// body of size bytes (negative: not known) the server's whole
	// WriteTimeout, as ServeContent's content gets (waltz's paced.go).
	Paced func(c any, size int64) http.ResponseWriter
	// SendEvent sends an event of the name event whose data is data
	// (JSON, one line) with the ID id on es.
	SendEvent func(es any, id, event string, data []byte) error
	// Ended reports whether es has ended (the client left, the server
	// is shutting down).
	Ended func(es any) bool
	// Lines starts a stream of JSON Lines (application/jsonl) on c's
	// response, as c.EventStream starts one of events (the same
	// *waltz.EventStream, ended when the handler returns, its Done and
	// write deadline), with no Cache-Control.
	Lines func(c any) (es any, err error)
	// SendLine writes data, one line of JSON, and a line feed on es, a
	// stream of Lines', and flushes them.
	SendLine func(es any, data []byte) error
	// SendRetry sends a retry field alone on es, which sets the client's
	// reconnection time to d and dispatches no event.
	SendRetry func(es any, d time.Duration) error
	// SendID sends an id field alone on es, which sets the client's
	// last event ID to id and dispatches no event.
	SendID func(es any, id string) error
	// StreamContext returns the context of es, done when Done is closed.
	StreamContext func(es any) context.Context
}

// Contract holds the hooks the contract sets when it is linked in; the
// root calls them, and does without when they are nil (a program that
// never imports the contract).
var Contract struct {
	// Verbs returns the typed verbs of the resource res (its Verbs
	// method's), or an error that names what is wrong with them; none
	// when res has no Verbs method.
	Verbs func(res any) ([]Verb, error)
	// Accepts returns the media types the typed operation op
	// (Router.Route's op) takes in its content, none when it has no
	// Body: for the Accept-Query field of a QUERY (RFC 10008 section
	// 3), the Accept-Patch of a PATCH (RFC 5789 section 3.1), the
	// Accept-Post of a POST (W3C LDP section 7.1).
	Accepts func(op any) []string
}

// ContentType returns slot, one of a Context's Content-Type (or Vary)
// value slices, holding want, for a response helper to put in the header
// map without an allocation. The slot is the Context's own, never shared
// with another Context, so a middleware that edits it in place
// (h["Content-Type"][0] = "...") changes this response only. The value is
// written back only when such an edit changed it: so whatever still reads
// the header map of an earlier response of the Context (net/http writes
// the header of a handler that sent no status after the handler returns;
// an outer wrapper may copy the map) reads memory nobody writes. An edit
// puts another string header in the slot, so comparing the data's address
// and length finds it without comparing the bytes, which every response
// would pay for: want must be a variable (one of the media type variables
// its callers keep), so that every use holds the same string data. The
// slice's cap equals its len, so a Header().Add on the key copies instead
// of writing into it.
func ContentType(slot *[1]string, want string) []string {
	if unsafe.StringData(slot[0]) != unsafe.StringData(want) || len(slot[0]) != len(want) {
		slot[0] = want
	}
	return slot[:]
}

// The media types the response helpers of both sides set through
// ContentType. NOTE: variables, not constants, so every use holds the
// same string data, which ContentType compares by address.
var (
	TextPlain  = "text/plain; charset=utf-8"
	TextHTML   = "text/html; charset=utf-8"
	JSON       = "application/json"
	Problem    = "application/problem+json"
	VaryAccept = "Accept"
)
