// Package contracttest checks a waltz router against its own OpenAPI
// document, from the user's go test:
//
//	func TestContract(t *testing.T) {
//		contracttest.Run(t, newRouter(), contracttest.Options{
//			Credentials: map[string]string{"bearerAuth": "test-token"},
//		})
//	}
//
// # What it sends
//
// For each operation of the document ([api.Describe]), Run makes
// requests from the document's schemas and sends them to the router
// in-process (net/http/httptest; no listener, no network):
//
//   - a valid request (every param, every body member), and Count more
//     with random valid values, optional ones left out at random;
//   - each boundary of each rule, still valid: at minimum and maximum,
//     next to an exclusiveMinimum or exclusiveMaximum, at minLength,
//     maxLength, minItems and maxItems, each enum value, a member or an
//     optional param left out;
//   - each rule broken, one at a time, everything else valid: below a
//     minimum, at an exclusive bound, past a length or an item count, a
//     repeated item under uniqueItems, a value outside the enum, a string
//     against the pattern, one not of its format (date-time, date, time,
//     email, uuid, uri, hostname, ipv4, ipv6, byte), not a multipleOf, a
//     fraction for an integer, a wrong type, null where the schema has
//     no null, an unknown member where additionalProperties is false;
//   - each required param, member or body left out; the body in a media
//     type the operation does not list (text/plain); the request without
//     the credentials its security requirement asks for (a valid one
//     where the requirement lists {}, which makes them optional);
//   - on each path, each method the path has no operation for, but
//     those a route of another pattern serves at the same URL (PUT
//     /articles/:slug at /articles/feed, a catch-all, a mount, QUERY, a
//     route inside api.Hide) or redirects to another (a trailing slash):
//     such a request goes to that route, and the document cannot say
//     which of its operations it belongs to (OpenAPI 3.1 section 4.8.8
//     matches a URL to one path item, by path alone).
//
// A request whose path has a value its operation's route does not take
// (a constraint, /items/:id<int>, refuses it) may go to another route,
// or get the router's own answer (404, 405, a redirect): it is not the
// operation's, and the document cannot say whose it is. The run asks a
// copy of the router's routes, without their handlers, which it is; one
// that another route serves is not judged, nor one the router answers
// as the copy does; one the router answers otherwise is a failure. The
// run logs how many went elsewhere.
//
// A server may keep what it is sent and refuse it a second time (an email
// already taken), so a valid request repeats no string of an earlier one
// where it need not: each random string is one the run has not made
// before, where a few draws find one, and a valid case that changes one
// thing (a body's boundary, a param's, the request without optional
// credentials) carries a body drawn anew everywhere else. A multipart
// body, and the keys of an object of additionalProperties ("key1"), are
// the exceptions.
//
// Params go in the path, the query (repeated or joined, as the param's
// style and explode say), headers and cookies; bodies as JSON, as
// application/x-www-form-urlencoded and as multipart/form-data where the
// operation declares them. A multipart body's parts are written as its
// encodings say: a file part (a binary string) as a file of one of the
// media types its encoding lists, whose bytes are of that type (a PNG
// for image/png, so that a server that sniffs content takes it), a JSON
// part as application/json, the others as text; its variants add a file
// of each other listed type, one of a type the encoding does not list
// (which the document forbids), a repeated file's counts, and each
// part's own rules.
// Every request asks, in Accept, for the media types the operation's
// answers are declared in. A fixed seed makes the same requests every
// run; Options.Seed picks others.
//
// # What it checks
//
// Every answer, against the answer the document declares for the
// operation and the status:
//
//   - the status is declared (by itself, its range such as 4XX, or
//     default);
//   - the media type is one the answer is declared in, and the body and
//     the headers match their schemas (libopenapi-validator, with format
//     assertions);
//   - an answer declared with no content sends none (a 204's or 304's
//     body aside, which net/http's server drops);
//   - a request the document forbids is never answered 2xx;
//   - a request it admits is not refused as malformed or invalid (400,
//     415 or 422) — unless libopenapi-validator finds the request invalid
//     too, in which case the generator, not the server, is in doubt;
//   - no request is answered 5xx;
//   - a request without credentials, to an operation whose security
//     requirement makes them optional ({} beside a scheme), is not
//     answered 401 (an operation with no requirement at all may still
//     answer 401 to credentials of its own, a login's password);
//   - a method the path has no operation for is answered 405 with an
//     Allow that names the path's methods (and HEAD, OPTIONS, and those
//     routes of other patterns serve at the URL), or 501.
//
// Each failure is reported with t.Errorf, names its case ("createBookmark
// body.title over maxLength", the same every run), says what was expected
// and what came, gives a curl line that sends the same request to
// Options.BaseURL, and prints the [Known] entry that would name it.
//
// # Known disagreements and opaque params
//
// Options.Known lists the disagreements a caller accepts for now, each
// with its reason, named by what they are about rather than by a case:
// an operation, a location and a keyword,
//
//	Known{Operation: "createBookmark", Location: "body.tags", Keyword: "type",
//		Reason: "null is read as an absent array"}
//
// which names every request of createBookmark that changes body.tags by
// its type (null, a wrong type), whatever values the seed gives it; an
// empty Location and Keyword name the valid requests, random ones
// included. An entry that names no failure is itself one, so the list
// shrinks as the server is fixed.
//
// Options.Opaque lists the params whose values only the server makes,
// such as a paging cursor it issued: the run makes no value of them and
// varies none, rather than send values the server is right to refuse.
//
// # The document is the contract
//
// The requests are made from the published document itself, as any
// client of the API reads it, and never from the router's binding plans:
// the test exists to find where the server and its document disagree,
// and requests made from the server's own plans would test the engine
// against itself (a rule the plan forgot would be forgotten by the test
// too). For the same reason the answers, and every value the generator
// makes, are judged by a validator no one in this repository wrote,
// github.com/pb33f/libopenapi-validator, over the document as
// github.com/pb33f/libopenapi reads it. The test reads the operations,
// params, bodies, security requirements and answers from the document's
// model (package openapi), and each schema as libopenapi reads it: the
// generator walks the very schema the validator judges its values
// against. A value the generator means as valid, or as invalid, and the
// validator judges otherwise is not sent (the run logs how many), so the
// test never calls a request invalid that the document allows.
//
// # What it leaves out
//
// The generator handles the keywords above. A schema with allOf, oneOf,
// anyOf, not, if, prefixItems, contains, patternProperties,
// dependentRequired, propertyNames or min/maxProperties, a pattern
// outside the simple subset it can match (literals, ., \d, \w, classes,
// quantifiers, anchors; no groups or alternation), a format with length
// rules it cannot meet, object params and media types other than JSON,
// forms and multipart/form-data are skipped: a required one skips its
// operation, an optional one its value; the run logs each ("not tested:
// ..."). An empty value of a param is never sent as a broken minLength,
// since servers read ?q= as q absent. A file part's size limit is no
// keyword of the document, so no file is sent past it.
//
// It is a module of its own, so the waltz module keeps no require line.
package contracttest
