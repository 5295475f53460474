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

// spell writes the header field names of doc's parameters and answers,
// canonical as the document is built, as spelled has them, or as a
// typed operation's tag spells them (tags, by canonical name: the first
// operation's that differs from the canonical form), which wins.
func spell(doc *openapi.Document, tags map[string]string) {
	name := func(k string) (string, bool) {
		if s, ok := tags[k]; ok {
			return s, true
		}
		s, ok := spelled[k]
		return s, ok
	}
	params := func(ps []*openapi.Parameter) {
		for _, p := range ps {
			if s, ok := name(p.Name); ok && p.In == "header" {
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
					if s, ok := name(k); ok && s != k {
						resp.Headers[s] = resp.Headers[k]
						delete(resp.Headers, k)
					}
				}
			}
		}
	}
}
