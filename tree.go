package waltz

import (
	"net/http"
	"slices"
	"strings"
)

// The routing tree.
//
// Routes live in a radix tree over their patterns. A node matches a run of
// static text; runs shared by several routes are stored once, so a node's
// text may end in the middle of a segment. A node may also have one param
// child (":name", which matches one whole non-empty segment) and one
// catch-all child ("*name", which matches the rest of the path, possibly
// nothing, but not a rest that starts with '/'). Static children are found
// by their first byte. A node where a
// route ends holds a leaf: the route's handlers, one per method.
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
// Static children are found by their first byte, and ordered by the number
// of routes under them (node.order, at the first lookup after registering),
// so the busiest subtree is met first; at most one can match, so the order
// changes no answer. A router whose routes are all static skips the walk:
// Router.statics maps each pattern to its leaf, and the first route with a
// wildcard drops that map.
//
// Param names are not part of the tree: GET /users/:id and DELETE
// /users/:uid share the param node, and each handler keeps its own names,
// which are paired with the bound values once the walk has chosen it.

// nodeKind orders the kinds of node by precedence.
type nodeKind uint8

const (
	staticKind nodeKind = iota
	paramKind
	catchAllKind
)

// node is one node of the routing tree.
type node struct {
	text     string  // static text this node matches; "" at the root and on wildcard nodes
	indices  string  // the first byte of each static child, in the order of static
	static   []*node // static children; no two share a first byte
	param    *node
	catchAll *node
	leaf     *leaf // routes that end at this node, or nil
}

// search is the state of one lookup.
type search struct {
	method int      // methodIndex of the request's method
	name   string   // the request's method, for methods outside the standard set
	params Params   // values bound so far (keys are filled in by the caller)
	misses int      // leaves that matched the whole path but not the method
	first  *leaf    // the first of those leaves
	leaves *[]*leaf // if set, every such leaf is appended to it
}

// match finds the handler for path, the part of the request path not yet
// consumed above n: n's own leaf when path is empty, else n's children in
// precedence order. On a nil result s.params may hold values of the failed
// branches; the caller drops them.
func (n *node) match(path string, s *search) *endpoint {
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
				if e := l.eps; int(e.slot) == s.method {
					return e
				}
				if e := l.match(s); e != nil {
					return e
				}
			}
			if c := n.catchAll; c != nil {
				s.params = append(s.params, Param{})
				return c.leaf.match(s)
			}
			return nil
		}
		c := n.staticFor(path)
		if n.param == nil && n.catchAll == nil {
			if c == nil {
				return nil
			}
			n, path = c, path[len(c.text):]
			continue
		}
		k := len(s.params)
		if c != nil {
			if e := c.match(path[len(c.text):], s); e != nil {
				return e
			}
			s.params = s.params[:k]
		}
		if p := n.param; p != nil {
			// The scan is written out: on segments this short it beats
			// strings.IndexByte, whose call costs more than the loop.
			end := 0
			for end < len(path) && path[end] != '/' {
				end++
			}
			if end > 0 {
				s.params = append(s.params, Param{Value: path[:end]})
				if n.catchAll == nil {
					n, path = p, path[end:]
					continue
				}
				if e := p.match(path[end:], s); e != nil {
					return e
				}
				s.params = s.params[:k]
			}
		}
		// A catch-all takes the rest of the path, but not a rest that starts
		// with a separator: its value never has a leading slash, so a handler
		// that joins it to a prefix cannot be steered by "/files//etc", which
		// the clean-path redirect sends to "/files/etc" instead.
		if c := n.catchAll; c != nil && path[0] != '/' {
			s.params = append(s.params, Param{Value: path})
			return c.leaf.match(s)
		}
		return nil
	}
}

// matchRoot is match on the root, for a path that starts with '/'. The
// root matches no text and holds nothing but the one static child every
// pattern starts with, so the walk starts there.
func (n *node) matchRoot(path string, s *search) *endpoint {
	if len(n.static) == 0 {
		return nil
	}
	c := n.static[0]
	if len(c.text) > 1 && (len(path) < len(c.text) || path[1:len(c.text)] != c.text[1:]) {
		return nil
	}
	return c.match(path[len(c.text):], s)
}

// staticFor returns n's static child whose text starts path, or nil; path
// is not empty. The child's first byte is the index byte that chose it, so
// only the rest of its text is compared, and a one-byte child (a "/" split
// off by a later route, often) needs no compare at all.
func (n *node) staticFor(path string) *node {
	b := path[0]
	for i := 0; i < len(n.indices); i++ {
		if n.indices[i] == b {
			c := n.static[i]
			if len(c.text) == 1 || len(path) >= len(c.text) && path[1:len(c.text)] == c.text[1:] {
				return c
			}
			return nil
		}
	}
	return nil
}

// order puts each node's static children below n in descending order of
// the number of routes under them, so the scan of a node's index bytes
// meets the busiest subtrees first, and returns the number of routes at n
// and below. The order changes no match: static children differ in their
// first byte, so at most one can match. The index bytes follow the order.
func (n *node) order() int {
	w := make([]int, len(n.static))
	total := 0
	for i, c := range n.static {
		w[i] = c.order()
		total += w[i]
	}
	if len(n.static) > 1 {
		idx := make([]int, len(n.static))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return w[b] - w[a] })
		static := make([]*node, len(n.static))
		indices := make([]byte, len(n.static))
		for i, j := range idx {
			static[i], indices[i] = n.static[j], n.indices[j]
		}
		if string(indices) != n.indices {
			n.static, n.indices = static, string(indices)
		}
	}
	if n.param != nil {
		total += n.param.order()
	}
	if n.catchAll != nil {
		total += n.catchAll.order()
	}
	if n.leaf != nil {
		for e := n.leaf.eps; e != nil; e = e.next {
			total++
		}
	}
	return total
}

// each calls f with every route at n and below.
func (n *node) each(f func(*endpoint)) {
	if n.leaf != nil {
		for e := n.leaf.eps; e != nil; e = e.next {
			f(e)
		}
	}
	for _, c := range n.static {
		c.each(f)
	}
	if n.param != nil {
		n.param.each(f)
	}
	if n.catchAll != nil {
		n.catchAll.each(f)
	}
}

// find returns the leaf where p ends, or nil, without changing the tree.
func (n *node) find(p *pattern) *leaf {
	for _, pc := range p.pieces {
		switch pc.kind {
		case paramKind:
			n = n.param
		case catchAllKind:
			n = n.catchAll
		default:
			for text := pc.text; text != "" && n != nil; {
				c := n.staticChild(text[0])
				if c == nil || !strings.HasPrefix(text, c.text) {
					return nil
				}
				n, text = c, text[len(c.text):]
			}
		}
		if n == nil {
			return nil
		}
	}
	return n.leaf
}

// insert adds the nodes p needs and returns the leaf where p ends, creating
// it if needed.
func (n *node) insert(p *pattern) *leaf {
	for _, pc := range p.pieces {
		switch pc.kind {
		case paramKind:
			if n.param == nil {
				n.param = &node{}
			}
			n = n.param
		case catchAllKind:
			if n.catchAll == nil {
				n.catchAll = &node{}
			}
			n = n.catchAll
		default:
			n = n.insertStatic(pc.text)
		}
	}
	if n.leaf == nil {
		n.leaf = &leaf{}
	}
	return n.leaf
}

// insertStatic walks or creates the static nodes for text below n, splitting
// a node whose text only partly matches, and returns the node where text ends.
func (n *node) insertStatic(text string) *node {
	for text != "" {
		c := n.staticChild(text[0])
		if c == nil {
			c = &node{text: text}
			n.indices += text[:1]
			n.static = append(n.static, c)
			return c
		}
		common := commonPrefix(text, c.text)
		if common < len(c.text) {
			// Split c: a new node takes the shared part and c keeps the rest.
			mid := &node{text: c.text[:common], indices: c.text[common : common+1], static: []*node{c}}
			c.text = c.text[common:]
			n.static[strings.IndexByte(n.indices, mid.text[0])] = mid
			c = mid
		}
		n, text = c, text[common:]
	}
	return n
}

// staticChild returns n's static child whose text starts with b, or nil.
func (n *node) staticChild(b byte) *node {
	if i := strings.IndexByte(n.indices, b); i >= 0 {
		return n.static[i]
	}
	return nil
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// The standard methods (RFC 9110 section 9 and RFC 5789) have a slot each in
// a leaf's array; any other method goes in its map.
const (
	mGet = iota
	mHead
	mPost
	mPut
	mPatch
	mDelete
	mConnect
	mOptions
	mTrace
	nMethods

	mCustom = -1 // a method outside the standard set
	mNone   = -2 // matches no handler: a lookup that only collects leaves
)

var methodNames = [nMethods]string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace,
}

// methodIndex returns m's slot in a leaf's array, or mCustom.
func methodIndex(m string) int {
	if m == http.MethodGet {
		return mGet // most requests: one compare before the switch's search
	}
	switch m {
	case http.MethodGet:
		return mGet
	case http.MethodHead:
		return mHead
	case http.MethodPost:
		return mPost
	case http.MethodPut:
		return mPut
	case http.MethodPatch:
		return mPatch
	case http.MethodDelete:
		return mDelete
	case http.MethodConnect:
		return mConnect
	case http.MethodOptions:
		return mOptions
	case http.MethodTrace:
		return mTrace
	}
	return mCustom
}

// endpoint is one registered route: a method and pattern with its composed
// handler.
type endpoint struct {
	method  string
	pattern string      // as registered, group prefix included
	names   []string    // param names, in the order of the bound values
	chain   HandlerFunc // the handler inside all of its middleware, composed at registration
	at      uintptr     // program counter of the call that registered it (see callerPC)
	next    *endpoint   // the next route at the same leaf
	slot    int8        // methodIndex(method), or slotAny or slotCustom
}

// leaf holds the routes that end at one node, one per method, in a list
// ordered by slot: a route or two in 24 bytes, where an array of a slot per
// standard method took 96.
type leaf struct {
	mask uint16    // bit slot set when a route with that slot is in eps
	eps  *endpoint // the routes, linked by next, ordered by slot

	// NOTE: allow is replaced whenever a route is added to the leaf, and
	// shared by every leaf with the same methods (Router.setAllow): allow[0]
	// is the Allow header value without OPTIONS, allow[1] with it, each
	// ready to put in a header map and never modified.
	allow *[2][]string
}

// The slots after the standard methods': Mount's route for every method,
// and the routes for methods outside the standard set.
const (
	slotAny    = nMethods
	slotCustom = nMethods + 1
)

// methodAny registers an endpoint that serves every method without a
// handler of its own at the same leaf (Mount uses it).
const methodAny = ""

// slotOf returns the slot of a route for method.
func slotOf(method string) int8 {
	if method == methodAny {
		return slotAny
	}
	if m := methodIndex(method); m >= 0 {
		return int8(m)
	}
	return slotCustom
}

// add puts e in l's list at its slot's place; l has no route for e's method.
func (l *leaf) add(e *endpoint) {
	at := &l.eps
	for *at != nil && (*at).slot <= e.slot {
		at = &(*at).next
	}
	e.next, *at = *at, e
	l.mask |= 1 << e.slot
}

// share makes e use the pattern text and name list of a route already in l
// that has equal ones, as the routes of one resource do, so that each is
// held once.
func (l *leaf) share(e *endpoint) {
	for o := l.eps; o != nil; o = o.next {
		if o.pattern == e.pattern {
			e.pattern = o.pattern
		}
		if slices.Equal(o.names, e.names) {
			e.names = o.names
		}
	}
	e.names = slices.Clip(e.names)
}

// bySlot returns the route in l's list with a standard slot or slotAny,
// which the caller has seen in l.mask.
func (l *leaf) bySlot(slot int) *endpoint {
	e := l.eps
	for int(e.slot) != slot {
		e = e.next
	}
	return e
}

// get returns the handler registered for exactly method, or nil.
func (l *leaf) get(method string) *endpoint {
	slot := slotOf(method)
	if l.mask&(1<<slot) == 0 {
		return nil
	}
	for e := l.eps; e != nil; e = e.next {
		if e.slot == slot && e.method == method {
			return e
		}
	}
	return nil
}

// match returns the handler of l for the search's method, falling back from
// HEAD to GET (RFC 9110 section 9.3.2), or records l as a miss.
func (l *leaf) match(s *search) *endpoint {
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

// methods appends the methods l answers to ms: HEAD wherever GET is.
// Mount's route for every method adds none.
func (l *leaf) methods(ms []string) []string {
	for e := l.eps; e != nil; e = e.next {
		switch {
		case e.slot < nMethods:
			ms = append(ms, methodNames[e.slot])
		case e.slot == slotCustom:
			ms = append(ms, e.method)
		}
	}
	if l.mask&(1<<mGet) != 0 && l.mask&(1<<mHead) == 0 {
		ms = append(ms, http.MethodHead)
	}
	return ms
}

// allowHeader returns the methods ms as an Allow header value (RFC 9110
// section 10.2.1): each method once, sorted, with OPTIONS added when
// withOptions is set. methodAny (a mount's) is no method name and is left
// out. The slice's cap equals its len, so a Header().Add on it copies.
func allowHeader(ms []string, withOptions bool) []string {
	ms = slices.DeleteFunc(slices.Clone(ms), func(m string) bool { return m == methodAny })
	if withOptions {
		ms = append(ms, http.MethodOptions)
	}
	slices.Sort(ms)
	return []string{strings.Join(slices.Compact(ms), ", ")}[:1:1]
}
