package middleware

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
)

// CORSOptions configures [CORS]. The zero value allows no origin, and then
// CORS adds nothing but Vary.
type CORSOptions struct {
	// AllowedOrigins lists the origins whose scripts may read responses,
	// each "scheme://host[:port]" as browsers serialize it (lower case, no
	// path, no trailing slash, default port omitted: an entry with :443
	// for https or :80 for http panics, as it would never match), compared
	// exactly;
	// "https://*.example.com", any subdomain of example.com at any depth
	// over https on the default port (not example.com itself); "*", every
	// origin; or "null", the opaque origin of sandboxed frames and file:
	// pages, which no other entry covers, and which any page can send:
	// it cannot be combined with AllowCredentials. A malformed entry
	// panics at construction.
	AllowedOrigins []string

	// AllowOriginFunc, if set, is asked about an origin no entry of
	// AllowedOrigins matches (never about "null"); true allows it.
	AllowOriginFunc func(origin string) bool

	// AllowedMethods are the methods a preflight may ask for. Nil means
	// GET, HEAD and POST, which need no preflight anyway. Methods are
	// case-sensitive tokens; a malformed one panics at construction.
	AllowedMethods []string

	// AllowedHeaders are the request headers a preflight may ask for,
	// compared case-insensitively; "*" allows any. Nil allows none beyond
	// the CORS-safelisted ones, which browsers send without asking.
	AllowedHeaders []string

	// ExposedHeaders are the response headers, beyond the CORS-safelisted
	// ones, that scripts may read.
	ExposedHeaders []string

	// AllowCredentials lets scripts send cookies and HTTP authentication
	// and read the response. The allowed origin is then always named,
	// never "*", as the Fetch standard requires. It cannot be combined with
	// "*" in AllowedOrigins: that would let every site read every
	// credentialed response, so CORS panics at construction; list the
	// origins, or decide with AllowOriginFunc.
	AllowCredentials bool

	// MaxAge is how long a browser may cache a preflight's answer, sent in
	// whole seconds (browsers cap it: Chromium at 2 hours, Firefox at 24).
	// Zero sends no Access-Control-Max-Age (the browser's default, 5
	// seconds); negative panics at construction.
	MaxAge time.Duration
}

// CORS returns middleware that answers cross-origin requests as the
// WHATWG Fetch standard's "CORS protocol" section describes: it tells
// browsers which origins may read responses, and answers preflights.
//
// A preflight, an OPTIONS request with Origin and
// Access-Control-Request-Method, is answered 204 No Content by CORS
// itself; the handlers after it never run. From an allowed origin asking
// for an allowed method and allowed headers, the answer carries
// Access-Control-Allow-Origin, -Allow-Credentials, -Allow-Methods (the
// whole list), -Allow-Headers (the requested ones, as sent) and -Max-Age;
// otherwise it carries no CORS header, and the browser refuses the request.
// Either way the answer is the same whatever the router would have
// answered for that path (404, 405, a redirect, which browsers do not
// follow on a preflight), so register CORS with the Router's Use: in a
// group's middleware it never sees a preflight for a path whose route has
// no OPTIONS handler, since the router answers those itself, outside any
// group.
//
// Any other request is passed on. From an allowed origin it gets
// Access-Control-Allow-Origin, -Allow-Credentials and -Expose-Headers. A
// disallowed origin gets no CORS header and no error: the response is
// what it would be without CORS, and the browser keeps it from the page.
// An OPTIONS request that is no preflight reaches the router's automatic
// OPTIONS answer. Every response gets Vary: Origin, preflights also Vary:
// Access-Control-Request-Method, Access-Control-Request-Headers, since the
// answer depends on them (Fetch "CORS protocol and HTTP caches").
//
// Header values are computed at construction; each response gets them in
// value slices of its own, so that an edit in place of one response's
// field never shows in another. A request costs 1 allocation (those
// slices), whatever the origin and whether it is a preflight, as the
// tests hold. A Vary header set before CORS runs costs 1 more.
//
// It panics at construction, with a message starting "waltz: " that names
// the field, on a malformed origin, method or header name, a negative
// MaxAge, or "*" or "null" in AllowedOrigins with AllowCredentials
// (Fetch "CORS protocol": a credentialed response names one origin;
// reflecting every origin would make credentials readable by any site,
// and so would "null", which any page can send from a sandboxed iframe or
// a data: URL).
func CORS(o CORSOptions) waltz.Middleware {
	cfg := newCORS(o)
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			h := c.Writer.Header()
			req := c.Request
			origins := req.Header["Origin"]
			if req.Method == http.MethodOptions && len(origins) > 0 && len(req.Header["Access-Control-Request-Method"]) > 0 {
				vs := newValues(6) // Vary and the five fields preflight may set
				addVary(h, vs.one(varyPreflight))
				cfg.preflight(h, req, origins, &vs)
				return c.NoContent(http.StatusNoContent)
			}
			vs := newValues(4) // Vary and the three fields below
			addVary(h, vs.one(varyOrigin))
			if len(origins) == 1 {
				if allow, ok := cfg.allowOrigin(origins[0]); ok {
					h["Access-Control-Allow-Origin"] = vs.one(allow)
					if cfg.credentials {
						h["Access-Control-Allow-Credentials"] = vs.one("true")
					}
					if cfg.expose != "" {
						h["Access-Control-Expose-Headers"] = vs.one(cfg.expose)
					}
				}
			}
			return next(c)
		}
	}
}

// The header values CORS sets; each response gets them in value slices of
// its own (see values).
const (
	varyOrigin    = "Origin"
	varyPreflight = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"
)

type cors struct {
	exact       map[string]bool // the origins listed exactly
	any         bool            // "*"
	null        bool            // "null" listed
	patterns    []originPattern
	fn          func(string) bool
	credentials bool
	methods     []string // the requestable methods
	anyHeader   bool     // "*" in AllowedHeaders
	headers     []string // allowed request headers, lower case
	allowMeth   string   // the Access-Control-Allow-Methods value
	maxAge      string   // the Access-Control-Max-Age value, "" for none
	expose      string   // the Access-Control-Expose-Headers value, "" for none
}

// originPattern matches "scheme://" + one or more labels + suffix.
type originPattern struct{ prefix, suffix string }

func newCORS(o CORSOptions) *cors {
	cfg := &cors{exact: map[string]bool{}, fn: o.AllowOriginFunc, credentials: o.AllowCredentials}
	for i, s := range o.AllowedOrigins {
		switch {
		case s == "*":
			cfg.any = true
		case s == "null":
			cfg.null = true
		case strings.Contains(s, "://*."):
			p, err := parseOriginPattern(s)
			if err != nil {
				panic(fmt.Sprintf("waltz: CORSOptions.AllowedOrigins[%d] %q: %v", i, s, err))
			}
			cfg.patterns = append(cfg.patterns, p)
		default:
			if err := checkOrigin(s); err != nil {
				panic(fmt.Sprintf("waltz: CORSOptions.AllowedOrigins[%d] %q: %v", i, s, err))
			}
			cfg.exact[s] = true
		}
	}
	if cfg.any && cfg.credentials {
		panic(`waltz: CORSOptions.AllowedOrigins holds "*" and AllowCredentials is true: ` +
			"every site could read credentialed responses; list the origins in AllowedOrigins, " +
			"or decide with AllowOriginFunc")
	}
	if cfg.null && cfg.credentials {
		panic(`waltz: CORSOptions.AllowedOrigins holds "null" and AllowCredentials is true: ` +
			"any page can send Origin: null (a sandboxed iframe, a data: URL), so every site " +
			`could read credentialed responses; remove "null"`)
	}
	cfg.methods = o.AllowedMethods
	if cfg.methods == nil {
		cfg.methods = []string{http.MethodGet, http.MethodHead, http.MethodPost}
	}
	for i, m := range cfg.methods {
		if !header.IsToken(m) {
			panic(fmt.Sprintf("waltz: CORSOptions.AllowedMethods[%d] %q is not a method token", i, m))
		}
	}
	cfg.allowMeth = strings.Join(cfg.methods, ", ")
	for i, name := range o.AllowedHeaders {
		if name == "*" {
			cfg.anyHeader = true
			continue
		}
		if !header.IsToken(name) {
			panic(fmt.Sprintf("waltz: CORSOptions.AllowedHeaders[%d] %q is not a header name", i, name))
		}
		cfg.headers = append(cfg.headers, strings.ToLower(name))
	}
	for i, name := range o.ExposedHeaders {
		if !header.IsToken(name) {
			panic(fmt.Sprintf("waltz: CORSOptions.ExposedHeaders[%d] %q is not a header name", i, name))
		}
	}
	if len(o.ExposedHeaders) > 0 {
		cfg.expose = strings.Join(o.ExposedHeaders, ", ")
	}
	if o.MaxAge < 0 {
		panic(fmt.Sprintf("waltz: CORSOptions.MaxAge is %v; it must not be negative", o.MaxAge))
	}
	if o.MaxAge > 0 {
		cfg.maxAge = strconv.FormatInt(int64(o.MaxAge/time.Second), 10)
	}
	return cfg
}

// checkOrigin reports why s is not a serialized tuple origin
// "scheme://host[:port]", lower case, or nil.
func checkOrigin(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return err
	case u.Scheme == "" || u.Host == "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return fmt.Errorf("want scheme://host[:port], with no path or trailing slash")
	case strings.ToLower(s) != s:
		return fmt.Errorf("want lower case, as browsers send it")
	case strings.HasSuffix(u.Host, ":") || u.Port() != "" && !originPort(u.Port()):
		return fmt.Errorf("bad port: want 1 to 65535, with no leading zero, as browsers write it")
	case u.Port() != "" && u.Port() == defaultPorts[u.Scheme]:
		return fmt.Errorf("drop the default port :%s: browsers omit it from Origin (RFC 6454 section 6.2), so it would never match", u.Port())
	case !strings.HasPrefix(u.Host, "[") && !isHostname(u.Hostname()):
		return fmt.Errorf("host %q is not a DNS name or IP address", u.Hostname())
	}
	return nil
}

// originPort reports whether p is a port as a serialized origin writes
// it: a decimal number 1 to 65535 with no leading zero.
func originPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == p
}

// defaultPorts are the schemes' default ports, which a serialized origin
// leaves out.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}

// isHostname reports whether s is dot-separated labels of letters, digits
// and hyphens (an IPv4 address is one too).
func isHostname(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// parseOriginPattern parses "scheme://*.domain[:port]".
func parseOriginPattern(s string) (originPattern, error) {
	scheme, rest, _ := strings.Cut(s, "://*.")
	if err := checkOrigin(scheme + "://" + rest); err != nil || strings.Contains(rest, "*") || !strings.Contains(rest, ".") {
		return originPattern{}, fmt.Errorf("want scheme://*.domain[:port], such as https://*.example.com, with a domain of two labels or more")
	}
	return originPattern{prefix: scheme + "://", suffix: "." + rest}, nil
}

// match reports whether origin is prefix, one or more DNS labels, suffix.
func (p originPattern) match(origin string) bool {
	if len(origin) <= len(p.prefix)+len(p.suffix) || !strings.HasPrefix(origin, p.prefix) || !strings.HasSuffix(origin, p.suffix) {
		return false
	}
	return isHostname(origin[len(p.prefix) : len(origin)-len(p.suffix)])
}

// allowOrigin returns the Access-Control-Allow-Origin value for origin,
// and false when it is not allowed.
func (cfg *cors) allowOrigin(origin string) (string, bool) {
	if cfg.exact[origin] {
		return origin, true
	}
	if origin == "null" {
		return "null", cfg.null
	}
	if cfg.any {
		return "*", true // never with credentials: newCORS refuses that
	}
	for _, p := range cfg.patterns {
		if p.match(origin) {
			return origin, true
		}
	}
	if cfg.fn != nil && cfg.fn(origin) {
		return origin, true
	}
	return "", false
}

// preflight sets the headers of a preflight's answer into h: the CORS
// ones when the origin, the method and every header asked for are allowed.
func (cfg *cors) preflight(h http.Header, req *http.Request, origins []string, vs *values) {
	if len(origins) != 1 {
		return
	}
	method := req.Header["Access-Control-Request-Method"][0]
	if !containsString(cfg.methods, method) {
		return
	}
	asked := strings.Join(req.Header["Access-Control-Request-Headers"], ",")
	if !cfg.headersAllowed(asked) {
		return
	}
	allow, ok := cfg.allowOrigin(origins[0])
	if !ok {
		return
	}
	h["Access-Control-Allow-Origin"] = vs.one(allow)
	if cfg.credentials {
		h["Access-Control-Allow-Credentials"] = vs.one("true")
	}
	h["Access-Control-Allow-Methods"] = vs.one(cfg.allowMeth)
	if strings.TrimSpace(asked) != "" {
		h["Access-Control-Allow-Headers"] = vs.one(asked)
	}
	if cfg.maxAge != "" {
		h["Access-Control-Max-Age"] = vs.one(cfg.maxAge)
	}
}

// headersAllowed reports whether every name in the comma-separated list
// is a token and allowed.
func (cfg *cors) headersAllowed(list string) bool {
	for list != "" {
		var name string
		name, list = header.Next(list)
		if name == "" {
			continue
		}
		if !header.IsToken(name) {
			return false
		}
		if cfg.anyHeader {
			continue
		}
		ok := false
		for _, a := range cfg.headers {
			if header.EqualFold(a, name) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// addVary adds v, a value slice of the response's own, to h's Vary header
// without allocating when there is none.
func addVary(h http.Header, v []string) {
	if len(h["Vary"]) == 0 {
		h["Vary"] = v
		return
	}
	h["Vary"] = append(h["Vary"], v...)
}
