package waltz

import (
	"fmt"
	"strings"
)

// A pattern is a route's path template parsed and validated once, before
// anything is inserted into the tree: registration never leaves a half-built
// tree behind.
type pattern struct {
	str    string   // the pattern as registered, group prefix included
	pieces []piece  // static runs and wildcards, in order
	names  []string // param and catch-all names, in order
}

// A piece is a run of static text (which may span several segments, slashes
// included) or one wildcard segment.
type piece struct {
	kind nodeKind
	text string      // the static text, or the wildcard's name
	cons *constraint // a param's constraint, or nil
}

// parsePattern validates s and splits it into pieces. The rules, each with
// its own message:
//   - s starts with '/' and holds no '%', '?' or '#' (patterns are written
//     unescaped, and a query is never part of a route), nor '{' or '}'
//     (ServeMux's wildcard syntax: the message gives the waltz spelling);
//   - no empty segment except a trailing one ("/a//b" is rejected, "/a/" is not);
//   - no "." or ".." segment: clients remove dot segments before they send
//     a path (RFC 3986 section 5.2.4), so no ordinary request would reach
//     the route;
//   - ":name" is a whole segment; "*name" is a whole segment and the last one;
//   - a name is letters, digits and '_', non-empty, and unique in the pattern;
//   - a param's constraint, ":name<c>", ends its segment, and c is a named
//     constraint or a regular expression (parseConstraint); only there may
//     '%', '?', '#', '{' and '}' appear.
//
// A ':' or '*' inside a segment (not at its start) is literal text.
func parsePattern(s string) (*pattern, error) {
	if s == "" || s[0] != '/' {
		return nil, fmt.Errorf("pattern must start with '/'")
	}
	escaped, braced := indexOutside(s)
	if i := escaped; i >= 0 {
		return nil, fmt.Errorf("pattern has %q at byte %d: write patterns unescaped and without a query", s[i], i)
	}
	if i := braced; i >= 0 {
		// ServeMux's syntax would otherwise register a literal "{id}" that
		// no request ever matches.
		return nil, fmt.Errorf("pattern has %q at byte %d: waltz params are written :name and a catch-all *name (%q), not {name}",
			s[i], i, fromBraces(s))
	}
	p := &pattern{str: s}
	if n := strings.Count(s, "/:") + strings.Count(s, "/*"); n > 0 {
		p.pieces, p.names = make([]piece, 0, 2*n+1), make([]string, 0, n)
	}
	// Static pieces are slices of s, not copies: the tree's nodes keep them,
	// and s is kept anyway, as the route's pattern.
	start := 0 // where the current run of static text starts in s
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i+1:], '/') + i + 1 // the end of the segment s[i+1:j]
		if j == i {
			j = len(s)
		}
		seg := s[i+1 : j]
		if seg == "" {
			if j != len(s) {
				return nil, fmt.Errorf("empty segment at byte %d", strings.Index(s, "//")+1)
			}
			break
		}
		if seg == "." || seg == ".." {
			return nil, fmt.Errorf("dot segment %q at byte %d: clients remove dot segments, so no request would reach this route", seg, i+1)
		}
		if seg[0] == ':' || seg[0] == '*' {
			kind, name := paramKind, seg[1:]
			var cons *constraint
			if k := strings.IndexByte(seg, '<'); k > 0 {
				if seg[0] == '*' {
					return nil, fmt.Errorf("catch-all %q has a constraint: only a :param takes one", seg)
				}
				if seg[len(seg)-1] != '>' {
					return nil, fmt.Errorf("constraint of %q must end the segment with '>' (a constraint holds no '/')", seg)
				}
				name = seg[1:k]
				var err error
				if cons, err = parseConstraint(seg[k+1 : len(seg)-1]); err != nil {
					return nil, fmt.Errorf("param %q: %v", ":"+name, err)
				}
			}
			if seg[0] == '*' {
				kind = catchAllKind
				if j != len(s) {
					return nil, fmt.Errorf("catch-all %q must be the last segment", seg)
				}
			}
			if err := checkName(seg, name, p.names); err != nil {
				return nil, err
			}
			p.pieces = append(p.pieces, piece{kind: staticKind, text: s[start : i+1]}, piece{kind: kind, text: name, cons: cons})
			p.names = append(p.names, name)
			start = j
		}
		i = j
	}
	if start < len(s) {
		p.pieces = append(p.pieces, piece{kind: staticKind, text: s[start:]})
	}
	return p, nil
}

// indexOutside returns the indexes of the first byte of s that is '%',
// '?' or '#', and of the first that is '{' or '}', not inside a param's
// constraint (":id<...>" to the end of its segment); -1 for none.
func indexOutside(s string) (escaped, braced int) {
	escaped, braced = -1, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			if inParam(s, i) {
				// Skip the constraint, to the end of its segment.
				j := strings.IndexByte(s[i:], '/')
				if j < 0 {
					return escaped, braced
				}
				i += j
			}
		case '%', '?', '#':
			if escaped < 0 {
				escaped = i
			}
		case '{', '}':
			if braced < 0 {
				braced = i
			}
		}
	}
	return escaped, braced
}

// inParam reports whether byte i of s is in a segment that starts with ':'.
func inParam(s string, i int) bool {
	start := strings.LastIndexByte(s[:i], '/') + 1
	return start < i && s[start] == ':'
}

// fromBraces rewrites ServeMux wildcards in s into waltz's syntax, for a
// hint: "/books/{id}" becomes "/books/:id", "/files/{path...}" becomes
// "/files/*path" and "/{$}" becomes "/".
func fromBraces(s string) string {
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		if len(seg) < 2 || seg[0] != '{' || seg[len(seg)-1] != '}' {
			continue
		}
		name := seg[1 : len(seg)-1]
		switch {
		case name == "$":
			segs[i] = ""
		case strings.HasSuffix(name, "..."):
			segs[i] = "*" + strings.TrimSuffix(name, "...")
		default:
			// chi's {name:regexp} is waltz's :name<regexp>.
			if n, re, ok := strings.Cut(name, ":"); ok {
				segs[i] = ":" + n + "<" + re + ">"
			} else {
				segs[i] = ":" + name
			}
		}
	}
	return strings.Join(segs, "/")
}

// checkName validates the name of the wildcard segment seg against the names
// already in the pattern.
func checkName(seg, name string, seen []string) error {
	if name == "" {
		return fmt.Errorf("wildcard %q has no name", seg)
	}
	if strings.ContainsAny(name, ":*") {
		return fmt.Errorf("segment %q has more than one wildcard: a wildcard is a whole segment", seg)
	}
	for _, r := range name {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Errorf("wildcard name %q may hold only letters, digits and '_'", name)
		}
	}
	for _, n := range seen {
		if n == name {
			return fmt.Errorf("duplicate param name %q", name)
		}
	}
	return nil
}

// String returns the pattern rebuilt from its pieces; for every pattern that
// parses, it equals the text that was parsed.
func (p *pattern) String() string {
	var b strings.Builder
	for _, pc := range p.pieces {
		switch pc.kind {
		case paramKind:
			b.WriteString(":" + pc.text)
			if pc.cons != nil {
				b.WriteString("<" + pc.cons.src + ">")
			}
		case catchAllKind:
			b.WriteString("*" + pc.text)
		default:
			b.WriteString(pc.text)
		}
	}
	return b.String()
}
