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
	"strconv"
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
// leaves allow, each leaf's routes together (groupLeaves). Hidden routes
// and mounts take no part. It also keeps, for refused, each leaf of each
// shape: its methods, hidden routes' included, and a mount's.
func (d *docBuilder) samePaths(rs []seam.Route) {
	shapes := map[string][]*leafRoutes{}
	routesOf := map[string]*leafRoutes{} // by shape and leaf
	var order []string
	d.leaves = map[string]map[string]*leafInfo{}
	for _, rt := range rs {
		pattern := rt.Pattern
		if rt.Method == "*" {
			pattern = strings.TrimSuffix(pattern, "/*") + "/*path" // a mount takes every method of every path under it
		}
		path, params := openAPIPath(pattern)
		key, _ := templateShape(path)
		if d.leaves[key] == nil {
			d.leaves[key] = map[string]*leafInfo{}
		}
		leaf := leafOf(path, params)
		info := d.leaves[key][leaf]
		if info == nil {
			info = &leafInfo{open: !slices.ContainsFunc(params, constrained)}
			d.leaves[key][leaf] = info
		}
		info.methods = append(info.methods, rt.Method)
		if rt.Method == "*" || isHidden(routeMiddleware(rt)) {
			continue
		}
		if shapes[key] == nil {
			order = append(order, key)
		}
		l := routesOf[key+" "+leaf]
		if l == nil {
			l = &leafRoutes{leaf: leaf}
			routesOf[key+" "+leaf] = l
			shapes[key] = append(shapes[key], l)
		}
		l.paths, l.methods = append(l.paths, path), append(l.methods, rt.Method)
	}
	d.merged = map[string]string{}
	for _, key := range order {
		groups, paths := groupLeaves(shapes[key])
		for g, ls := range groups {
			for _, l := range ls {
				for _, p := range l.paths {
					if p != paths[g] {
						d.merged[p+" "+l.leaf] = paths[g]
					}
				}
			}
		}
	}
}

// leafInfo is what the document keeps of a leaf of the router: the
// methods of its routes ("*" for a mount's) and whether it takes every
// value at each place (no constraint).
type leafInfo struct {
	methods []string
	open    bool
}

// mount is a mount's path item in the document, and its prefix.
type mount struct{ path, prefix string }

// mountsBeside says what each mount takes: on its own path item when no
// routes' path of its shape has operations (/files/{path} alone),
// "Every request under /files/ is handed to a mounted handler"; else on
// the first such path, "Every other request ...", and its own item, with
// no operation, goes, since OpenAPI 3.1 section 4.8.8 says two templates
// of one shape MUST NOT both exist (/files/{path} and /files/{id}). A
// route whose path is the mount's keeps its operation there.
func (d *docBuilder) mountsBeside() {
	if len(d.mounts) == 0 {
		return
	}
	byShape := map[string][]string{} // the paths with operations, sorted
	for _, p := range slices.Sorted(maps.Keys(d.doc.Paths)) {
		if hasOperations(d.doc.Paths[p]) {
			s, _ := templateShape(p)
			byShape[s] = append(byShape[s], p)
		}
	}
	done := map[string]bool{}
	for _, m := range d.mounts {
		if done[m.path] {
			continue // two mounts of one path (/u/:id<int>, /u/:id<uuid>): said once
		}
		done[m.path] = true
		shape, _ := templateShape(m.path)
		beside := ""
		if ps := byShape[shape]; len(ps) > 0 {
			beside = ps[0]
			if slices.Contains(ps, m.path) {
				beside = m.path
			}
		}
		switch {
		case beside == "":
			item := d.doc.Paths[m.path]
			item.Description = addSentence(item.Description, "Every request under "+m.prefix+"/ is handed to a mounted handler.")
		default:
			item := d.doc.Paths[beside]
			item.Description = addSentence(item.Description, "Every other request under "+m.prefix+"/ is handed to a mounted handler.")
			if !hasOperations(d.doc.Paths[m.path]) {
				delete(d.doc.Paths, m.path)
			}
		}
	}
}

// hasOperations reports whether item has an operation.
func hasOperations(item *openapi.PathItem) bool {
	for range item.Operations() {
		return true
	}
	return false
}

// refused returns what the router may answer a request of method whose
// path has a value that the constraint of a param of leaf, the route's,
// refuses: none where another leaf of its shape takes every value (no
// constraint) for the method, or a mount does (another route's answer);
// else a 404 unless another leaf takes every value, and a 405 where
// another leaf lacks the method. (A value another shape's route takes, a
// shorter catch-all's or with a trailing slash, gets that route's answer,
// which this leaves out.)
func (d *docBuilder) refused(path, leaf, method string) []int {
	shape, _ := templateShape(path)
	key := shape + " " + method
	c, ok := d.counts[key]
	if !ok { // once a shape and method: each leaf of the shape once
		for _, info := range d.leaves[shape] {
			has := info.has(method)
			c.open += b2i(info.open)
			c.openHas += b2i(info.open && has)
			c.lacking += b2i(!has)
		}
		if d.counts == nil {
			d.counts = map[string]leafCounts{}
		}
		d.counts[key] = c
	}
	self := d.leaves[shape][leaf] // the others: c less the route's own leaf
	has := self.has(method)
	if c.openHas-b2i(self.open && has) > 0 {
		return nil
	}
	var codes []int
	if c.open-b2i(self.open) == 0 {
		codes = append(codes, http.StatusNotFound)
	}
	if c.lacking-b2i(!has) > 0 {
		codes = append(codes, http.StatusMethodNotAllowed)
	}
	return codes
}

// leafCounts counts the leaves of a shape, for a method: those that take
// every value (open), those of them with the method, and those without
// it.
type leafCounts struct{ open, openHas, lacking int }

// has reports whether a route of the leaf is of method m, or a mount.
func (l *leafInfo) has(m string) bool {
	return slices.Contains(l.methods, m) || slices.Contains(l.methods, "*")
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
// schema, or an allOf beside the field's own pattern (a format beside
// the field's own format likewise).
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
	case p.Format != "" && (sc.Format == "" || sc.Format == p.Format):
		sc.Format = p.Format
	case p.Format != "":
		// The field's own format and the route's both hold (JSON
		// Schema 2020-12 Core section 10.2.1.1: allOf).
		sc.AllOf = append(sc.AllOf, &openapi.Schema{Format: p.Format})
	case p.Pattern == "":
	case sc.Pattern == "" || sc.Pattern == p.Pattern:
		sc.Pattern = p.Pattern
	default:
		// The field's pattern and the route's: a value must match
		// both, where the schema showed the field's alone.
		sc.AllOf = append(sc.AllOf, &openapi.Schema{Pattern: p.Pattern})
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

// operationOf returns item's operation of method, or nil.
func operationOf(item *openapi.PathItem, method string) *openapi.Operation {
	for m, op := range item.Operations() {
		if m == method {
			return op
		}
	}
	return nil
}

// maxOthers is how many other routes sayOthers names.
const maxOthers = 5

// sayOthers adds to each operation's description the other routes of its
// method that its path holds no place for (describe), the first
// maxOthers by name.
func (d *docBuilder) sayOthers() {
	for op, rs := range d.others {
		named := strings.Join(rs[:min(len(rs), maxOthers)], ", ")
		if len(rs) > maxOthers {
			named += " and " + strconv.Itoa(len(rs)-maxOthers) + " more"
		}
		what := "Another route, " + named + ", serves"
		if len(rs) > 1 {
			what = "Other routes, " + named + ", serve"
		}
		op.Description = addSentence(op.Description, what+" some URLs of this path too, as their constraints and this operation's decide; "+
			"OpenAPI has no place for them beside this one.")
	}
}
