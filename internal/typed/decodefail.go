package typed

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The decoder's failures: held until the body is JSON, and where they are.

// fail adds a failure of the value where the walk is.
func (d *decoder) fail(keyword, msg string) {
	if d.capped() {
		return
	}
	d.fails.add(pendingFail{d.where(), keyword, msg})
}

// capped reports whether the request has MaxFailures, while the body is
// JSON, and marks that a failure may go untold (see repeated).
func (d *decoder) capped() bool {
	if d.err == "" && d.had+d.fails.n >= MaxFailures {
		d.untold = true
		return true
	}
	return d.err != ""
}

// failLone fails a string that held a lone surrogate escape, which
// stands for no character (RFC 8259 section 8.2).
func (d *decoder) failLone() {
	d.fail("type", "must be Unicode text, got a lone UTF-16 surrogate escape")
}

// failed reports whether the request has failed, in this body or before.
func (d *decoder) failed() bool { return d.had+d.fails.n > 0 }

// again reports whether the value just read must be read again with
// keepAll set: some of its values were not kept, or not copied, because
// the request had failed, and then it had not: the failures were a
// repeated key's, dropped with its earlier value (see repeated). Only
// such a body pays a second reading.
func (d *decoder) again() bool { return d.err == "" && d.cut && !d.failed() }

// repeated drops the failures of the member where the decoder is, met
// again: encoding/json keeps the last of repeated keys, and so does the
// decoder, the value and its failures both.
//
// It drops none when a failure may have gone untold at MaxFailures, or
// when the location is cut at MaxLocation, where other members' failures
// may read the same: the request must not pass on failures dropped for a
// value that was not the repeated one. Such a body is told the failures
// of a value it replaced, rather than let through.
func (d *decoder) repeated() {
	if d.fails.n == 0 || d.untold {
		return
	}
	loc, cut := d.whereCut()
	if cut {
		return
	}
	d.fails.drop(loc)
}

// pendingFail is a member's failure, kept until the body is known to be
// JSON: a body that is not is one 400, not its 422s and a 400.
type pendingFail struct{ loc, keyword, msg string }

// pending is a body's failures, in order: the first few in the decoder
// itself, so that a failing body of a few members allocates nothing to
// hold them (a slice of the decoder's own array would move the decoder
// to the heap), the rest in more.
type pending struct {
	first [4]pendingFail
	n     int // the failures held
	more  []pendingFail
}

func (p *pending) at(i int) *pendingFail {
	if i < len(p.first) {
		return &p.first[i]
	}
	return &p.more[i-len(p.first)]
}

func (p *pending) add(f pendingFail) {
	if p.n < len(p.first) {
		p.first[p.n] = f
	} else {
		p.more = append(p.more, f)
	}
	p.n++
}

// drop drops the failures located at loc or inside it, keeping the
// others in order.
func (p *pending) drop(loc string) {
	n := 0
	for i := range p.n {
		f := p.at(i)
		if rest, ok := strings.CutPrefix(f.loc, loc); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			continue
		}
		*p.at(n) = *f
		n++
	}
	if n > len(p.first) {
		p.more = p.more[:n-len(p.first)]
	} else {
		p.more = p.more[:0]
	}
	p.n = n
}

// send sends the failures to b.
func (p *pending) send(b *binder) {
	for i := range p.n {
		f := p.at(i)
		b.fail(f.loc, f.keyword, f.msg)
	}
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

// Location returns the body location of a value found at path, the
// members, keys and indexes from the body's top ("meta", "k", 1),
// written as the decoder writes its failures' ("body.meta.k[1]",
// body.m["a.b"]), cut at MaxLocation bytes: for a failure found after
// the body is decoded, such as a merge patch's value its target cannot
// hold. path holds strings and ints alone.
func Location(path []any) string {
	out := []byte("body")
	for _, p := range path {
		if len(out) > MaxLocation {
			break
		}
		switch p := p.(type) {
		case int:
			out = append(out, '[')
			out = strconv.AppendInt(out, int64(p), 10)
			out = append(out, ']')
		case string:
			if plainName(p) {
				out = append(out, '.')
				out = append(out, p...)
			} else {
				out = append(out, '[')
				out = strconv.AppendQuote(out, p)
				out = append(out, ']')
			}
		}
	}
	return clipLocation(string(out))
}
