package typed

import (
	"unsafe"
)

// The binder's state, at the bottom of the walk: which params were seen,
// the failures sent to the caller's sink, and where a body's walk is.

// binder is the state of binding one request into an In value.
type binder struct {
	in     Input
	base   unsafe.Pointer // the In value
	seen   [maxFields / 64]uint64
	twice  [maxFields / 64]uint64 // the params given more than once, told once
	nfails int                    // the failures sent to in.Fails
	broken bool                   // some part of the request could not be read: 400, not 422
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

// repeated records that pr was given once too often, and reports whether
// it is the first time: a param sent a thousand times is one failure, not
// a thousand that push out the others.
func (b *binder) repeated(pr *param) bool {
	w, bit := pr.index/64, uint64(1)<<(pr.index%64)
	had := b.twice[w]&bit != 0
	b.twice[w] |= bit
	return !had
}

func (b *binder) mark(pr *param) bool {
	w, bit := pr.index/64, uint64(1)<<(pr.index%64)
	had := b.seen[w]&bit != 0
	b.seen[w] |= bit
	return had
}
