package apidocs_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/apidocs"
	"github.com/waltz-go/waltz/middleware"
)

// The notes API below has an operation of each shape the page shows:
// params in every place with rules, a body with a nested object, answers
// with headers, credentials of three kinds, two tags on one operation,
// none on another, a deprecated one, and text made to break a page that
// does not escape it.

type listNotes struct {
	Query string   `query:"q" minLength:"3" maxLength:"50" pattern:"^[a-z ]+$" doc:"words the note holds"`
	Sort  string   `query:"sort" enum:"new,old" default:"new"`
	Limit int      `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Tags  []string `query:"tag" maxItems:"4"`
	Trace string   `header:"X-Trace-Id" maxLength:"64" example:"t-1"`
	Theme *string  `cookie:"theme" enum:"dark,light"`
}

type note struct {
	ID     int64     `json:"id" minimum:"1" example:"7"`
	Title  string    `json:"title" minLength:"1" maxLength:"80" example:"Groceries"`
	Body   string    `json:"body,omitempty" maxLength:"10000"`
	Author author    `json:"author"`
	When   time.Time `json:"when"`
}

type author struct {
	Email string `json:"email" format:"email" required:"true"`
}

type noteList struct {
	Total int `header:"X-Total-Count"`
	Body  []note
}

type newNote struct {
	Body struct {
		Title string `json:"title" required:"true" minLength:"1" maxLength:"80" example:"Groceries"`
		Score int    `json:"score" multipleOf:"5" exclusiveMaximum:"100"`
	}
}

type noteID struct {
	ID int64 `path:"id" minimum:"1" doc:"the note's ID"`
}

type oneNote struct{ Body note }

const hostileSummary = `Export <script>alert("summary")</script> & more`

const hostileDescription = "Returns **every** note as _CSV_.\n\n" +
	"<b>bold?</b> [a link](javascript:alert(1)) <img src=https://evil.example/x.png>\n\n" +
	"```\nsee https://evil.example/docs\n```"

func notesAPI() *waltz.Router {
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	r.DisallowUnknownFields = true
	list := func(c *waltz.Context, in *listNotes) (*noteList, error) { return &noteList{}, nil }
	get := func(c *waltz.Context, in *noteID) (*oneNote, error) { return &oneNote{}, nil }
	create := func(c *waltz.Context, in *newNote) (*oneNote, error) { return &oneNote{}, nil }
	remove := func(c *waltz.Context, in *noteID) (*struct{}, error) { return nil, nil }
	api.Op(r, http.MethodGet, "/notes", list, api.Operation{ID: "listNotes", Summary: "List notes", Tags: []string{"notes"}})
	api.Op(r, http.MethodGet, "/notes/:id", get, api.Operation{ID: "getNote", Summary: "Read a note", Tags: []string{"notes", "reading"},
		Errors: []int{http.StatusNotFound}})
	basic := r.With(middleware.BasicAuth(middleware.BasicAuthOptions{Users: map[string]string{"ann": "pw"}}))
	api.Op(basic, http.MethodPost, "/notes", create, api.Operation{ID: "createNote", Summary: "Write a note", Tags: []string{"notes"},
		Status: http.StatusCreated})
	api.Op(basic, http.MethodDelete, "/notes/:id", remove, api.Operation{ID: "deleteNote", Tags: []string{"notes"}, Deprecated: true})
	keyed := r.With(api.Authenticates(func(next waltz.HandlerFunc) waltz.HandlerFunc { return next },
		api.SecurityScheme{Name: "queryKey", Type: "apiKey", In: "query", Param: "key"}))
	api.Op(keyed, http.MethodGet, "/export", list, api.Operation{ID: "exportNotes", Summary: hostileSummary,
		Description: hostileDescription, Tags: []string{"admin"}})
	r.Get("/health", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
	return r
}

var notesInfo = api.Info{Title: "Notes <i>API</i>", Version: "2.0.0",
	Description: "Notes to self.\n\nSee https://example.com/about for more.", License: "MIT"}

// servePage returns the docs page of the notes API and its stylesheet.
func servePage(t testing.TB) (doc []byte, page, css string) {
	t.Helper()
	r := notesAPI()
	r.Handler(http.MethodGet, "/docs", apidocs.Handler(r, notesInfo))
	page = get(t, r, "/docs", http.StatusOK)
	css = get(t, r, "/docs?css", http.StatusOK)
	return api.OpenAPI(r, notesInfo), page, css
}

func get(t testing.TB, h http.Handler, target string, want int) string {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	if w.Code != want {
		t.Fatalf("GET %s: got %d, want %d: %s", target, w.Code, want, w.Body)
	}
	return w.Body.String()
}

// operations returns "METHOD path operationId" for every operation of an
// OpenAPI document, read with nothing of the package under test.
func operations(t testing.TB, doc []byte) []string {
	t.Helper()
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for path, item := range d.Paths {
		for method, raw := range item {
			if !slices.Contains([]string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}, method) {
				continue
			}
			var op struct {
				ID string `json:"operationId"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			ops = append(ops, strings.ToUpper(method)+" "+path+" "+op.ID)
		}
	}
	slices.Sort(ops)
	return ops
}

// TestEveryOperation checks that each operation of the document has its
// own section on the page, under its ID, with its method and path, and an
// entry in the contents that links to it.
func TestEveryOperation(t *testing.T) {
	doc, page, _ := servePage(t)
	ops := operations(t, doc)
	if len(ops) != 7 {
		t.Fatalf("the notes API has %d operations, want 7: %q", len(ops), ops)
	}
	for _, op := range ops {
		f := strings.Fields(op)
		method, path, id := f[0], f[1], f[2]
		anchor := "op-" + regexp.MustCompile(`[^A-Za-z0-9._-]`).ReplaceAllString(id, "-")
		m := regexp.MustCompile(`(?s)<article id="` + regexp.QuoteMeta(anchor) + `" class="op">(.*?)</article>`).FindStringSubmatch(page)
		if m == nil {
			t.Errorf("%s: no <article id=%q>", op, anchor)
			continue
		}
		heading := `<span class="method ` + strings.ToLower(method) + `">` + method + `</span> <code class="path">` + path + `</code>`
		if !strings.Contains(m[1], heading) {
			t.Errorf("%s: the article has no heading %s", op, heading)
		}
		if !strings.Contains(m[1], "<code>"+html.EscapeString(id)+"</code>") {
			t.Errorf("%s: the article does not name the operation ID", op)
		}
		if !strings.Contains(page, `<li><a href="#`+anchor+`">`) {
			t.Errorf("%s: the contents do not link to it", op)
		}
		if !strings.Contains(m[1], `<pre class="curl"><code>curl -i`) {
			t.Errorf("%s: no curl line", op)
		}
	}
	if n := strings.Count(page, `<article id="op-`); n != len(ops) {
		t.Errorf("%d operation articles, want %d", n, len(ops))
	}
	// getNote has two tags: in full under the first, a link under the other.
	if !regexp.MustCompile(`(?s)<section id="tag-reading".*?<p class="again"><a href="#op-getNote">`).MatchString(page) {
		t.Error("getNote is not linked from its second tag, reading")
	}
}

// TestPageSays checks the words the page gives the notes API: rules,
// types, examples, answers, credentials and curl lines.
func TestPageSays(t *testing.T) {
	_, page, _ := servePage(t)
	text := html.UnescapeString(page)
	for _, want := range []string{
		// parameters, each rule in words
		"from 3 to 50 characters", "matches the regular expression ^[a-z ]+$", "one of: new, old", "default: new",
		"from 1 to 100", "default: 20", "at most 4 items", "each item a parameter of its own: tag=a&tag=b", "at most 64 characters", "one of: dark, light",
		"<td>query</td>", "<td>header</td>", "<td>cookie</td>", "<td>path</td>", "words the note holds", "the note's ID",
		"Example: <code>t-1</code>",
		// bodies and schemas
		"a multiple of 5", "less than 100", "from 1 to 80 characters", "an email address such as name@example.com",
		"at most 10000 characters", `<a href="#schema-author">author</a>`, "no members but these",
		`"title": "Groceries"`, "Request body",
		// answers
		`<span class="status">201</span> Created`, "<code>X-Total-Count</code>: integer (int64)",
		`<span class="status">404</span> Not Found`, "application/problem+json", `<a href="#schema-Problem">Problem</a>`,
		`<span class="status">204</span> No Content`, "No body.",
		// credentials and curl
		`Needs <a href="#auth-basicAuth">basicAuth</a>.`, "Needs no credentials.",
		"a user name and password in the Authorization header (HTTP Basic, RFC 7617)",
		"an API key in the query key",
		`curl -i "$API/notes" \` + "\n    -H 'X-Trace-Id: t-1'",
		`curl -i -X POST "$API/notes" \` + "\n" + `    -u "$USERNAME:$PASSWORD" \` + "\n    -H 'Content-Type: application/json' \\\n" +
			`    -d '{"title":"Groceries","score":5}'`,
		`curl -i "$API/export?key=$API_KEY"`,
		`curl -i -X DELETE "$API/notes/1"`,
		"<code>$USERNAME</code>: the user name",
		// the rest
		`<span class="badge deprecated">deprecated</span>`, "License</dt><dd>MIT", "Made from the API's OpenAPI 3.2.0 document.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
}

// TestEscaping checks that text from the document reaches the page as
// text: no element, attribute or link comes out of a summary, a
// description or the title.
func TestEscaping(t *testing.T) {
	_, page, _ := servePage(t)
	for _, bad := range []string{"<script", "<i>", "<b>", "<img", "=\"javascript:", "evil.example/x.png\""} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, want := range []string{
		`Export &lt;script&gt;alert(&#34;summary&#34;)&lt;/script&gt; &amp; more`,
		`<title>Notes &lt;i&gt;API&lt;/i&gt; 2.0.0</title>`,
		`<p>Returns **every** note as _CSV_.</p>`,
		`<p>&lt;b&gt;bold?&lt;/b&gt; [a link](`,
		"<p>```\nsee https://evil.example/docs\n```</p>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not hold %q", want)
		}
	}
}

var (
	tagRE  = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*/?>`)
	attrRE = regexp.MustCompile(`\s+([^\s=>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?`)
	urlRE  = regexp.MustCompile(`(?i)(https?:|//|url\(|@import)`)
)

// TestNothingToLoad checks that the page loads nothing but its own
// stylesheet and runs nothing: no script element or handler, no inline
// style, no src anywhere, every href a place on the page itself or the
// stylesheet, and a stylesheet that imports nothing.
func TestNothingToLoad(t *testing.T) {
	_, page, css := servePage(t)
	for _, tag := range tagRE.FindAllStringSubmatch(page, -1) {
		name := strings.ToLower(tag[1])
		switch name {
		case "script", "style", "iframe", "img", "object", "embed", "frame", "base", "form", "svg", "video", "audio", "source":
			t.Errorf("the page has a <%s> element", name)
		}
		for _, a := range attrRE.FindAllStringSubmatch(tag[2], -1) {
			attr, val := strings.ToLower(a[1]), html.UnescapeString(strings.Trim(a[2], `"'`))
			switch {
			case strings.HasPrefix(attr, "on"), attr == "style":
				t.Errorf("<%s %s=%q>: inline script or style", name, attr, val)
			case attr == "href":
				if !strings.HasPrefix(val, "#") && !(name == "link" && val == "?css") {
					t.Errorf("<%s href=%q>: want a place on the page, or the stylesheet", name, val)
				}
			case slices.Contains([]string{"src", "srcset", "action", "formaction", "poster", "data", "ping", "background", "xlink:href"}, attr):
				t.Errorf("<%s %s=%q>: the page must load nothing", name, attr, val)
			}
			if urlRE.MatchString(val) {
				t.Errorf("<%s %s=%q>: a URL in an attribute", name, attr, val)
			}
		}
	}
	if n := strings.Count(page, "<link "); n != 1 {
		t.Errorf("%d <link> elements, want 1, the stylesheet", n)
	}
	if m := urlRE.FindString(css); m != "" {
		t.Errorf("the stylesheet holds %q", m)
	}
}

// TestServing checks the answers' headers: types with a charset, the
// page's policy, an entity tag that a conditional request is answered
// 304 to, HEAD without a body, and 405 for other methods.
func TestServing(t *testing.T) {
	r := notesAPI()
	h := apidocs.Handler(r, notesInfo)
	do := func(method, target string, header ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	page := do(http.MethodGet, "/docs")
	css := do(http.MethodGet, "/docs?css")
	pageBody, cssBody := page.Body.String(), css.Body.String()
	for _, tc := range []struct {
		name    string
		res     *httptest.ResponseRecorder
		status  int
		ctype   string
		csp     bool
		etag    string
		bodyLen int
	}{
		{"page", page, 200, "text/html; charset=utf-8", true, page.Header().Get("ETag"), len(pageBody)},
		{"stylesheet", css, 200, "text/css; charset=utf-8", false, css.Header().Get("ETag"), len(cssBody)},
		{"page, HEAD", do(http.MethodHead, "/docs"), 200, "text/html; charset=utf-8", true, page.Header().Get("ETag"), 0},
		{"page, other query", do(http.MethodGet, "/docs?x=1"), 200, "text/html; charset=utf-8", true, page.Header().Get("ETag"), len(pageBody)},
		{"page, If-None-Match", do(http.MethodGet, "/docs", "If-None-Match", page.Header().Get("ETag")), 304, "", true, page.Header().Get("ETag"), 0},
		{"page, If-None-Match weak", do(http.MethodGet, "/docs", "If-None-Match", `"x", W/`+page.Header().Get("ETag")), 304, "", true, page.Header().Get("ETag"), 0},
		{"page, If-None-Match another", do(http.MethodGet, "/docs", "If-None-Match", css.Header().Get("ETag")), 200, "text/html; charset=utf-8", true, page.Header().Get("ETag"), len(pageBody)},
		{"stylesheet, If-None-Match", do(http.MethodGet, "/docs?css", "If-None-Match", css.Header().Get("ETag")), 304, "", false, css.Header().Get("ETag"), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.res
			if res.Code != tc.status {
				t.Errorf("status: got %d, want %d", res.Code, tc.status)
			}
			if got := res.Header().Get("Content-Type"); got != tc.ctype {
				t.Errorf("Content-Type: got %q, want %q", got, tc.ctype)
			}
			if got := res.Header().Get("ETag"); got != tc.etag || !regexp.MustCompile(`^"[A-Za-z0-9_-]{24}"$`).MatchString(got) {
				t.Errorf("ETag: got %q, want %q, a strong tag", got, tc.etag)
			}
			if got, want := res.Header().Get("Content-Security-Policy"), "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"; tc.csp && got != want {
				t.Errorf("Content-Security-Policy: got %q, want %q", got, want)
			}
			if res.Code == 200 {
				if got := res.Header().Get("X-Content-Type-Options"); got != "nosniff" {
					t.Errorf("X-Content-Type-Options: got %q, want nosniff", got)
				}
				if got := res.Header().Get("Cache-Control"); got != "no-cache" {
					t.Errorf("Cache-Control: got %q, want no-cache", got)
				}
			}
			if got := res.Body.Len(); got != tc.bodyLen {
				t.Errorf("body: got %d bytes, want %d", got, tc.bodyLen)
			}
		})
	}
	if page.Header().Get("ETag") == css.Header().Get("ETag") {
		t.Error("the page and the stylesheet have one ETag")
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
		res := do(m, "/docs")
		if res.Code != http.StatusMethodNotAllowed || res.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: got %d Allow %q, want 405 Allow \"GET, HEAD\"", m, res.Code, res.Header().Get("Allow"))
		}
	}
}

// TestRenderedOnce checks that the page is made on the first request, not
// when the handler is made, and kept: the same bytes after.
func TestRenderedOnce(t *testing.T) {
	r := notesAPI()
	h := apidocs.Handler(r, notesInfo)
	r.Handler(http.MethodGet, "/docs", h)
	// The page is made on its first request, not when the handler is
	// made: a route registered in between is on it.
	r.Get("/later", func(c *waltz.Context) error { return nil })
	first := get(t, r, "/docs", http.StatusOK)
	if again := get(t, r, "/docs", http.StatusOK); again != first {
		t.Error("the page changed between two requests")
	}
	for _, path := range []string{"/docs", "/later"} {
		if !strings.Contains(first, `<code class="path">`+path+`</code>`) {
			t.Errorf("the page does not show %s, registered before the first request", path)
		}
	}
}

// TestHeadFirst checks that a HEAD before any GET makes the page too: its
// Content-Length is the page's.
func TestHeadFirst(t *testing.T) {
	r := notesAPI()
	h := apidocs.Handler(r, notesInfo)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodHead, "/docs", nil))
	page := get(t, h, "/docs", http.StatusOK)
	if got, want := w.Header().Get("Content-Length"), len(page); got != strconv.Itoa(want) || w.Body.Len() != 0 {
		t.Errorf("HEAD: Content-Length %s and %d body bytes, want %d and 0", got, w.Body.Len(), want)
	}
}

// TestHostNotTaken checks that the page says nothing of the request's
// Host: its curl lines go to $API, not to whatever host a request named.
func TestHostNotTaken(t *testing.T) {
	r := notesAPI()
	h := apidocs.Handler(r, notesInfo)
	req := httptest.NewRequest(http.MethodGet, "http://attacker.example/docs", nil)
	req.Header.Set("X-Forwarded-Host", "attacker.example")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || strings.Contains(w.Body.String(), "attacker.example") {
		t.Errorf("got %d, and the page names the request's host: %v", w.Code, strings.Contains(w.Body.String(), "attacker.example"))
	}
	if !strings.Contains(w.Body.String(), `curl -i &#34;$API/notes&#34;`) {
		t.Error("the curl lines do not go to $API")
	}
}

// TestQueryAndStreams checks the page shows what only the OpenAPI 3.2
// document describes: a QUERY operation, with its body and curl line,
// and a stream's items (JSON Lines, events), each item's schema and an
// example of the lines.
func TestQueryAndStreams(t *testing.T) {
	type search struct {
		Body struct {
			Text string `json:"text" maxLength:"50" example:"milk"`
		}
	}
	type noteLines struct{ Body api.Lines[note] }
	type noteEvents struct {
		Body api.Events[struct {
			Added *note `event:"added"`
		}]
	}
	r := waltz.New()
	api.Op(r, waltz.MethodQuery, "/notes", func(c *waltz.Context, in *search) (*noteList, error) { return &noteList{}, nil },
		api.Operation{ID: "searchNotes", Summary: "Search notes", Tags: []string{"notes"}})
	api.Op(r, http.MethodGet, "/notes/export", func(c *waltz.Context, in *struct{}) (*noteLines, error) { return nil, nil },
		api.Operation{ID: "exportNotes", Tags: []string{"notes"}})
	api.Op(r, http.MethodGet, "/notes/changes", func(c *waltz.Context, in *struct{}) (*noteEvents, error) { return nil, nil },
		api.Operation{ID: "noteChanges", Tags: []string{"notes"}})
	r.Handler(http.MethodGet, "/docs", apidocs.Handler(r, api.Info{Title: "Notes"}))
	page := get(t, r, "/docs", http.StatusOK)
	ex := `{&#34;id&#34;:7,&#34;title&#34;:&#34;Groceries&#34;,&#34;body&#34;:&#34;string&#34;,&#34;author&#34;:{&#34;email&#34;:&#34;name@example.com&#34;},&#34;when&#34;:&#34;2006-01-02T15:04:05Z&#34;}`
	for _, want := range []string{
		`<article id="op-searchNotes" class="op">`,
		`<span class="method query">QUERY</span> <code class="path">/notes</code>`,
		`curl -i -X QUERY`,
		`<code>application/jsonl</code>: a stream, each item <a href="#schema-note">note</a>`,
		`<code>text/event-stream</code>: a stream, each item`,
		ex + "\n" + ex,
		"Made from the API's OpenAPI 3.2.0 document.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
}
