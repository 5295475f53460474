package middleware

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// serveRemote runs req through a router with mw that answers the
// RemoteAddr and ClientIP its handler sees.
func serveRemote(tb testing.TB, mw waltz.Middleware, req *http.Request) string {
	tb.Helper()
	r := waltz.New()
	r.Use(mw)
	r.Get("/", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, c.Request.RemoteAddr+" "+ClientIP(c.Request).String())
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w.Body.String()
}

func TestRealIP(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:f::/48")}
	long := strings.Repeat("10.1.1.1, ", 20000) + "10.2.2.2"
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		header  string
		peer    string
		lines   []string // values of the configured header, one per line
		want    string   // RemoteAddr and ClientIP the handler sees
	}{
		// Secure by default: no trusted proxies, nothing changes.
		{"no trusted proxies", nil, "", "203.0.113.9:1234", []string{"198.51.100.1"}, "203.0.113.9:1234 203.0.113.9"},
		// Hostile: spoofed X-Forwarded-For from an untrusted peer.
		{"spoofed XFF from untrusted peer", trusted, "", "203.0.113.9:1234", []string{"10.0.0.1, 198.51.100.1"}, "203.0.113.9:1234 203.0.113.9"},
		{"spoofed Forwarded from untrusted peer", trusted, "Forwarded", "203.0.113.9:1234", []string{"for=198.51.100.1"}, "203.0.113.9:1234 203.0.113.9"},
		// The client's own entry is left of the proxy's: the rightmost
		// untrusted entry wins, whatever the client prepended.
		{"one proxy", trusted, "", "10.0.0.1:5000", []string{"198.51.100.1"}, "198.51.100.1:0 198.51.100.1"},
		{"client prepends a fake", trusted, "", "10.0.0.1:5000", []string{"1.2.3.4, 198.51.100.1"}, "198.51.100.1:0 198.51.100.1"},
		{"client prepends a trusted fake", trusted, "", "10.0.0.1:5000", []string{"10.9.9.9, 198.51.100.1"}, "198.51.100.1:0 198.51.100.1"},
		{"two trusted hops skipped", trusted, "", "10.0.0.1:5000", []string{"198.51.100.1, 10.0.0.7, 10.0.0.3"}, "198.51.100.1:0 198.51.100.1"},
		{"all trusted: leftmost", trusted, "", "10.0.0.1:5000", []string{"10.0.0.9, 10.0.0.3"}, "10.0.0.9:0 10.0.0.9"},
		// RFC 9110 section 5.3: several lines are one list, in order.
		{"lines combined", trusted, "", "10.0.0.1:5000", []string{"1.2.3.4, 198.51.100.1", "10.0.0.5"}, "198.51.100.1:0 198.51.100.1"},
		{"fake on its own line", trusted, "", "10.0.0.1:5000", []string{"1.2.3.4", "198.51.100.1"}, "198.51.100.1:0 198.51.100.1"},
		// RFC 9110 section 5.6.1: empty list elements are ignored.
		{"empty elements", trusted, "", "10.0.0.1:5000", []string{" , 198.51.100.1 ,,"}, "198.51.100.1:0 198.51.100.1"},
		{"no header", trusted, "", "10.0.0.1:5000", nil, "10.0.0.1:5000 10.0.0.1"},
		// Hostile: garbage before reaching an untrusted address stops the walk.
		{"garbage entry", trusted, "", "10.0.0.1:5000", []string{"198.51.100.1, <script>"}, "10.0.0.1:5000 10.0.0.1"},
		{"hostname entry", trusted, "", "10.0.0.1:5000", []string{"evil.example"}, "10.0.0.1:5000 10.0.0.1"},
		{"garbage left of the client ignored", trusted, "", "10.0.0.1:5000", []string{"junk, 198.51.100.1"}, "198.51.100.1:0 198.51.100.1"},
		{"bad port", trusted, "", "10.0.0.1:5000", []string{"198.51.100.1:http"}, "10.0.0.1:5000 10.0.0.1"},
		{"IPv4 with port", trusted, "", "10.0.0.1:5000", []string{"198.51.100.1:4711"}, "198.51.100.1:0 198.51.100.1"},
		// Hostile: zones mean nothing off the host; mapped IPv4 is IPv4.
		{"zoned entry", trusted, "", "10.0.0.1:5000", []string{"fe80::1%eth0"}, "10.0.0.1:5000 10.0.0.1"},
		{"IPv4-mapped client", trusted, "", "10.0.0.1:5000", []string{"::ffff:198.51.100.1"}, "198.51.100.1:0 198.51.100.1"},
		{"IPv4-mapped trusted hop skipped", trusted, "", "10.0.0.1:5000", []string{"198.51.100.1, ::ffff:10.0.0.2"}, "198.51.100.1:0 198.51.100.1"},
		{"IPv4-mapped peer trusted", trusted, "", "[::ffff:10.0.0.1]:5000", []string{"198.51.100.1"}, "198.51.100.1:0 198.51.100.1"},
		{"IPv6 peer and client", trusted, "", "[2001:db8:f::2]:443", []string{"2001:db8::7"}, "[2001:db8::7]:0 2001:db8::7"},
		{"bracketed IPv6 with port", trusted, "", "10.0.0.1:5000", []string{"[2001:db8::7]:4711"}, "[2001:db8::7]:0 2001:db8::7"},
		// Hostile: a huge header of trusted hops is walked to its left end.
		{"huge header", trusted, "", "10.0.0.1:5000", []string{long}, "10.1.1.1:0 10.1.1.1"},
		// RFC 7239 section 4: for= in each forwarded-element.
		{"Forwarded", trusted, "Forwarded", "10.0.0.1:5000", []string{"for=198.51.100.1;proto=https, for=10.0.0.3"}, "198.51.100.1:0 198.51.100.1"},
		{"Forwarded case", trusted, "Forwarded", "10.0.0.1:5000", []string{"Proto=https;FOR=198.51.100.1;by=10.0.0.1"}, "198.51.100.1:0 198.51.100.1"},
		{"Forwarded for and a no-break space", trusted, "Forwarded", "10.0.0.1:5000", []string{"for\u00a0=198.51.100.1"}, "10.0.0.1:5000 10.0.0.1"},
		// RFC 7239 section 6: IPv6 is quoted and bracketed, ports allowed.
		{"Forwarded IPv6", trusted, "Forwarded", "10.0.0.1:5000", []string{`for="[2001:db8::7]:4711"`}, "[2001:db8::7]:0 2001:db8::7"},
		{"Forwarded quoted IPv4 port", trusted, "Forwarded", "10.0.0.1:5000", []string{`for="198.51.100.1:80"`}, "198.51.100.1:0 198.51.100.1"},
		// RFC 7239 section 6.2 and 6.3: unknown and obfuscated stop the walk.
		{"Forwarded unknown", trusted, "Forwarded", "10.0.0.1:5000", []string{"for=198.51.100.1, for=unknown"}, "10.0.0.1:5000 10.0.0.1"},
		{"Forwarded obfuscated", trusted, "Forwarded", "10.0.0.1:5000", []string{"for=_hidden"}, "10.0.0.1:5000 10.0.0.1"},
		{"Forwarded element without for", trusted, "Forwarded", "10.0.0.1:5000", []string{"for=198.51.100.1, proto=http"}, "10.0.0.1:5000 10.0.0.1"},
		// Hostile: a comma inside a quoted string does not split elements.
		{"Forwarded quoted comma", trusted, "Forwarded", "10.0.0.1:5000", []string{`for=198.51.100.1, for="1.2.3.4,5.6.7.8"`}, "10.0.0.1:5000 10.0.0.1"},
		{"Forwarded unterminated quote", trusted, "Forwarded", "10.0.0.1:5000", []string{`for="198.51.100.1`}, "10.0.0.1:5000 10.0.0.1"},
		{"Forwarded escape", trusted, "Forwarded", "10.0.0.1:5000", []string{`for="198.51.100.\1"`}, "10.0.0.1:5000 10.0.0.1"},
		{"X-Real-IP", trusted, "X-Real-IP", "10.0.0.1:5000", []string{"198.51.100.1"}, "198.51.100.1:0 198.51.100.1"},
		// Only the configured header counts: the client writes the others.
		{"XFF ignored when Forwarded configured", trusted, "Forwarded", "10.0.0.1:5000", nil, "10.0.0.1:5000 10.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = tc.peer
			h := tc.header
			if h == "" {
				h = "X-Forwarded-For"
			}
			req.Header[http.CanonicalHeaderKey(h)] = tc.lines
			if tc.header == "Forwarded" {
				req.Header.Set("X-Forwarded-For", "198.51.100.99")
			}
			got := serveRemote(t, RealIP(RealIPOptions{TrustedProxies: tc.trusted, Header: tc.header}), req)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if req.RemoteAddr != tc.peer {
				t.Errorf("original request changed: RemoteAddr %q, want %q", req.RemoteAddr, tc.peer)
			}
		})
	}
}

func TestRealIPRemoteAddrForm(t *testing.T) {
	mw := RealIP(RealIPOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	for _, client := range []string{"198.51.100.1", "2001:db8::7"} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = "10.0.0.1:5000"
		req.Header.Set("X-Forwarded-For", client)
		got, _, _ := strings.Cut(serveRemote(t, mw, req), " ")
		host, port, err := net.SplitHostPort(got)
		if err != nil || host != client || port != "0" {
			t.Errorf("%s: got RemoteAddr %q (%q, %q, %v), want host %q port 0", client, got, host, port, err, client)
		}
	}
}

func TestRealIPPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    RealIPOptions
		want string
	}{
		{"zero prefix", RealIPOptions{TrustedProxies: []netip.Prefix{{}}}, "waltz: RealIPOptions.TrustedProxies[0]"},
		{"unknown header", RealIPOptions{Header: "X-Client-IP"}, `waltz: RealIPOptions.Header "X-Client-IP"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if got := fmt.Sprint(recover()); !strings.HasPrefix(got, tc.want) {
					t.Errorf("got panic %q, want prefix %q", got, tc.want)
				}
			}()
			RealIP(tc.o)
		})
	}
}

func TestClientIP(t *testing.T) {
	for _, tc := range []struct{ remote, want string }{
		{"192.0.2.1:1234", "192.0.2.1"},
		{"[2001:db8::1]:1234", "2001:db8::1"},
		{"[::ffff:192.0.2.1]:1234", "192.0.2.1"},
		{"192.0.2.1", "192.0.2.1"},
		{"[fe80::1%eth0]:80", "fe80::1%eth0"},
		{"pipe", "invalid IP"},
		{"", "invalid IP"},
	} {
		t.Run(tc.remote, func(t *testing.T) {
			if got := ClientIP(&http.Request{RemoteAddr: tc.remote}).String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRealIPAllocs(t *testing.T) {
	mw := RealIP(RealIPOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, Header: "Forwarded"})
	h := mw(func(c *waltz.Context) error { return nil })
	r := waltz.New()
	r.Get("/", h)
	for _, tc := range []struct {
		name, peer string
		want       float64
	}{
		{"untrusted peer", "203.0.113.9:1", 0},
		{"rewritten", "10.0.0.1:1", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = tc.peer
			req.Header.Set("Forwarded", `for=198.51.100.1;proto=https, for="[2001:db8::1]:80", for=10.0.0.2`)
			w := httptest.NewRecorder()
			if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != tc.want {
				t.Errorf("got %v allocs, want %v", got, tc.want)
			}
		})
	}
}

func ExampleRealIP() {
	r := waltz.New()
	r.Use(RealIP(RealIPOptions{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}))
	r.Get("/", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, ClientIP(c.Request).String())
	})

	for _, peer := range []string{"10.0.0.1:5000", "203.0.113.9:5000"} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = peer
		req.Header.Set("X-Forwarded-For", "192.0.2.60, 198.51.100.7")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(peer, "->", w.Body.String())
	}
	// Output:
	// 10.0.0.1:5000 -> 198.51.100.7
	// 203.0.113.9:5000 -> 203.0.113.9
}
