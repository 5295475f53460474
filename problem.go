package waltz

import (
	"slices"
	"strconv"

	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/typed"
)

// Problem is the RFC 9457 problem details document that [RenderProblem]
// sends as application/problem+json, and that the OpenAPI document
// describes for typed operations' errors.
type Problem struct {
	// Type is a URI reference naming the kind of problem; "about:blank"
	// when the status says it all (RFC 9457 section 4.2.1).
	Type string `json:"type" doc:"A URI reference that names the kind of problem; about:blank when the status says it all."`
	// Title is the status text for about:blank, else a short summary of
	// the type.
	Title string `json:"title" doc:"A short summary of the kind of problem."`
	// Status is the answer's status code, repeated for whoever reads the
	// document apart from the response.
	Status int `json:"status" doc:"The HTTP status code of this answer."`
	// Detail is the HTTPError's Message: this occurrence, in words.
	Detail string `json:"detail,omitempty" doc:"What went wrong this time, in words."`
	// Instance is the request's path: where this occurrence happened.
	Instance string `json:"instance,omitempty" doc:"The path of the request that met the problem."`
	// Errors is the HTTPError's Errors: each value of the request that is
	// wrong (an extension member, RFC 9457 section 3.2).
	Errors []FieldError `json:"errors,omitempty" doc:"Each value of the request that is missing, malformed or against a rule."`
}

// maxInstance is the longest request path a problem document repeats as
// its instance.
const maxInstance = 256

// RenderProblem writes e as an RFC 9457 problem details document,
// application/problem+json, unless the request's Accept field prefers
// text: when text/plain or text/html (or a range that covers them)
// weighs more than application/problem+json and application/json (RFC
// 9110 section 12.5.1). A client that accepts only text, a browser asking
// for HTML first among them, gets [RenderText]'s answer. A client that
// accepts neither, as one asking for an image does (Accept: image/png),
// gets the problem document: section 12.5.1 lets a server disregard the
// field rather than answer 406, and the OpenAPI document declares a
// typed operation's errors as problem details.
//
// The document's type is e.Type or "about:blank", its title the status
// text, its status e.Code, its detail e.Message, its instance the
// request's path (left out past 256 bytes), and its errors e.Errors.
//
// Set it as [Router.RenderError] to answer every error of the router this
// way, its own 404, 405 and 400 and the bundled middleware's refusals
// included:
//
//	r.RenderError = waltz.RenderProblem
//
// It is how a typed operation's errors are rendered when RenderError is
// nil.
func RenderProblem(c *Context, e *HTTPError) {
	if !acceptsProblem(c.Request.Header["Accept"]) {
		RenderText(c, e)
		return
	}
	p := Problem{Type: e.Type, Title: header.Phrase(e.Code), Status: e.Code, Detail: e.Message, Errors: e.Errors}
	if p.Type == "" {
		p.Type = "about:blank"
	}
	if path := c.Request.URL.EscapedPath(); len(path) <= maxInstance {
		p.Instance = path
	}
	bp := typed.AnswerBuf()
	b := appendProblem(slices.Grow((*bp)[:0], problemSize(&p)), &p)
	h := c.Writer.Header()
	h["Content-Type"] = contentType(&c.ctProblem, appProblem)
	c.Writer.WriteHeader(e.Code)
	_, _ = c.Writer.Write(append(b, '\n'))
	typed.PutAnswerBuf(bp, b)
}

// acceptsProblem reports whether the Accept field values vs let a problem
// document through in preference to text: whether they do not prefer
// text; see RenderProblem.
func acceptsProblem(vs []string) bool {
	if len(vs) == 0 {
		return true
	}
	j := max(header.MediaWeight(vs, "application", "problem+json"), header.MediaWeight(vs, "application", "json"))
	t := max(header.MediaWeight(vs, "text", "plain"), header.MediaWeight(vs, "text", "html"))
	return j >= t
}

// problemSize estimates the length of p's JSON, so that it is written in
// one buffer: the text's lengths, the member names and a margin for
// escapes.
func problemSize(p *Problem) int {
	n := 96 + len(p.Type) + len(p.Title) + len(p.Detail) + len(p.Instance)
	for _, e := range p.Errors {
		n += 48 + len(e.Location) + len(e.Keyword) + len(e.Message)*9/8
	}
	return n
}

// appendProblem appends p as JSON to b, as encoding/json would write it
// with HTML escaping off, without reflection: an error answer costs
// little more than the success it replaces.
func appendProblem(b []byte, p *Problem) []byte {
	b = append(b, `{"type":`...)
	b = typed.AppendString(b, p.Type, false)
	b = append(b, `,"title":`...)
	b = typed.AppendString(b, p.Title, false)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(p.Status), 10)
	if p.Detail != "" {
		b = append(b, `,"detail":`...)
		b = typed.AppendString(b, p.Detail, false)
	}
	if p.Instance != "" {
		b = append(b, `,"instance":`...)
		b = typed.AppendString(b, p.Instance, false)
	}
	if len(p.Errors) > 0 {
		b = append(b, `,"errors":[`...)
		for i, e := range p.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"location":`...)
			b = typed.AppendString(b, e.Location, false)
			b = append(b, `,"keyword":`...)
			b = typed.AppendString(b, e.Keyword, false)
			b = append(b, `,"message":`...)
			b = typed.AppendString(b, e.Message, false)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
