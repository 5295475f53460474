package middleware

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
)

// RealIPOptions configures [RealIP]. The zero value trusts no proxy, and
// then RealIP changes nothing.
type RealIPOptions struct {
	// TrustedProxies lists the networks of the proxies in front of the
	// server, such as netip.MustParsePrefix("10.0.0.0/8"). A forwarding
	// header is read only when the direct peer is in one of them, and
	// only the hops they appended are skipped. Empty means RealIP changes
	// nothing. An invalid prefix panics at construction.
	TrustedProxies []netip.Prefix

	// Header is the one header the trusted proxies write: "X-Forwarded-For"
	// (the default when empty), "Forwarded" (RFC 7239) or "X-Real-IP". Any
	// other value panics at construction. Name the header your proxies
	// write, and only that one: a proxy passes on any header it does not
	// write itself, so the client controls every other one.
	Header string
}

// RealIP returns middleware that sets the request's RemoteAddr to the
// client's address as reported by trusted proxies, so that handlers, the
// rate limiter and [ClientIP] after it see the client rather than the
// proxy in front of the server.
//
// Only when the direct peer (RemoteAddr) is in o.TrustedProxies, it reads
// o.Header: every line of it, in order, as one comma-separated list (RFC
// 9110 section 5.3), each proxy having appended the address it received the
// request from. Walking the list from the right, it skips the addresses in
// o.TrustedProxies; the first address that is not trusted is the client.
// When every address is trusted, the leftmost is the client. When the
// walk meets an entry that is not an IP address ("unknown", an obfuscated
// identifier such as "_hidden" (RFC 7239 section 6.3), a hostname, a
// zoned IPv6 address, garbage) before reaching an untrusted address, the
// client cannot be known and the request is left unchanged; so is a
// request with no such header, or from an untrusted peer, whatever its
// headers say. IPv4-mapped IPv6 addresses (::ffff:192.0.2.1) are
// compared, and reported, as IPv4.
//
// Entries have the forms proxies write: for X-Forwarded-For and X-Real-IP
// an IP address, optionally with a port (192.0.2.1:4711, [2001:db8::1]:4711)
// or in brackets; for Forwarded (RFC 7239 section 4) the for= parameter of
// each forwarded-element, a token or a quoted string (for="[2001:db8::1]:80"),
// parameter names in any case. An element without for= counts as unknown.
//
// The new RemoteAddr is "ip:0" (port 0: the client's port is not known),
// such as "192.0.2.1:0" or "[2001:db8::1]:0", which [net.SplitHostPort] and
// [netip.ParseAddrPort] accept. It is set on a shallow copy of the request,
// which c.Request points to while the handlers inside run; the original is
// restored when they return. The walk allocates nothing and is linear in
// the header's size (net/http bounds headers by Server.MaxHeaderBytes);
// a rewritten request costs 2 allocations (the copy and the address
// string), an unchanged one none, as the tests hold.
//
// It panics at construction, with a message starting "waltz: ", on an
// invalid prefix or an unknown Header.
func RealIP(o RealIPOptions) waltz.Middleware {
	cfg := newRealIP(o)
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		if len(cfg.trusted) == 0 {
			return next
		}
		return func(c *waltz.Context) error {
			orig := c.Request
			addr, ok := cfg.client(orig)
			if !ok {
				return next(c)
			}
			r := new(http.Request)
			*r = *orig
			r.RemoteAddr = netip.AddrPortFrom(addr, 0).String()
			c.Request = r
			err := next(c)
			c.Request = orig
			return err
		}
	}
}

type realIP struct {
	trusted   []netip.Prefix
	header    string // canonical key
	forwarded bool   // header is Forwarded
}

func newRealIP(o RealIPOptions) *realIP {
	cfg := &realIP{header: "X-Forwarded-For"}
	for i, p := range o.TrustedProxies {
		if !p.IsValid() {
			panic(fmt.Sprintf("waltz: RealIPOptions.TrustedProxies[%d] is not a valid prefix", i))
		}
		// Compare mapped IPv4 as IPv4: ::ffff:10.0.0.0/104 is 10.0.0.0/8.
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		cfg.trusted = append(cfg.trusted, p.Masked())
	}
	switch h := http.CanonicalHeaderKey(o.Header); h {
	case "":
	case "X-Forwarded-For", "X-Real-Ip", "Forwarded":
		cfg.header, cfg.forwarded = h, h == "Forwarded"
	default:
		panic(fmt.Sprintf("waltz: RealIPOptions.Header %q is not one of \"X-Forwarded-For\", \"Forwarded\", \"X-Real-IP\"", o.Header))
	}
	return cfg
}

// isTrusted reports whether a is in a trusted prefix; a is unmapped.
func (cfg *realIP) isTrusted(a netip.Addr) bool {
	for _, p := range cfg.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// client returns the client's address for r and true, or false when r
// is to be left as it is.
func (cfg *realIP) client(r *http.Request) (netip.Addr, bool) {
	peer := ClientIP(r)
	if !peer.IsValid() || !cfg.isTrusted(peer.WithZone("")) {
		return netip.Addr{}, false
	}
	lines := r.Header[cfg.header]
	// One pass from the left finds what a walk from the right would: the
	// rightmost entry that is not a trusted address (the walk's stop), or,
	// when there is none, the leftmost entry.
	var first, stop netip.Addr
	seen, stopped, stopBad := false, false, false
	for _, line := range lines {
		for rest := line; rest != ""; {
			var elem string
			elem, rest = header.Next(rest)
			if elem == "" {
				continue // empty list elements are ignored (RFC 9110 section 5.6.1)
			}
			a, ok := cfg.parseEntry(elem)
			if !seen {
				first, seen = a, true
			}
			if ok && cfg.isTrusted(a) {
				continue
			}
			stop, stopped, stopBad = a, true, !ok
		}
	}
	switch {
	case stopped && !stopBad:
		return stop, true
	case stopped || !seen:
		return netip.Addr{}, false
	default:
		return first, true
	}
}

// parseEntry returns the address an element of the header names, unmapped
// and without a zone, and whether it names one.
func (cfg *realIP) parseEntry(elem string) (netip.Addr, bool) {
	node := header.TrimOWS(elem)
	if cfg.forwarded {
		var ok bool
		if node, ok = forwardedFor(node); !ok {
			return netip.Addr{}, false
		}
	}
	return parseNode(node)
}

// forwardedFor returns the value of the for= parameter of a
// forwarded-element (RFC 7239 section 4), unquoted, and whether it has one.
func forwardedFor(elem string) (string, bool) {
	for elem != "" {
		var pair string
		pair, elem, _ = header.Cut(elem, ';')
		name, value, ok := strings.Cut(pair, "=")
		if !ok || !header.EqualFold(header.TrimOWS(name), "for") {
			continue
		}
		value = header.TrimOWS(value)
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
			if strings.IndexByte(value, '\\') >= 0 {
				return "", false // no address needs quoted-pair escapes
			}
		}
		return value, true
	}
	return "", false
}

// parseNode parses "192.0.2.1", "192.0.2.1:80", "2001:db8::1",
// "[2001:db8::1]" or "[2001:db8::1]:80" (RFC 7239 section 6). A zone, a
// name, "unknown" and an obfuscated identifier are no address.
func parseNode(s string) (netip.Addr, bool) {
	if strings.IndexByte(s, '%') >= 0 || s == "" {
		return netip.Addr{}, false
	}
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 || (end+1 < len(s) && !validPort(s[end+1:])) {
			return netip.Addr{}, false
		}
		a, err := netip.ParseAddr(s[1:end])
		if err != nil || !a.Is6() {
			return netip.Addr{}, false
		}
		return a.Unmap(), true
	}
	if i := strings.IndexByte(s, ':'); i >= 0 && strings.IndexByte(s[i+1:], ':') < 0 {
		// One colon: IPv4 with a port.
		if !validPort(s[i:]) {
			return netip.Addr{}, false
		}
		s = s[:i]
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// validPort reports whether s is ":" followed by 1 to 5 digits.
func validPort(s string) bool {
	if len(s) < 2 || len(s) > 6 || s[0] != ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ClientIP returns the address in r.RemoteAddr ("ip:port", as net/http
// sets it, or a bare IP), with an IPv4-mapped IPv6 address given as IPv4,
// or the zero (invalid) Addr when RemoteAddr holds neither. After [RealIP]
// it is the client's address as trusted proxies reported it. It allocates
// nothing.
func ClientIP(r *http.Request) netip.Addr {
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap()
	}
	if a, err := netip.ParseAddr(r.RemoteAddr); err == nil {
		return a.Unmap()
	}
	return netip.Addr{}
}
