package waltz

import (
	"net/http"
	"strings"

	"github.com/waltz-go/waltz/internal/seam"
)

// The fields in which a resource says which media types the content of
// a request of one method may have: Accept-Query for QUERY (RFC 10008
// section 3), Accept-Patch for PATCH (RFC 5789 section 3.1) and
// Accept-Post for POST (W3C Linked Data Platform 1.0 section 7.1). One
// mechanism serves the three:
//
//   - a route that names its media types keeps them in an accepts value,
//     made at registration: a QUERY route's in its queryRoute (query.go,
//     a typed operation's or Registration.Accepts'), a typed PATCH or
//     POST operation's in Router.bodies, from the contract
//     (seam.Contract.Accepts: the media types its Body takes);
//   - the automatic OPTIONS of a path carries the field of each of the
//     three methods whose route a request of that method would reach
//     (RFC 10008 appendix A.2; RFC 5789 section 3.1: "Accept-Patch SHOULD
//     appear in the OPTIONS response for any resource that supports the
//     use of the PATCH method"; LDP section 7.1 says the same of
//     Accept-Post), and the 405 of the path its Accept-Query (query.go
//     says why);
//   - each value is one slice every answer shares, so an answer that
//     carries one costs no allocation.
//
// A PATCH's or POST's 415 lists the same types in the same field
// (Context.bodyError); a plain PATCH or POST route names none, since the
// router does not know what its handler reads.

// accepts is one route's value of the field of its method.
type accepts struct {
	// value is the field's value: the media types, comma-separated; ""
	// for a plain QUERY route that named none. Set at registration,
	// never changed while serving.
	value string
	// field is value as a header value, the one slice every answer of
	// the route shares: set with value, never written after, and its
	// cap is its len, so a Header().Add on the key copies it. A slot of
	// the Context would not do, as it does for Content-Type: the value
	// differs from route to route, and rewriting a slot would change
	// the field of an answer another goroutine may still be reading.
	field []string
}

// set makes types, valid media ranges in lower case, a's value.
func (a *accepts) set(types []string) {
	a.value = strings.Join(types, ", ")
	a.field = []string{a.value}
}

// advertised are the methods whose routes say what content they take,
// by the slot of the method, with the name of the field they say it in:
// an outcome's accept holds their values in this order.
var advertised = [...]struct {
	slot  int
	field string
}{
	{mQuery, "Accept-Query"},
	{mPatch, "Accept-Patch"},
	{mPost, "Accept-Post"},
}

// noteBody keeps the media types of e, a typed PATCH or POST operation
// (op, the contract's) with a Body, for the OPTIONS of its path; any
// other route is left alone.
func (r *Router) noteBody(e *endpoint, op any) {
	if op == nil || seam.Contract.Accepts == nil || e.method != http.MethodPatch && e.method != http.MethodPost {
		return
	}
	types := seam.Contract.Accepts(op)
	if len(types) == 0 {
		return // no Body: no content to take
	}
	a := &accepts{}
	a.set(types)
	if r.bodies == nil {
		r.bodies = make(map[*endpoint]*accepts)
	}
	r.bodies[e] = a
}

// accepting returns the accepts of each advertised method (in its
// order) for an automatic OPTIONS or a 405 of path, whose lookup s
// matched routes but none with the request's method: the value of the
// route a request of that method would reach, the first of the routes
// that match in the order routing tries them (a static piece before a
// param, a param before a catch-all) that takes the method; nil when
// none does or it names no media types.
func (r *Router) accepting(path string, s *search) (a [len(advertised)]*accepts) {
	if r.queries == nil && r.bodies == nil {
		return a // most routers: no route names what it takes
	}
	if s.misses == 1 {
		r.leafAccepts(s.first, &a, 0)
		return a
	}
	var leaves []*leaf
	all := search{method: mNone, params: make(Params, 0, r.maxParams), leaves: &leaves, escaped: s.escaped}
	r.tree.matchRoot(path, &all)
	var done uint8
	for _, l := range leaves {
		done = r.leafAccepts(l, &a, done)
	}
	return a
}

// leafAccepts sets a[i] to the accepts of l's route of the advertised
// method i, for each i not in done (a bit per method) that l has a route
// of, and returns done with those added.
func (r *Router) leafAccepts(l *leaf, a *[len(advertised)]*accepts, done uint8) uint8 {
	for i, m := range advertised {
		if done&(1<<i) != 0 || l.mask&(1<<m.slot) == 0 {
			continue
		}
		done |= 1 << i
		e := l.bySlot(m.slot)
		if m.slot == mQuery {
			if q := r.queries[e.pattern]; q != nil && q.value != "" {
				a[i] = &q.accepts
			}
		} else {
			a[i] = r.bodies[e]
		}
	}
	return done
}

// advertise puts on h those fields of a, an outcome's accept, that only
// names (a bit per advertised method, in its order).
func advertise(h http.Header, a *[len(advertised)]*accepts, only uint8) {
	for i, v := range a {
		if v != nil && only&(1<<i) != 0 {
			h[advertised[i].field] = v.field
		}
	}
}

// Which fields of an outcome's accept each answer carries: an automatic
// OPTIONS all of them, a 405 Accept-Query alone (query.go).
const (
	fieldsOfOptions = 1<<len(advertised) - 1
	fieldsOf405     = 1
)
