package middleware

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/waltz-go/waltz"
)

func TestSecureHeaders(t *testing.T) {
	defaults := map[string]string{
		"X-Content-Type-Options":     "nosniff",
		"Referrer-Policy":            "strict-origin-when-cross-origin",
		"X-Frame-Options":            "DENY",
		"Content-Security-Policy":    "frame-ancestors 'none'",
		"Cross-Origin-Opener-Policy": "same-origin",
		"Strict-Transport-Security":  "",
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range defaults {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	const hsts = "max-age=31536000; includeSubDomains"
	for _, tc := range []struct {
		name   string
		o      SecureHeadersOptions
		tls    bool
		header map[string]string // request headers
		want   map[string]string // response headers; "" means absent
	}{
		{"defaults over plain HTTP (RFC 6797 section 7.2: no HSTS)", SecureHeadersOptions{}, false, nil, defaults},
		{"defaults over TLS (RFC 6797 section 6.1)", SecureHeadersOptions{}, true, nil,
			with("Strict-Transport-Security", hsts)},
		{"forwarded https, not trusted (hostile)", SecureHeadersOptions{}, false,
			map[string]string{"X-Forwarded-Proto": "https"}, defaults},
		{"forwarded https, trusted", SecureHeadersOptions{TrustForwardedProto: true}, false,
			map[string]string{"X-Forwarded-Proto": "HTTPS"}, with("Strict-Transport-Security", hsts)},
		{"forwarded https and a no-break space, trusted (hostile: OWS is space and tab)", SecureHeadersOptions{TrustForwardedProto: true}, false,
			map[string]string{"X-Forwarded-Proto": "https\u00a0"}, defaults},
		{"forwarded http, trusted", SecureHeadersOptions{TrustForwardedProto: true}, false,
			map[string]string{"X-Forwarded-Proto": "http"}, defaults},
		{"forwarded list, trusted (hostile: not exactly https)", SecureHeadersOptions{TrustForwardedProto: true}, false,
			map[string]string{"X-Forwarded-Proto": "https, http"}, defaults},
		{"every header off", SecureHeadersOptions{ContentTypeOptions: "off", ReferrerPolicy: "off", FrameOptions: "off",
			ContentSecurityPolicy: "off", CrossOriginOpenerPolicy: "off", StrictTransportSecurity: "off"}, true, nil,
			map[string]string{"X-Content-Type-Options": "", "Referrer-Policy": "", "X-Frame-Options": "",
				"Content-Security-Policy": "", "Cross-Origin-Opener-Policy": "", "Strict-Transport-Security": ""}},
		{"own values", SecureHeadersOptions{ReferrerPolicy: "no-referrer, same-origin", FrameOptions: "SAMEORIGIN",
			ContentSecurityPolicy:   "default-src 'self'; frame-ancestors 'self'",
			CrossOriginOpenerPolicy: "same-origin-allow-popups", StrictTransportSecurity: "max-age=63072000; includeSubDomains; preload"},
			true, nil, with("Referrer-Policy", "no-referrer, same-origin", "X-Frame-Options", "SAMEORIGIN",
				"Content-Security-Policy", "default-src 'self'; frame-ancestors 'self'",
				"Cross-Origin-Opener-Policy", "same-origin-allow-popups",
				"Strict-Transport-Security", "max-age=63072000; includeSubDomains; preload")},
		{"CSP off, X-Frame-Options kept", SecureHeadersOptions{ContentSecurityPolicy: "off"}, false, nil,
			with("Content-Security-Policy", "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tc.tls {
				req.TLS = &tls.ConnectionState{}
			}
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			w := serve(t, SecureHeaders(tc.o), ok, req)
			for k, want := range tc.want {
				if got := w.Header().Values(k); want == "" && len(got) != 0 || want != "" && (len(got) != 1 || got[0] != want) {
					t.Errorf("%s: got %q, want %q", k, got, want)
				}
			}
		})
	}
}

// Error pages carry the headers too: they are set before the handlers run.
func TestSecureHeadersOnErrors(t *testing.T) {
	for _, path := range []string{"/missing", "/"} {
		r := waltz.New()
		r.Use(SecureHeaders(SecureHeadersOptions{}))
		r.Get("/", func(c *waltz.Context) error { return &waltz.HTTPError{Code: http.StatusForbidden} })
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if got := w.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: got X-Content-Type-Options %q on a %d, want \"nosniff\"", path, got, w.Code)
		}
	}
}

// A handler's Add must not write into the value shared by every response.
func TestSecureHeadersShared(t *testing.T) {
	mw := SecureHeaders(SecureHeadersOptions{})
	h := func(c *waltz.Context) error {
		c.Writer.Header().Add("Referrer-Policy", "no-referrer")
		return nil
	}
	serve(t, mw, h, httptest.NewRequest(http.MethodGet, "/", nil))
	w := serve(t, mw, ok, httptest.NewRequest(http.MethodGet, "/", nil))
	if got := w.Header().Values("Referrer-Policy"); len(got) != 1 || got[0] != "strict-origin-when-cross-origin" {
		t.Errorf("got Referrer-Policy %q after another response's Add, want only the default", got)
	}
}

func TestSecureHeadersAllocs(t *testing.T) {
	mw := SecureHeaders(SecureHeadersOptions{TrustForwardedProto: true})
	viaTLS := httptest.NewRequest(http.MethodGet, "/", nil)
	viaTLS.TLS = &tls.ConnectionState{}
	viaProxy := httptest.NewRequest(http.MethodGet, "/", nil)
	viaProxy.Header.Set("X-Forwarded-Proto", "https")
	for _, tc := range []struct {
		name string
		req  *http.Request
	}{
		{"plain", httptest.NewRequest(http.MethodGet, "/", nil)},
		{"TLS", viaTLS},
		{"forwarded https", viaProxy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// 1: the response's own header values.
			if got := allocs(t, mw, ok, tc.req); got != 1 {
				t.Errorf("got %v allocations per request, want 1", got)
			}
		})
	}
}

func TestSecureHeadersBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    SecureHeadersOptions
		want string
	}{
		{"CR LF in CSP (header injection)", SecureHeadersOptions{ContentSecurityPolicy: "default-src 'self'\r\nSet-Cookie: a=b"},
			`waltz: SecureHeadersOptions.ContentSecurityPolicy "default-src 'self'\r\nSet-Cookie: a=b" is not a valid Content-Security-Policy value`},
		{"non-ASCII", SecureHeadersOptions{ContentSecurityPolicy: "default-src 'sélf'"},
			`waltz: SecureHeadersOptions.ContentSecurityPolicy "default-src 'sélf'" is not a valid Content-Security-Policy value`},
		{"nosniff typo", SecureHeadersOptions{ContentTypeOptions: "no-sniff"},
			`waltz: SecureHeadersOptions.ContentTypeOptions "no-sniff" is not a valid X-Content-Type-Options value`},
		{"unknown referrer policy", SecureHeadersOptions{ReferrerPolicy: "never"},
			`waltz: SecureHeadersOptions.ReferrerPolicy "never" is not a valid Referrer-Policy value`},
		{"ALLOW-FROM (obsolete, RFC 7034 section 2.1)", SecureHeadersOptions{FrameOptions: "ALLOW-FROM https://a.example"},
			`waltz: SecureHeadersOptions.FrameOptions "ALLOW-FROM https://a.example" is not a valid X-Frame-Options value`},
		{"unknown opener policy", SecureHeadersOptions{CrossOriginOpenerPolicy: "same-site"},
			`waltz: SecureHeadersOptions.CrossOriginOpenerPolicy "same-site" is not a valid Cross-Origin-Opener-Policy value`},
		{"HSTS without max-age (RFC 6797 section 6.1.1)", SecureHeadersOptions{StrictTransportSecurity: "includeSubDomains"},
			`waltz: SecureHeadersOptions.StrictTransportSecurity "includeSubDomains" is not a valid Strict-Transport-Security value`},
		{"HSTS max-age not a number", SecureHeadersOptions{StrictTransportSecurity: "max-age=1y"},
			`waltz: SecureHeadersOptions.StrictTransportSecurity "max-age=1y" is not a valid Strict-Transport-Security value`},
		{"HSTS two max-ages", SecureHeadersOptions{StrictTransportSecurity: "max-age=1; max-age=2"},
			`waltz: SecureHeadersOptions.StrictTransportSecurity "max-age=1; max-age=2" is not a valid Strict-Transport-Security value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := panicMessage(func() { SecureHeaders(tc.o) }); got != tc.want {
				t.Errorf("got panic %q, want %q", got, tc.want)
			}
		})
	}
	// Values that are valid must not panic.
	for _, o := range []SecureHeadersOptions{
		{StrictTransportSecurity: `max-age="0"`},
		{CrossOriginOpenerPolicy: `same-origin; report-to="coop"`},
		{FrameOptions: "sameorigin", ContentTypeOptions: "NoSniff"},
	} {
		if got := panicMessage(func() { SecureHeaders(o) }); got != "" {
			t.Errorf("%+v: got panic %q, want none", o, got)
		}
	}
}

func ExampleSecureHeaders() {
	r := waltz.New()
	r.Use(SecureHeaders(SecureHeadersOptions{
		ContentSecurityPolicy: "default-src 'self'; frame-ancestors 'none'",
		FrameOptions:          "off", // frame-ancestors covers it in current browsers
	}))
	r.Get("/", func(c *waltz.Context) error { return c.HTML(http.StatusOK, "<p>hi</p>") })

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	for _, k := range []string{"Content-Security-Policy", "Cross-Origin-Opener-Policy", "Referrer-Policy",
		"Strict-Transport-Security", "X-Content-Type-Options", "X-Frame-Options"} {
		fmt.Printf("%s: %q\n", k, w.Header().Get(k))
	}
	// Output:
	// Content-Security-Policy: "default-src 'self'; frame-ancestors 'none'"
	// Cross-Origin-Opener-Policy: "same-origin"
	// Referrer-Policy: "strict-origin-when-cross-origin"
	// Strict-Transport-Security: ""
	// X-Content-Type-Options: "nosniff"
	// X-Frame-Options: ""
}
