package api

import (
	"slices"

	"github.com/waltz-go/waltz/openapi"
)

// The tag hierarchy of an OpenAPI 3.2 document (3.2.0 section 4.25: a
// tag's parent and kind): the groups and resources typed operations are
// registered in, as tags nested as they are.
//
//   - A group with a prefix is a tag named by its path template ("/api",
//     "/api/users/{id}"), nested under the group it was made from; a
//     resource is a tag named by its type ("Shelf"), nested under its
//     group. Each is of kind "nav".
//   - An operation's own tags (Operation.Tags) are nested under the
//     innermost group or resource that holds every operation carrying
//     them; an operation with no tags of its own carries the innermost
//     group or resource it is in.
//
// The document lists every tag, parents before their children, in the
// order the routes first meet them. 3.1 has no hierarchy: its document
// lists no tags and leaves the operations' tags as they are, so the two
// differ there only in what 3.2 added.

// navOp is a typed operation and its object in the document being made.
type navOp struct {
	o  *operation
	op *openapi.Operation
}

// navKind is the kind of every tag of the hierarchy: tags for navigation
// (the OpenAPI tag-kind registry's "nav").
const navKind = "nav"

// tagTree nests the tags of d's typed operations as their groups and
// resources are, and lists them in the document.
func (d *docBuilder) tagTree() {
	var tags []openapi.Tag
	index := map[string]int{} // tags by name
	add := func(name, parent, doc string) {
		if _, ok := index[name]; !ok {
			index[name] = len(tags)
			tags = append(tags, openapi.Tag{Name: name, Parent: parent, Kind: navKind, Description: doc})
		}
	}
	own := map[string][]string{} // the chains of the operations carrying each own tag
	var order []string           // the own tags, as first met
	for _, n := range d.navs {
		chain := navChain(n.o)
		parent := ""
		for i, name := range chain {
			doc := "The operations under " + name + "."
			if i == len(chain)-1 && n.o.resource == name {
				doc = "The operations of the resource " + name + "."
			}
			add(name, parent, doc)
			parent = name
		}
		if len(n.o.op.Tags) == 0 {
			if parent != "" {
				n.op.Tags = []string{parent}
			}
			continue
		}
		for _, t := range n.o.op.Tags {
			if c, seen := own[t]; seen {
				own[t] = common(c, chain)
			} else {
				own[t] = chain
				order = append(order, t)
			}
		}
	}
	for _, t := range order {
		// A tag of the user's that names a group or resource is that tag.
		if _, ok := index[t]; !ok {
			parent := ""
			if c := own[t]; len(c) > 0 {
				parent = c[len(c)-1]
			}
			add(t, parent, "")
		}
	}
	d.doc.Tags = tags
}

// navChain returns the tags of the groups and resource o is registered
// in, outermost first.
func navChain(o *operation) []string {
	chain := make([]string, 0, len(o.groups)+1)
	for _, p := range o.groups {
		path, _ := openAPIPath(p)
		chain = append(chain, path)
	}
	if o.resource != "" && !slices.Contains(chain, o.resource) {
		chain = append(chain, o.resource)
	}
	return chain
}

// common returns the longest chain both a and b start with.
func common(a, b []string) []string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}
