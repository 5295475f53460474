package typed

import "reflect"

// mergePatchKind is the kind of a JSON Merge Patch body (RFC 7396 section
// 4: application/merge-patch+json), read by the JSON decoder. A body
// struct with an Optional member takes it alone unless its consumes tag
// says otherwise: a JSON body of another media type would not mean what
// RFC 7396 says of null.
var mergePatchKind = &mediaKind{id: kindMergePatch, name: "merge-patch", mediaType: "application/merge-patch+json"}

// isMergePatch reports whether the body type t is a merge patch: a struct
// with a wrapped member (an Optional, which tells a member left out from
// one sent as null).
func isMergePatch(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for _, jf := range jsonFields(t) {
		if wrappedOf(jf.f.Type) != nil {
			return true
		}
	}
	return false
}
