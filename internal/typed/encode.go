package typed

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// The client's side of an In plan: an In value written out as the
// request that binds back to it, checked by the rules binding checks, so
// that a client sends only what the server would take.

// Encoded is an In value as a client sends it.
type Encoded struct {
	// Path holds the path params' values as text, unescaped, by their
	// index in the pattern; the caller makes it as long as the pattern
	// has params.
	Path []string
	// Query is the query string, escaped and without its '?': Encode
	// appends to it.
	Query []byte
	// Header receives the header params, and the cookie params as one
	// Cookie field appended to the one it holds, if any.
	Header http.Header
	// Body and ContentType are the body and its media type; nil and ""
	// when no body is sent.
	Body        []byte
	ContentType string
}

// Encodable returns an error, naming the type and field, when a field of
// p's In type cannot be written as text: a text type with no
// MarshalText.
func (p *InPlan) Encodable() error {
	ps := p.params
	if p.body != nil && p.body.form != nil {
		ps = append(ps[:len(ps):len(ps)], p.body.form.params...)
	}
	for _, pr := range ps {
		if pr.codec.kind == kText && !pr.codec.typ.Implements(textMarshaler) {
			t := p.typ
			if pr.place == inForm {
				t = p.body.typ
			}
			return PlanError(t, &pr.field, "a client cannot send it: %s has no MarshalText method", pr.codec.typ)
		}
	}
	if p.body != nil && p.body.multi == nil {
		if st, f := absentAsNull(p.body.typ, map[reflect.Type]bool{}); f != nil {
			return PlanError(st, f, "a client would send it as null when it is absent, which in a merge patch "+
				"removes the member (RFC 7396 section 2): add the json option omitzero, which leaves it out")
		}
	}
	return nil
}

// absentAsNull returns the first member inside t of a Wrapper type (a
// merge patch's member: absent, null or a value) that encoding/json
// writes when it is absent, for want of the json option omitzero, and the
// struct that holds it; seen holds the types looked at.
func absentAsNull(t reflect.Type, seen map[reflect.Type]bool) (reflect.Type, *reflect.StructField) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil, nil
	}
	seen[t] = true
	for _, jf := range jsonFields(t) {
		f := jf.f
		if reflect.PointerTo(f.Type).Implements(wrapperType) {
			_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !slices.Contains(strings.Split(opts, ","), "omitzero") {
				return t, &f
			}
			continue
		}
		if st, bad := absentAsNull(f.Type, seen); bad != nil {
			return st, bad
		}
	}
	return nil, nil
}

// Media is how Encode writes an In value's body.
type Media uint8

const (
	// MediaJSON writes the body as JSON; a body whose operation takes
	// forms alone (consumes:"form") as a form.
	MediaJSON Media = iota
	// MediaForm writes the body as application/x-www-form-urlencoded,
	// for a body that TakesForm; JSON otherwise.
	MediaForm
)

// TakesForm reports whether p's body may be sent as a form: its Body
// field's consumes tag names the form kind.
func (p *InPlan) TakesForm() bool { return p.body != nil && p.body.form != nil }

// Encode writes the In value at base, of p's type, into e, as a request
// whose binding gives that value back: a field that holds its type's
// zero value (a nil pointer, an empty slice) is left out unless it is
// required, so that the server applies its default; the body as media
// says.
//
// Each value is checked as Bind checks it, and each failure Bind would
// find goes to fails, in the order Bind finds them (path, query, header,
// cookie, the required ones left out, then the body), with the same
// location, keyword and message; so do the values a request cannot carry
// as they are (a header value with a control character or surrounding
// white space, a cookie value with a ';'), which binding would read
// otherwise. Encode then returns ErrInvalid, having written e all the
// same. A body with file members is written as multipart/form-data,
// whatever media says; a file that binding would refuse as a whole
// (past its maxBytes, of a media type its accept tag does not list) is
// the *BodyError binding returns, and e is not complete. Encode returns
// nil when nothing failed.
//
// NOTE: base must point to a value of p's In type, which stays reachable
// while Encode runs.
func (p *InPlan) Encode(base unsafe.Pointer, e *Encoded, media Media, fails FailureSink) error {
	b := binder{in: Input{Fails: fails}, base: base}
	for _, pr := range p.path {
		if s, ok := b.text(pr, fieldAt(base, pr.off)); ok {
			e.Path[pr.pathIdx] = s
		}
	}
	e.Query = b.appendPairs(e.Query, p.query, base)
	for _, pr := range p.header {
		if s, ok := b.text(pr, fieldAt(base, pr.off)); ok {
			if headerValue(s) {
				e.Header[pr.name] = []string{s}
			} else {
				b.fail(pr.loc, "format", got("must be a header field value (no control characters, "+
					"no white space around it; RFC 9110 section 5.5)", s))
			}
		}
	}
	if len(p.cookie) > 0 {
		b.cookies(e, p.cookie, base)
	}
	b.required(p.params, base)
	if p.body != nil {
		if err := p.body.encode(&b, p.typ, e, media); err != nil {
			return err
		}
	}
	if b.nfails > 0 {
		return ErrInvalid
	}
	return nil
}

// text returns the value of pr's field at fp as text, checked as binding
// checks it (a failure goes to b, and the value is sent all the same);
// sent is false when the field is left out (see Encode).
func (b *binder) text(pr *param, fp unsafe.Pointer) (s string, sent bool) {
	if pr.ptr {
		if fp = deref(fp); fp == nil {
			return "", false
		}
	}
	v := pr.codec.load(fp)
	if !pr.ptr && !pr.required && isZero(pr.codec, v, fp) {
		return "", false
	}
	b.mark(pr)
	s, _, _ = b.checked(pr, -1, v)
	return s, true
}

// checked formats v, pr's value (item i of it, or the one value when i
// is -1), parses it back and checks it as binding does; it returns the
// text and the value parsed, and reports whether it passed.
func (b *binder) checked(pr *param, i int, v scalar) (string, scalar, bool) {
	s := pr.codec.format(v)
	w, kw, want := pr.codec.parse(s)
	switch {
	case kw != "":
		b.fail(itemLoc(pr, i), kw, got(want, s))
		return s, w, false
	case pr.rules != nil:
		var buf [4]failure
		fs := pr.rules.check(w, buf[:0])
		for _, f := range fs {
			b.fail(itemLoc(pr, i), f.keyword, got(f.message, s))
		}
		if len(fs) > 0 {
			return s, w, false
		}
	}
	if pr.codec.kind == kText {
		// Binding stores the text with UnmarshalText, which may refuse it.
		if err := pr.codec.store(reflect.New(pr.codec.typ).UnsafePointer(), w); err != nil {
			b.fail(itemLoc(pr, i), "format", "is not valid: "+Clip(err.Error()))
			return s, w, false
		}
	}
	return s, w, true
}

// itemLoc returns the location of item i of pr, or of pr when i is -1:
// written out only for a failure, as multi does.
func itemLoc(pr *param, i int) string {
	if i < 0 {
		return pr.loc
	}
	return pr.loc + "[" + strconv.Itoa(i) + "]"
}

// isZero reports whether v, loaded from p by c, is its type's zero value.
func isZero(c *codec, v scalar, p unsafe.Pointer) bool {
	switch c.kind {
	case kString:
		return v.s == ""
	case kBool, kInt, kDuration:
		return v.i == 0
	case kUint:
		return v.u == 0
	case kFloat:
		return v.f == 0
	case kTime:
		return v.t.IsZero()
	}
	return reflect.NewAt(c.typ, p).Elem().IsZero()
}

// appendPairs appends to q the pairs of the params ps, which are query
// params or form fields, of the value at base, as nextPair reads them: a
// repeated param as one pair per item.
func (b *binder) appendPairs(q []byte, ps []*param, base unsafe.Pointer) []byte {
	for _, pr := range ps {
		fp := fieldAt(base, pr.off)
		if pr.multi {
			q = b.appendItems(q, pr, fp)
			continue
		}
		if s, ok := b.text(pr, fp); ok {
			q = appendPair(q, pr.name, s)
		}
	}
	return q
}

// appendItems appends the items of the repeated param pr, the slice at
// fp, checking them as multi does.
func (b *binder) appendItems(q []byte, pr *param, fp unsafe.Pointer) []byte {
	data, n := sliceAt(fp)
	if n == 0 {
		return q
	}
	b.mark(pr)
	size := pr.codec.typ.Size()
	if pr.itemPtr {
		size = unsafe.Sizeof(uintptr(0))
	}
	// item returns the address of item i's value, nil for a nil pointer
	// item, which no query can carry.
	item := func(i int) unsafe.Pointer {
		ip := itemAt(data, i, size)
		if pr.itemPtr {
			if ip = deref(ip); ip == nil {
				b.fail(itemLoc(pr, i), "type", "is nil: a query item has a value")
			}
		}
		return ip
	}
	// put appends item i's text: a pair of its own, or for the comma
	// form (explode:"false") after a comma, escaped so that a comma of
	// its own stays inside it.
	put := func(q []byte, i int, s string) []byte {
		if pr.comma && i > 0 {
			return appendEscaped(append(q, ','), s)
		}
		return appendPair(q, pr.name, s)
	}
	if n > pr.maxItems {
		// Binding counts the items before it reads any, as here.
		b.fail(pr.loc, "maxItems", "must have at most "+items(pr.maxItems)+", got more")
		for i := range n {
			if ip := item(i); ip != nil {
				q = put(q, i, pr.codec.format(pr.codec.load(ip)))
			}
		}
		return q
	}
	var vals []scalar
	if pr.rules != nil && pr.rules.uniqueItems {
		vals = make([]scalar, 0, n)
	}
	for i := range n {
		ip := item(i)
		if ip == nil {
			continue
		}
		s, w, ok := b.checked(pr, i, pr.codec.load(ip))
		if ok && vals != nil {
			vals = append(vals, w)
		}
		q = put(q, i, s)
	}
	if pr.rules != nil {
		var buf [2]failure
		for _, f := range pr.rules.checkItems(n, func() bool { return pr.rules.distinctScalars(vals) }, buf[:0]) {
			b.fail(pr.loc, f.keyword, f.message)
		}
	}
	return q
}

// cookies appends the cookie params of the value at base to e's Cookie
// field, as one line (RFC 6265 section 5.4).
func (b *binder) cookies(e *Encoded, ps []*param, base unsafe.Pointer) {
	var line []byte
	if old := e.Header["Cookie"]; len(old) > 0 {
		line = append(line, old[0]...)
	}
	n := len(line)
	for _, pr := range ps {
		s, ok := b.text(pr, fieldAt(base, pr.off))
		if !ok {
			continue
		}
		quote, good := cookieValue(s)
		if !good {
			b.fail(pr.loc, "format", got("must be a cookie value (no control characters, '\"', ';' or '\\'; "+
				"RFC 6265 section 4.1.1)", s))
			continue
		}
		if len(line) > 0 {
			line = append(line, "; "...)
		}
		line = append(line, pr.name...)
		line = append(line, '=')
		if quote {
			line = append(line, '"')
		}
		line = append(line, s...)
		if quote {
			line = append(line, '"')
		}
	}
	if len(line) > n {
		e.Header["Cookie"] = []string{string(line)}
	}
}

// required fails the required params of ps that the value at base
// leaves out, as absent does for a request.
func (b *binder) required(ps []*param, base unsafe.Pointer) {
	for _, pr := range ps {
		if pr.required && b.seen[pr.index/64]&(1<<(pr.index%64)) == 0 {
			b.fail(pr.loc, "required", "is required")
		}
	}
}

// encode writes the body of the In value of b, of type in, into e, as media says
// when the body takes it and as JSON otherwise, checking it as bind
// does; a body with file members as multipart/form-data.
func (bp *bodyPlan) encode(b *binder, in reflect.Type, e *Encoded, media Media) error {
	p := fieldAt(b.base, bp.off)
	if bp.ptr {
		if p = deref(p); p == nil {
			return nil // an optional body, left out
		}
	}
	if bp.multi != nil {
		return bp.multi.encode(b, p, e)
	}
	if bp.form != nil && (media == MediaForm || !bp.takes(mediaKinds[0])) {
		fb := binder{in: b.in, base: p, nfails: b.nfails}
		e.Body = fb.appendPairs(e.Body[:0], bp.form.params, p)
		if e.Body == nil {
			e.Body = []byte{}
		}
		fb.required(bp.form.params, p)
		b.nfails = fb.nfails
		e.ContentType = "application/x-www-form-urlencoded"
		return nil
	}
	body, err := json.Marshal(reflect.NewAt(bp.typ, p).Interface())
	if err != nil {
		b.fail("body", "type", "cannot be written as JSON: "+Clip(err.Error()))
		return nil
	}
	e.Body, e.ContentType = body, bp.jsonType()
	// The text is checked by the server's own decoder, into a value of
	// the In type of its own, which leaves the caller's as it is.
	sb := binder{in: b.in, base: reflect.New(in).UnsafePointer(), nfails: b.nfails}
	bp.decode(&sb, body)
	b.nfails, b.broken = sb.nfails, b.broken || sb.broken
	return nil
}

// appendPair appends name=value to q, each escaped as url.QueryEscape
// escapes it, after a '&' unless q is empty.
func appendPair(q []byte, name, value string) []byte {
	if len(q) > 0 {
		q = append(q, '&')
	}
	q = appendEscaped(q, name)
	q = append(q, '=')
	return appendEscaped(q, value)
}

// appendEscaped appends s to q as url.QueryEscape writes it: unreserved
// characters (RFC 3986 section 2.3) as they are, a space as '+', every
// other byte as %XX.
func appendEscaped(q []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~':
			q = append(q, c)
		case c == ' ':
			q = append(q, '+')
		default:
			q = append(q, '%', hex[c>>4], hex[c&15])
		}
	}
	return q
}

// headerValue reports whether s reaches a server as it is, as a header
// field value: no control character but a tab, no white space at either
// end, which a reader drops (RFC 9110 section 5.5).
func headerValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return s == "" || !isBlank(s[0]) && !isBlank(s[len(s)-1])
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// cookieValue reports whether s can be sent as a cookie value that
// cookie reads back as s, and whether it must be quoted for that: the
// cookie-octets of RFC 6265 section 4.1.1 and the bytes past ASCII, which
// a server reads as they are, and a space or comma, which only a quoted
// value carries (as net/http quotes them).
func cookieValue(s string) (quote, ok bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == ',':
			quote = true
		case c < ' ' || c == 0x7f || c == '"' || c == ';' || c == '\\':
			return false, false
		}
	}
	return quote, true
}

// jsonType returns the media type a JSON text of bp is sent as: the first
// JSON kind bp takes, plain JSON or a merge patch (RFC 7396).
func (bp *bodyPlan) jsonType() string {
	for _, k := range bp.media {
		if k.id == kindJSON || k.id == kindMergePatch {
			return k.mediaType
		}
	}
	return "application/json"
}
