// Package apidocs serves a page that shows a person a waltz router's
// OpenAPI document: operations grouped by tag, with their parameters,
// request bodies and answers, the schemas with their rules in words ("at
// least 3 characters", "one of: new, old"), examples, and a curl line for
// each operation. One line serves it:
//
//	r.With(api.Hide).Handler(http.MethodGet, "/docs", apidocs.Handler(r, api.Info{Title: "Bookmarks", Version: "1.0.0"}))
//
// The page is rendered on the server with html/template, which escapes
// everything the document holds, so a summary or description is shown
// as the text it is (CommonMark included, never turned into HTML). It
// loads nothing from anywhere else and runs no script: its only other
// resource is its stylesheet, served by the same handler at the page's
// own path with the query "css" (/docs?css). So it works offline, and
// under a Content-Security-Policy of default-src 'self'; the page itself
// is sent with a stricter one.
//
// The package is built on the document alone ([api.OpenAPI]), the same
// bytes a router's /openapi.json serves, read into the model of package
// openapi: what the page says is what the document says.
package apidocs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

//go:embed page.html page.css
var files embed.FS

var (
	tmpl = template.Must(template.New("page.html").Funcs(template.FuncMap{"lower": strings.ToLower}).
		ParseFS(files, "page.html"))
	stylesheet = mustRead("page.css")
)

func mustRead(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("apidocs: " + err.Error())
	}
	return b
}

// policy is the page's Content-Security-Policy (CSP Level 3): nothing may
// load but its stylesheet, from the page's origin; no script at all, no
// base URL change, no form target, no framing by other sites. The page
// has no image: img-src 'self' is there for the icon a browser asks its
// origin for (/favicon.ico), which some browsers check against the page's
// policy.
const policy = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler returns a handler that serves the docs page of r's OpenAPI
// document, made with info as [api.OpenAPI] makes it, in OpenAPI 3.2
// whatever info.OpenAPI says (3.2 describes all the router serves: its
// QUERY operations, a stream's items), and at the same path with the
// query "css" (GET /docs?css), the page's stylesheet.
// Register it for GET (HEAD follows), inside api.Hide to leave the page
// out of the document it shows:
//
//	r.With(api.Hide).Handler(http.MethodGet, "/docs", apidocs.Handler(r, info))
//
// The page is rendered on the first request, when every route is
// registered, and kept, as [api.ServeOpenAPI] keeps the document (the
// router refuses routes once it serves, so the page never goes stale).
// Every later request writes the kept bytes.
//
// The curl lines go to the document's first server when its URL is
// absolute (the Servers of info), else to $API, a shell variable the
// page asks the reader to set, followed by the server's path: the
// prefix r is mounted at by another router ([waltz.Group.Mount]), a
// server variable given its default. The page never takes a host from the
// request, so no Host header can make it send a reader's token
// elsewhere.
//
// Both answers carry a strong ETag (a hash of the bytes) and
// Cache-Control: no-cache, so a browser asks again each time and gets a
// 304 Not Modified while the page is the same (RFC 9110 section 13.1.2,
// RFC 9111 section 5.2.2.4); HEAD gets the headers alone, and a Range
// request its range, as [http.ServeContent] answers them. The page is
// text/html; charset=utf-8 with a Content-Security-Policy that allows
// nothing but the stylesheet from the same origin (no script, no inline
// style, no frame from another site) and X-Content-Type-Options: nosniff.
// A method other than GET or HEAD gets 405 with Allow: GET, HEAD (RFC
// 9110 section 15.5.6), for a handler registered on a mux without one.
func Handler(r *waltz.Router, info api.Info) http.Handler {
	// The 3.2 document, whatever info says: it describes everything the
	// router serves (QUERY operations, a stream's items), 3.1 not all.
	info.OpenAPI = "3.2"
	h := &handler{doc: func() []byte { return api.OpenAPI(r, info) }}
	h.css = newAsset(stylesheet, "text/css; charset=utf-8")
	return h
}

type handler struct {
	doc  func() []byte
	once sync.Once
	page asset
	err  error
	css  asset
}

// asset is a body served as it is, and its entity tag.
type asset struct {
	body        []byte
	etag        string
	contentType string
}

func newAsset(body []byte, contentType string) asset {
	sum := sha256.Sum256(body)
	return asset{body: body, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`, contentType: contentType}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	a := &h.css
	if req.URL.RawQuery != "css" {
		h.once.Do(func() {
			var b []byte
			if b, h.err = render(h.doc()); h.err == nil {
				h.page = newAsset(b, "text/html; charset=utf-8")
			}
		})
		if h.err != nil {
			slog.Error("apidocs: the docs page could not be made", "err", h.err)
			http.Error(w, "500 internal server error", http.StatusInternalServerError)
			return
		}
		a = &h.page
		w.Header().Set("Content-Security-Policy", policy)
	}
	hd := w.Header()
	hd.Set("Content-Type", a.contentType)
	hd.Set("ETag", a.etag)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, req, "", time.Time{}, bytes.NewReader(a.body))
}

// render returns the page of an OpenAPI 3.x document written as JSON.
func render(doc []byte) ([]byte, error) {
	d, err := parse(doc)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, build(d)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
