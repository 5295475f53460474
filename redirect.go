package waltz

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// redirect looks for a route that matches path with its trailing slash
// toggled (RedirectTrailingSlash) or cleaned (RedirectFixedPath), in that
// order, and the request's method. When it finds one it returns the
// Location and the status; code is 0 when there is none. scratch is room
// for the params of its lookups. It runs only after the path as sent matched
// no route with the request's method, so a real match always beats a
// redirect, and a redirect beats a 405 from another method's route.
//
// When it finds nothing it allocates nothing for a clean path, so a 405
// stays free: the one candidate that needs a new string, the path with a
// slash added, is tried only when a route that could match it exists.
//
// The Location is built from the canonical path, so it is escaped exactly
// once, and it is path-only: it never starts with "//" or "/\", which a
// browser would read as another host. The raw query is kept byte for byte.
// When a handler in front stripped a prefix from the path (Mount,
// http.StripPrefix), the Location gets the prefix back.
func (r *Router) redirect(req *http.Request, path string, escaped bool, scratch Params) (loc string, code int) {
	canon := path
	if !escaped {
		canon = canonicalPlain(path)
	}
	slash := r.RedirectTrailingSlash
	if slash && !r.slashMayMatch(req.Method) {
		// No route of this method ends in '/' or a catch-all, so no path
		// with a slash added can match one; removing a slash costs nothing.
		slash = strings.HasSuffix(canon, "/")
	}
	var cands [3]string
	n := 0
	if slash {
		cands[n] = toggleSlash(canon)
		n++
	}
	if r.RedirectFixedPath {
		if clean := cleanPath(canon); clean != canon {
			cands[n] = clean
			n++
			if r.RedirectTrailingSlash {
				cands[n] = toggleSlash(clean)
				n++
			}
		}
	}
	for _, cand := range cands[:n] {
		if cand == "" || strings.HasPrefix(cand, "//") || strings.HasPrefix(cand, `/\`) {
			continue
		}
		s := search{method: methodIndex(req.Method), name: req.Method, params: scratch[:0]}
		e := r.tree.matchRoot(cand, &s)
		if e == nil && !(s.misses > 0 && s.method == mOptions && r.HandleOPTIONS) {
			continue
		}
		loc = strippedPrefix(req) + escapeLocation(cand)
		if strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, `/\`) {
			continue
		}
		if req.URL.ForceQuery || req.URL.RawQuery != "" {
			loc += "?" + req.URL.RawQuery
		}
		// RFC 9110 section 15.4.2 lets clients turn a 301 POST into a GET;
		// 308 (section 15.4.9) keeps the method and body.
		if req.Method == http.MethodGet || req.Method == http.MethodHead {
			return loc, http.StatusMovedPermanently
		}
		return loc, http.StatusPermanentRedirect
	}
	return "", 0
}

// strippedPrefix returns the part of the path the client sent (RequestURI)
// that a handler in front of the router removed before the router saw the
// request, as Mount and http.StripPrefix do; "" when the router sees the
// whole path, or when the two paths do not line up.
func strippedPrefix(req *http.Request) string {
	sent, _, _ := strings.Cut(req.RequestURI, "?")
	if sent == "" || sent[0] != '/' {
		// The absolute form, "http://host/path".
		u, err := url.ParseRequestURI(req.RequestURI)
		if err != nil {
			return ""
		}
		sent = u.EscapedPath()
	}
	got := req.URL.EscapedPath()
	if len(sent) <= len(got) || !strings.HasSuffix(sent, got) {
		return ""
	}
	return sent[:len(sent)-len(got)]
}

// noteSlash records the method of a route whose pattern can match a path
// that ends in '/': one that ends in '/' (but is not "/", which no toggled
// path can be) or in a catch-all. redirect skips the slash-added candidate,
// and its allocation, for other methods.
func (r *Router) noteSlash(method, pattern string) {
	last := pattern[strings.LastIndexByte(pattern, '/')+1:]
	if pattern != "/" && (last == "" || last[0] == '*') && !slices.Contains(r.slashy, method) {
		r.slashy = append(r.slashy, method)
	}
}

// slashMayMatch reports whether a route that serves method, or a Mount, can
// match a path that ends in '/'. With automatic OPTIONS, an OPTIONS request
// is served wherever any route matches.
func (r *Router) slashMayMatch(method string) bool {
	switch {
	case slices.Contains(r.slashy, methodAny), slices.Contains(r.slashy, method):
		return true
	case method == http.MethodHead:
		return slices.Contains(r.slashy, http.MethodGet)
	case method == http.MethodOptions && r.HandleOPTIONS:
		return len(r.slashy) > 0
	}
	return false
}

// toggleSlash returns p with its trailing slash removed, or added if it has
// none; "" for "/", which has no other form.
func toggleSlash(p string) string {
	switch {
	case p == "/":
		return ""
	case strings.HasSuffix(p, "/"):
		return p[:len(p)-1]
	}
	return p + "/"
}
