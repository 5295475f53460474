package typed

import (
	"strconv"
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

// A body's location, as the decoder goes down it: kept in a fixed array
// for the usual depths, and written out only for a failure.

const pathInline = 8

// bodyPath is where the decoder is in a body; see push.
type bodyPath struct {
	path  [pathInline]pathElem
	depth int
	deep  []pathElem
}

type pathElem struct {
	name  string // a map's key (index -1), or a member's location as the top one (index memberElem)
	index int    // an item's index, -1 or memberElem
}

// memberElem is the index of a pathElem that is a struct's member, whose
// name is the member's location at the top of the body, "body.name" or
// `body["a.b"]`, made when the body was planned: a failure of a top-level
// member needs no location written out, and a deeper one appends the part
// after "body".
const memberElem = -2

// memberLoc returns the location of the member name at the top of a body.
func memberLoc(name string) string {
	if plainName(name) {
		return "body." + name
	}
	return "body[" + strconv.Quote(name) + "]"
}

// pushMember enters the member whose top location is loc (memberLoc).
func (b *bodyPath) pushMember(loc string) { b.push(loc, memberElem) }

// push enters the member or key name (index -1), or the item index.
func (b *bodyPath) push(name string, index int) {
	e := pathElem{name, index}
	if b.depth < pathInline {
		b.path[b.depth] = e
	} else {
		b.deep = append(b.deep, e)
	}
	b.depth++
}

func (b *bodyPath) pop() {
	b.depth--
	if b.depth >= pathInline {
		b.deep = b.deep[:len(b.deep)-1]
	}
}

// where returns the location of the walk, "body" or "body.tags[1]", cut
// at MaxLocation bytes for a client to read.
func (b *bodyPath) where() string {
	loc, _ := b.whereCut()
	return loc
}

// whereCut is where, and reports whether the location was cut.
func (b *bodyPath) whereCut() (string, bool) {
	loc := ""
	if b.depth == 1 && b.path[0].index == memberElem {
		loc = b.path[0].name
	} else {
		loc = b.path0(MaxLocation + 1)
	}
	return clipLocation(loc), len(loc) > MaxLocation
}

// path0 returns the location of the walk whole, or its first limit bytes
// or a little more.
func (b *bodyPath) path0(limit int) string {
	var inline [64]byte
	out := append(inline[:0], "body"...)
	for i := 0; i < b.depth && len(out) <= limit; i++ {
		var pe pathElem
		if i < pathInline {
			pe = b.path[i]
		} else {
			pe = b.deep[i-pathInline]
		}
		switch {
		case pe.index == memberElem:
			out = append(out, pe.name[len("body"):]...)
		case pe.index >= 0:
			out = append(out, '[')
			out = strconv.AppendInt(out, int64(pe.index), 10)
			out = append(out, ']')
		case plainName(pe.name):
			out = append(out, '.')
			out = append(out, pe.name...)
		default:
			out = append(out, '[')
			out = strconv.AppendQuote(out, pe.name)
			out = append(out, ']')
		}
	}
	return string(out)
}

// plainName reports whether a member's or key's name is written in a
// location after a dot: when it is not empty and holds only printable
// characters other than the ones that mark the location's parts (. [ ]
// " \ and space). Any other name is written in brackets, as a Go quoted
// string: body.m["a.b"], body.m[""], body.m["x[0]"].
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c == 0x7f, c == '.', c == '[', c == ']', c == '"', c == '\\':
			return false
		}
	}
	return true
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
