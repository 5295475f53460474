package waltz

import (
	"regexp"
	"strings"
)

// Building the routing tree, at registration: a pattern's pieces inserted
// as nodes (static runs split where two routes part, a param or catch-all
// child per node), siblings promoted by their routes' count, and the
// checks that run first (find, overlap). tree.go has the nodes and the
// lookup, and the worked example of both.

// newNode appends n to the tree and returns its index. It invalidates
// pointers into t.nodes: callers hold indices across it.
func (t *tree) newNode(n node) int32 {
	t.nodes, t.weights = appendGrown(t.nodes, n), appendGrown(t.weights, 0)
	return int32(len(t.nodes) - 1)
}

// find returns the leaf where p ends, or nil, without changing the tree.
func (t *tree) find(p *pattern) *leaf {
	if len(t.nodes) == 0 {
		return nil
	}
	n := int32(0)
	for _, pc := range p.pieces {
		switch pc.kind {
		case paramKind:
			n = t.paramChild(n, pc.cons)
		case catchAllKind:
			n = t.nodes[n].catchAll
		default:
			for text := pc.text; text != ""; {
				c := *t.childLink(n, text[0])
				if c == 0 || !strings.HasPrefix(text, t.nodes[c].text) {
					return nil
				}
				n, text = c, text[len(t.nodes[c].text):]
			}
		}
		if n == 0 {
			return nil // no such wildcard child (a static piece ends below the root)
		}
	}
	return t.nodes[n].leaf
}

// insert adds the nodes p needs and returns the leaf where p ends, creating
// it if needed.
func (t *tree) insert(p *pattern) *leaf {
	t.root()
	n := int32(0)
	t.weights[0]++
	for _, pc := range p.pieces {
		switch pc.kind {
		case paramKind:
			n = t.paramNode(n, pc.cons)
		case catchAllKind:
			n = t.wildcard(n)
		default:
			n = t.insertStatic(n, pc.text)
		}
	}
	if t.nodes[n].leaf == nil {
		t.nodes[n].leaf = &leaf{}
	}
	t.top = &t.nodes[t.nodes[0].child]
	return t.nodes[n].leaf
}

// wildcard returns node n's catch-all child, creating it if needed, and
// counts one more route in it.
func (t *tree) wildcard(n int32) int32 {
	c := t.nodes[n].catchAll
	if c == 0 {
		c = t.newNode(node{})
		t.nodes[n].catchAll = c
	}
	t.weights[c]++
	return c
}

// paramChild returns node n's param child with the constraint k (nil for
// none), or 0.
func (t *tree) paramChild(n int32, k *constraint) int32 {
	key := ""
	if k != nil {
		key = k.key
	}
	for c := t.nodes[n].param; c != 0; c = t.nodes[c].next {
		if t.nodes[c].text == key {
			return c
		}
	}
	return 0
}

// paramNode returns node n's param child with the constraint k (nil for
// none), creating it if needed: a constrained one goes at the end of the
// constrained ones, before the unconstrained one. It counts one more
// route in it.
func (t *tree) paramNode(n int32, k *constraint) int32 {
	c := t.paramChild(n, k)
	if c == 0 {
		key := ""
		if k != nil {
			key = k.key
			if t.cons == nil {
				t.cons, t.regexps = make(map[string]*constraint), make(map[string]*regexp.Regexp)
			}
			t.cons[key] = k
			if k.re != nil {
				t.regexps[key] = k.re
			}
		}
		c = t.newNode(node{text: key})
		at := &t.nodes[n].param
		for *at != 0 && (k == nil || t.nodes[*at].text != "") {
			at = &t.nodes[*at].next
		}
		t.nodes[c].next, *at = *at, c
	}
	t.weights[c]++
	return c
}

// overlap returns a route under a constrained param node that takes a
// value p's constraint at the same place also takes, with the two
// constraints; nil when there is none. It walks p's pieces as far as the
// tree has them.
func (t *tree) overlap(p *pattern) (e *endpoint, mine, theirs *constraint) {
	if len(t.nodes) == 0 {
		return nil, nil, nil
	}
	n := int32(0)
	for _, pc := range p.pieces {
		switch pc.kind {
		case paramKind:
			if pc.cons != nil {
				for c := t.nodes[n].param; c != 0 && t.nodes[c].text != ""; c = t.nodes[c].next {
					if other := t.cons[t.nodes[c].text]; other.key != pc.cons.key && overlaps(pc.cons, other) {
						t.each(c, func(x *endpoint) {
							if e == nil {
								e = x
							}
						})
						return e, pc.cons, other
					}
				}
			}
			n = t.paramChild(n, pc.cons)
		case catchAllKind:
			n = t.nodes[n].catchAll
		default:
			for text := pc.text; text != ""; {
				c := *t.childLink(n, text[0])
				if c == 0 {
					return nil, nil, nil
				}
				common := commonPrefix(text, t.nodes[c].text)
				if common < len(t.nodes[c].text) {
					return nil, nil, nil // the tree parts from p here: no param of p's below exists yet
				}
				n, text = c, text[common:]
			}
		}
		if n == 0 {
			return nil, nil, nil
		}
	}
	return nil, nil, nil
}

// insertStatic walks or creates the static nodes for text below node n,
// splitting a node whose text only partly matches, counts the route in
// each (see promote), and returns the node where text ends.
func (t *tree) insertStatic(n int32, text string) int32 {
	for text != "" {
		c := *t.childLink(n, text[0])
		if c == 0 {
			// A new child goes at the end of the list, where its weight,
			// the lowest, puts it until promote moves it up.
			c = t.newNode(node{text: text})
			*t.lastLink(n) = c
			t.promote(n, c)
			return c
		}
		ct := t.nodes[c].text
		common := commonPrefix(text, ct)
		if common < len(ct) {
			// Split c: c keeps the shared part, its place and its index, so
			// that indices among siblings stay in the order they were
			// inserted (see promote), and a new node, its only child,
			// takes the rest with everything below.
			old := t.nodes[c]
			old.text, old.next = ct[common:], 0
			rest := t.newNode(old)
			t.weights[rest] = t.weights[c]
			t.nodes[c] = node{text: ct[:common], child: rest, next: t.nodes[c].next}
		}
		t.promote(n, c)
		n, text = c, text[common:]
	}
	return n
}

// promote counts one more route under c, a static child of node n, and
// moves c ahead of the siblings that now weigh less, so that each list of
// static children stays in descending order of weight, siblings of equal
// weight in the order they were inserted (their indices), and a lookup's
// scan meets the busiest subtrees first. The order changes no match:
// static children differ in their first byte, so at most one can match.
func (t *tree) promote(n, c int32) {
	t.weights[c]++
	w := t.weights[c]
	at := &t.nodes[n].child
	for *at != c && (t.weights[*at] > w || t.weights[*at] == w && *at < c) {
		at = &t.nodes[*at].next
	}
	if *at == c {
		return
	}
	ins := at
	for *at != c {
		at = &t.nodes[*at].next
	}
	*at = t.nodes[c].next
	t.nodes[c].next, *ins = *ins, c
}

// childLink returns the link that holds node n's static child whose text
// starts with b, or the link at the end of n's list, which holds 0, when
// there is none. The pointer is into t.nodes: valid until newNode.
func (t *tree) childLink(n int32, b byte) *int32 {
	at := &t.nodes[n].child
	for *at != 0 && t.nodes[*at].text[0] != b {
		at = &t.nodes[*at].next
	}
	return at
}

// lastLink returns the link at the end of node n's list of static children.
func (t *tree) lastLink(n int32) *int32 {
	at := &t.nodes[n].child
	for *at != 0 {
		at = &t.nodes[*at].next
	}
	return at
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}
