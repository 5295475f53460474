package typed

import (
	"errors"
	"net/http"
	"strconv"
	"unsafe"
)

// Input is one request as binding reads it: only standard types, and the
// path params through Path.
type Input struct {
	Req  *http.Request
	W    http.ResponseWriter // the server's own writer, for http.MaxBytesReader
	Path PathValues          // the matched pattern's param values
	Body Body                // how the body may be read
	// Temp lists the temporary files binding writes a multipart body's
	// files to; the caller removes them (Temp.Remove) once the In value is
	// no longer used, whatever Bind returned. Needed for an In with file
	// members only.
	Temp *Temp

	// Fails receives each failure binding finds, the first MaxFailures;
	// Bind then returns ErrInvalid or ErrUnreadable. The caller keeps
	// them in its own type, so that answering them costs no copy.
	Fails FailureSink
}

// FailureSink receives the failures of one request, in the order they
// are found: location ("path.id", "query.limit", "body.tags[1]"), the
// JSON Schema keyword (or "required", "type", "unknown", "escape",
// "syntax"), and a message in words, which quotes at most 64 bytes of the
// client's input.
type FailureSink interface {
	Fail(location, keyword, message string)
}

// PathValues gives the value of the i-th param of the matched pattern.
type PathValues interface {
	PathValue(i int) (string, bool)
}

// The errors of a request whose failures went to its FailureSink.
var (
	// ErrUnreadable: some part of the request could not be read at all
	// (a malformed escape, malformed JSON): a 400.
	ErrUnreadable = errors.New("the request could not be read")
	// ErrInvalid: the request was read, and its values break the rules:
	// a 422.
	ErrInvalid = errors.New("the request's values break the operation's rules")
)

// Bind fills the In value at base, a zeroed value of the plan's type,
// from the request in, checking each value against its rules. It returns
// nil; ErrInvalid or ErrUnreadable when it sent failures to in.Fails
// (the first MaxFailures); a *BodyError about
// the body as a whole (413, 415, 408), or a plain error for a mistake of
// the caller's (a body type encoding/json cannot decode into).
//
// NOTE: base must point to a value of p's In type, which stays reachable
// while Bind runs: every field is written at base plus the offset
// reflection gave for that type.
func (p *InPlan) Bind(in *Input, base unsafe.Pointer) error {
	// Set field by field: a composite literal of a binder is built in a
	// temporary and then copied, which doubles the cost of its size.
	var b binder
	b.in, b.base = *in, base
	b.params(p)
	if p.body != nil {
		if err := p.body.bind(&b); err != nil {
			return err
		}
	}
	return b.result()
}

// BindParams is Bind of the params alone (path, query, header and
// cookie, with their defaults), leaving the body unread; BindBody, called
// once BindParams returned nil, binds the rest. Between the two, a
// caller can judge what the params name before it reads the body: a
// write's preconditions (RFC 9110 section 13.2.1: evaluated before the
// request's content is processed). It returns what Bind does of params.
func (p *InPlan) BindParams(in *Input, base unsafe.Pointer) error {
	var b binder
	b.in, b.base = *in, base
	b.params(p)
	return b.result()
}

// BindBody is Bind of the body alone, after BindParams returned nil for
// the same in and base. Without a body it does nothing.
func (p *InPlan) BindBody(in *Input, base unsafe.Pointer) error {
	if p.body == nil {
		return nil
	}
	var b binder
	b.in, b.base = *in, base
	if err := p.body.bind(&b); err != nil {
		return err
	}
	return b.result()
}

// params binds p's path, query, header and cookie params, and sets the
// defaults of those absent (or fails the required ones).
func (b *binder) params(p *InPlan) {
	for _, pr := range p.path {
		if v, ok := b.in.Path.PathValue(pr.pathIdx); ok {
			b.one(pr, v)
		}
	}
	if len(p.query) > 0 || p.strict {
		b.query("query", p.query, b.in.Req.URL.RawQuery, p.strict)
	}
	if len(p.header) > 0 || len(p.cookie) > 0 {
		// Apart, so that an operation without header and cookie params
		// pays one test for them rather than setting up two loops.
		b.fields(p)
	}
	b.absent(p.params)
}

// result is what Bind returns of the failures b sent.
func (b *binder) result() error {
	switch {
	case b.nfails == 0:
		return nil
	case b.broken:
		return ErrUnreadable
	}
	return ErrInvalid
}

// fields binds p's header and cookie params.
func (b *binder) fields(p *InPlan) {
	req := b.in.Req
	for _, pr := range p.header {
		vs := req.Header[pr.name]
		if len(vs) > 1 {
			b.mark(pr)
			b.fail(pr.loc, "type", "must be given once, got "+strconv.Itoa(len(vs))+" values")
		} else if len(vs) == 1 {
			b.value(pr, vs[0])
		}
	}
	for _, pr := range p.cookie {
		if v, ok := cookie(req.Header["Cookie"], pr.name); ok {
			b.value(pr, v)
		}
	}
}
