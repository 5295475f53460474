package contracttest

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/openapi"
)

// Options are the choices of a [Run]. The zero value is a run with seed 1,
// 20 random valid requests per operation, no credentials and curl lines
// against http://localhost:3000.
type Options struct {
	// Seed seeds the random values. 0 means 1: a run sends the same
	// requests every time until the document changes; another seed sends
	// others. Each failure names the seed that found it.
	Seed uint64

	// Count is how many requests with random valid values each operation
	// gets, beside its boundaries, broken rules, left-out values and
	// wrong types, which it always gets. 0 means 20.
	Count int

	// BaseURL is where the curl line of a failure sends its request: the
	// address the router is served at. "" means http://localhost:3000.
	BaseURL string

	// Credentials satisfy the document's security schemes, by the
	// scheme's name in components/securitySchemes ("bearerAuth"): the
	// token for an HTTP bearer scheme (and OAuth 2.0 or OpenID Connect),
	// "user:password" for HTTP Basic, the key for an API key. An operation
	// whose requirement cannot be met is sent without credentials, and
	// then no request of it may be answered 2xx.
	Credentials map[string]string

	// Known lists disagreements the caller knows of and accepts for now,
	// each named by what it is about, its operation, location and
	// keyword (as each failure prints it), with why. The failures it
	// names are logged, not reported; an entry that names no failure, or
	// no request the run makes, is a failure, so the list shrinks as they
	// are fixed.
	Known []Known

	// Opaque lists the params whose values only the server makes: a
	// paging cursor, a token it issued. The run makes no value of one
	// and varies none: every request leaves it out. An operation whose
	// opaque param is required (a path param, say) is not tested, and
	// the run says so; an entry that names no param of the document is a
	// failure.
	Opaque []Param
}

// Run checks r against its own OpenAPI document ([api.Describe], which
// [api.OpenAPI] writes): for each operation it makes requests from the
// document's schemas, sends each to r in-process (no network), and
// reports through t.Errorf every answer that disagrees with the
// document, each with a curl line that sends the same request. See the
// package documentation for what it sends and what it checks. Run calls
// t.Fatalf when the document does not build in libopenapi.
func Run(t testing.TB, r *waltz.Router, opts Options) {
	t.Helper()
	check(t, r, api.Describe(r, api.Info{}), routesOf(r), opts)
}

// routes is what the run knows of the router's routes: a copy of them
// without their handlers (routing), and by "METHOD /path" of the
// document, the route each operation describes ("GET /items/:id<int>",
// api.Paths).
type routes struct {
	copy *waltz.Router
	ops  map[string]string
}

// routesOf returns the routes of r.
func routesOf(r *waltz.Router) *routes {
	rs := &routes{copy: routing(r), ops: map[string]string{}}
	for rt, path := range api.Paths(r) {
		rs.ops[rt.Method+" "+path] = rt.Method + " " + rt.Pattern
	}
	return rs
}

// routing returns a router of r's routes, each answering 200 with
// nothing, and r's settings for redirects and OPTIONS: what the probes of
// a path's other methods ask which methods a route serves at a URL. A
// method that a route of another pattern serves there (PUT
// /articles/:slug at /articles/feed, where the document's
// /articles/{slug} declares PUT), or redirects (a trailing slash), or a
// mount takes, goes to that route, which the document allows (it cannot
// say which operation such a request belongs to: OpenAPI 3.1 section
// 4.8.8 matches a URL to one path item, by path alone). A route of a
// method with no field in OpenAPI 3.1 (PROPFIND) is left out unless it is
// hidden: the document says nothing of it, and the run reports an Allow
// that names it. QUERY, which the 3.1 document notes in its path item's
// description, stays.
func routing(r *waltz.Router) *waltz.Router {
	o := waltz.New()
	o.RedirectTrailingSlash, o.RedirectFixedPath = r.RedirectTrailingSlash, r.RedirectFixedPath
	// Its own OPTIONS answers with the methods served, whatever r does.
	o.HandleOPTIONS = true
	noop := func(c *waltz.Context) error {
		c.Writer.Header().Set(routeField, c.Request.Method+" "+c.Pattern())
		return nil
	}
	hidden := map[waltz.Route]bool{}
	for _, rt := range api.Hidden(r) {
		hidden[rt] = true
	}
	for _, rt := range r.Routes() { // registered on r already: none can conflict
		switch {
		case rt.Method == "*":
			o.Mount(strings.TrimSuffix(rt.Pattern, "/*"), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set(routeField, "* "+rt.Pattern)
			}))
		case rt.Method == http.MethodOptions:
		case slices.Contains(fields31, rt.Method) || rt.Method == waltz.MethodQuery || hidden[rt]:
			o.Handle(rt.Method, rt.Pattern, noop)
		}
	}
	return o
}

// routeField is the header field in which a route of the copy (routing) names
// itself: its method and pattern.
const routeField = "X-Contracttest-Route"

// fields31 are the methods a path item of OpenAPI 3.1 has a field for.
var fields31 = []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete,
	http.MethodOptions, http.MethodHead, http.MethodPatch, http.MethodTrace}

// routed returns the status the copy of the routes answers a request of
// method to target (a path and query) with: 404 or 405 when none of them
// takes it, 200 when one serves it, a redirect when one would after it;
// the route that serves it ("GET /items/:id"), or ""; and, for OPTIONS,
// the methods its Allow names (OPTIONS among them).
func (run *runner) routed(method, target string) (code int, route string, allow []string) {
	if run.routes == nil {
		return http.StatusNotFound, "", nil
	}
	rec := httptest.NewRecorder()
	run.routes.copy.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	if method == http.MethodOptions && rec.Code/100 == 2 {
		allow = allowed(rec.Header())
	}
	return rec.Code, rec.Header().Get(routeField), allow
}

// runner is one run: the document (its model, and libopenapi's reading
// of the same bytes), the validators, what was found.
type runner struct {
	t       testing.TB
	h       http.Handler
	opts    Options
	doc     *openapi.Document
	lib     *v3.Document // the document as libopenapi reads it: the schemas the generator walks and the validators judge against
	g       *gen
	answers validator.Validator               // judges answers, and requests in doubt
	values  schema_validation.SchemaValidator // judges each value made before it is sent
	notes   []string                          // what was left out, and why
	known   map[Known]bool                    // the Known entries that named a failure
	made    map[Known]bool                    // what the cases sent were about
	opaque  map[Param]bool                    // the Opaque entries that named a param
	failed  int
	sent    int // requests
	dropped int // variants whose validity the validator judged otherwise
	// elsewhere counts the requests whose URL the operation's route does
	// not take: another route's, or the router's own answer.
	elsewhere int

	routes *routes // the router's routes (routesOf), or nil
}

// check is Run on a handler, the document it is checked against and the
// handler's routes (routesOf; nil for none).
func check(t testing.TB, h http.Handler, doc *openapi.Document, rs *routes, opts Options) {
	t.Helper()
	run := newRunner(t, h, doc, opts)
	run.routes = rs
	// The loop over a path item's operations runs in an iterator's
	// closure, which t.Helper cannot mark: collect first, then send. The
	// paths go in the order the document lists them (sorted), and each
	// path's operations in the order of their fields.
	type entry struct {
		path, method string
		item         *openapi.PathItem
		op           *openapi.Operation
	}
	var entries []entry
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		item := doc.Paths[path]
		if item == nil {
			continue
		}
		for method, op := range item.Operations() {
			entries = append(entries, entry{path, method, item, op})
		}
		entries = append(entries, entry{path: path, item: item})
	}
	for _, e := range entries {
		if e.op == nil {
			run.methods(e.path, e.item)
		} else {
			run.operation(e.path, e.method, e.item, e.op)
		}
	}
	run.finish()
}

// newRunner returns the run of opts on h and doc, its document loaded.
func newRunner(t testing.TB, h http.Handler, doc *openapi.Document, opts Options) *runner {
	t.Helper()
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.Count == 0 {
		opts.Count = 20
	}
	if opts.BaseURL == "" {
		opts.BaseURL = "http://localhost:3000"
	}
	run := &runner{t: t, h: h, opts: opts, doc: doc, known: map[Known]bool{}, made: map[Known]bool{}, opaque: map[Param]bool{},
		g: &gen{rnd: rand.New(rand.NewPCG(opts.Seed, 0x636f6e7472616374))}}
	if err := run.load(doc); err != nil {
		t.Fatalf("contracttest: %v", err)
	}
	return run
}

// load has libopenapi read doc as api.OpenAPI writes it, and builds the
// validators.
func (run *runner) load(doc *openapi.Document) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("the document: %v", err)
	}
	d, err := libopenapi.NewDocument(b)
	if err != nil {
		return fmt.Errorf("libopenapi: %v", err)
	}
	m, err := d.BuildV3Model()
	if err != nil {
		return fmt.Errorf("libopenapi: %v", err)
	}
	run.lib = &m.Model
	opts := []config.Option{config.WithFormatAssertions(), config.WithContentAssertions()}
	v, errs := validator.NewValidator(d, append(opts, config.WithBodyDecoder("multipart/form-data", partsDecoder()))...)
	if len(errs) > 0 {
		return fmt.Errorf("libopenapi-validator: %v", errs)
	}
	run.answers = v
	run.values = schema_validation.NewSchemaValidatorWithLogger(slog.New(slog.DiscardHandler), opts...)
	return nil
}

// note records something the run left out, once.
func (run *runner) note(s string) {
	if !slices.Contains(run.notes, s) {
		run.notes = append(run.notes, s)
	}
}

// fail reports one failure of the case named name, about what about
// says, or logs it when a Known entry names it.
func (run *runner) fail(about Known, name, msg string) {
	run.t.Helper()
	if k, ok := run.knownAs(about); ok {
		run.known[k.key()] = true
		run.t.Logf("known (%s): %s: %s", k.Reason, name, msg)
		return
	}
	run.failed++
	run.t.Errorf("%s: %s\n\tOptions.Known: %s", name, msg, about.entry())
}

// finish reports the Known entries that named no failure and the Opaque
// ones that named no param, and logs what the run left out.
func (run *runner) finish() {
	run.t.Helper()
	for _, k := range run.opts.Known {
		switch {
		case k.Reason == "":
			run.t.Errorf("Options.Known: %s has no Reason: say why it is accepted", k)
		case run.known[k.key()]:
		case !run.made[k.key()]:
			run.t.Errorf("Options.Known: %s (%s) names no request the run makes: remove it, or name one a failure prints", k, k.Reason)
		default:
			run.t.Errorf("Options.Known: %s (%s) names no request that disagrees with the document: remove it", k, k.Reason)
		}
	}
	for _, p := range run.opts.Opaque {
		if !run.opaque[p] {
			run.t.Errorf("Options.Opaque: %s names no param of the document", p)
		}
	}
	for _, n := range run.notes {
		run.t.Logf("contracttest: not tested: %s", n)
	}
	if run.dropped > 0 {
		run.t.Logf("contracttest: %d generated values were not sent: libopenapi-validator judged them otherwise than the generator", run.dropped)
	}
	if run.elsewhere > 0 {
		run.t.Logf("contracttest: %d requests were not the operation's: a value its route's constraint refuses made a URL "+
			"another route serves, or one the router answers itself, as it did", run.elsewhere)
	}
	run.t.Logf("contracttest: %d requests", run.sent)
	if run.failed > 0 {
		run.t.Logf("contracttest: %d disagreements with the document; Options.Seed %d sends the same requests again", run.failed, run.opts.Seed)
	}
}

// methods sends each method the path item has no operation for, and
// checks the answer is 405 with an Allow that lists the item's methods
// (RFC 9110 section 15.5.6), or 501 for a method the server does not know
// (section 15.6.2). A method that a route of another pattern serves at
// the URL, or redirects, or a mount takes (run.routes) is not sent, and
// Allow may name the methods routes of other patterns serve there.
func (run *runner) methods(path string, item *openapi.PathItem) {
	run.t.Helper()
	var declared []string
	var first *openapi.Operation
	var firstMethod string
	for m, op := range item.Operations() {
		declared = append(declared, m)
		if first == nil {
			first, firstMethod = op, m
		}
	}
	slices.Sort(declared)
	if first == nil {
		return // a mount: every method goes to its handler
	}
	// The requests are the first operation's, their method changed.
	o, err := run.readOperation(path, firstMethod, item, first)
	if err != nil {
		return // noted with the operation itself
	}
	target := o.wire(o.base()).target
	_, _, served := run.routed(http.MethodOptions, target)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete, http.MethodPatch, http.MethodTrace} {
		if slices.Contains(declared, m) {
			continue
		}
		if code, _, _ := run.routed(m, target); code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
			continue // served, or redirected, by a route of another pattern, or a mount
		}
		o.method = m
		w := o.wire(o.base())
		w.header = slices.DeleteFunc(w.header, func(h [2]string) bool { return h[0] == "Content-Type" })
		w.body, w.hasBody = nil, false
		run.method(Known{Operation: m + " " + path}, w, declared, served)
	}
}
