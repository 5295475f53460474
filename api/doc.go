// Package api is the API contract above the waltz router: an operation's
// input and output are Go types, written once, that drive the binding of
// the request, its validation, the RFC 9457 problem details of its errors
// and the OpenAPI document (3.1, or 3.2 on request). A typed client (package client), a
// contract test (the module contracttest) and a docs page (package
// apidocs) read the same description.
//
// The guides in the repository explain each part with examples:
// docs/typed-operations.md (binding, rules, errors, the document, typed
// verbs, declarations), docs/media.md (negotiation, downloads, uploads,
// events, conditional requests, merge patch) and docs/client.md.
//
// # Typed operations
//
// [Op] registers a handler func(c *waltz.Context, in *In) (*Out, error) on
// a waltz.Router or waltz.Group. Methods cannot have type parameters, so
// Op is a function that takes the Router or Group ([Registrar]) first:
//
//	api.Op(r, http.MethodGet, "/bookmarks", func(c *waltz.Context, in *ListBookmarks) (*BookmarkList, error) {
//		list := []Bookmark{{ID: 1, URL: "https://go.dev", Tags: []string{in.Tag}}}
//		return &BookmarkList{Total: len(list), Body: list[:min(in.Limit, len(list))]}, nil
//	}, api.Operation{ID: "listBookmarks", Summary: "List bookmarks"})
//
// Each exported field of In says where its value comes from:
//
//	Tag             Binds
//	path:"id"       the route param id (the pattern must have it; always required)
//	query:"limit"   the query parameter limit; a slice field takes every repetition
//	header:"X-Id"   the request header field X-Id
//	cookie:"s"      the cookie s
//	(field Body)    the request body: JSON, or the kinds its consumes tag names
//
// A Body field's consumes tag lists the kinds of body it takes (json,
// form); a body with a [File] member is multipart/form-data, one with an
// [Optional] member a merge patch. Any other media type is a 415 that
// names those taken.
//
// Validation keywords are JSON Schema's, as tags, and each shows in the
// document: required, default, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, minLength, maxLength, pattern, format
// (email, uuid, date-time, date, time, uri, ipv4, ipv6; password is shown
// and not checked), enum, minItems, maxItems, uniqueItems; doc and
// example describe a value. One of these spelt in another letter case
// (maxlength), or a JSON Schema keyword waltz does not check
// (maxProperties), panics in Op; other libraries' tags are left alone. The same tags
// work on the members of the body's types, at any depth, by their JSON
// names, and on each item of a slice and each value of a map. A *In with a method Validate(c *waltz.Context) []waltz.FieldError
// is asked after the tags' rules pass.
//
// A request that fails never reaches the handler. It gets every failure at
// once: 422 when values break the rules, 400 when the request cannot be
// read, each failure a waltz.FieldError with its location ("query.limit",
// "body.tags[1]"), keyword and message, as problem details. Everything
// reflection can decide is decided in Op, into a binding plan; a bad tag
// panics there, naming the type, the field and the file:line. Binding
// scalar path, query, header and cookie values costs no allocation.
//
// Out's field Body is the answer's body, a Status int field its status
// (0 means [Operation].Status, 200 by default, or 204 without a Body), and
// fields tagged header:"Name" its header fields. The Status field's enum
// tag (`enum:"200,202"`) lists the success statuses it may take, each of
// which the document lists; another is answered 500 (see [Op]). Those fields are the
// success answer's: an error answer never carries them, even one that
// comes once they were set (a [Download]'s 406, 412 or 416), so that no
// Cache-Control or Expires of Out makes an error cacheable in its place
// (RFC 9111 section 3); a field a middleware set before the handler
// stays. A resource has typed verbs too, each made by [Verb].
//
// An operation registered with waltz.MethodQuery is a QUERY (RFC 10008):
// its Body, which it must have, is bound and checked as a POST's; a
// request without a Content-Type (or with two) is a 400, one of another
// type a 415; every refusal carries Accept-Query with the Body's media
// types; its answer is judged as a GET's (304, 412), with an ETag made to
// cover the content.
//
// # The document
//
// [OpenAPI] is the OpenAPI 3.1 document of every route of a router, typed
// operations in full, the same bytes for the same registrations;
// [ServeOpenAPI] serves it, inside [Hide], which leaves the routes inside
// it out of the document ([Hidden] lists them):
//
//	r.With(api.Hide).Get("/openapi.json", api.ServeOpenAPI(r, api.Info{Title: "Bookmarks", Version: "1.0.0"}))
//
// [Info].OpenAPI "3.2" makes it OpenAPI 3.2: QUERY operations, a
// stream's items (itemSchema), groups and resources as a tag hierarchy.
//
// Middleware declares what it adds: [Responds] the statuses it refuses
// requests with, [Authenticates] its [SecurityScheme], [Reads] the request
// header fields it reads, [Sets] the response header fields it sets. The
// bundled middleware declares its own.
//
// # Media types
//
// [Operation].Produces lists the media types an answer can be sent in;
// the request's Accept field picks one (RFC 9110 section 12.5.1), a 406
// when none is acceptable, and every answer carries Vary: Accept. JSON,
// XML and text/plain need nothing more; another type takes an [Encoder]
// ([UseEncoder]). [MediaType] tells the handler the type picked. An Out
// whose Body is a [Download] sends bytes with ranges and conditions, as
// http.ServeContent does; one whose Body is an [Events] streams
// server-sent events of declared types, which a [Feed] reads from an
// [EventLog], so that a client resumes after its Last-Event-ID on any
// instance; one whose Body is a [Lines] streams JSON Lines
// (application/jsonl) of one type.
//
// # Uploads
//
// A Body struct with a member of type [File] (*File optional, []File a
// repeated part) is a multipart/form-data body (RFC 7578), each member the
// part named by its JSON name. A File member's tags:
//
//	accept:"image/png,image/*"   the media types taken, checked against the part's first bytes too
//	maxBytes:"2MiB"              the largest file: bytes, or KiB, MiB, GiB
//	minItems, maxItems           on []File: how many parts (at most 100 without maxItems)
//
// A refused type is a 415 and a file past maxBytes a 413, each naming the
// part; too many parts a 422. The document gives a part's maxBytes in its
// schema, as the extension x-maxBytes, and in its description. The body is read part by part as it arrives;
// a request's files stay in memory up to [SetUploadMemory]'s bytes (1 MiB
// by default) and go to temporary files beyond, every one removed when the
// handler returns.
//
// # Conditional requests
//
// An Out carries its validators (RFC 9110 section 8.8) in the header
// fields ETag (a string holding the quoted tag) and Last-Modified (a
// time.Time). A GET, HEAD or QUERY answered 200 with them is judged by section
// 13.2.2's order: 304 Not Modified with no content for a current copy, 412
// for a false If-Match. A write with [Operation].Current, a function that
// reads the resource's [Validators], must be conditional: its error (a
// 404) first, then 428 without If-Match and 412 with a stale one, before
// the body is read and the handler runs (RFC 9110 section 13.2.1). A PUT that creates its resource sends If-None-Match:
// * instead, where Current says none exists ([Validators].Absent).
//
// A date names a whole second, and a representation changed twice
// within one keeps it (RFC 9110 section 8.8.2.2). So an Out's
// Last-Modified is sent only once the second it names has ended, and a
// date a request sends that equals a Last-Modified whose second has not
// ended is taken as unsure: If-Unmodified-Since is false (412: two
// writes within one second never both go through), If-Range false (the
// whole 200) and If-Modified-Since true (no 304). An ETag has no such
// limit.
//
// An operation whose [Operation].Produces lists more than one type keeps
// its representations' validators apart (RFC 9110 sections 8.8.1 and
// 8.8.3): the handler gives one tag, for the resource; the first type of
// Produces goes out with it as it is, each other with its media type
// added inside the quotes ("v7" as "v7-application/xml", W/"v7" as
// W/"v7-application/xml"), and If-None-Match, its 304 and If-Match
// compare the tag of the representation the request gets. A write's
// Current takes the tag of any representation the router's operations
// send for its own: "v7-application/xml" is "v7" there.
//
// # JSON Merge Patch
//
// A body member of type [Optional] is absent, null or a value. A body with
// one is a JSON Merge Patch (RFC 7396): it takes
// application/merge-patch+json, and [Merge] applies it to the stored
// resource and checks the result against the resource type's rules.
package api
