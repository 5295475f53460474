package api

// The document's paths and their params: routes that differ only in a
// param's name at one place under one path (OpenAPI 3.1 section 4.8.8),
// and the parameter objects of a pattern's params, with what their
// constraints and catch-alls say.

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/openapi"
)

// samePaths finds, among the routes rs, those that differ only in a
// param's name at one place ("/items/:id" and "/items/:key"), which the
// router takes, each route keeping its names, and which OpenAPI 3.1
// section 4.8.8 says MUST NOT be two paths of the document. Such routes
// go under one path, the first's in rs (Routes' order), when no method
// comes twice among them; each operation keeps its own params' schemas,
// so a constraint of one (/items/:id<int>) stays its operation's. With a
// method twice (a GET of /items/:id<int> beside one of /items/:key),
// which one path cannot hold, they go under as few paths as the router's
// leaves allow: the routes of each leaf together, a leaf with the first
// path whose methods it does not repeat. Hidden routes and mounts take no
// part. It also keeps, for refused, the methods of each leaf of each
// shape, hidden routes' included.
func (d *docBuilder) samePaths(rs []seam.Route) {
	type leafRoutes struct {
		leaf    string
		paths   []string // each route's own template
		methods []string
	}
	shapes := map[string][]*leafRoutes{}
	var order []string
	d.leaves = map[string]map[string][]string{}
	for _, rt := range rs {
		if rt.Method == "*" {
			continue
		}
		path, params := openAPIPath(rt.Pattern)
		key, _ := templateShape(path)
		if d.leaves[key] == nil {
			d.leaves[key] = map[string][]string{}
		}
		leaf := leafOf(path, params)
		d.leaves[key][leaf] = append(d.leaves[key][leaf], rt.Method)
		if isHidden(routeMiddleware(rt)) {
			continue
		}
		if shapes[key] == nil {
			order = append(order, key)
		}
		i := slices.IndexFunc(shapes[key], func(l *leafRoutes) bool { return l.leaf == leaf })
		if i < 0 {
			i = len(shapes[key])
			shapes[key] = append(shapes[key], &leafRoutes{leaf: leaf})
		}
		l := shapes[key][i]
		l.paths, l.methods = append(l.paths, path), append(l.methods, rt.Method)
	}
	d.merged = map[string]string{}
	for _, key := range order {
		type group struct {
			path    string
			methods []string
			members []*leafRoutes
		}
		var groups []*group
		for _, l := range shapes[key] {
			i := slices.IndexFunc(groups, func(g *group) bool {
				return !slices.ContainsFunc(l.methods, func(m string) bool { return slices.Contains(g.methods, m) })
			})
			if i < 0 {
				i = len(groups)
				groups = append(groups, &group{})
			}
			groups[i].methods = append(groups[i].methods, l.methods...)
			groups[i].members = append(groups[i].members, l)
		}
		// Each group's path is the first of its templates that no group
		// took before it, the groups with fewer templates choosing first,
		// so that no two are one path while another could be had.
		paths := func(g *group) []string {
			var ps []string
			for _, l := range g.members {
				for _, p := range l.paths {
					if !slices.Contains(ps, p) {
						ps = append(ps, p)
					}
				}
			}
			return ps
		}
		byChoice := slices.Clone(groups)
		slices.SortStableFunc(byChoice, func(a, b *group) int { return len(paths(a)) - len(paths(b)) })
		var taken []string
		for _, g := range byChoice {
			ps := paths(g)
			g.path = ps[0]
			if i := slices.IndexFunc(ps, func(p string) bool { return !slices.Contains(taken, p) }); i >= 0 {
				g.path = ps[i]
			}
			taken = append(taken, g.path)
		}
		for _, g := range groups {
			for _, l := range g.members {
				for _, p := range l.paths {
					if p != g.path {
						d.merged[p+" "+l.leaf] = g.path
					}
				}
			}
		}
	}
}

// mount is a mount's path item in the document, and its prefix.
type mount struct{ path, prefix string }

// mountsBeside removes the path item of a mount that a path of routes of
// the same shape stands beside (/files/{path} and /files/{id}), which
// OpenAPI 3.1 section 4.8.8 says MUST NOT both exist: that path says
// instead that what its operations do not take goes to the mount.
func (d *docBuilder) mountsBeside() {
	for _, m := range d.mounts {
		shape, _ := templateShape(m.path)
		for _, other := range slices.Sorted(maps.Keys(d.doc.Paths)) {
			if s, _ := templateShape(other); other != m.path && s == shape {
				item := d.doc.Paths[other]
				item.Description = addSentence(item.Description, "Every other request under "+m.prefix+"/ is handed to a mounted handler.")
				delete(d.doc.Paths, m.path)
				break
			}
		}
	}
}

// refused returns what the router answers a request of method whose path
// has a value the constraint of a param of leaf, the route's, refuses: a
// 405 where another leaf of its shape takes the path but not the method,
// none where one takes both (the request is that route's), else a 404.
// (A value another shape's route takes, a catch-all's or with a trailing
// slash, gets that route's answer, which this leaves out.)
func (d *docBuilder) refused(path, leaf, method string) int {
	shape, _ := templateShape(path)
	others := 0
	for l, ms := range d.leaves[shape] {
		if l == leaf {
			continue
		}
		if slices.Contains(ms, method) {
			return 0
		}
		others++
	}
	if others > 0 {
		return http.StatusMethodNotAllowed
	}
	return http.StatusNotFound
}

// leafOf returns what names the leaf of the router that a route of the
// template path, whose params are params, ends at: the template's shape
// and each param's constraint, their names aside. The routes of one leaf
// answer a URL together: its Allow, and the Accept-Query of its QUERY on
// its GET and HEAD.
func leafOf(path string, params []seam.Param) string {
	key, _ := templateShape(path)
	for _, p := range params {
		p.Name = ""
		key += fmt.Sprintf(" %+v", p)
	}
	return key
}

// samePath returns the path of the document the route of path goes
// under (samePaths) and, when that is another's, the names it gives the
// route's params, by the route's own.
func (d *docBuilder) samePath(path, leaf string) (string, map[string]string) {
	_, names := templateShape(path)
	first, ok := d.merged[path+" "+leaf]
	if !ok {
		return path, nil
	}
	_, firstNames := templateShape(first)
	renamed := map[string]string{}
	for i, n := range names {
		if n != firstNames[i] {
			renamed[n] = firstNames[i]
		}
	}
	return first, renamed
}

// templateShape returns an OpenAPI path template with its params' names
// left out ("/items/{}"), and those names in order.
func templateShape(path string) (string, []string) {
	var b strings.Builder
	var names []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			b.WriteString(path)
			return b.String(), names
		}
		j := i + strings.IndexByte(path[i:], '}')
		if j < i {
			b.WriteString(path)
			return b.String(), names
		}
		b.WriteString(path[:i+1])
		names = append(names, path[i+1:j])
		path = path[j:] // from the '}'
	}
}

// renameParams gives op's path params the names renamed maps their own
// to (samePath), each saying the name the route gives it.
func renameParams(op *openapi.Operation, renamed map[string]string) {
	if len(renamed) == 0 {
		return
	}
	for _, p := range op.Parameters {
		if to, ok := renamed[p.Name]; ok && p.In == "path" {
			p.Description = addSentence(p.Description, "The route names it "+p.Name+".")
			p.Name = to
		}
	}
}

// constrained reports whether the path param p has a constraint.
func constrained(p seam.Param) bool { return p.Type != "" || p.Format != "" || p.Pattern != "" }

// pathParam returns the parameter object of the path param p that no
// field of In binds (a plain route's, say).
func pathParam(p seam.Param) *openapi.Parameter {
	pp := &openapi.Parameter{Name: p.Name, In: "path", Required: true, Schema: constrainedSchema(p)}
	spans(pp, p)
	return pp
}

// catchAllDoc is what the description of a catch-all's parameter says:
// OpenAPI's path templating matches no '/' in a value (OpenAPI 3.1
// section 4.8.8.1), which a catch-all's holds.
const catchAllDoc = "A catch-all: it spans segments, the rest of the path, '/' included, and may be empty " +
	"(OpenAPI's path templates cannot say so). Sent with each '/' as it is or escaped as %2F, it is the same value."

// spans adds to the description of d, the parameter object of the path
// param p, that p spans segments when it is a catch-all.
func spans(d *openapi.Parameter, p seam.Param) {
	if !p.CatchAll {
		return
	}
	d.Description = addSentence(d.Description, catchAllDoc)
}

// constrainedSchema returns the schema of the path param p of a plain
// route: a string, or what its constraint says (an integer for int and
// uint, a uuid format, a pattern).
func constrainedSchema(p seam.Param) *openapi.Schema {
	sc := &openapi.Schema{Type: "string"}
	constrainSchema(sc, p)
	return sc
}

// constrainSchema adds what the constraint of the path param p says to sc,
// its schema. A named kind with a JSON type of its own sets it on a string
// schema; a typed operation's integer field keeps its own bounds. A
// regular expression, or a letters kind, becomes the pattern of a string
// schema.
func constrainSchema(sc *openapi.Schema, p seam.Param) {
	if sc == nil || sc.Ref != "" || sc.Type != "string" {
		return
	}
	switch {
	case p.Type == "integer":
		sc.Type, sc.Format = "integer", p.Format
		if p.Minimum0 {
			zero := json.Number("0")
			sc.Minimum = &zero
		}
	case p.Format != "":
		sc.Format = p.Format
	case sc.Pattern == "":
		sc.Pattern = p.Pattern
	}
}

// addSentence returns the description desc with the sentence s after
// it, desc ended with a full stop first unless it ends a sentence
// already.
func addSentence(desc, s string) string {
	switch {
	case desc == "":
		return s
	case !strings.HasSuffix(desc, ".") && !strings.HasSuffix(desc, "?") && !strings.HasSuffix(desc, "!"):
		desc += "."
	}
	return desc + " " + s
}
