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
// status the enum of Out's Status field lists: the same answer, by
// another status (its header fields a map of its own, which later
// additions to success's do not reach), with no content for a 204 or a
// 205 (RFC 9110 sections 15.3.5, 15.3.6).
func (o *operation) describeStatuses(d *openapi.Operation, success *openapi.Response) {
	phrase := header.Phrase(o.out.SuccessStatus())
	for _, s := range o.out.Statuses() {
		if s == o.out.SuccessStatus() {
			continue
		}
		r := *success
		r.Headers = maps.Clone(success.Headers)
		r.Description = header.Phrase(s)
		switch {
		case typed.NoContent(s):
			r.Content = nil // and its phrase says so
		case success.Description != phrase:
			r.Description += ": " + success.Description
		}
		d.Responses[strconv.Itoa(s)] = &r
	}
}
