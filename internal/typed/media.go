package typed

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/waltz-go/waltz/internal/header"
)

// The media types a typed operation's body may come in, one mediaKind
// each. A body plan holds the kinds its operation takes, as data: binding
// picks the kind whose media type the request's Content-Type names, or
// answers 415 with the list; the document lists the same media types
// under requestBody.content. A new kind of body (multipart, a merge
// patch) is a new entry in mediaKinds, with its own plan, and a case in
// bindKind.

// mediaKind is one kind of request body.
type mediaKind struct {
	id        kindID
	name      string // in the consumes tag: "json", "form"
	mediaType string // the Content-Type it binds, and its key in the document
	// plan readies bp to bind this kind, or says why bp's type cannot be
	// sent in it; nil when any body type can.
	plan func(bp *bodyPlan) error
}

type kindID uint8

const (
	kindJSON kindID = iota
	kindForm
	kindMultipart
	kindMergePatch
)

// mediaKinds are the kinds of body a consumes tag may name. The first is
// what an operation without the tag takes.
var mediaKinds = []*mediaKind{
	{id: kindJSON, name: "json", mediaType: "application/json"},
	{id: kindForm, name: "form", mediaType: "application/x-www-form-urlencoded", plan: planFormKind},
	multipartKind,
	mergePatchKind,
}

// multipartKind is the kind of a body with file members (multipart.go),
// the one kind such a body takes.
var multipartKind = &mediaKind{id: kindMultipart, name: "multipart", mediaType: "multipart/form-data", plan: planMultipartKind}

// planMultipartKind refuses the multipart kind to a body without file
// members, whose plan planBody did not make.
func planMultipartKind(bp *bodyPlan) error {
	if bp.multi == nil {
		return fmt.Errorf("a multipart/form-data body is a struct with a file member (api.File)")
	}
	return nil
}

// bindKind reads the request's body, of kind k, into the body value at
// p. It calls each kind's binder directly, not through a func value in
// the table: an indirect call would make every binder escape to the
// heap, an allocation on every request, body or not.
func (bp *bodyPlan) bindKind(k *mediaKind, b *binder) error {
	switch k.id {
	case kindForm:
		return bp.bindForm(b, bp.at(b))
	case kindMultipart:
		return bp.multi.bind(b, bp.at(b))
	}
	return bp.bindJSON(b) // JSON and merge patches
}

// planFormKind readies bp for form bodies: its type must be a struct of
// scalars, pointers to them and slices of them.
func planFormKind(bp *bodyPlan) error {
	if bp.typ.Kind() == reflect.Struct {
		bp.form = planForm(bp.typ)
	}
	if bp.form == nil {
		return fmt.Errorf("a form body fills a struct whose members are scalars, pointers to them or slices of them, " +
			"at most 128, none behind an embedded pointer")
	}
	return nil
}

// planMedia sets bp.media from the consumes tag of the Body field f:
// names of kinds, separated by commas ("json,form"); without the tag,
// def alone (JSON, multipart for a body with file members, or a merge
// patch for one with an Optional member).
func (bp *bodyPlan) planMedia(f *reflect.StructField, def *mediaKind) error {
	v, ok := f.Tag.Lookup("consumes")
	if !ok {
		bp.media = []*mediaKind{def}
		return nil
	}
	for name := range strings.SplitSeq(v, ",") {
		name = strings.TrimSpace(name)
		var k *mediaKind
		for _, mk := range mediaKinds {
			if mk.name == name {
				k = mk
			}
		}
		switch {
		case k == nil:
			return fmt.Errorf("tag consumes:%q: %q is no kind of body; the kinds: %s", v, name, kindNames())
		case bp.takes(k):
			return fmt.Errorf("tag consumes:%q names %q twice", v, name)
		case bp.multi != nil && k != multipartKind:
			return fmt.Errorf("tag consumes:%q: a body with file members comes as multipart alone", v)
		}
		if k.plan != nil {
			if err := k.plan(bp); err != nil {
				return fmt.Errorf("tag consumes:%q: %v", v, err)
			}
		}
		bp.media = append(bp.media, k)
	}
	return nil
}

func kindNames() string {
	names := make([]string, len(mediaKinds))
	for i, k := range mediaKinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// takes reports whether bp binds bodies of kind k.
func (bp *bodyPlan) takes(k *mediaKind) bool {
	for _, mk := range bp.media {
		if mk == k {
			return true
		}
	}
	return false
}

// kindOf returns the kind of bp's that the Content-Type value ct names,
// with or without parameters, in any letter case; or nil.
func (bp *bodyPlan) kindOf(ct string) *mediaKind {
	mt, _, _ := strings.Cut(ct, ";")
	mt = header.TrimOWS(mt)
	for _, k := range bp.media {
		if header.EqualFold(mt, k.mediaType) {
			return k
		}
	}
	return nil
}

// MediaTypes returns the media types p's body may come in, in the order
// its consumes tag names them; nil when p has no Body field.
func (p *InPlan) MediaTypes() []string {
	if p.body == nil {
		return nil
	}
	return p.body.mediaTypes()
}

func (bp *bodyPlan) mediaTypes() []string {
	mts := make([]string, len(bp.media))
	for i, k := range bp.media {
		mts[i] = k.mediaType
	}
	return mts
}

// RequireContentType makes p refuse a request that has no Content-Type,
// whatever its body, with a 400 (a *BodyError of ReasonMediaType) rather
// than bind it as an absent body: a QUERY's content is its query, and
// its media type says what the query means (RFC 10008 section 2.1: a
// request lacking it "needs to fail"). It does nothing for a p with no
// Body field; call it before p is used.
func (p *InPlan) RequireContentType() {
	if p.body != nil {
		p.body.needType = true
	}
}

// untyped returns the 400 of a request without a Content-Type to a body
// plan that needs one, naming the media types it takes.
func (bp *bodyPlan) untyped() *BodyError {
	mts := bp.mediaTypes()
	return &BodyError{Status: http.StatusBadRequest, Reason: ReasonMediaType, Accept: mts,
		Message: "a QUERY request must say what its content is in Content-Type (RFC 10008 section 2.1): " + strings.Join(mts, " or ")}
}

// unsupported returns the 415 of a request whose Content-Type (ct) or
// Content-Encoding (ce) bp does not take, naming the media types it
// does (RFC 9110 section 15.5.16).
func (bp *bodyPlan) unsupported(ct, ce string) *BodyError {
	if ce != "" {
		return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType, Encoding: true,
			Message: fmt.Sprintf("Content-Encoding %s is not supported", Quote(ce))}
	}
	got := "none"
	if ct != "" {
		got = Quote(ct)
	}
	mts := bp.mediaTypes()
	return &BodyError{Status: http.StatusUnsupportedMediaType, Reason: ReasonMediaType, Accept: mts,
		Message: "Content-Type must be " + strings.Join(mts, " or ") + ", got " + got}
}
