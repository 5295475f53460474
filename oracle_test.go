package waltz

import (
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The oracle is a brute-force matcher that knows nothing of the tree: it
// holds the registered routes in a list and, for each request, tries every
// one of them on the request's segments. It implements the rules doc.go
// documents (Path syntax, Precedence, Redirects, 405) directly:
//
//   - the escaped path is split at '/', and each segment is percent-decoded
//     before it is compared with static text or bound to a param, so "%2F"
//     is data and never a separator;
//   - ":name" matches one whole non-empty segment, ":name<c>" one whose
//     decoded value meets c (oracleMeets: the named constraints as
//     regular expressions and strconv's ranges, or the expression
//     itself); "*name" matches the rest
//     of the path, possibly nothing, but never a rest that starts with a
//     separator ("/files//x" is not "/x" under "/files/*path");
//   - among the routes that match the path and serve the method (HEAD is
//     served by GET, an explicit HEAD winning at the same route), the winner
//     is the one whose segment kinds are smallest in the order static <
//     constrained param < param < catch-all, compared segment by segment
//     from the left: this is
//     what a tree walk with backtracking finds first, including when a
//     better-placed route lacks the method;
//   - automatic OPTIONS answers 204 when some route matches the path, with
//     Allow the union of their methods;
//   - otherwise, when no route serves the method at the path, a redirect to
//     the path with its trailing slash toggled, then cleaned, then cleaned
//     and toggled, if a route serves the method there (never for CONNECT,
//     never to a path that starts with "//" or "/\");
//   - when the route that serves the method ends in a catch-all, the same
//     redirect, but only to a route more specific than it: at the first
//     segment where the two patterns differ in kind, the target's kind
//     comes first;
//   - a redirect's target is never one that would redirect again (one a
//     catch-all serves, whose own variant matches a more specific route);
//   - 405 when there is no such redirect and some route matches the path
//     but none serves the method, with Allow the union of their methods;
//     501 instead when no route anywhere has the method and it is none of
//     RFC 9110's, PATCH or QUERY (the oracle's routes have no mounts).
type oracle struct {
	routes        []oracleRoute
	handleOPTIONS bool
	trailingSlash bool
	fixedPath     bool
}

type oracleRoute struct {
	method, pattern string
	segs            []string // the pattern split at '/', after the leading one
	names           []string
}

// The oracle's segment kinds, in precedence order.
const (
	oStatic nodeKind = iota
	oConstrained
	oParam
	oCatchAll
)

// oracleParam splits a ":name<c>" segment into its name and constraint
// ("" for none).
func oracleParam(seg string) (name, cons string) {
	name = seg[1:]
	if i := strings.IndexByte(name, '<'); i >= 0 && strings.HasSuffix(name, ">") {
		return name[:i], name[i+1 : len(name)-1]
	}
	return name, ""
}

// oracleNamed are the named constraints as regular expressions, written
// here from their documentation, apart from the router's own checks.
var oracleNamed = map[string]*regexp.Regexp{
	"int":   regexp.MustCompile(`^-?[0-9]+$`),
	"uint":  regexp.MustCompile(`^[0-9]+$`),
	"uuid":  regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`),
	"alpha": regexp.MustCompile(`^[a-zA-Z]+$`),
	"alnum": regexp.MustCompile(`^[a-zA-Z0-9]+$`),
}

// oracleMeets reports whether the decoded value v meets the constraint c.
func oracleMeets(c, v string) bool {
	if re := oracleNamed[c]; re != nil {
		if !re.MatchString(v) {
			return false
		}
		switch c {
		case "int":
			_, err := strconv.ParseInt(v, 10, 64)
			return err == nil
		case "uint":
			_, err := strconv.ParseUint(v, 10, 64)
			return err == nil
		}
		return true
	}
	return regexp.MustCompile(`^(?:` + c + `)$`).MatchString(v)
}

// oracleOverlapping lists the pairs of constraints the fuzz targets use
// that some value meets both of, worked out by hand: a number is both an
// int and a uint, a run of a and b both alpha and [ab]+; every other pair
// of them is disjoint.
var oracleOverlapping = map[[2]string]bool{
	{"int", "uint"}: true, {"uint", "int"}: true,
	{"alpha", "[ab]+"}: true, {"[ab]+", "alpha"}: true,
}

// oracleWant is the answer the oracle expects for one request.
type oracleWant struct {
	code     int    // 200 when a route serves the request
	route    string // "METHOD pattern" of the route that serves it
	params   Params // its params, decoded
	allow    string // the Allow header for 405 and automatic OPTIONS
	location string // the redirect target: the escaped path, segments decoded and joined with "\x00"
}

func newOracle() *oracle {
	return &oracle{handleOPTIONS: true, trailingSlash: true, fixedPath: true}
}

// add records a route; the caller has checked that the router accepted it.
func (o *oracle) add(method, pattern string) {
	rt := oracleRoute{method: method, pattern: pattern, segs: strings.Split(pattern[1:], "/")}
	for _, s := range rt.segs {
		switch {
		case strings.HasPrefix(s, ":"):
			name, _ := oracleParam(s)
			rt.names = append(rt.names, name)
		case strings.HasPrefix(s, "*"):
			rt.names = append(rt.names, s[1:])
		}
	}
	o.routes = append(o.routes, rt)
}

// conflicts reports whether a route with method and the shape of pattern
// (its text with param names erased) is already registered, or whether
// a route of any method has, at the same place (the segments before it of
// the same shape), a constraint that overlaps one of pattern's.
func (o *oracle) conflicts(method, pattern string) bool {
	segs := strings.Split(pattern[1:], "/")
	sh := oracleShape(segs)
	for _, rt := range o.routes {
		if rt.method == method && oracleShape(rt.segs) == sh {
			return true
		}
		for i := 0; i < len(segs) && i < len(rt.segs); i++ {
			if oracleShape(segs[:i]) != oracleShape(rt.segs[:i]) {
				break
			}
			if !strings.HasPrefix(segs[i], ":") || !strings.HasPrefix(rt.segs[i], ":") {
				continue
			}
			_, a := oracleParam(segs[i])
			_, b := oracleParam(rt.segs[i])
			if a != "" && b != "" && a != b && oracleOverlapping[[2]string{a, b}] {
				return true
			}
		}
	}
	return false
}

func oracleShape(segs []string) string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = s
		switch {
		case strings.HasPrefix(s, ":"):
			_, c := oracleParam(s)
			out[i] = ":" + c
		case strings.HasPrefix(s, "*"):
			out[i] = "*"
		}
	}
	return strings.Join(out, "/")
}

// serve returns what the router should answer for method on the escaped
// path (as escapedPath gives it).
func (o *oracle) serve(method, escaped string) oracleWant {
	segs := strings.Split(escaped[1:], "/")
	rt, params, allow := o.lookup(method, segs)
	switch {
	case rt != nil:
		if k := oracleKinds(rt.segs); k[len(k)-1] == oCatchAll {
			if w, ok := o.redirect(method, segs, k); ok {
				return w
			}
		}
		return oracleWant{code: http.StatusOK, route: rt.method + " " + rt.pattern, params: params}
	case len(allow) > 0 && method == http.MethodOptions && o.handleOPTIONS:
		return oracleWant{code: http.StatusNoContent, allow: oracleAllow(allow, true)}
	}
	if w, ok := o.redirect(method, segs, nil); ok {
		return w
	}
	if len(allow) > 0 {
		if !o.knows(method) {
			return oracleWant{code: http.StatusNotImplemented}
		}
		return oracleWant{code: http.StatusMethodNotAllowed, allow: oracleAllow(allow, o.handleOPTIONS)}
	}
	return oracleWant{code: http.StatusNotFound}
}

// knows reports whether method is one RFC 9110 defines, PATCH, QUERY, or
// the method of a route.
func (o *oracle) knows(method string) bool {
	switch method {
	case "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY":
		return true
	}
	return slices.ContainsFunc(o.routes, func(rt oracleRoute) bool { return rt.method == method })
}

// oracleAllow returns the Allow header for the methods ms.
func oracleAllow(ms []string, options bool) string {
	if options {
		ms = append(ms, http.MethodOptions)
	}
	slices.Sort(ms)
	return strings.Join(slices.Compact(ms), ", ")
}

// redirect returns the redirect the documented policy gives for a path
// that no route serves with method: the first candidate where a route
// serves method (never for CONNECT, never to a path that starts with "//"
// or "/\"). When than is not nil, the path is served by a route ending in
// a catch-all whose segment kinds are than, and only a route more
// specific than it counts.
func (o *oracle) redirect(method string, segs []string, than []nodeKind) (oracleWant, bool) {
	if method == http.MethodConnect {
		return oracleWant{}, false
	}
	for _, cand := range o.candidates(segs) {
		if first := oracleUnescape(cand[0]); len(cand) > 1 && first == "" || strings.HasPrefix(first, `\`) {
			continue
		}
		rt, _, allow := o.lookup(method, cand)
		if than != nil && (rt == nil || !kindsBefore(oracleKinds(rt.segs), than)) {
			continue
		}
		if rt == nil && !(method == http.MethodOptions && o.handleOPTIONS && len(allow) > 0) {
			continue
		}
		if rt != nil {
			// A target that a catch-all serves and that would redirect in
			// turn is no target: a redirect never leads to another.
			if k := oracleKinds(rt.segs); k[len(k)-1] == oCatchAll {
				if _, again := o.redirect(method, cand, k); again {
					continue
				}
			}
		}
		w := oracleWant{code: http.StatusPermanentRedirect, location: decodedSegs(cand)}
		if method == http.MethodGet || method == http.MethodHead {
			w.code = http.StatusMovedPermanently
		}
		return w, true
	}
	return oracleWant{}, false
}

// lookup returns the route of highest precedence that matches segs and
// serves method, with its params, and the methods of every route that
// matches segs (HEAD added for GET).
func (o *oracle) lookup(method string, segs []string) (best *oracleRoute, params Params, allow []string) {
	var bestKinds []nodeKind
	for i := range o.routes {
		rt := &o.routes[i]
		kinds, values, ok := matchSegs(rt.segs, segs)
		if !ok {
			continue
		}
		allow = append(allow, rt.method)
		if rt.method == http.MethodGet {
			allow = append(allow, http.MethodHead)
		}
		if rt.method != method && !(method == http.MethodHead && rt.method == http.MethodGet) {
			continue
		}
		c := -1
		if best != nil {
			c = slices.Compare(kinds, bestKinds)
		}
		// At the same shape an explicit HEAD beats GET serving HEAD.
		if c < 0 || c == 0 && rt.method == method {
			best, bestKinds = rt, kinds
			params = params[:0]
			for j, v := range values {
				params = append(params, Param{Key: rt.names[j], Value: v})
			}
		}
	}
	return best, params, allow
}

// oracleKinds returns the kind of each segment of a pattern.
func oracleKinds(pat []string) []nodeKind {
	kinds := make([]nodeKind, len(pat))
	for i, p := range pat {
		switch {
		case strings.HasPrefix(p, "*"):
			kinds[i] = oCatchAll
		case strings.HasPrefix(p, ":") && strings.HasSuffix(p, ">"):
			kinds[i] = oConstrained
		case strings.HasPrefix(p, ":"):
			kinds[i] = oParam
		}
	}
	return kinds
}

// kindsBefore reports whether the segment kinds a come before b at the
// first place they differ; a pattern that ends where the other goes on is
// not before it.
func kindsBefore(a, b []nodeKind) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// matchSegs reports whether the pattern segments pat match the escaped
// request segments segs, with the kind of each pattern segment and the
// decoded value of each wildcard.
func matchSegs(pat, segs []string) (kinds []nodeKind, values []string, ok bool) {
	for i, p := range pat {
		if i >= len(segs) {
			return nil, nil, false
		}
		switch {
		case strings.HasPrefix(p, "*"):
			rest := strings.Join(segs[i:], "/")
			if strings.HasPrefix(rest, "/") {
				return nil, nil, false
			}
			return append(kinds, oCatchAll), append(values, oracleUnescape(rest)), true
		case strings.HasPrefix(p, ":"):
			if segs[i] == "" {
				return nil, nil, false
			}
			v, kind := oracleUnescape(segs[i]), oParam
			if _, c := oracleParam(p); c != "" {
				if !oracleMeets(c, v) {
					return nil, nil, false
				}
				kind = oConstrained
			}
			kinds, values = append(kinds, kind), append(values, v)
		default:
			if oracleUnescape(segs[i]) != p {
				return nil, nil, false
			}
			kinds = append(kinds, oStatic)
		}
	}
	return kinds, values, len(pat) == len(segs)
}

// candidates returns the redirect targets the documented policy tries, in
// order, for a path that matched nothing.
func (o *oracle) candidates(segs []string) [][]string {
	var cands [][]string
	toggle := func(s []string) {
		switch {
		case len(s) == 1 && s[0] == "": // "/" has no other form
		case s[len(s)-1] == "":
			cands = append(cands, s[:len(s)-1])
		default:
			cands = append(cands, append(slices.Clip(s), ""))
		}
	}
	if o.trailingSlash {
		toggle(segs)
	}
	if o.fixedPath {
		if clean := cleanSegs(segs); !slices.Equal(clean, segs) {
			cands = append(cands, clean)
			if o.trailingSlash {
				toggle(clean)
			}
		}
	}
	return cands
}

// cleanSegs drops empty and "." segments and resolves ".." (each judged
// decoded, so "%2e%2e" climbs and "..%2F" does not), keeping a trailing
// slash.
func cleanSegs(segs []string) []string {
	var out []string
	for _, s := range segs {
		switch oracleUnescape(s) {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, s)
		}
	}
	if len(out) > 0 && segs[len(segs)-1] == "" {
		out = append(out, "")
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}

func oracleUnescape(s string) string {
	u, err := url.PathUnescape(s)
	if err != nil {
		panic("oracle: " + err.Error()) // the oracle only sees paths that parsed
	}
	return u
}

// escapedPath returns the path of u as it was sent. Unlike
// URL.EscapedPath, it keeps a RawPath that holds bytes a client should have
// escaped (raw UTF-8, say): its "%2F" is still data, not a separator.
func escapedPath(u *url.URL) string {
	if u.RawPath != "" {
		return u.RawPath
	}
	return u.EscapedPath()
}

// decodedSegs returns escaped path segments decoded and joined with a NUL,
// a form that tells a "%2F" inside a segment from a separator.
func decodedSegs(segs []string) string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = oracleUnescape(s)
	}
	return strings.Join(out, "\x00")
}

// routeSpec is a route of a test table.
type routeSpec struct{ method, pattern string }

// routeHit is what the handler of the route that served a request saw.
type routeHit struct {
	route  string // "METHOD pattern" as registered
	params Params
}

// newOracleRouter registers routes on a new Router and on an oracle. Each
// handler records its route and params in the returned *routeHit. A route the
// router rejects must be one the oracle calls a conflict or that reject
// says is malformed; it is then left out of the oracle.
func newOracleRouter(tb testing.TB, routes []routeSpec, reject func(pattern string) bool) (*Router, *oracle, *routeHit) {
	tb.Helper()
	r, o, h := New(), newOracle(), &routeHit{}
	for _, rt := range routes {
		err := tryHandle(r, rt.method, rt.pattern, func(c *Context) error {
			h.route = rt.method + " " + rt.pattern
			h.params = append(h.params[:0], c.Params()...)
			return nil
		})
		wantErr := (reject != nil && reject(rt.pattern)) || o.conflicts(rt.method, rt.pattern)
		if (err != nil) != wantErr {
			tb.Fatalf("Handle(%q, %q): got error %v, want error: %v", rt.method, rt.pattern, err, wantErr)
		}
		if err == nil {
			o.add(rt.method, rt.pattern)
		}
	}
	return r, o, h
}

// tryHandle calls r.Handle and returns the *RouteError it panics with.
func tryHandle(r *Router, method, pattern string, h HandlerFunc) (err error) {
	defer func() {
		if v := recover(); v != nil {
			e, ok := v.(error)
			if !ok {
				panic(v)
			}
			err = e
		}
	}()
	r.Handle(method, pattern, h)
	return nil
}

// checkOracle serves method and target on r and compares the answer with
// the oracle's.
func checkOracle(tb testing.TB, r *Router, o *oracle, h *routeHit, method, target string) {
	tb.Helper()
	u, err := url.ParseRequestURI(target)
	if err != nil {
		tb.Fatalf("bad test target %q: %v", target, err)
	}
	wt := o.serve(method, escapedPath(u))
	*h = routeHit{}
	w := serveTarget(tb, r, method, target)
	if w.Code != wt.code {
		tb.Fatalf("%s %s: got status %d, want %d (want %+v, got route %q, Location %q)",
			method, target, w.Code, wt.code, wt, h.route, w.Header().Get("Location"))
	}
	switch {
	case wt.code == http.StatusOK:
		if h.route != wt.route {
			tb.Fatalf("%s %s: got route %q, want %q", method, target, h.route, wt.route)
		}
		if !slices.Equal(h.params, wt.params) && len(h.params)+len(wt.params) > 0 {
			tb.Fatalf("%s %s (%s): got params %q, want %q", method, target, wt.route, h.params, wt.params)
		}
	case wt.allow != "":
		if got := w.Header().Values("Allow"); len(got) != 1 || got[0] != wt.allow {
			tb.Fatalf("%s %s: got Allow %q, want %q", method, target, got, wt.allow)
		}
	case wt.location != "":
		checkLocation(tb, r, method, target, w.Header().Get("Location"), u.RawQuery, u.ForceQuery)
		lu, _ := url.ParseRequestURI(w.Header().Get("Location"))
		if got := decodedSegs(strings.Split(escapedPath(lu)[1:], "/")); got != wt.location {
			tb.Fatalf("%s %s: got Location %q, want the path %q (segments joined by NUL)",
				method, target, w.Header().Get("Location"), wt.location)
		}
	}
}

// checkLocation checks the documented invariants of a redirect's Location:
// path-only, not starting with "//" or "/\", the raw query kept with each
// byte a query may not hold percent-encoded, and a target that the router
// serves without redirecting again.
func checkLocation(tb testing.TB, r http.Handler, method, target, loc, rawQuery string, forceQuery bool) {
	tb.Helper()
	if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, `/\`) {
		tb.Fatalf("%s %s: got Location %q, want a path that starts with one '/'", method, target, loc)
	}
	lu, err := url.ParseRequestURI(loc)
	if err != nil {
		tb.Fatalf("%s %s: Location %q does not parse: %v", method, target, loc, err)
	}
	if want := queryEscaped(rawQuery); lu.RawQuery != want || lu.ForceQuery != forceQuery {
		tb.Fatalf("%s %s: got Location %q, want the raw query %q kept as %q", method, target, loc, rawQuery, want)
	}
	if w := serveTarget(tb, r, method, loc); w.Code >= 300 && w.Code < 400 {
		tb.Fatalf("%s %s: redirect to %q redirects again to %q (%d)", method, target, loc, w.Header().Get("Location"), w.Code)
	}
}

func TestOracleSelf(t *testing.T) {
	// The oracle's own rules, on a few cases worked out by hand, so that a
	// bug in it does not make the tree look right.
	o := newOracle()
	for _, rt := range []routeSpec{
		{"GET", "/a/:x/c"}, {"GET", "/a/b/d"}, {"POST", "/a/b/c"}, {"GET", "/f/*p"}, {"GET", "/u/:id"}, {"HEAD", "/u/:uid"}, {"POST", "/f"},
	} {
		o.add(rt.method, rt.pattern)
	}
	for _, tt := range []struct {
		method, path string
		want         oracleWant
	}{
		{"GET", "/a/b/c", oracleWant{code: 200, route: "GET /a/:x/c", params: Params{{"x", "b"}}}},
		{"POST", "/a/b/c", oracleWant{code: 200, route: "POST /a/b/c"}},
		{"PUT", "/a/b/c", oracleWant{code: 405, allow: "GET, HEAD, OPTIONS, POST"}},
		{"GET", "/f/", oracleWant{code: 200, route: "GET /f/*p", params: Params{{"p", ""}}}},
		{"GET", "/f//x", oracleWant{code: 301, location: "f\x00x"}},
		{"GET", "/f/a%2Fb/c", oracleWant{code: 200, route: "GET /f/*p", params: Params{{"p", "a/b/c"}}}},
		{"HEAD", "/u/1", oracleWant{code: 200, route: "HEAD /u/:uid", params: Params{{"uid", "1"}}}},
		{"GET", "/u/1/", oracleWant{code: 301, location: "u\x001"}},
		{"CONNECT", "/u/1/", oracleWant{code: 404}},
		{"GET", "/f", oracleWant{code: 301, location: "f\x00"}},          // a redirect beats POST's 405
		{"POST", "/f/", oracleWant{code: 308, location: "f"}},            // and the other way round
		{"PUT", "/f", oracleWant{code: 405, allow: "OPTIONS, POST"}},     // no PUT route near
		{"CONNECT", "/f", oracleWant{code: 405, allow: "OPTIONS, POST"}}, // never a redirect
	} {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			got := o.serve(tt.method, tt.path)
			if got.code != tt.want.code || got.route != tt.want.route || got.allow != tt.want.allow ||
				got.location != tt.want.location || !slices.Equal(got.params, tt.want.params) && len(got.params)+len(tt.want.params) > 0 {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// asRouteError returns the *RouteError in err, or fails.
func asRouteError(tb testing.TB, err error) *RouteError {
	tb.Helper()
	var re *RouteError
	if !errors.As(err, &re) {
		tb.Fatalf("got error %v (%T), want a *RouteError", err, err)
	}
	return re
}

// queryEscaped returns q with every byte that RFC 3986's query production
// (section 3.4: pchar, '/', '?', and pct-encoded) does not allow written
// %XX: a '%' is kept where two hex digits follow it.
func queryEscaped(q string) string {
	const allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?"
	pct := regexp.MustCompile(`^%[0-9A-Fa-f]{2}`)
	var b strings.Builder
	for i, c := range []byte(q) {
		if strings.IndexByte(allowed, c) >= 0 || c == '%' && pct.MatchString(q[i:]) {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}
