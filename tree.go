package waltz

import (
	"regexp"
)

// The routing tree.
//
// Routes live in a radix tree over their patterns. A node matches a run of
// static text; runs shared by several routes are stored once, so a node's
// text may end in the middle of a segment. A node may also have one param
// child (":name", which matches one whole non-empty segment) and one
// catch-all child ("*name", which matches the rest of the path, possibly
// nothing, but not a rest that starts with '/'). Static children are found
// by their first byte. A node where a route ends holds a leaf: the route's
// handlers, one per method.
//
// Registering
//
//	GET /users/new
//	GET /users/:id
//	GET /users/:id/posts
//	GET /files/*path
//
// builds
//
//	"/"
//	├── "users/"           static
//	│   ├── "new"          static, leaf GET /users/new
//	│   └── :              param, leaf GET /users/:id
//	│       └── "/posts"   static, leaf GET /users/:id/posts
//	└── "files/"           static
//	    └── *              catch-all, leaf GET /files/*path
//
// A lookup walks the tree with the rest of the path. At each node it tries
// the static child first, then the param child, then the catch-all child:
// that order is the routing precedence. When a child's subtree does not
// produce a handler for the request's method, the walk backs up and tries
// the next kind. For GET /users/newest the static child "new" matches
// "new", but "est" is left over and "new" has no children, so the walk backs
// up to "users/" and the param child takes "newest" as :id. A leaf that
// matches the whole path but has no handler for the method also sends the
// walk on (it counts the leaf, for the 405 answer and its Allow header): a
// 405 is given only when no route matches both the path and the method.
//
// Static children are found by their first byte, and kept in order of the
// number of routes under them as routes are inserted (tree.promote), so the
// busiest subtree is met first; at most one can match, so the order changes
// no answer. The tree is complete when the last route is registered: a
// lookup only reads it. A request for a static route mostly skips the walk:
// a hash table over the static patterns (staticIndex) finds its leaf from
// the whole path.
//
// Param names are not part of the tree: GET /users/:id and DELETE
// /users/:uid share the param node, and each handler keeps its own names,
// which are paired with the bound values once the walk has chosen it.
//
// Memory: the nodes live in one array (tree), and a route record
// (endpoint) and a leaf are kept small; TestSizes holds their sizes, and
// benchmarks/README.md has what the standard route sets take.

// nodeKind orders the kinds of node by precedence.
type nodeKind uint8

const (
	staticKind nodeKind = iota
	paramKind
	catchAllKind
)

// tree is the routing tree. Its nodes are held in one slice and link to
// each other by index, so a node costs no allocation of its own: a route
// set's nodes are one array rather than an object and a child list each.
// nodes[0] is the root; as no node links to the root, index 0 also stands
// for "none".
type tree struct {
	nodes []node

	// weights[i] is the number of routes at node i and below: a node's
	// static children are kept in descending order of it (see promote).
	weights []int32

	// NOTE: top is the root's child, where every walk starts, or nil in an
	// empty tree. It points into nodes, so insert sets it again after
	// every change: a lookup then starts without indexing twice.
	top *node

	// The constraints of the constrained param nodes, by their key (the
	// node's text; see constraint.key), and the regular expressions among
	// them, which a lookup runs.
	cons    map[string]*constraint
	regexps map[string]*regexp.Regexp
}

// node is one node of the routing tree. A node's static children form a
// list: child is the first, and each one's next the one after it. Its
// param children form another, from param: the constrained ones first,
// then the one without a constraint, if any.
type node struct {
	text     string // static text this node matches; "" at the root and on a catch-all or unconstrained param node; a constrained param node's constraint key
	leaf     *leaf  // routes that end at this node, or nil
	child    int32  // first static child, or 0
	next     int32  // the next static child, or the next param child, of this node's parent, or 0
	param    int32  // first param child, or 0
	catchAll int32  // catch-all child, or 0
}

// root returns the root node, allocating the tree's array on first use.
func (t *tree) root() *node {
	if len(t.nodes) == 0 {
		t.nodes, t.weights = make([]node, 1, 16), make([]int32, 1, 16)
	}
	return &t.nodes[0]
}

// search is the state of one lookup.
type search struct {
	method  int      // methodIndex of the request's method
	name    string   // the request's method, for methods outside the standard set
	escaped bool     // the path is in canonical form (path.go), so values may hold "%2F" and "%25"
	params  Params   // values bound so far (keys are filled in by the caller)
	tail    int      // 1 + the length of the rest a catch-all took, when the answer is a catch-all's; else 0
	misses  int      // leaves that matched the whole path but not the method
	first   *leaf    // the first of those leaves
	leaves  *[]*leaf // if set, every such leaf is appended to it
}

// match finds the handler for path, the part of the request path not yet
// consumed above n: n's own leaf when path is empty, else n's children in
// precedence order. On a nil result s.params may hold values of the failed
// branches; the caller drops them.
func (t *tree) match(n *node, path string, s *search) *endpoint {
	// Static beats param beats catch-all. Each kind is tried only after the
	// one before it failed to produce a handler, which is the backtracking.
	// Where a node offers no other kind to fall back on, the walk goes down
	// in this loop instead of recursing: most nodes are like that.
	for {
		if path == "" {
			// Only n's own leaf, or a catch-all taking the empty rest, can
			// match: a static child needs a byte and a param a segment.
			if l := n.leaf; l != nil {
				// Most leaves hold one route, for the request's method.
				if l.firstSlot() == s.method {
					return l.eps
				}
				if e := l.match(s); e != nil {
					return e
				}
			}
			if n.catchAll != 0 {
				s.params = append(s.params, Param{})
				return s.catchAll(t.nodes[n.catchAll].leaf, 0)
			}
			return nil
		}
		c := t.staticFor(n, path)
		if n.param == 0 && n.catchAll == 0 {
			if c == nil {
				return nil
			}
			n, path = c, path[len(c.text):]
			continue
		}
		k := len(s.params)
		if c != nil {
			if e := t.match(c, path[len(c.text):], s); e != nil {
				return e
			}
			s.params = s.params[:k]
		}
		if n.param != 0 {
			// The scan is written out: on segments this short it beats
			// strings.IndexByte, whose call costs more than the loop.
			end := 0
			for end < len(path) && path[end] != '/' {
				end++
			}
			if end > 0 {
				p := &t.nodes[n.param]
				if p.text != "" {
					// Constrained params come first: a value that meets a
					// constraint is that route's before a plain param's.
					if p.next == 0 && n.catchAll == 0 {
						// The only way on, as for a lone plain param: no
						// recursion. An int or uint of 4 to 8 digits, the
						// usual id, is checked here; accepts decides the
						// rest.
						v := path[:end]
						if n := len(v); n < 4 || n > 8 || p.text[0] > consUint || !digits4(load4(v)) || !digits4(load4(v[n-4:])) {
							if !t.accepts(p.text, v, s.escaped) {
								return nil
							}
						}
						s.params = append(s.params, Param{Value: path[:end]})
						n, path = p, path[end:]
						continue
					}
					var e *endpoint
					if e, p = t.matchConstrained(p, path, end, s); e != nil {
						return e
					}
				}
				if p != nil {
					s.params = append(s.params, Param{Value: path[:end]})
					if n.catchAll == 0 {
						n, path = p, path[end:]
						continue
					}
					if e := t.match(p, path[end:], s); e != nil {
						return e
					}
					s.params = s.params[:k]
				}
			}
		}
		// A catch-all takes the rest of the path, but not a rest that starts
		// with a separator: its value never has a leading slash, so a handler
		// that joins it to a prefix cannot be steered by "/files//etc", which
		// the clean-path redirect sends to "/files/etc" instead.
		if n.catchAll != 0 && path[0] != '/' {
			s.params = append(s.params, Param{Value: path})
			return s.catchAll(t.nodes[n.catchAll].leaf, len(path))
		}
		return nil
	}
}

// matchConstrained tries the constrained param nodes of a list that
// starts with p, in order, on the segment path[:end], and returns the
// route one of them leads to; otherwise nil and the list's unconstrained
// node, or nil when it has none. Constraints at one place are disjoint
// (registration checks it), so at most one accepts a value, and the order
// changes no answer.
func (t *tree) matchConstrained(p *node, path string, end int, s *search) (*endpoint, *node) {
	v, k := path[:end], len(s.params)
	for {
		if t.accepts(p.text, v, s.escaped) {
			s.params = append(s.params, Param{Value: v})
			if e := t.match(p, path[end:], s); e != nil {
				return e, nil
			}
			s.params = s.params[:k]
		}
		if p.next == 0 {
			return nil, nil
		}
		if p = &t.nodes[p.next]; p.text == "" {
			return nil, p
		}
	}
}

// catchAll returns the route of l, a catch-all's leaf, for the search's
// method, and notes that the answer took a rest of n bytes with a
// catch-all. Every match that finds a route returns it at once, so the
// note is the answer's.
func (s *search) catchAll(l *leaf, n int) *endpoint {
	e := l.match(s)
	if e != nil {
		s.tail = n + 1
	}
	return e
}

// matchRoot is match from the root, for a path that starts with '/'. The
// root matches no text and holds nothing but the one static child every
// pattern starts with, so the walk starts there.
func (t *tree) matchRoot(path string, s *search) *endpoint {
	c := t.top
	if c == nil {
		return nil
	}
	if len(c.text) > 1 && (len(path) < len(c.text) || path[1:len(c.text)] != c.text[1:]) {
		return nil
	}
	return t.match(c, path[len(c.text):], s)
}

// topText returns the text of the root's child, which every pattern
// starts with, or "" when the tree is empty.
func (t *tree) topText() string {
	if t.top == nil {
		return ""
	}
	return t.top.text
}

// staticFor returns n's static child whose text starts path, or nil; path
// is not empty. The child's first byte is the one that chose it, so only
// the rest of its text is compared, and a one-byte child (a "/" split off
// by a later route, often) needs no compare at all.
func (t *tree) staticFor(n *node, path string) *node {
	b, nodes := path[0], t.nodes
	for i := n.child; i != 0; {
		c := &nodes[i]
		if c.text[0] == b {
			if len(c.text) == 1 || len(path) >= len(c.text) && path[1:len(c.text)] == c.text[1:] {
				return c
			}
			return nil
		}
		i = c.next
	}
	return nil
}

// each calls f with every route at node i and below.
func (t *tree) each(i int32, f func(*endpoint)) {
	if len(t.nodes) == 0 {
		return
	}
	n := &t.nodes[i]
	if n.leaf != nil {
		for e := n.leaf.eps; e != nil; e = e.next {
			f(e)
		}
	}
	for c := n.child; c != 0; c = t.nodes[c].next {
		t.each(c, f)
	}
	for p := n.param; p != 0; p = t.nodes[p].next {
		t.each(p, f)
	}
	if n.catchAll != 0 {
		t.each(n.catchAll, f)
	}
}

// match returns the handler of l for the search's method, falling back from
// HEAD to GET (RFC 9110 section 9.3.2), or records l as a miss.
func (l *leaf) match(s *search) *endpoint {
	if l.firstSlot() == s.method {
		return l.eps // most leaves hold one route, for the request's method
	}
	var e *endpoint
	switch {
	case s.method >= 0:
		if l.mask&(1<<s.method) != 0 {
			e = l.bySlot(s.method)
		} else if s.method == mHead && l.mask&(1<<mGet) != 0 {
			e = l.bySlot(mGet)
		}
	case s.method == mCustom:
		if l.mask&(1<<slotCustom) != 0 {
			e = l.get(s.name)
		}
	}
	if e == nil && s.method != mNone && l.mask&(1<<slotAny) != 0 {
		e = l.bySlot(slotAny)
	}
	if e == nil {
		if s.misses == 0 {
			s.first = l
		}
		s.misses++
		if s.leaves != nil {
			*s.leaves = append(*s.leaves, l)
		}
	}
	return e
}

// accepts reports whether the value v, cut from the path a lookup walks,
// meets the constraint whose node key is key. In a canonical path
// (escaped), v may hold "%2F" and "%25": no named kind accepts '%', nor
// the '/' and '%' they stand for, so only a regular expression needs the
// decoded value, which costs an allocation on such a value only.
func (t *tree) accepts(key, v string, escaped bool) bool {
	switch k := key[0]; k {
	case consInt, consUint:
		// Written out, no call on the lengths of most ids: up to 8
		// digits fit either type.
		d := v
		if k == consInt && d != "" && d[0] == '-' {
			d = d[1:]
		}
		switch n := len(d); {
		case n >= 4 && n <= 8:
			return digits4(load4(d)) && digits4(load4(d[n-4:]))
		case n > 0 && n < 4:
			for i := 0; i < n; i++ {
				if d[i]-'0' > 9 {
					return false
				}
			}
			return true
		case n == 0:
			return false
		}
		return longDecimal(k, v)
	case consUUID:
		return isUUID(v)
	case consAlpha:
		return isAlnum(v, false)
	case consAlnum:
		return isAlnum(v, true)
	}
	if escaped {
		v = unescapeValue(v)
	}
	return t.regexps[key].MatchString(v)
}
