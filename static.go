package waltz

import (
	"hash/maphash"
	"math/bits"
)

// staticIndex finds the leaf of a static pattern (one without params or a
// catch-all) by the whole path, without walking the tree: an open-addressing
// hash table over the patterns' text. A request for a static route costs a
// hash of a few bytes (of all of them, for patterns that would collide) and
// a string compare or two, instead of a compare or more per node.
//
// Such a leaf is the one the walk would reach first, so a hit that has a
// route for the request's method is the walk's answer: the walk tries the
// static child before the wildcards at every node, the children of a node
// differ in their first byte, and the pattern's own chain of static nodes
// spells the whole path. A hit without a route for the method, or a miss,
// leaves the answer to the walk (Router.route), which may yet find a
// param or catch-all route, or count the leaf for a 405. The table is a
// shortcut only: a pattern left out of it (see leaveOut) is found by the
// walk. It is kept complete as routes are registered, so a lookup only
// reads it.
type staticIndex struct {
	// seen has the filterBit of every pattern in the table set: many paths
	// of param routes are turned away by it, before any hashing.
	seen   uint64
	shift  uint8 // 32 - log2(len(slots)): a hash's top bits pick the slot
	full   bool  // hash every byte of a path (seed), not a few (staticHash)
	seed   maphash.Seed
	slots  []int32       // 1 + an index into routes, or 0: empty; a power of two long
	routes []staticRoute // in order of registration
	skip   string        // the pattern left out (see leaveOut)

	probes, worst int // the probes a lookup of the placed routes takes, in all and the most
}

// staticRoute is one static pattern's text and leaf.
type staticRoute struct {
	path string
	leaf *leaf
}

// staticHash hashes path by its length and three of its bytes: the last two,
// where static patterns that share a prefix and a length often differ
// (/user/keys and /user/orgs), and the middle one. Patterns that differ
// elsewhere only (/en/about and /de/about) collide; build then hashes every
// byte instead.
func staticHash(path string) uint32 {
	n := len(path) - 1
	if n < 1 {
		return 0 // "/"
	}
	h := uint32(path[n]) | uint32(path[n-1])<<8 | uint32(path[n>>1])<<16 | uint32(n)<<24
	return h * 0x9E3779B1 // Fibonacci hashing: the top bits depend on every byte of h
}

// fullHash hashes every byte of path, for the tables where staticHash
// clusters.
func (x *staticIndex) fullHash(path string) uint32 {
	return uint32(maphash.String(x.seed, path) >> 32)
}

// filterBit returns the bit of path in staticIndex.seen, from 0 to 63, from
// its length and last byte: a param's value seldom ends as a static pattern
// of the same length does, so many paths of param routes find their bit
// unset. path is not empty.
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
	mask, n := uint32(len(x.slots)-1), len(path)
	var h uint32
	if x.full {
		h = x.fullHash(path)
	} else {
		h = staticHash(path)
	}
	for i := h >> x.shift; ; i = (i + 1) & mask {
		k := x.slots[i]
		if k == 0 {
			return nil
		}
		r := &x.routes[k-1]
		if len(r.path) != n {
			continue
		}
		// A path of 4 to 16 bytes, as most static patterns are, is
		// compared as two words that overlap, loaded without a call;
		// == would call the runtime's memequal.
		switch {
		case n >= 8 && n <= 16:
			if load8(r.path) == load8(path) && load8(r.path[n-8:]) == load8(path[n-8:]) {
				return r.leaf
			}
		case n >= 4 && n < 8:
			if load4(r.path) == load4(path) && load4(r.path[n-4:]) == load4(path[n-4:]) {
				return r.leaf
			}
		case r.path == path:
			return r.leaf
		}
	}
}

// add records l as the leaf of the static pattern path and places it in
// the table, so the table is complete once the route is registered; the
// caller adds each leaf once. The table stays at most half full: it
// doubles, and is built again, when a route would fill it more.
func (x *staticIndex) add(path string, l *leaf) {
	x.routes = appendGrown(x.routes, staticRoute{path, l})
	if 2*len(x.routes) > len(x.slots) {
		x.build(x.skip)
		return
	}
	if path != x.skip {
		x.place(len(x.routes) - 1)
	}
	if !x.full && x.crowded() {
		x.build(x.skip)
	}
}

// leaveOut makes skip the pattern the table leaves out, the text of the
// root's child (see Router.add), building the table again when it
// changes: a later route may split that node, which then spells less.
func (x *staticIndex) leaveOut(skip string) {
	if skip != x.skip {
		x.build(skip)
	}
}

// build makes the table from the route list, at most half full, leaving
// out the pattern skip. It hashes a few bytes of each path (staticHash)
// unless that makes a hit take more than 3 probes on average or any hit
// more than 32 (crowded); then it hashes every byte, which costs about as
// much as two more probes and takes about 1.5 on average at this load.
func (x *staticIndex) build(skip string) {
	x.skip, x.seen, x.slots, x.full = skip, 0, nil, false
	x.probes, x.worst = 0, 0
	if len(x.routes) == 0 || len(x.routes) == 1 && x.routes[0].path == skip {
		return
	}
	size := 16
	for size < 2*len(x.routes) {
		size *= 2
	}
	x.slots, x.shift = make([]int32, size), uint8(32-bits.TrailingZeros(uint(size)))
	x.placeAll()
	if x.crowded() {
		clear(x.slots)
		x.full, x.seed = true, maphash.MakeSeed()
		x.placeAll()
	}
}

// crowded reports whether a hit takes more than 3 probes on average, or
// any hit more than 32.
func (x *staticIndex) crowded() bool {
	return x.probes > 3*len(x.routes) || x.worst > 32
}

// placeAll puts every route but skip in the emptied table.
func (x *staticIndex) placeAll() {
	x.seen, x.probes, x.worst = 0, 0, 0
	for k, r := range x.routes {
		if r.path != x.skip {
			x.place(k)
		}
	}
}

// place puts route k in the table and its bit in the filter, and counts
// the probes a lookup of it takes.
func (x *staticIndex) place(k int) {
	path := x.routes[k].path
	mask := uint32(len(x.slots) - 1)
	x.seen |= 1 << filterBit(path)
	h := staticHash(path)
	if x.full {
		h = x.fullHash(path)
	}
	i, n := h>>x.shift, 1
	for x.slots[i] != 0 {
		i, n = (i+1)&mask, n+1
	}
	x.slots[i] = int32(k) + 1
	x.probes, x.worst = x.probes+n, max(x.worst, n)
}

// appendGrown is append for the arrays a router holds for good (the
// tree's nodes, the static table's routes): when full, it grows by an
// eighth rather than doubling, since their spare room is memory the router
// keeps, and copying their elements is cheap next to registering a route.
func appendGrown[S ~[]E, E any](s S, e E) S {
	if len(s) == cap(s) {
		grown := make(S, len(s), len(s)+len(s)/8+16)
		copy(grown, s)
		s = grown
	}
	return append(s, e)
}
