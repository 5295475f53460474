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

// binder is the state of binding one request into an In value.
type binder struct {
	in     Input
	base   unsafe.Pointer // the In value
	seen   [maxFields / 64]uint64
	nfails int  // the failures sent to in.Fails
	broken bool // some part of the request could not be read: 400, not 422

	// Where the walk of the body is; see push.
	path    [pathInline]pathElem
	depth   int
	deep    []pathElem
	inMap   int             // the scan is inside a map's values
	missing map[string]bool // the locations of members with rules the body lacks or sends as null
}

// Bind fills the In value at base, a zeroed value of the plan's type,
// from the request in, checking each value against its rules. It returns
// nil, the *Failures found (the first MaxFailures), a *BodyError about
// the body as a whole (413, 415, 408), or a plain error for a mistake of
// the caller's (a body type encoding/json cannot decode into).
//
// NOTE: base must point to a value of p's In type, which stays reachable
// while Bind runs: every field is written at base plus the offset
// reflection gave for that type.
func (p *InPlan) Bind(in *Input, base unsafe.Pointer) error {
	b := binder{in: *in, base: base}
	for _, pr := range p.path {
		if v, ok := in.Path.PathValue(pr.pathIdx); ok {
			b.one(pr, v)
		}
	}
	if len(p.query) > 0 || p.strict {
		b.query("query", p.query, in.Req.URL.RawQuery, p.strict)
	}
	for _, pr := range p.header {
		vs := in.Req.Header[pr.name]
		if len(vs) > 1 {
			b.mark(pr)
			b.fail(pr.loc, "type", "must be given once, got "+strconv.Itoa(len(vs))+" values")
		} else if len(vs) == 1 {
			b.value(pr, vs[0])
		}
	}
	for _, pr := range p.cookie {
		if v, ok := cookie(in.Req.Header["Cookie"], pr.name); ok {
			b.value(pr, v)
		}
	}
	b.absent(p.params)
	if p.body != nil {
		if err := p.body.bind(&b); err != nil {
			return err
		}
	}
	switch {
	case b.nfails == 0:
		return nil
	case b.broken:
		return ErrUnreadable
	}
	return ErrInvalid
}

// MaxFailures is the most failures one request is told of, the first
// ones found: a body of many small wrong values could otherwise make an
// answer, and the memory for it, many times its own size.
const MaxFailures = 100

// full reports whether b holds as many failures as it keeps, so that the
// walk need not work out where the next one is.
func (b *binder) full() bool { return b.nfails >= MaxFailures }

func (b *binder) fail(loc, keyword, msg string) {
	if b.full() {
		return
	}
	b.nfails++
	b.in.Fails.Fail(loc, keyword, msg)
}

func (b *binder) mark(pr *param) bool {
	w, bit := pr.index/64, uint64(1)<<(pr.index%64)
	had := b.seen[w]&bit != 0
	b.seen[w] |= bit
	return had
}

// value binds s, the one value of pr's header or cookie, or a path param.
// An empty value of a type other than string is taken as absent.
func (b *binder) value(pr *param, s string) {
	if s == "" && pr.codec.kind != kString {
		return
	}
	b.mark(pr)
	b.one(pr, s)
}

// one parses, checks and stores s as pr's single value.
func (b *binder) one(pr *param, s string) {
	b.mark(pr)
	v, kw, want := pr.codec.parse(s)
	if kw != "" {
		b.fail(pr.loc, kw, got(want, s))
		return
	}
	if !b.check(pr.loc, pr.rules, v) {
		return
	}
	p := fieldAt(b.base, pr.off)
	if pr.ptr {
		p = setNew(p, pr.codec.typ)
	}
	if err := pr.codec.store(p, v); err != nil {
		b.fail(pr.loc, "format", "is not valid: "+Clip(err.Error()))
	}
}

// check appends a failure for each rule of rs that v breaks, and reports
// whether there was none.
func (b *binder) check(loc string, rs *rules, v scalar) bool {
	if rs == nil {
		return true
	}
	var buf [4]failure
	fs := rs.check(v, buf[:0])
	for _, f := range fs {
		b.fail(loc, f.keyword, got(f.message, v.s))
	}
	return len(fs) == 0
}

// absent stores the defaults of the params the request left out, and
// fails the required ones.
func (b *binder) absent(ps []*param) {
	for _, pr := range ps {
		if b.seen[pr.index/64]&(1<<(pr.index%64)) != 0 {
			continue
		}
		switch {
		case pr.required:
			b.fail(pr.loc, "required", "is required")
		case pr.def != nil:
			p := fieldAt(b.base, pr.off)
			if pr.ptr {
				p = setNew(p, pr.codec.typ)
			}
			_ = pr.codec.store(p, *pr.def) // checked at registration
		}
	}
}
