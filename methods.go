package waltz

import (
	"math/bits"
	"net/http"
	"slices"
	"strings"
)

// A leaf's methods: the routes that end at one node of the tree, one per
// method, how a lookup picks among them, and the Allow header values they
// make.

// MethodQuery is the QUERY method (RFC 10008): a safe, idempotent
// request whose content is the query, as a POST's would be, answered as a
// GET's is (cacheable, conditional). Use it where net/http has no
// constant yet (golang/go#80058): api.Op(r, waltz.MethodQuery, ...).
const MethodQuery = "QUERY"

// The standard methods (RFC 9110 section 9, RFC 5789 and RFC 10008) have
// a slot each: a bit in a leaf's mask and a place in its list of routes.
// Any other method has slotCustom.
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
	mQuery
	nMethods

	mCustom = -1 // a method outside the standard set
	mNone   = -2 // matches no handler: a lookup that only collects leaves
)

// endpoint is one registered route: a method and pattern with its composed
// handler. It is kept small (TestSizes): its slot in the leaf is not kept
// but found from the leaf's mask (leaf.bySlot), and the name list is
// shared.
type endpoint struct {
	method  string
	pattern string      // as registered, group prefix included
	info    *routeInfo  // param names, middleware, typed operation: shared by the routes of a group with the same names; never nil
	chain   HandlerFunc // the handler inside all of its middleware, composed at registration
	at      uintptr     // program counter of the call that registered it (see site.PC)
	next    *endpoint   // the next route at the same leaf
}

// routeInfo is what a route is known by beside its handler, set at
// registration: its param names, and what the OpenAPI document and the
// error answers read of it. The routes of one group with the same param
// names share one (typed operations and routes with a resource's own
// middleware have their own), so a route record stays 64 bytes.
type routeInfo struct {
	names []string     // param names, in the order of the bound values
	mw    []Middleware // the route's middleware, outermost first: the group's, then a resource's own
	op    any          // what the contract (package api) registered the route with; nil for a plain route
}

// leaf holds the routes that end at one node, one per method, in a list
// ordered by slot, rather than an array with a slot per standard method,
// which most leaves would leave empty.
type leaf struct {
	mask uint16    // bit slot set when a route with that slot is in eps
	eps  *endpoint // the routes, linked by next, ordered by slot

	// NOTE: allow is replaced whenever a route is added to the leaf, and
	// shared by every leaf with the same methods (Router.setAllow): allow[0]
	// is the Allow header value without OPTIONS, allow[1] with it.
	allow *[2]string
}

// The slots after the standard methods': Mount's route for every method,
// and the routes for methods outside the standard set. Every route for a
// method outside the set has slotCustom, so they come last in a leaf's
// list, after the others.
const (
	slotAny    = nMethods
	slotCustom = nMethods + 1
)

// methodAny registers an endpoint that serves every method without a
// handler of its own at the same leaf (Mount uses it).
const methodAny = ""

// slotOf returns the slot of a route for method.
func slotOf(method string) int {
	if method == methodAny {
		return slotAny
	}
	if m := methodIndex(method); m >= 0 {
		return m
	}
	return slotCustom
}

// add puts e in l's list at its slot's place; l has no route for e's method.
func (l *leaf) add(e *endpoint) {
	slot := slotOf(e.method)
	at := &l.eps
	for *at != nil && slotOf((*at).method) <= slot {
		at = &(*at).next
	}
	e.next, *at = *at, e
	l.mask |= 1 << slot
}

// share makes e use the pattern text of a route already in l that has an
// equal one, as the routes of one resource do, so that it is held once.
func (l *leaf) share(e *endpoint) {
	for o := l.eps; o != nil; o = o.next {
		if o.pattern == e.pattern {
			e.pattern = o.pattern
		}
	}
}

// firstSlot returns the slot of the first route in l's list.
func (l *leaf) firstSlot() int {
	return bits.TrailingZeros16(l.mask)
}

// bySlot returns the route in l's list with slot, which the caller has seen
// in l.mask: the list is ordered by slot, so it is the one after as many
// routes as l.mask has bits below slot. For slotCustom it is the first of
// the routes for methods outside the standard set.
func (l *leaf) bySlot(slot int) *endpoint {
	e := l.eps
	// One step per bit below slot, each cleared in turn: no population
	// count, whose check of the CPU costs more than the usual zero or
	// one step.
	for below := l.mask & (1<<slot - 1); below != 0; below &= below - 1 {
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
	for e := l.bySlot(slot); e != nil; e = e.next {
		if e.method == method {
			return e
		}
	}
	return nil
}

// methods appends the methods l answers to ms: HEAD wherever GET is.
// Mount's route for every method adds none.
func (l *leaf) methods(ms []string) []string {
	for e := l.eps; e != nil; e = e.next {
		if e.method != methodAny {
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
// out.
func allowHeader(ms []string, withOptions bool) string {
	ms = slices.DeleteFunc(slices.Clone(ms), func(m string) bool { return m == methodAny })
	if withOptions {
		ms = append(ms, http.MethodOptions)
	}
	slices.Sort(ms)
	return strings.Join(slices.Compact(ms), ", ")
}

// setAllow recomputes l's Allow header values. Each distinct value is made
// once and shared by every leaf that answers the same methods, which most
// leaves do ("GET, HEAD, OPTIONS"). A leaf with standard methods only finds
// its value by the bit set of its methods, without building the text.
func (r *Router) setAllow(l *leaf) {
	mask := l.mask &^ (1 << slotAny)
	if mask&(1<<slotCustom) == 0 {
		if l.allow = r.allowMasks[mask]; l.allow != nil {
			return
		}
	}
	ms := l.methods(nil)
	without := allowHeader(ms, false)
	if l.allow = r.allowValues[without]; l.allow == nil {
		l.allow = &[2]string{without, allowHeader(ms, true)}
		r.allowValues[without] = l.allow
	}
	if mask&(1<<slotCustom) == 0 {
		if r.allowMasks == nil {
			r.allowMasks = make(map[uint16]*[2]string)
		}
		r.allowMasks[mask] = l.allow
	}
}

// allowField returns an Allow field value of its own for v: a response's
// header map may be read and edited by any middleware and by net/http
// after the router is done with the request, so no value slice in it is
// shared with another response. It costs the one small allocation of a
// 405 or automatic OPTIONS answer.
func allowField(v string) []string { return []string{v} }
