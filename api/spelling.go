package api

import (
	"maps"
	"slices"

	"github.com/waltz-go/waltz/openapi"
)

// spelled are the header field names whose registered spelling (the IANA
// HTTP Field Name Registry's, RFC 9110 section 16.3.1) is not the form
// Go's http.CanonicalHeaderKey gives them, by that form. The document is
// built with canonical names, as header maps are keyed, and written with
// these (spell): field names are case-insensitive (RFC 9110 section
// 5.1), so nothing reads them differently, but "ETag" is the field's
// name and "Etag" is not.
var spelled = map[string]string{
	"Etag":             "ETag",
	"Www-Authenticate": "WWW-Authenticate",
	"Last-Event-Id":    "Last-Event-ID", // WHATWG HTML, server-sent events
	"Content-Md5":      "Content-MD5",
	"Te":               "TE",
	"Dnt":              "DNT",
}

// spell writes the header field names of doc's parameters and answers
// as spelled has them.
func spell(doc *openapi.Document) {
	params := func(ps []*openapi.Parameter) {
		for _, p := range ps {
			if s, ok := spelled[p.Name]; ok && p.In == "header" {
				p.Name = s
			}
		}
	}
	for _, item := range doc.Paths {
		params(item.Parameters)
		for _, op := range item.Operations() {
			params(op.Parameters)
			for _, resp := range op.Responses {
				for _, k := range slices.Collect(maps.Keys(resp.Headers)) {
					if s, ok := spelled[k]; ok {
						resp.Headers[s] = resp.Headers[k]
						delete(resp.Headers, k)
					}
				}
			}
		}
	}
}
