package benchmarks

import (
	"io"
	"net/http"
	"strings"

	"github.com/waltz-go/waltz"
)

// OpsApps builds the small JSON API of BenchmarkOps in each way, by
// implementation name (hand, typed, huma), for cmd/instr; "problem" is
// ProblemApp, which answers post-invalid only; "negotiated" is the typed
// API whose GET declares JSON and XML, for get-accept.
var OpsApps = func() map[string]func() http.Handler {
	m := map[string]func() http.Handler{"problem": ProblemApp, "negotiated": negotiatedOps}
	for _, impl := range opImpls {
		m[impl.name] = impl.build
	}
	return m
}()

// OpsRequest returns the request of BenchmarkOps's case name (get, post,
// post-invalid, query) and the status every implementation that serves
// it answers it with; a body is a [ReplayBody].
func OpsRequest(name string) (*http.Request, int, bool) {
	for _, oc := range opCases {
		if oc.name == name {
			return oc.request(), oc.status, true
		}
	}
	return nil, 0, false
}

// ReplayBody is a request body that can be read again after Reset, so a
// benchmark can send one request many times.
type ReplayBody struct{ strings.Reader }

// NewReplayBody returns a ReplayBody that reads s.
func NewReplayBody(s string) *ReplayBody { return &ReplayBody{*strings.NewReader(s)} }

func (b *ReplayBody) Close() error { return nil }

// Reset rewinds the body to its start.
func (b *ReplayBody) Reset() { b.Seek(0, io.SeekStart) }

// opRequest is a request with method and target, as a server would
// have it.
func opRequest(method, target string) *http.Request {
	r, err := http.NewRequest(method, target, nil)
	if err != nil {
		panic(err)
	}
	r.RequestURI = target
	return r
}

// An opImpl builds the API's router in one way.
type opImpl struct {
	name  string
	build func() http.Handler
}

// An opCase is one request and the status every implementation answers.
type opCase struct {
	name    string
	request func() *http.Request
	status  int
	// apps, when set, are the implementations that serve it, by name,
	// in place of opImpls' builders.
	apps map[string]func() http.Handler
}

// serves reports whether the implementation impl serves oc.
func (oc opCase) serves(impl string) bool { return oc.apps == nil || oc.apps[impl] != nil }

// app returns the router of impl that serves oc.
func (oc opCase) app(impl opImpl) http.Handler {
	if oc.apps != nil {
		return oc.apps[impl.name]()
	}
	return impl.build()
}

// OpsApp returns the router of the implementation impl (hand, typed,
// huma) for BenchmarkOps's case op, for cmd/instr.
func OpsApp(impl, op string) (http.Handler, bool) {
	for _, oc := range opCases {
		if oc.name != op {
			continue
		}
		for _, im := range opImpls {
			if im.name == impl && oc.serves(impl) {
				return oc.app(im), true
			}
		}
	}
	if mk, ok := OpsApps[impl]; ok {
		return mk(), true
	}
	return nil, false
}

var opImpls = []opImpl{
	{"hand", handOps},
	{"typed", typedOps},
	{"huma", humaOps},
}

const (
	opGetPath     = "/orgs/acme/items/42?limit=20&archived=true&sort=updated"
	opValidBody   = `{"name":"waltz","priority":3,"tags":["go","http"]}`
	opInvalidBody = `{"name":"","priority":9,"tags":["go","go","http","json","api","rest","web","fast","tiny"]}`
)

var opCases = []opCase{
	{"get", func() *http.Request { return opRequest(http.MethodGet, opGetPath) }, http.StatusOK, nil},
	// get with an Accept field that names JSON and XML, which a typed
	// operation declaring both (OpsApps["negotiated"]) negotiates.
	{"get-accept", func() *http.Request {
		r := opRequest(http.MethodGet, opGetPath)
		r.Header = http.Header{"Accept": {"application/xml;q=0.9, application/json"}}
		return r
	}, http.StatusOK, nil},
	{"post", func() *http.Request { return jsonRequest("/orgs/acme/items", opValidBody) }, http.StatusCreated, nil},
	{"post-invalid", func() *http.Request { return jsonRequest("/orgs/acme/items", opInvalidBody) }, http.StatusUnprocessableEntity, nil},
	// query: post's request with the QUERY method (RFC 10008), which the
	// waltz implementations serve with a route of post's shape (its
	// pattern, input, checks and answer, 200 rather than 201) on a router
	// that is theirs with the QUERY in the POST's place, for what a QUERY
	// costs beside a POST; huma has no QUERY operation.
	{"query", func() *http.Request {
		r := jsonRequest("/orgs/acme/items", opValidBody)
		r.Method = waltz.MethodQuery
		return r
	}, http.StatusOK, map[string]func() http.Handler{"hand": handQueryOps, "typed": typedQueryOps}},
}

// jsonRequest is a POST of body as application/json, readable again after
// its ReplayBody is reset.
func jsonRequest(path, body string) *http.Request {
	r := opRequest(http.MethodPost, path)
	r.Body = NewReplayBody(body)
	r.ContentLength = int64(len(body))
	r.Header = http.Header{"Content-Type": {"application/json"}}
	return r
}

// opItem is the answer of every operation.
type opItem struct {
	Org      string   `json:"org"`
	ID       int64    `json:"id"`
	Name     string   `json:"name,omitempty"`
	Priority int      `json:"priority,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Limit    int      `json:"limit,omitempty"`
	Archived bool     `json:"archived"`
	Sort     string   `json:"sort,omitempty"`
}
