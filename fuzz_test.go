package waltz

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// FuzzParsePattern checks that parsing any pattern either fails with an
// error or gives a pattern that prints back to the text parsed, and that the
// router's Handle turns the same input into a *RouteError, never another
// panic.
func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{
		"/", "/a", "/a/", "/:a", "/:a/", "/*a", "/a/:b/*c", "/a:b", "/a*b", "/:a:b", "/:/x", "/*", "/*a/b",
		"/:a/:a", "a", "", "//", "/a//b", "/%2F", "/a?b", "/a#b", "/Π/:π", "/:a-b", "/:_1", "/a/b/c/d/",
		"/:id<int>", "/:s<[a-z-]+>/x", "/:x<a{2}?#%>", "/:x<>", "/:x<intx>", "/*p<int>", "/:x<int", "/:x<(>",
		"/a<b>/:c<uuid>", "/:x<\\d+>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parsePattern(s)
		if err == nil {
			if got := p.String(); got != s {
				t.Fatalf("parsePattern(%q).String(): got %q, want %q", s, got, s)
			}
		}
		herr := tryHandle(New(), http.MethodGet, s, func(*Context) error { return nil })
		if (herr != nil) != (err != nil) {
			t.Fatalf("Handle(GET, %q): got error %v, want one exactly when parsePattern fails (%v)", s, herr, err)
		}
		if herr != nil {
			re := asRouteError(t, herr)
			if re.Pattern != s || !strings.HasPrefix(herr.Error(), "waltz: ") {
				t.Fatalf("Handle(GET, %q): got error %q, want a waltz: message naming the pattern", s, herr)
			}
		}
	})
}

// fuzzBytes hands out the bytes of a fuzz input; past the end it gives
// zeros, so every input decodes to something.
type fuzzBytes []byte

func (b *fuzzBytes) next() int {
	if len(*b) == 0 {
		return 0
	}
	c := (*b)[0]
	*b = (*b)[1:]
	return int(c)
}

func (b *fuzzBytes) pick(from []string) string { return from[b.next()%len(from)] }

var (
	fuzzMethods = []string{http.MethodGet, http.MethodPost, http.MethodHead, http.MethodOptions, "PROPFIND", http.MethodConnect}

	// Pattern segments: statics that share prefixes and bytes, a non-ASCII
	// one, wildcards (named by position below), "" (valid only last), and
	// a dot segment (never valid).
	fuzzPatternSegs = []string{"a", "b", "ab", "Π", ":", ":", "*", "", "a:b", ".", "<", "<"}

	// Constraints for the "<" segments: pairs of them that overlap
	// (int and uint, alpha and [ab]+) conflict at one place, the rest
	// (oracleOverlapping) are disjoint; fuzzWitness gives a value of each.
	fuzzConstraints = []string{"int", "uint", "alpha", "[ab]+", "uuid"}
	fuzzWitness     = map[string]string{"int": "-7", "uint": "42", "alpha": "Zz", "[ab]+": "ba", "uuid": "123e4567-e89b-12d3-a456-426614174000"}

	// Request segments, written as on the wire: plain, escaped forms of the
	// statics, an escaped separator, dot segments plain and escaped, escaped
	// query and fragment marks, and a backslash.
	fuzzPathSegs = []string{
		"a", "b", "ab", "Π", "%CE%A0", "%ce%a0", "%61", "%2F", "a%2Fb", "", ".", "..", "%2e%2e", "..%2F",
		"x", "%25", "%2525", "%20", "+", "%2B", "%3F", "%23", "%5C", "evil.com", "a:b", "%C0",
		"42", "-7", "007", "%34%32", "18446744073709551616", "9223372036854775808", "ba", "Zz",
		"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-42661417400g",
	}
)

// fuzzRouteSet decodes a route set from b: up to 8 routes of up to 4
// segments. Param names are ":p<i>" or ":q<i>" by a coin flip, so routes
// that differ only in names at one place come up often.
func fuzzRouteSet(b *fuzzBytes) (routes []routeSpec, malformed map[string]bool) {
	malformed = map[string]bool{}
	for range b.next()%8 + 1 {
		n := b.next()%4 + 1
		var segs []string
		bad := false
		for i := range n {
			s := b.pick(fuzzPatternSegs)
			switch s {
			case ":":
				s += string(rune('p'+b.next()%2)) + string(rune('0'+i))
			case "<":
				s = ":" + string(rune('p'+b.next()%2)) + string(rune('0'+i)) + "<" + b.pick(fuzzConstraints) + ">"
			case "*":
				s += string(rune('c' + b.next()%2))
				bad = bad || i != n-1
			case "":
				bad = bad || i != n-1
			case ".":
				bad = true // clients remove dot segments: registration refuses them
			}
			segs = append(segs, s)
		}
		p := "/" + strings.Join(segs, "/")
		if bad {
			malformed[p] = true
		}
		routes = append(routes, routeSpec{b.pick(fuzzMethods[:5]), p})
	}
	return routes, malformed
}

// fuzzTarget decodes a request target from b: up to 5 segments and maybe a
// query that holds escapes and a '?'.
func fuzzTarget(b *fuzzBytes) string {
	n := b.next() % 6
	segs := make([]string, n)
	for i := range segs {
		segs[i] = b.pick(fuzzPathSegs)
	}
	t := "/" + strings.Join(segs, "/")
	switch b.next() % 4 {
	case 1:
		t += "?q=%2F&r=a?b"
	case 2:
		t += "?"
	}
	return t
}

// FuzzRouting generates route sets and requests and requires the router to
// give the oracle's answer: the same route and params, or the same 404,
// 405 or OPTIONS answer with the same Allow, or a redirect to the same path
// that lands on a route.
func FuzzRouting(f *testing.F) {
	for _, s := range []string{
		"\x00", "\x07\x00\x00\x02\x01\x04\x01\x00\x02\x00\x05\x00\x03\x00\x06\x00\x00",
		"\x03\x02\x00\x04\x00\x03\x00\x04\x01\x01\x06\x00\x01\x02\x04\x06\x01\x02\x00\x03\x00\x08\x00\x04\x00\x00\x08\x09",
		"\x05\x01\x00\x00\x06\x00\x02\x05\x00\x05\x00\x00\x07\x01\x00\x00\x00\x04\x00\x00\x00\x01\x00\x03\x00\x01\x10\x11\x12",
		"\x04\x02\x03\x01\x02\x00\x00\x04\x00\x00\x01\x00\x09\x04\x00\x03\x0a\x0b\x0c\x00\x05\x00\x0d\x0e\x0f\x13\x14",
	} {
		f.Add(byte(0), []byte(s))
		f.Add(byte(7), []byte(s))
	}
	f.Fuzz(func(t *testing.T, flags byte, data []byte) {
		b := fuzzBytes(data)
		routes, malformed := fuzzRouteSet(&b)
		r, o, h := newOracleRouter(t, routes, func(p string) bool { return malformed[p] })
		r.HandleOPTIONS, o.handleOPTIONS = flags&1 == 0, flags&1 == 0
		r.RedirectTrailingSlash, o.trailingSlash = flags&2 == 0, flags&2 == 0
		r.RedirectFixedPath, o.fixedPath = flags&4 == 0, flags&4 == 0
		for range 8 {
			method := b.pick(fuzzMethods)
			checkOracle(t, r, o, h, method, fuzzTarget(&b))
			if len(b) == 0 {
				break
			}
		}
	})
}

// FuzzOwnRoute fills the wildcards of every registered route with values
// (escaped on the wire or not) and requires each such literal path to reach
// its own route with those values as params, unless the oracle names a
// route that matches too and comes first by the precedence rule, which the
// router must then pick, or the route is a catch-all and a variant of the
// path matches a more specific route, which the path is redirected to.
func FuzzOwnRoute(f *testing.F) {
	f.Add([]byte("\x07\x00\x00\x02\x01\x04\x01\x00\x02\x00\x05\x00\x03\x00\x06\x00\x00"), "zz", "a%2Fb/c%20d")
	f.Add([]byte("\x03\x02\x00\x04\x00\x03\x00\x04\x01\x01\x06\x00\x01\x02\x04\x06"), "%CE%A0", "")
	f.Fuzz(func(t *testing.T, data []byte, value, rest string) {
		b := fuzzBytes(data)
		routes, malformed := fuzzRouteSet(&b)
		r, o, h := newOracleRouter(t, routes, func(p string) bool { return malformed[p] })
		if value == "" || strings.ContainsAny(value, "/?#") || strings.HasPrefix(rest, "/") || strings.ContainsAny(rest, "?#") {
			return // not one segment, or a rest that a catch-all never takes
		}
		for _, v := range []string{value, rest} {
			if _, err := url.ParseRequestURI("/" + v); err != nil {
				return
			}
		}
		for _, rt := range o.routes {
			var segs []string
			for _, s := range rt.segs {
				switch {
				case strings.HasPrefix(s, ":") && strings.HasSuffix(s, ">"):
					// A value the constraint takes: the fuzzer's, if it
					// does, else the constraint's witness.
					if _, c := oracleParam(s); oracleMeets(c, value) {
						s = value
					} else {
						s = fuzzWitness[c]
					}
				case strings.HasPrefix(s, ":"):
					s = value
				case strings.HasPrefix(s, "*"):
					s = rest
				}
				segs = append(segs, s)
			}
			target := "/" + strings.Join(segs, "/")
			wt := o.serve(rt.method, target)
			checkOracle(t, r, o, h, rt.method, target)
			if wt.code == http.StatusMovedPermanently || wt.code == http.StatusPermanentRedirect {
				// The path is redirected when the route that takes it (this
				// one, or one that comes first) ends in a catch-all and a
				// trailing-slash or cleaned variant matches a more specific
				// route.
				if won, _, _ := o.lookup(rt.method, strings.Split(target[1:], "/")); won != nil &&
					strings.HasPrefix(won.segs[len(won.segs)-1], "*") {
					continue
				}
			}
			if wt.code != http.StatusOK {
				t.Fatalf("%s %s: the oracle gives %d for a path filled from %q", rt.method, target, wt.code, rt.pattern)
			}
			if h.route == rt.method+" "+rt.pattern {
				continue
			}
			// Another route won: it must come first by the precedence rule,
			// its segment kinds before this route's.
			reqSegs := strings.Split(target[1:], "/")
			own, _, _ := matchSegs(rt.segs, reqSegs)
			for _, other := range o.routes {
				if other.method+" "+other.pattern != h.route {
					continue
				}
				if kinds, _, ok := matchSegs(other.segs, reqSegs); !ok || slices.Compare(kinds, own) > 0 {
					t.Fatalf("%s %s: got route %q, which does not come before %q", rt.method, target, h.route, rt.pattern)
				}
			}
		}
	})
}

// FuzzConstraint holds each named constraint's check to its regular
// expression and range (the oracle's), and the overlap check to its
// promise: two constraints it calls disjoint never both take a value.
func FuzzConstraint(f *testing.F) {
	f.Add("42", "int", "[0-9a-f]+")
	f.Add("-9223372036854775808", "int", "-?[0-9]+")
	f.Add("123e4567-e89b-12d3-a456-426614174000", "uuid", "[0-9a-f-]{36}")
	f.Add("ab", "[ab]+", "(?i)A.")
	f.Add("x", "\\w", "[^a-w]")
	f.Fuzz(func(t *testing.T, v, a, b string) {
		var tr tree
		for _, ck := range constraintKinds {
			if got, want := tr.accepts(string(ck.kind), v, false), oracleMeets(ck.name, v); got != want {
				t.Fatalf("<%s> on %q: got %v, want %v", ck.name, v, got, want)
			}
		}
		ka, err := parseConstraint(a)
		if err != nil {
			return
		}
		kb, err := parseConstraint(b)
		if err != nil {
			return
		}
		if oracleMeets(a, v) && oracleMeets(b, v) && !overlaps(ka, kb) {
			t.Fatalf("<%s> and <%s> both take %q, but overlaps says they are disjoint", a, b, v)
		}
	})
}
