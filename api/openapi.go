package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/seam"
	"github.com/waltz-go/waltz/internal/typed"
	"github.com/waltz-go/waltz/openapi"
)

// Info is what the OpenAPI document says of the API as a whole (its
// info object, OpenAPI 3.1 section 4.8.2, and its servers), and which
// version of OpenAPI it follows.
type Info struct {
	Title       string   // the API's name; "" means "API"
	Version     string   // the API's version, not OpenAPI's; "" means "0.0.0"
	Summary     string   // one line
	Description string   // CommonMark
	License     string   // an SPDX license identifier, such as "MIT"; optional; written as info.license's name and identifier (section 4.8.4)
	Servers     []string // base URLs, such as "https://api.example.com"; none means where the router is mounted (see Describe), else "/", the document's own host

	// OpenAPI is the version of the OpenAPI Specification the document
	// follows: "3.1" (or ""), written as 3.1.1, the default while the
	// tools users have catch up; or "3.2", written as 3.2.0, which adds
	// what 3.1 cannot say: QUERY operations under the path item's query
	// field and other methods' under additionalOperations, event streams
	// and JSON Lines described item by item (itemSchema), and groups and
	// resources as a tag hierarchy (a tag's parent and kind). The same
	// registrations give both; to serve both, serve two documents:
	//
	//	docs := r.With(api.Hide)
	//	docs.Get("/openapi.json", api.ServeOpenAPI(r, info))
	//	info.OpenAPI = "3.2"
	//	docs.Get("/openapi-3.2.json", api.ServeOpenAPI(r, info))
	//
	// A 3.1 document leaves out the QUERY operations, which it has no
	// field for, and says so in their path item's description. Describe
	// and OpenAPI panic on any other value.
	OpenAPI string
}

// docBuilder is the state of making one document.
type docBuilder struct {
	doc        *openapi.Document
	schemas    *typed.Schemas
	ids        map[string]bool // the operation IDs taken
	render     func(*waltz.Context, *waltz.HTTPError)
	errBody    *errorBody                      // what a RenderError of the user's writes (ErrorBody), or nil
	problems   bool                            // some response refers to the Problem schema
	v32        bool                            // the document is OpenAPI 3.2's
	navs       []navOp                         // the typed operations described, for 3.2's tags (tags.go)
	queries    map[string][]string             // by leaf (leafOf): the media types of its typed QUERY, for its GET's and HEAD's Accept-Query (query.go)
	reads      map[string][]*openapi.Operation // by leaf (leafOf): its GET and HEAD operations
	merged     map[string]string               // by a route's template and leaf ("/items/{key} "+leafOf): the path of the document it goes under, when another's (samePaths)
	mounts     []mount                         // the mounts described
	placed     map[waltz.Route]string          // by route: the path its operation is under (Paths)
	others     map[*openapi.Operation][]string // by operation: the routes of its method its path has no place for (sayOthers)
	leaves     map[string]map[string]*leafInfo // by template shape, by leaf (leafOf): its routes' methods, hidden ones and mounts too (samePaths)
	counts     map[string]leafCounts           // by shape and method: its leaves counted (refused)
	routerOnly map[*openapi.Operation][]string // the answers of each operation that only the router gives (routerAnswer)
	spellings  map[string]string               // by canonical name: a header field's name as a typed operation's tag spells it (spell)
}

// The versions of the OpenAPI specification a document can follow, as
// Info.OpenAPI names them, and as the document's openapi field writes
// them.
const (
	openAPIVersion   = "3.1.1"
	openAPIVersion32 = "3.2.0"
)

// OpenAPI returns the OpenAPI document of the routes registered on r
// (those inside [Hide] left out), OpenAPI 3.1 unless info.OpenAPI says
// "3.2", as indented JSON:
// [Describe]'s model, written by encoding/json. The same registrations
// give the same bytes, so the document can be committed and diffed.
func OpenAPI(r *waltz.Router, info Info) []byte {
	b, err := json.MarshalIndent(Describe(r, info), "", "  ")
	if err != nil {
		panic("waltz: OpenAPI: " + err.Error()) // the model holds only what Describe put in
	}
	return append(b, '\n')
}

// Describe returns the OpenAPI document of the routes registered on r,
// of the version info.OpenAPI names (3.1 by default, or 3.2), as a
// model of its own, which [OpenAPI] writes: typed operations
// ([Op]) in full, with their parameters, request bodies, success answers
// and problem details errors; plain routes with their methods and path
// params (as strings); mounts as their prefix. Routes inside [Hide] are
// left out, and so are HEAD served by GET and the automatic OPTIONS, as
// the router answers them itself, and
// so, in 3.1, are methods OpenAPI has no field for (QUERY included, with
// a note in its path item's description); 3.2 describes them. Named
// struct types become
// components/schemas, referred to by $ref. With
// [waltz.Router.DisallowUnknownFields] set, object schemas have
// additionalProperties false, as bodies with other members are refused.
// Each call builds a new model, which the caller may change.
//
// The paths are the router's own patterns. When info has no Servers,
// the document's servers say where r is served: for each place another
// router mounts r ([waltz.Group.Mount] with r as its handler, through
// that router's own mounts), the mount's prefix ("/v1"; a prefix's
// params as server variables, "/t/{tenant}", section 4.8.6), so that
// the URL of an operation, its server's URL and its path (section
// 4.8.8), is the URL the outer router serves it at; else "/" (section
// 4.8.1's default, said out loud). A mount behind another handler
// (http.StripPrefix, a middleware around r) or a proxy that strips a
// prefix is not seen: Info.Servers says where the API is then.
func Describe(r *waltz.Router, info Info) *openapi.Document { return describeRouter(r, info).doc }

// Paths returns, by route of r, the path of its OpenAPI 3.1 document
// ([Describe]) that the route's operation is under: "/items/{id}" for
// GET /items/:id<int>, or for DELETE /items/:key when routes of one shape
// share a path. Hidden routes, mounts, QUERY routes (which 3.1 has no
// field for, see [Op]), routes of methods 3.1 has no field for, and a
// route whose method its path holds already (another route's operation
// stands there) are not in it. A contract test reads it to tell which
// route an operation is.
func Paths(r *waltz.Router) map[waltz.Route]string { return describeRouter(r, Info{}).placed }

// describeRouter builds the document of r's routes for info.
func describeRouter(r *waltz.Router, info Info) *docBuilder {
	version := openAPIVersion
	switch info.OpenAPI {
	case "", "3.1":
	case "3.2":
		version = openAPIVersion32
	default:
		panic(fmt.Sprintf(`waltz: Info.OpenAPI %q: want "3.1" (or "") or "3.2"`, info.OpenAPI))
	}
	doc := &openapi.Document{OpenAPI: version, Paths: map[string]*openapi.PathItem{},
		Info: openapi.Info{Title: info.Title, Version: info.Version, Summary: info.Summary, Description: info.Description}}
	if doc.Info.Title == "" {
		doc.Info.Title = "API"
	}
	if doc.Info.Version == "" {
		doc.Info.Version = "0.0.0"
	}
	if info.License != "" {
		doc.Info.License = &openapi.License{Name: info.License, Identifier: info.License}
	}
	for _, s := range info.Servers {
		doc.Servers = append(doc.Servers, openapi.Server{URL: s})
	}
	if doc.Servers == nil {
		doc.Servers = mountServers(r)
	}
	d := &docBuilder{doc: doc, schemas: typed.NewSchemas(r.DisallowUnknownFields), ids: map[string]bool{}, render: r.RenderError,
		errBody: stateOf(r).errBody, v32: version == openAPIVersion32}
	// Every error response's $ref names "Problem": a user's type of that
	// name takes another.
	d.schemas.Reserve("Problem", reflect.TypeFor[waltz.Problem]())
	rs := seam.Router.Routes(r)
	for _, rt := range rs {
		if o, ok := rt.Op.(*operation); ok && o.op.ID != "" && !isHidden(routeMiddleware(rt)) {
			d.ids[o.op.ID] = true
		}
	}
	d.samePaths(rs)
	for _, rt := range rs {
		d.describe(rt)
	}
	d.sayOthers()
	d.mountsBeside()
	for leaf, types := range d.queries {
		// The router sends a QUERY's Accept-Query on the GET and HEAD
		// of its leaf too (RFC 10008 appendix A.3).
		for _, op := range d.reads[leaf] {
			describeAcceptQuery(op, types, d.routerOnly[op], false)
		}
	}
	if d.problems {
		d.schemas.Of(reflect.TypeFor[waltz.Problem]())
	}
	doc.Components.Schemas = d.schemas.Defs()
	if d.v32 {
		d.tagTree()
	}
	spell(doc, d.spellings)
	return d
}

// ServeOpenAPI returns a handler that answers with r's OpenAPI document,
// made on the first request (when every route is registered) and kept.
// Its route is one of r's, which the document describes as a plain GET
// unless [Hide] leaves it out:
//
//	r.With(api.Hide).Get("/openapi.json", api.ServeOpenAPI(r, api.Info{Title: "Bookmarks", Version: "1.0.0"}))
//
// The answer is application/json with its Content-Length, a strong ETag
// made from the document's bytes (SHA-256) and Cache-Control "no-cache":
// a client that has the document asks again with If-None-Match and gets
// a 304 (RFC 9110 section 13.1.2) until the routes change, which takes a
// new process. It is served by [http.ServeContent], so HEAD and Range
// requests are answered too.
func ServeOpenAPI(r *waltz.Router, info Info) waltz.HandlerFunc {
	var once sync.Once
	var doc []byte
	var etag string
	return func(c *waltz.Context) error {
		once.Do(func() {
			doc = OpenAPI(r, info)
			sum := sha256.Sum256(doc)
			etag = `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
		})
		// Slices of this answer's own: a middleware may edit one in
		// place (Compress weakens the tag of what it compresses).
		h := c.Writer.Header()
		h["Content-Type"] = []string{"application/json"}
		h["Etag"] = []string{etag}
		h["Cache-Control"] = []string{"no-cache"}
		http.ServeContent(c.Writer, c.Request, "", time.Time{}, bytes.NewReader(doc))
		return nil
	}
}

// mountServers returns the servers of r's document when Info gives
// none: the prefixes other routers mount r at, each a server whose URL
// is the prefix in OpenAPI's template syntax, with a variable for each
// param of it; "/" when no router mounts r (OpenAPI 3.1 section 4.8.1:
// the document's own host).
func mountServers(r *waltz.Router) []openapi.Server {
	var ss []openapi.Server
	for _, prefix := range seam.Router.MountedAt(r) {
		if prefix == "" {
			ss = append(ss, openapi.Server{URL: "/"})
			continue
		}
		url, params := openAPIPath(prefix)
		s := openapi.Server{URL: url}
		for _, p := range params {
			if s.Variables == nil {
				s.Variables = map[string]*openapi.ServerVariable{}
			}
			// A server variable must have a default (section 4.8.6).
			s.Variables[p.Name] = &openapi.ServerVariable{Default: serverDefault(p),
				Description: "The value of the param " + p.Name + " of the mount's prefix " + prefix + "."}
		}
		ss = append(ss, s)
	}
	if ss == nil {
		// What OpenAPI assumes when there are none (section 4.8.1), said
		// out loud: the document's own host.
		ss = []openapi.Server{{URL: "/"}}
	}
	return ss
}

// serverDefault returns the default of the server variable of p, a param
// of a mount's prefix: a value its constraint takes, so that a URL made
// of the defaults (the docs page's curl lines) reaches the mount: 1 for
// an int or uint, a UUID for a uuid; else the param's name, which stands
// for the value a client puts there, when the constraint (alpha, alnum,
// a regular expression) takes it or there is none.
func serverDefault(p seam.Param) string {
	switch {
	case p.Type == "integer":
		return "1"
	case p.Format == "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	}
	return p.Name
}

// describeMount adds a mount's prefix to the document as a path item with
// the rest of the path as a param and no operations: the mounted
// handler's own are not known.
func (d *docBuilder) describeMount(pattern string) {
	prefix := strings.TrimSuffix(pattern, "/*") // a mount's route: its prefix and "/*"
	path, params := openAPIPath(prefix + "/*path")
	docPrefix, _ := openAPIPath(prefix) // "/u/{id}/files" for /u/:id<int>/files
	d.mounts = append(d.mounts, mount{path, docPrefix})
	if d.doc.Paths[path] != nil {
		return // a route's, with its operations: mountsBeside says what the mount takes
	}
	item := &openapi.PathItem{}
	for _, p := range params {
		item.Parameters = append(item.Parameters, &openapi.Parameter{Name: p.Name, In: "path", Required: true, Schema: &openapi.Schema{Type: "string"}})
	}
	d.doc.Paths[path] = item
}

// openAPIPath returns pattern in OpenAPI's template syntax ("/a/{id}")
// and its params.
func openAPIPath(pattern string) (string, []seam.Param) { return seam.Router.Params(pattern) }

// uniqueID returns an operation ID made of method and pattern that is not
// in ids, and adds it.
func uniqueID(ids map[string]bool, method, pattern string) string {
	words := []string{strings.ToLower(method)}
	for seg := range strings.SplitSeq(pattern, "/") {
		seg = strings.TrimLeft(seg, ":*")
		seg, _, _ = strings.Cut(seg, "<") // a param's constraint is not part of its name
		if seg != "" {
			words = append(words, seg)
		}
	}
	id := strings.Join(words, "-")
	base := id
	for i := 2; ids[id]; i++ {
		id = base + "-" + strconv.Itoa(i)
	}
	ids[id] = true
	return id
}
