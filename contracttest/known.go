package contracttest

import (
	"fmt"
	"strings"
)

// What a caller tells the run about its API: the disagreements it knows
// of (Known), named by what they are about rather than by a case, whose
// name may hold a number that changes with the seed; and the params
// whose values only the server makes (Param, in Opaque).

// Known names a disagreement between a server and its document that the
// caller knows of and accepts for now (Options.Known): every request of
// an operation changed at one location by one rule, whatever values the
// seed gives them. Each failure the run reports prints the Known that
// names it.
type Known struct {
	// Operation is the operation's ID ("createBookmark"), or its method
	// and the document's path ("PUT /items/{id}") for one without an ID,
	// or for a method the path has no operation for ("TRACE /items").
	Operation string

	// Location is where the requests differ from the operation's valid
	// one, as a problem's location says it: a param ("query.limit",
	// "header.If-Match", "path.id"), a member of the body ("body.tags",
	// "body.tags[0]", "body.image"), the body itself ("body"). "" names
	// the requests changed nowhere: the valid ones, the random valid
	// ones, the one without credentials, another method.
	Location string

	// Keyword is the rule the requests are about, as JSON Schema and
	// OpenAPI name it: "maximum", "exclusiveMinimum", "maxLength",
	// "pattern", "format", "enum", "multipleOf", "minItems", "maxItems",
	// "uniqueItems", "type" (a wrong type, null, a fraction for an
	// integer), "required" (a value left out), "additionalProperties" (an
	// unknown member), "contentType" (a part of a media type its
	// encoding lists, or not), "content" (the body in a media type the
	// document does not list), "security" (no credentials). A boundary
	// and the rule broken share theirs ("at maxLength", "over
	// maxLength"). "" names the valid requests and another method.
	Keyword string

	// Reason says why the disagreement is accepted for now; it is printed
	// with each failure the entry names, and may not be empty.
	Reason string
}

// key returns k without its Reason: what a case is about.
func (k Known) key() Known {
	k.Reason = ""
	return k
}

// String returns k as Go writes it, without its Reason: how the run's
// messages name it.
func (k Known) String() string {
	fields := []string{fmt.Sprintf("Operation: %q", k.Operation)}
	if k.Location != "" {
		fields = append(fields, fmt.Sprintf("Location: %q", k.Location))
	}
	if k.Keyword != "" {
		fields = append(fields, fmt.Sprintf("Keyword: %q", k.Keyword))
	}
	return "contracttest.Known{" + strings.Join(fields, ", ") + "}"
}

// entry returns k as an entry of Options.Known that names it, its
// Reason to be written: what a failure prints.
func (k Known) entry() string {
	return strings.TrimSuffix(k.String(), "}") + `, Reason: "..."}`
}

// knownAs returns the entry of Options.Known that names a case about
// about, and reports whether there is one.
func (run *runner) knownAs(about Known) (Known, bool) {
	for _, k := range run.opts.Known {
		if k.key() == about && k.Reason != "" {
			return k, true
		}
	}
	return Known{}, false
}

// Param names a param of the document (Options.Opaque).
type Param struct {
	// Operation is the ID of the operation whose param it is (or its
	// method and path, as in Known); "" names the param in every
	// operation that has it.
	Operation string

	// Location is the param's place and name: "query.cursor",
	// "header.If-None-Match" (a header's name in any case),
	// "cookie.session", "path.token".
	Location string
}

// String returns p as Go writes it.
func (p Param) String() string {
	return fmt.Sprintf("contracttest.Param{Operation: %q, Location: %q}", p.Operation, p.Location)
}

// opaqueParam reports whether the param named name in in ("query") of
// operation id is one of Options.Opaque, and marks the entries that
// name it.
func (run *runner) opaqueParam(id, in, name string) bool {
	found := false
	for _, p := range run.opts.Opaque {
		pin, pname, _ := strings.Cut(p.Location, ".")
		if (p.Operation == "" || p.Operation == id) && pin == in &&
			(pname == name || in == "header" && strings.EqualFold(pname, name)) {
			run.opaque[p] = true
			found = true
		}
	}
	return found
}
