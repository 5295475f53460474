package benchmarks

import (
	"io"
	"net/http"
	"strings"
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
// post-invalid) and the status every implementation answers it with; a
// body is a [ReplayBody].
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
	{"get", func() *http.Request { return opRequest(http.MethodGet, opGetPath) }, http.StatusOK},
	// get with an Accept field that names JSON and XML, which a typed
	// operation declaring both (OpsApps["negotiated"]) negotiates.
	{"get-accept", func() *http.Request {
		r := opRequest(http.MethodGet, opGetPath)
		r.Header = http.Header{"Accept": {"application/xml;q=0.9, application/json"}}
		return r
	}, http.StatusOK},
	{"post", func() *http.Request { return jsonRequest("/orgs/acme/items", opValidBody) }, http.StatusCreated},
	{"post-invalid", func() *http.Request { return jsonRequest("/orgs/acme/items", opInvalidBody) }, http.StatusUnprocessableEntity},
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
