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
// for the params of its lookups.
//
// It runs when the path as sent matched no route with the request's
// method (than is nil), so a real match beats a redirect and a redirect
// beats a 405 from another method's route; or when the route than matched
// it, taking the end of the path with a catch-all: then only a route more
// specific than that one counts (see pastCatchAll).
//
// When it finds nothing it allocates nothing for a clean path, so a 405
// costs nothing more: the one candidate that needs a new string, the path
// with a slash added, is tried only when a route that could match it
// exists (slashMayMatch).
//
// The Location is built from the canonical path, so it is escaped exactly
// once, and it is path-only: it never starts with "//" or "/\", which a
// browser would read as another host. The raw query is kept, each byte RFC 3986
// does not allow in a query percent-encoded (section 3.4: a space, '<', a
// byte past ASCII, a '%' that begins no %XX escape), every other byte as
// sent.
// When a handler in front stripped a prefix from the path (Mount,
// http.StripPrefix), the Location gets the prefix back.
func (r *Router) redirect(req *http.Request, path string, escaped bool, scratch Params, than *endpoint) (loc string, code int) {
	canon := path
	if !escaped {
		canon = canonicalPlain(path)
	}
	slash := r.RedirectTrailingSlash
	if slash && !r.slashMayMatch(req.Method, canon, than) {
		// No route that could count ends in '/' or a catch-all, so no path
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
		if clean, toggled := cleanVariants(canon); clean != canon {
			cands[n] = clean
			n++
			if r.RedirectTrailingSlash {
				cands[n] = toggled
				n++
			}
		}
	}
	for _, cand := range cands[:n] {
		if cand == "" || strings.HasPrefix(cand, "//") || strings.HasPrefix(cand, `/\`) {
			continue
		}
		s := search{method: methodIndex(req.Method), name: req.Method, params: scratch[:0], escaped: true}
		e := r.tree.matchRoot(cand, &s)
		switch {
		case than != nil:
			if e == nil || !moreSpecific(e.pattern, than.pattern) {
				continue
			}
		case e == nil && !(s.misses > 0 && s.method == mOptions && r.HandleOPTIONS):
			continue
		}
		if !r.settles(req, cand, &s, e) {
			continue
		}
		loc = strippedPrefix(req) + escapeLocation(cand)
		if strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, `/\`) {
			continue
		}
		if req.URL.ForceQuery || req.URL.RawQuery != "" {
			loc += "?" + escapeQuery(req.URL.RawQuery)
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

// settles reports whether a redirect to cand, whose lookup s found the
// route e (nil for an automatic OPTIONS), is answered there: when e took
// the end of cand with a catch-all, cand may itself redirect to a more
// specific route (see pastCatchAll), and a redirect never leads to
// another. Each such check asks for a route more specific than the last,
// so it ends.
func (r *Router) settles(req *http.Request, cand string, s *search, e *endpoint) bool {
	if e == nil || s.tail == 0 {
		return true
	}
	_, code := r.redirect(req, cand, true, s.params[len(s.params):], e)
	return code == 0
}

// moreSpecific reports whether the pattern a is more specific than b by
// the precedence rule: at the first segment where their kinds differ
// (static, then a constrained param, then a param, then catch-all), a's
// comes first. A pattern that ends where the other goes on is not more
// specific: "/a" is not more specific than "/a/*rest", which matches
// "/a/" itself.
func moreSpecific(a, b string) bool {
	for a != "" && b != "" {
		sa, _, _ := strings.Cut(a[1:], "/")
		sb, _, _ := strings.Cut(b[1:], "/")
		if ka, kb := segmentRank(sa), segmentRank(sb); ka != kb {
			return ka < kb
		}
		a, b = a[1+len(sa):], b[1+len(sb):]
	}
	return false
}

// segmentRank returns the place of one segment of a pattern in the
// precedence order: 0 static, 1 a constrained param, 2 a param, 3 a
// catch-all.
func segmentRank(seg string) int {
	switch {
	case strings.HasPrefix(seg, ":") && strings.HasSuffix(seg, ">"):
		return 1
	case strings.HasPrefix(seg, ":"):
		return 2
	case strings.HasPrefix(seg, "*"):
		return 3
	}
	return 0
}

// noteSlash records a route whose pattern can match a path that ends in
// '/' (see slashRoute): redirect skips the slash-added candidate, and its
// allocation, where no such route could match it.
func (r *Router) noteSlash(method, pattern string) {
	last := pattern[strings.LastIndexByte(pattern, '/')+1:]
	if pattern == "/" || last != "" && last[0] != '*' {
		return
	}
	sr := slashRoute{method: method, pattern: pattern, prefix: pattern}
	if i := strings.Index(pattern, "/:"); i >= 0 {
		sr.prefix = pattern[:i+1]
	}
	if i := strings.Index(sr.prefix, "/*"); i >= 0 {
		sr.prefix = sr.prefix[:i+1]
	}
	if !slices.Contains(r.slashy, sr) {
		r.slashy = append(r.slashy, sr)
	}
}

// slashMayMatch reports whether a route that serves method, or a Mount, can
// match canon with a slash added. With automatic OPTIONS, an OPTIONS
// request with no route is served wherever any route matches. When than
// is not nil, only the routes more specific than than count, and only
// those whose static prefix canon with a slash added has.
func (r *Router) slashMayMatch(method, canon string, than *endpoint) bool {
	for _, sr := range r.slashy {
		serves := sr.method == methodAny || sr.method == method || method == http.MethodHead && sr.method == http.MethodGet
		switch {
		case than == nil:
			if serves || method == http.MethodOptions && r.HandleOPTIONS {
				return true
			}
		case serves && (strings.HasPrefix(canon, sr.prefix) || len(sr.prefix) == len(canon)+1 && strings.HasPrefix(sr.prefix, canon)):
			// The prefix test first: it is a few compares, and most
			// routes fail it.
			if moreSpecific(sr.pattern, than.pattern) {
				return true
			}
		}
	}
	return false
}

// toggleSlash returns p with its trailing slash removed, or added if it has
// none; "" for "/", which has no other form.
// cleanVariants returns cleanPath(p) and toggleSlash of it, or p and ""
// when p is clean (no candidate then, and nothing allocated). For a
// canonical path of up to 255 bytes that is not clean, both are cut from
// one string, built in one allocation, so that a catch-all serving such
// a path pays for one string however many candidates are tried.
func cleanVariants(p string) (clean, toggled string) {
	if p != "" && p[0] == '/' && !strings.Contains(p, "//") && !strings.Contains(p, "/.") {
		return p, "" // no empty, "." or ".." element: clean (see cleanPath)
	}
	var a [256]byte
	if len(p) >= len(a) || p[0] != '/' {
		if clean = cleanPath(p); clean == p {
			return p, ""
		}
		return clean, toggleSlash(clean)
	}
	buf := append(a[:0], '/')
	for i := 0; i < len(p); {
		for i < len(p) && p[i] == '/' {
			i++
		}
		j := i
		for j < len(p) && p[j] != '/' {
			j++
		}
		switch elem := p[i:j]; elem {
		case "", ".":
		case "..":
			k := len(buf) - 1
			for k > 0 && buf[k] != '/' {
				k--
			}
			buf = buf[:max(k, 1)]
		default:
			if len(buf) > 1 {
				buf = append(buf, '/')
			}
			buf = append(buf, elem...)
		}
		i = j
	}
	slash := p[len(p)-1] == '/'
	if len(buf) == 1 {
		if p == "/" {
			return p, ""
		}
		return "/", ""
	}
	if slash && len(buf)+1 == len(p) && p[len(p)-1] == '/' && string(buf) == p[:len(p)-1] || !slash && string(buf) == p {
		return p, "" // clean already ("/a/.b"): nothing allocated
	}
	var b strings.Builder
	b.Grow(len(buf) + 1)
	b.Write(buf)
	b.WriteByte('/')
	both := b.String() // the path with a trailing slash
	if slash {
		return both, both[:len(both)-1]
	}
	return both[:len(both)-1], both
}

func toggleSlash(p string) string {
	switch {
	case p == "/":
		return ""
	case strings.HasSuffix(p, "/"):
		return p[:len(p)-1]
	}
	return p + "/"
}
