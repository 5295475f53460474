package api

// Routes of one template shape, grouped into as few paths of the document
// as the router's leaves allow (samePaths).

import (
	"slices"
	"strings"
)

// leafRoutes are the routes of one shape that end at one leaf of the
// router, in Routes' order.
type leafRoutes struct {
	leaf    string
	paths   []string // each route's own template
	methods []string
}

// maxExact is how many leaves of one shape groupLeaves searches every
// grouping of; past it (never in practice) it groups them first-fit.
// maxMatch is how many groups groupPaths matches to templates when
// taking the first free template in turn does not give each its own;
// past it, each has its first.
const (
	maxExact = 8
	maxMatch = 64
)

// groupLeaves groups ls, the leaves of one shape in Routes' order, so that
// no method comes twice in a group, and gives each group a path of the
// document, one of its own routes' templates: as few groups as can each
// have a path no other group has (two groups on one path would lose an
// operation); of those, the first found, taking the leaves in order, each
// into the first group it fits, so that one group's path is the first
// route's. Where no grouping has a path of its own for each, the fewest
// groups, the paths shared.
func groupLeaves(ls []*leafRoutes) ([][]*leafRoutes, []string) {
	if len(ls) > maxExact {
		groups := firstFit(ls)
		paths, _ := groupPaths(groups)
		return groups, paths
	}
	var best [][]*leafRoutes
	var bestPaths []string
	bestOwn := false
	var cur [][]*leafRoutes
	var search func(i int)
	search = func(i int) {
		if bestOwn && len(cur) >= len(best) {
			return // no better grouping below
		}
		if i == len(ls) {
			paths, own := groupPaths(cur)
			if best == nil || own && !bestOwn || own == bestOwn && len(cur) < len(best) {
				best, bestPaths, bestOwn = cloneGroups(cur), paths, own
			}
			return
		}
		for g := range cur {
			if !slices.ContainsFunc(ls[i].methods, func(m string) bool { return hasMethod(cur[g], m) }) {
				cur[g] = append(cur[g], ls[i])
				search(i + 1)
				cur[g] = cur[g][:len(cur[g])-1]
			}
		}
		cur = append(cur, []*leafRoutes{ls[i]})
		search(i + 1)
		cur = cur[:len(cur)-1]
	}
	search(0)
	return best, bestPaths
}

// firstFit groups ls, each leaf into the first group where none of its
// methods is, in time near n: a group that a set of methods does not fit
// never fits it later (groups only gain methods), so each set looks on
// from where it last stopped.
func firstFit(ls []*leafRoutes) [][]*leafRoutes {
	var groups [][]*leafRoutes
	var methods []map[string]bool
	from := map[string]int{} // by a leaf's methods, sorted: the first group that may fit them
	for _, l := range ls {
		set := strings.Join(slices.Sorted(slices.Values(l.methods)), " ")
		g := from[set]
		for g < len(groups) && slices.ContainsFunc(l.methods, func(m string) bool { return methods[g][m] }) {
			g++
		}
		if g == len(groups) {
			groups, methods = append(groups, nil), append(methods, map[string]bool{})
		}
		groups[g] = append(groups[g], l)
		for _, m := range l.methods {
			methods[g][m] = true
		}
		from[set] = g + 1
	}
	return groups
}

// hasMethod reports whether a route of the leaves ls is of method m.
func hasMethod(ls []*leafRoutes, m string) bool {
	return slices.ContainsFunc(ls, func(l *leafRoutes) bool { return slices.Contains(l.methods, m) })
}

// cloneGroups returns a copy of groups that later changes to it leave
// alone.
func cloneGroups(groups [][]*leafRoutes) [][]*leafRoutes {
	out := make([][]*leafRoutes, len(groups))
	for i, g := range groups {
		out[i] = slices.Clone(g)
	}
	return out
}

// groupPaths gives each group one of its routes' templates, each another
// where that can be done, and reports whether it could; where it cannot,
// each group has its first. It is a matching of groups to templates
// (Kuhn's augmenting paths, polynomial in the routes): each group in turn
// takes its templates in order, moving earlier groups to their other
// templates when it must, so that one group alone has its first.
func groupPaths(groups [][]*leafRoutes) ([]string, bool) {
	options := make([][]string, len(groups))
	for g, ls := range groups {
		for _, l := range ls {
			for _, p := range l.paths {
				if !slices.Contains(options[g], p) {
					options[g] = append(options[g], p)
				}
			}
		}
	}
	// Most often each group in turn can take its first template no group
	// took: the matching's answer, found in one pass.
	paths := make([]string, len(groups))
	taken := map[string]bool{}
	for g := range groups {
		i := slices.IndexFunc(options[g], func(p string) bool { return !taken[p] })
		if i < 0 {
			break
		}
		paths[g] = options[g][i]
		taken[paths[g]] = true
		if g == len(groups)-1 {
			return paths, true
		}
	}
	firsts := func() ([]string, bool) {
		for g := range groups {
			paths[g] = options[g][0]
		}
		return paths, false
	}
	if len(groups) > maxMatch {
		return firsts()
	}
	owner := map[string]int{} // a template's group
	var seen map[string]bool
	var place func(g int) bool
	place = func(g int) bool {
		for _, p := range options[g] {
			if seen[p] {
				continue
			}
			seen[p] = true
			if o, taken := owner[p]; !taken || place(o) {
				owner[p] = g
				return true
			}
		}
		return false
	}
	for g := range groups {
		seen = map[string]bool{}
		if !place(g) {
			return firsts()
		}
	}
	for p, g := range owner {
		paths[g] = p
	}
	return paths, true
}
