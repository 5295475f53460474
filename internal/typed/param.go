package typed

// Binding one param's value: parsed by its codec, checked against its
// rules, stored in its field; and the defaults of the params left out.

// value binds s, the one value of pr's header or cookie. An empty value
// is a value, as in a query: of a type other than string, one that fails
// its type.
func (b *binder) value(pr *param, s string) {
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
