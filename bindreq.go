package waltz

import (
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"unsafe"
)

// binder is the state of binding one request into an In value.
type binder struct {
	c      *Context
	base   unsafe.Pointer // the In value
	seen   [maxFields / 64]uint64
	errs   []FieldError
	broken bool // some part of the request could not be read: 400, not 422

	// Where the walk of the body is; see push.
	path    [pathInline]pathElem
	depth   int
	deep    []pathElem
	inMap   int             // the scan is inside a map's values
	missing map[string]bool // the locations of members with rules the body lacks or sends as null
}

// bind fills the In value at base from c's request, then validates it. The
// error is an HTTPError listing every failure, or the body's error.
func (p *inPlan) bind(c *Context, base unsafe.Pointer) error {
	b := binder{c: c, base: base}
	for _, pr := range p.path {
		if pr.pathIdx < len(c.params) {
			b.one(pr, c.params[pr.pathIdx].Value)
		}
	}
	if len(p.query) > 0 || p.strict {
		b.query("query", p.query, c.Request.URL.RawQuery, p.strict)
	}
	for _, pr := range p.header {
		vs := c.Request.Header[pr.name]
		if len(vs) > 1 {
			b.mark(pr)
			b.fail(pr.loc, "type", "must be given once, got "+strconv.Itoa(len(vs))+" values")
		} else if len(vs) == 1 {
			b.value(pr, vs[0])
		}
	}
	for _, pr := range p.cookie {
		if v, ok := cookie(c.Request.Header["Cookie"], pr.name); ok {
			b.value(pr, v)
		}
	}
	b.absent(p.params)
	if p.body != nil {
		if err := p.body.bind(&b); err != nil {
			return err
		}
	}
	if b.errs == nil && p.validate {
		b.errs = reflect.NewAt(p.typ, base).Interface().(interface {
			Validate(*Context) []FieldError
		}).Validate(c)
	}
	if b.errs == nil {
		return nil
	}
	return b.problem()
}

// problem returns the HTTPError of the failures b found.
func (b *binder) problem() error {
	if b.broken {
		return &HTTPError{Code: http.StatusBadRequest, Message: "the request could not be read", Errors: b.errs}
	}
	return &HTTPError{Code: http.StatusUnprocessableEntity, Message: "the request's values break the operation's rules",
		Errors: b.errs}
}

// maxFailures is the most failures one request is told of, the first
// ones found: a body of many small wrong values could otherwise make an
// answer, and the memory for it, many times its own size.
const maxFailures = 100

// full reports whether b holds as many failures as it keeps, so that the
// walk need not work out where the next one is.
func (b *binder) full() bool { return len(b.errs) >= maxFailures }

func (b *binder) fail(loc, keyword, msg string) {
	if b.full() {
		return
	}
	if b.errs == nil {
		b.errs = make([]FieldError, 0, 4)
	}
	b.errs = append(b.errs, FieldError{Location: loc, Keyword: keyword, Message: msg})
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
	p := unsafe.Add(b.base, pr.off)
	if pr.ptr {
		nv := reflect.New(pr.codec.typ)
		*(*unsafe.Pointer)(p) = nv.UnsafePointer()
		p = nv.UnsafePointer()
	}
	if err := pr.codec.store(p, v); err != nil {
		b.fail(pr.loc, "format", "is not valid: "+clipClient(err.Error()))
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
			p := unsafe.Add(b.base, pr.off)
			if pr.ptr {
				nv := reflect.New(pr.codec.typ)
				*(*unsafe.Pointer)(p) = nv.UnsafePointer()
				p = nv.UnsafePointer()
			}
			_ = pr.codec.store(p, *pr.def) // checked at registration
		}
	}
}

// query binds the params ps from the raw query q without parsing it into
// a map: each pair is looked up among ps by its name; a value is decoded
// only when it holds an escape. A name that is no param is ignored, or
// refused when strict. Pairs with a ';' are skipped, as net/url does.
// in names where the pairs are, "query" or "body" (a form), for the
// locations of failures that belong to no param.
func (b *binder) query(in string, ps []*param, q string, strict bool) {
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if pair == "" || strings.IndexByte(pair, ';') >= 0 {
			continue
		}
		key, val, _ := strings.Cut(pair, "=")
		key, ok := b.unescape(in, key, key)
		if !ok {
			continue
		}
		pr := findParam(ps, key)
		if pr == nil {
			if strict {
				b.fail(in+"."+clipClient(key), "unknown", "is no parameter of this operation")
			}
			continue
		}
		if pr.multi {
			if !b.mark(pr) {
				b.multi(pr, key, val, q)
			}
			continue
		}
		if b.seen[pr.index/64]&(1<<(pr.index%64)) != 0 {
			b.fail(pr.loc, "type", "must be given once")
			continue
		}
		val, ok = b.unescape(pr.loc, val, val)
		switch {
		case !ok:
			b.mark(pr) // present, if unreadable: not also "required"
		case val != "" || pr.codec.kind == kString:
			b.one(pr, val)
		}
	}
}

func findParam(ps []*param, name string) *param {
	for _, pr := range ps {
		if pr.name == name {
			return pr
		}
	}
	return nil
}

// unescape decodes s, a query key or value, which allocates only when s
// holds an escape; a malformed escape is a failure at loc.
func (b *binder) unescape(loc, s, show string) (string, bool) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	if err != nil {
		b.broken = true
		b.fail(loc, "escape", "holds a malformed percent-escape: "+quoteClient(show))
		return "", false
	}
	return u, true
}

// got returns msg followed by ", got" and s, from the client, clipped and
// quoted, in one allocation.
func got(msg, s string) string {
	s = clipClient(s)
	b := make([]byte, 0, len(msg)+len(", got ")+len(s)+8)
	b = append(b, msg...)
	b = append(b, ", got "...)
	b = strconv.AppendQuote(b, s)
	return unsafe.String(unsafe.SliceData(b), len(b))
}
