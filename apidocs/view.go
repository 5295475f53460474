package apidocs

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/waltz-go/waltz/openapi"
)

// page is what the template shows: the document arranged for reading.
type page struct {
	OpenAPI                          string // the document's version of OpenAPI
	Title, Version, Summary, License string
	Description                      []string // paragraphs
	Servers                          []string
	Vars                             []shellVar // the shell variables the curl lines use
	ErrorsAsText                     bool       // some error answer's text/plain was left out (responseView.TextToo)
	Groups                           []*group
	Schemes                          []*schemeView
	Schemas                          []*namedSchema
}

// group is the operations of one tag, or of none.
type group struct {
	Name, Anchor string
	Description  []string
	Ops          []entry
}

// entry is an operation in a group: in full where it is first met, a
// link to that place in the groups of its other tags.
type entry struct {
	*opView
	Again bool
}

type opView struct {
	Anchor, Method, Path, ID, Summary string
	Description                       []string
	Deprecated                        bool
	Security                          [][]part // alternatives, each the schemes it needs together; nil: none needed
	Anonymous                         bool     // one alternative needs no credentials, beside Security's
	Params                            []*paramView
	Body                              *bodyView
	Responses                         []*responseView
	Curl                              string
	AsksETag                          bool // the curl line sends $ETAG in a precondition (asksETag)
}

type paramView struct {
	Name, In    string
	Required    bool
	Deprecated  bool
	Type        []part
	Rules       []string
	Description []string
	Example     string
}

type bodyView struct {
	Required    bool
	Description []string
	Content     []*contentView
}

// contentView is one schema of a body, and the media types it is sent in.
type contentView struct {
	MediaTypes []string
	Schema     *schemaView
	Items      bool   // Schema is each item's of a stream (OpenAPI 3.2's itemSchema), not the body's
	Example    string // JSON, indented, or JSON Lines; "" when neither
}

// shellVar is a variable of the curl lines, and what the reader sets it to.
type shellVar struct{ Name, Words string }

type responseView struct {
	Status, Description string
	Class               string // "ok" for 2xx, "error" for 4xx and 5xx, else "other"
	Headers             []*paramView
	Content             []*contentView
	TextToo             bool // the document lists text/plain beside the problem details, which the page leaves out (problemOrText)
}

// schemaView is a schema in words: its type, rules and description, and
// for an object given inline, its members.
type schemaView struct {
	Type        []part
	Rules       []string
	Description []string
	Props       []*propView
	Examples    []string // JSON
}

type propView struct {
	Name     string
	Required bool
	Schema   *schemaView
}

type namedSchema struct {
	Name, Anchor string
	Schema       *schemaView
	Example      string
}

type schemeView struct {
	Name, Anchor, Kind string
	Description        []string
}

// build arranges d for the page.
func build(d *openapi.Document) *page {
	p := &page{OpenAPI: d.OpenAPI, Title: cmp.Or(d.Info.Title, "API"), Version: d.Info.Version, Summary: d.Info.Summary,
		Description: paragraphs(d.Info.Description)}
	if l := d.Info.License; l != nil {
		p.License = cmp.Or(l.Name, l.Identifier)
	}
	base := serverBase("/")
	for i, s := range d.Servers {
		if i == 0 {
			base = serverBase(substitute(s))
		}
		if len(d.Servers) > 1 || s.URL != "/" { // "/" is what no servers means: nothing to say
			p.Servers = append(p.Servers, s.URL)
		}
	}
	vars := map[string]bool{}
	for _, pc := range base {
		if pc.isVar {
			vars[pc.text] = true
		}
	}
	p.Groups = orderGroups(d, groupOps(d, base, vars))
	anchorOps(p.Groups)
	p.ErrorsAsText = slices.ContainsFunc(p.Groups, func(g *group) bool {
		return slices.ContainsFunc(g.Ops, func(o entry) bool {
			return slices.ContainsFunc(o.Responses, func(r *responseView) bool { return r.TextToo })
		})
	})
	p.components(d)
	for _, v := range []struct{ name, words string }{
		{"API", "where the API is served, such as http://localhost:3000"},
		{"TOKEN", "a bearer token"},
		{"USERNAME", "the user name"},
		{"PASSWORD", "the password"},
		{"API_KEY", "the API key"},
		{"CREDENTIALS", "the credentials of the authentication scheme"},
		{"ETAG", `the ETag a GET of the resource answered, quotes included, such as ETAG='"v7"'`},
	} {
		if vars[v.name] {
			p.Vars = append(p.Vars, shellVar{"$" + v.name, v.words})
		}
	}
	return p
}

// groupOps returns the operations of d by tag ("" for none), each
// operation in each of its tags' groups, in path order; the variables
// their curl lines use are added to vars.
func groupOps(d *openapi.Document, base []piece, vars map[string]bool) map[string]*group {
	groups := map[string]*group{}
	for _, path := range sortedKeys(d.Paths) {
		item := d.Paths[path]
		if item == nil {
			continue
		}
		for _, m := range methods(item) {
			ov := buildOp(d, path, item, m, base, vars)
			tags := m.op.Tags
			if len(tags) == 0 {
				tags = []string{""}
			}
			for _, t := range tags {
				g := groups[t]
				if g == nil {
					g = &group{Name: t}
					groups[t] = g
				}
				g.Ops = append(g.Ops, entry{opView: ov})
			}
		}
	}
	return groups
}

// anchorOps gives each group and operation its place on the page, each
// a name of its own; an operation met again in a later group is marked
// so.
func anchorOps(groups []*group) {
	anchors := map[string]bool{}
	for _, g := range groups {
		g.Anchor = unique(anchors, "tag-"+slug(cmp.Or(g.Name, "other")))
		for i, o := range g.Ops {
			if o.Anchor != "" {
				g.Ops[i].Again = true
				continue
			}
			o.Anchor = unique(anchors, "op-"+slug(o.ID))
		}
	}
}

// components adds d's security schemes and named schemas to p.
func (p *page) components(d *openapi.Document) {
	for _, name := range sortedKeys(d.Components.SecuritySchemes) {
		s := d.Components.SecuritySchemes[name]
		if s != nil {
			p.Schemes = append(p.Schemes, &schemeView{Name: name, Anchor: schemeAnchor(name), Kind: schemeWords(s),
				Description: paragraphs(s.Description)})
		}
	}
	ex := exampler{defs: d.Components.Schemas}
	for _, name := range sortedKeys(d.Components.Schemas) {
		s := d.Components.Schemas[name]
		if s == nil {
			continue
		}
		ns := &namedSchema{Name: name, Anchor: schemaAnchor(name), Schema: view(s)}
		if v := ex.value(s); v != nil {
			ns.Example = jsonText(v, true)
		}
		p.Schemas = append(p.Schemas, ns)
	}
}

// serverBase returns the start of the curl lines' URLs for a server URL:
// the URL itself when absolute; else $API and the relative path.
func serverBase(u string) []piece {
	u = strings.TrimSuffix(u, "/")
	if strings.Contains(u, "://") {
		return []piece{lit(u)}
	}
	return []piece{vari("API"), lit(u)}
}

// substitute returns the URL of s with each {name} place of its
// variables given the variable's default (OpenAPI 3.1 section 4.8.6:
// the value a client sends when given none): a curl line cannot send
// a template, whose braces curl reads as a set of URLs.
func substitute(s openapi.Server) string {
	u := s.URL
	for _, name := range sortedKeys(s.Variables) {
		if v := s.Variables[name]; v != nil {
			u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
		}
	}
	return u
}

// view puts s in words, with the members of an object it gives inline.
func view(s *openapi.Schema) *schemaView {
	sv := &schemaView{Type: typeOf(s), Rules: rules(s)}
	if s == nil {
		return sv
	}
	sv.Description = paragraphs(s.Description)
	for _, e := range s.Examples {
		sv.Examples = append(sv.Examples, jsonText(e, false))
	}
	if s.Example != nil {
		sv.Examples = append(sv.Examples, jsonText(s.Example, false))
	}
	if s.Ref != "" {
		return sv
	}
	for _, p := range s.Properties {
		sv.Props = append(sv.Props, &propView{Name: p.Name, Required: slices.Contains(s.Required, p.Name), Schema: view(p.Schema)})
	}
	if s.Items != nil && s.Items.Ref == "" && len(s.Items.Properties) > 0 {
		sv.Props = view(s.Items).Props // an array of inline objects: the item's members
	}
	return sv
}

// orderGroups returns the groups in the document's tag order, then by
// name, operations of no tag last.
func orderGroups(d *openapi.Document, groups map[string]*group) []*group {
	rank := map[string]int{}
	for i, t := range d.Tags {
		if _, ok := rank[t.Name]; !ok {
			rank[t.Name] = i + 1
		}
		if g := groups[t.Name]; g != nil {
			g.Description = paragraphs(t.Description)
		}
	}
	gs := make([]*group, 0, len(groups))
	for _, g := range groups {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *group) int {
		if (a.Name == "") != (b.Name == "") {
			if a.Name == "" {
				return 1
			}
			return -1
		}
		ra, oka := rank[a.Name]
		rb, okb := rank[b.Name]
		switch {
		case oka && okb:
			return ra - rb
		case oka:
			return -1
		case okb:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return gs
}

// schemeWords says how a security scheme's credentials are sent.
func schemeWords(s *openapi.SecurityScheme) string {
	switch s.Type {
	case "http":
		switch strings.ToLower(s.Scheme) {
		case "bearer":
			w := "a bearer token in the Authorization header (Authorization: Bearer <token>, RFC 6750)"
			if s.BearerFormat != "" {
				w += ", a " + s.BearerFormat
			}
			return w
		case "basic":
			return "a user name and password in the Authorization header (HTTP Basic, RFC 7617)"
		}
		return "HTTP authentication with the " + s.Scheme + " scheme in the Authorization header"
	case "apiKey":
		return "an API key in the " + s.In + " " + s.Name
	case "oauth2":
		return "an OAuth 2.0 access token in the Authorization header"
	case "openIdConnect":
		return "an OpenID Connect token in the Authorization header"
	case "mutualTLS":
		return "a client TLS certificate"
	}
	return s.Type
}

// paragraphs splits text at blank lines. The text stays text: CommonMark
// in it is shown as written, never interpreted as HTML.
func paragraphs(text string) []string {
	var ps []string
	for p := range strings.SplitSeq(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			ps = append(ps, p)
		}
	}
	return ps
}

// slug returns s with every byte but letters, digits, '-', '_' and '.'
// turned into '-', for the page's anchors.
func slug(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	return string(b)
}

// unique returns a, or a with a number after it, that is not in taken,
// and takes it.
func unique(taken map[string]bool, a string) string {
	id := a
	for i := 2; taken[id]; i++ {
		id = a + "-" + strconv.Itoa(i)
	}
	taken[id] = true
	return id
}

func schemaAnchor(name string) string { return "schema-" + slug(name) }
func schemeAnchor(name string) string { return "auth-" + slug(name) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
