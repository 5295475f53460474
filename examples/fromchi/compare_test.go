package fromchi

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// step is one request of the script.
type step struct {
	method, target, body string
}

// script is the request script both apps answer, in order: reads, the
// format suffix, both kinds of param, the loader's 404, writes, and the
// requests where the two routers' rules differ.
var script = []step{
	{"GET", "/articles", ""},
	{"GET", "/articles/1", ""},
	{"GET", "/articles/1.txt", ""},
	{"GET", "/articles/1.json", ""},
	{"GET", "/articles/hello-world", ""},
	{"GET", "/articles/second-post.txt", ""},
	{"GET", "/articles/no-such-slug", ""},
	{"GET", "/articles/99", ""},
	{"GET", "/articles/Hello", ""},
	{"GET", "/nothing", ""},
	{"POST", "/articles", `{"slug":"third","title":"Third"}`},
	{"POST", "/articles", `{"slug":"Not A Slug"}`},
	{"GET", "/articles/3", ""},
	{"PUT", "/articles/3", `{"slug":"third-edited","title":"Third, edited"}`},
	{"GET", "/articles/third-edited", ""},
	{"DELETE", "/articles/3", ""},
	{"GET", "/articles/3", ""},
	{"PATCH", "/articles/1", ""},
	{"DELETE", "/articles", ""},
	// Where the answers differ (see differences).
	{"HEAD", "/articles/1", ""},
	{"OPTIONS", "/articles/1", ""},
	{"GET", "/articles/", ""},
	{"GET", "/articles/1/", ""},
	{"GET", "//articles/1", ""},
	{"GET", "/articles/%31", ""},
}

// difference is a request whose answers differ: chi's, as a regular
// expression (its Allow changes from run to run), waltz's as the test sees
// it, and the rule that makes waltz's the right one.
type difference struct {
	chi, waltz string
	rule       string
}

// oneOf is the Allow of chi's 405 for a resource with methods ms: one of
// them, which changes from run to run.
func oneOf(ms ...string) string {
	return `405 Allow="(` + strings.Join(ms, "|") + `)" ""`
}

// differences are the requests of the script the two apps answer
// differently, with the RFC rule behind each.
var differences = map[string]difference{
	"HEAD /articles/1": {
		chi:   oneOf("GET", "PUT", "DELETE"),
		waltz: "200 Content-Type=\"application/json\" \"\"",
		rule:  "RFC 9110 section 9.3.2: a server answers HEAD as it would GET, without the body (chi needs middleware.GetHead); and section 15.5.6: a 405's Allow lists every method the resource has, where chi's lists one of them",
	},
	"OPTIONS /articles/1": {
		chi:   oneOf("GET", "PUT", "DELETE"),
		waltz: "204 Allow=\"DELETE, GET, HEAD, OPTIONS, PUT\" \"\"",
		rule:  "RFC 9110 section 9.3.7: OPTIONS asks which methods the resource has, and Allow (section 10.2.1) says so",
	},
	"PATCH /articles/1": {
		chi:   oneOf("GET", "PUT", "DELETE"),
		waltz: "405 Allow=\"DELETE, GET, HEAD, OPTIONS, PUT\" \"\"",
		rule:  "RFC 9110 section 15.5.6: the origin server MUST list the resource's currently supported methods in a 405's Allow; chi's lists one of them, a different one from run to run, waltz every one, sorted, the same on every answer",
	},
	"DELETE /articles": {
		chi:   oneOf("GET", "POST"),
		waltz: "405 Allow=\"GET, HEAD, OPTIONS, POST\" \"\"",
		rule:  "RFC 9110 section 15.5.6, as above",
	},
	"GET /articles/": {
		chi:   regexp.QuoteMeta("200 Content-Type=\"application/json\" " + listJSON),
		waltz: "301 Location=\"/articles\" \"\"",
		rule:  "RFC 3986 section 6.2.3: /articles and /articles/ are different URIs; waltz serves one and redirects the other there (RFC 9110 section 15.4.2), so there is one URI per resource; register both to keep chi's answer",
	},
	"GET /articles/1/": {
		chi:   regexp.QuoteMeta("200 Content-Type=\"application/json\" " + article1JSON),
		waltz: "301 Location=\"/articles/1\" \"\"",
		rule:  "as GET /articles/",
	},
	"GET //articles/1": {
		chi:   regexp.QuoteMeta("404 Content-Type=\"text/plain; charset=utf-8\" \"404 page not found\\n\""),
		waltz: "301 Location=\"/articles/1\" \"\"",
		rule:  "RFC 3986 section 6.2.2.3 removes dot segments, and an empty segment is no resource of this API: waltz redirects to the cleaned path (RedirectFixedPath) where chi answers 404",
	},
	"GET /articles/%31": {
		chi:   regexp.QuoteMeta("404 Content-Type=\"text/plain; charset=utf-8\" \"404 page not found\\n\""),
		waltz: "200 Content-Type=\"application/json\" " + article1JSON,
		rule:  "RFC 3986 section 6.2.2.2: %31 is the unreserved '1' percent-encoded, the same URI as /articles/1; chi matches the escaped path",
	},
}

const (
	listJSON     = `"[{\"id\":1,\"slug\":\"hello-world\",\"title\":\"Hello, world\"},{\"id\":2,\"slug\":\"second-post\",\"title\":\"A second post\"}]\n"`
	article1JSON = `"{\"id\":1,\"slug\":\"hello-world\",\"title\":\"Hello, world\"}\n"`
)

// answer sends s to srv and sums up the answer: status, the headers that
// differ between routers (Allow, Location, or Content-Type), and body.
func answer(t *testing.T, srv *httptest.Server, s step) string {
	t.Helper()
	req, err := http.NewRequest(s.method, srv.URL, strings.NewReader(s.body))
	if err != nil {
		t.Fatal(err)
	}
	// Sent as written, "//articles/1" and "%31" included: the request
	// line is the escaped path, which RawPath gives when it encodes Path.
	if req.URL.Path, err = url.PathUnescape(s.target); err != nil {
		t.Fatal(err)
	}
	req.URL.RawPath = s.target
	if s.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var hdr string
	switch {
	case resp.Header.Get("Allow") != "":
		hdr = fmt.Sprintf("Allow=%q", resp.Header.Get("Allow"))
	case resp.Header.Get("Location") != "":
		hdr = fmt.Sprintf("Location=%q", resp.Header.Get("Location"))
	default:
		hdr = fmt.Sprintf("Content-Type=%q", resp.Header.Get("Content-Type"))
	}
	return fmt.Sprintf("%d %s %q", resp.StatusCode, hdr, body)
}

// TestSameAnswers sends the script to the chi app and to its waltz port,
// each on a store of its own, and requires the same answer to every
// request, except for the differences, where each must give the answer
// listed.
func TestSameAnswers(t *testing.T) {
	chiSrv := httptest.NewServer(ChiApp(NewStore()))
	defer chiSrv.Close()
	waltzSrv := httptest.NewServer(WaltzApp(NewStore()))
	defer waltzSrv.Close()
	seen := map[string]bool{}
	for _, s := range script {
		key := s.method + " " + s.target
		c, w := answer(t, chiSrv, s), answer(t, waltzSrv, s)
		d, differs := differences[key]
		switch {
		case !differs && c != w:
			t.Errorf("%s: chi answers %s, waltz %s", key, c, w)
		case differs && (!regexp.MustCompile("^(?:"+d.chi+")$").MatchString(c) || w != d.waltz):
			t.Errorf("%s: got chi %s and waltz %s, want chi %s and waltz %s (%s)", key, c, w, d.chi, d.waltz, d.rule)
		}
		seen[key] = true
	}
	for key := range differences {
		if !seen[key] {
			t.Errorf("difference %q is in no step of the script", key)
		}
	}
}
