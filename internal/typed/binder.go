package typed

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The binder's state, at the bottom of the walk: which params were seen,
// the failures sent to the caller's sink, and where a body's walk is.

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

// A body's location, as the walk goes down it: kept in the binder, in a
// fixed array for the usual depths, and written out only for a failure.

const pathInline = 8

type pathElem struct {
	name  string // a member's JSON name, or "" for an index
	index int
}

// push enters the member name, or the item index when name is "".
func (b *binder) push(name string, index int) {
	e := pathElem{name, index}
	if b.depth < pathInline {
		b.path[b.depth] = e
	} else {
		b.deep = append(b.deep, e)
	}
	b.depth++
}

func (b *binder) pop() {
	b.depth--
	if b.depth >= pathInline {
		b.deep = b.deep[:len(b.deep)-1]
	}
}

// where returns the location of the walk, "body" or "body.tags[1]", cut
// at MaxLocation bytes for a client to read.
func (b *binder) where() string { return clipLocation(b.path0(MaxLocation + 1)) }

// path0 returns the location of the walk whole, or its first limit bytes
// or a little more.
func (b *binder) path0(limit int) string {
	var sb strings.Builder
	sb.WriteString("body")
	for i := 0; i < b.depth && sb.Len() <= limit; i++ {
		var pe pathElem
		if i < pathInline {
			pe = b.path[i]
		} else {
			pe = b.deep[i-pathInline]
		}
		if pe.name == "" {
			sb.WriteString("[" + strconv.Itoa(pe.index) + "]")
		} else {
			sb.WriteString("." + pe.name)
		}
	}
	return sb.String()
}

// MaxLocation bounds a body location, in bytes (before the "…" that
// marks a cut): it grows with the body's depth.
const MaxLocation = 256

// clipLocation cuts loc to MaxLocation bytes, at a character's start,
// marking the cut with "…".
func clipLocation(loc string) string {
	if len(loc) <= MaxLocation {
		return loc
	}
	i := MaxLocation
	for i > 0 && !utf8.RuneStart(loc[i]) {
		i--
	}
	return loc[:i] + "…"
}
