package waltz

import "math/bits"

// staticIndex finds the leaf of a static pattern (one without params or a
// catch-all) by the whole path, without walking the tree: an open-addressing
// hash table over the patterns' text. A request for a static route is one
// hash of a few bytes and one string compare instead of a compare per node.
//
// Such a leaf is the one the walk would reach first, so a hit that has a
// route for the request's method is the walk's answer: the walk tries the
// static child before the wildcards at every node, the children of a node
// differ in their first byte, and the pattern's own chain of static nodes
// spells the whole path. A hit without a route for the method, or a miss,
// leaves the answer to the walk (Router.route), which may yet find a
// param or catch-all route, or count the leaf for a 405. The table is a
// shortcut only: a pattern left out of it (see build) is found by the walk.
type staticIndex struct {
	// seen has the bit of every pattern's filterBit set: most paths of
	// param routes are turned away by it, before any hashing.
	seen   uint64
	shift  uint8         // 32 - log2(len(slots)): a hash's top bits pick the slot
	slots  []int32       // 1 + an index into routes, or 0: empty; a power of two long
	routes []staticRoute // in order of registration
}

// staticRoute is one static pattern's text and leaf.
type staticRoute struct {
	path string
	leaf *leaf
}

// staticHash hashes path by its length and three of its bytes: the last two,
// where static patterns that share a prefix and a length most often differ
// (/user/keys and /user/orgs), and the middle one.
func staticHash(path string) uint32 {
	n := len(path) - 1
	if n < 1 {
		return 0 // "/"
	}
	h := uint32(n) | uint32(path[n])<<8 | uint32(path[n-1])<<16 | uint32(path[n>>1])<<24
	return h * 0x9E3779B1 // Fibonacci hashing: the top bits depend on every byte
}

// filterBit returns the bit of path in staticIndex.seen, from 0 to 63: its
// length and last byte, so that a param's value, which seldom ends as a
// static pattern of the same length does, turns the path away. path is not
// empty.
func filterBit(path string) uint {
	return uint(len(path)^int(path[len(path)-1])) & 63
}

// may reports whether path may be a static pattern, by the filter alone;
// probe tells. Router.route inlines it, so a path the filter turns away
// costs no call.
func (x *staticIndex) may(path string) bool {
	return x.seen&(1<<filterBit(path)) != 0
}

// probe returns the leaf of the static pattern that is exactly path, or
// nil; path is not empty.
func (x *staticIndex) probe(path string) *leaf {
	mask := uint32(len(x.slots) - 1)
	for i := staticHash(path) >> x.shift; ; i = (i + 1) & mask {
		k := x.slots[i]
		if k == 0 {
			return nil
		}
		if r := &x.routes[k-1]; r.path == path {
			return r.leaf
		}
	}
}

// add records l as the leaf of the static pattern path; the caller adds
// each leaf once. The table is built from the list by build.
func (x *staticIndex) add(path string, l *leaf) {
	x.routes = append(x.routes, staticRoute{path, l})
}

// build makes the table from the route list, at most half full, leaving
// out the pattern skip (see Router.order), and drops the list's spare room.
func (x *staticIndex) build(skip string) {
	if cap(x.routes) > len(x.routes) {
		x.routes = append(make([]staticRoute, 0, len(x.routes)), x.routes...)
	}
	if len(x.routes) == 0 {
		x.seen, x.slots = 0, nil
		return
	}
	size := 16
	for size < 2*len(x.routes) {
		size *= 2
	}
	x.seen, x.slots, x.shift = 0, make([]int32, size), uint8(32-bits.TrailingZeros(uint(size)))
	mask := uint32(size - 1)
	for k, r := range x.routes {
		if r.path == skip {
			continue
		}
		x.seen |= 1 << filterBit(r.path)
		i := staticHash(r.path) >> x.shift
		for x.slots[i] != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = int32(k) + 1
	}
}
