package api

import (
	"maps"
	"strconv"

	"github.com/waltz-go/waltz/internal/header"
	"github.com/waltz-go/waltz/internal/typed"
	"github.com/waltz-go/waltz/openapi"
)

// The success statuses of a typed answer beyond its default one: those
// the enum of Out's Status field lists (`enum:"200,202"`, planned and
// checked by internal/typed's outstatus.go), each described as the
// default success answer is. A handler's Status outside them is refused
// as the answer is written (writeOut).

// describeStatuses adds to d, beside success, an answer for each other
// status the enum of Out's Status field lists (answerAs), content the
// content of Out's Body.
func (o *operation) describeStatuses(d *openapi.Operation, success *openapi.Response, content map[string]*openapi.MediaType) {
	for _, s := range o.out.Statuses() {
		if s != o.out.SuccessStatus() {
			d.Responses[strconv.Itoa(s)] = o.answerAs(s, success, content)
		}
	}
}

// answerAs returns the answer of status s described as success, the
// default success answer, is: the same answer by another status, its
// header fields a map of its own (which later additions to success's do
// not reach), with content, the content of Out's Body, but for a 204 or
// a 205, which have none (RFC 9110 sections 15.3.5, 15.3.6), whatever
// success has (none when it is itself a 204 or 205).
func (o *operation) answerAs(s int, success *openapi.Response, content map[string]*openapi.MediaType) *openapi.Response {
	r := *success
	r.Headers = maps.Clone(success.Headers)
	r.Description = header.Phrase(s)
	r.Content = content
	switch {
	case typed.NoContent(s):
		r.Content = nil // and its phrase says so
	case success.Description != header.Phrase(o.out.SuccessStatus()):
		r.Description += ": " + success.Description
	}
	return &r
}
