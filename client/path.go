package client

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

// A route's pattern as a client fills it: its segments, static ones
// escaped once, params by their index, each param's constraint checked
// by the router's own rules.

// route is an operation's method and pattern, parsed.
type route struct {
	method, pattern string
	segs            []segment
	names           []string // the params' names, in order
}

// segment is one segment of a pattern.
type segment struct {
	text  string        // a static segment, escaped; a param's name
	param int           // the param's index, or -1 for a static segment
	rest  bool          // a catch-all
	cons  *waltz.Router // a constrained param's checker (see meets); nil for none
	src   string        // the constraint, for its message
}

// parseRoute parses route, "METHOD /pattern" as ServeMux writes it, and
// checks the pattern as the router does, by registering it on a router
// of its own. It panics, as registration does, on a malformed one.
func parseRoute(s string) *route {
	method, pattern, ok := strings.Cut(s, " ")
	pattern = strings.TrimLeft(pattern, " ")
	if !ok || method == "" || pattern == "" {
		panic(fmt.Sprintf("waltz: client: route %q is not \"METHOD /pattern\", such as \"GET /users/:id\"", s))
	}
	check(method, pattern, s)
	rt := &route{method: method, pattern: pattern}
	for _, seg := range strings.Split(pattern[1:], "/") {
		if seg == "" || seg[0] != ':' && seg[0] != '*' {
			rt.segs = append(rt.segs, segment{text: url.PathEscape(seg), param: -1})
			continue
		}
		sg := segment{text: seg[1:], param: len(rt.names), rest: seg[0] == '*'}
		if i := strings.IndexByte(seg, '<'); seg[0] == ':' && i > 0 {
			sg.text, sg.src = seg[1:i], seg[i+1:len(seg)-1]
			sg.cons = constraint(sg.src)
		}
		rt.names = append(rt.names, sg.text)
		rt.segs = append(rt.segs, sg)
	}
	return rt
}

// check panics, with the router's reason, when method and pattern are no
// route the router would register.
func check(method, pattern, s string) {
	defer func() {
		if v := recover(); v != nil {
			if re, ok := v.(*waltz.RouteError); ok {
				panic(fmt.Sprintf("waltz: client: route %q: %s", s, re.Reason))
			}
			panic(v)
		}
	}()
	waltz.New().Handle(method, pattern, func(*waltz.Context) error { return nil })
}

// constraint returns a router whose one route, "/:v<src>" named "v",
// checks a value against the constraint src with the router's own code
// ([waltz.Router.URL]).
func constraint(src string) *waltz.Router {
	r := waltz.New()
	r.Get("/:v<"+src+">", func(*waltz.Context) error { return nil }).Name("v")
	return r
}

// meets reports whether v meets sg's constraint.
func (sg *segment) meets(v string) bool {
	_, err := sg.cons.URL("v", "v", v)
	return err == nil
}

// appendPath appends the path of rt with the param values vals to b,
// each value escaped as one segment (a catch-all's segments each), and
// fails each value the router would not route to rt: an empty param, a
// dot segment, a catch-all's leading slash, a value against its
// constraint.
func (rt *route) appendPath(b []byte, vals []string, fails *failures) []byte {
	for _, sg := range rt.segs {
		b = append(b, '/')
		if sg.param < 0 {
			b = append(b, sg.text...)
			continue
		}
		v := vals[sg.param]
		loc := "path." + sg.text
		switch {
		case sg.rest:
			if strings.HasPrefix(v, "/") {
				fails.Fail(loc, "pattern", quoted("must not start with '/': a catch-all's value has no leading slash", v))
			}
			for i, part := range strings.Split(v, "/") {
				if part == "." || part == ".." {
					fails.Fail(loc, "pattern", quoted("must have no dot segment, which clients remove (RFC 3986 section 5.2.4)", v))
				}
				if i > 0 {
					b = append(b, '/')
				}
				b = append(b, url.PathEscape(part)...)
			}
			continue
		case v == "":
			fails.Fail(loc, "minLength", "must not be empty: a path param is one whole segment")
		case v == "." || v == "..":
			fails.Fail(loc, "pattern", quoted("must not be a dot segment, which clients remove (RFC 3986 section 5.2.4)", v))
		case sg.cons != nil && !sg.meets(v):
			fails.Fail(loc, "pattern", quoted("must meet the route's constraint <"+sg.src+">", v))
		}
		b = append(b, url.PathEscape(v)...)
	}
	return b
}

// quoted returns msg followed by ", got" and v, quoted and cut at 64
// bytes, as the server's messages quote a value.
func quoted(msg, v string) string { return msg + ", got " + typed.Quote(v) }
