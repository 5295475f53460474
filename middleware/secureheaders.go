package middleware

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
)

// SecureHeadersOptions configures [SecureHeaders]. Each string field is the
// header's value: "" sends the default given beside it, and "off" sends no
// such header. The zero value sends every header with its default.
type SecureHeadersOptions struct {
	// ContentTypeOptions is X-Content-Type-Options (WHATWG Fetch,
	// "X-Content-Type-Options header"): "" means "nosniff", which stops
	// browsers from guessing a script or style sheet out of a response of
	// another type. "nosniff" is its only value.
	ContentTypeOptions string

	// ReferrerPolicy is Referrer-Policy (W3C Referrer Policy, section 4.1):
	// "" means "strict-origin-when-cross-origin", which sends only the
	// origin to other sites and nothing from HTTPS to HTTP. A value is a
	// comma-separated list of the policy tokens of section 3.
	ReferrerPolicy string

	// FrameOptions is X-Frame-Options (RFC 7034 section 2.1): "" means
	// "DENY", so no page can frame this one (clickjacking); "SAMEORIGIN"
	// lets pages of the same origin frame it.
	FrameOptions string

	// ContentSecurityPolicy is Content-Security-Policy (W3C CSP Level 3):
	// "" means "frame-ancestors 'none'" (section 6.4.2), the modern form of
	// FrameOptions' DENY, which restricts nothing else. A policy of your
	// own replaces it; keep a frame-ancestors directive in it.
	ContentSecurityPolicy string

	// CrossOriginOpenerPolicy is Cross-Origin-Opener-Policy (WHATWG HTML,
	// "Cross-origin opener policies"): "" means "same-origin", which puts a
	// page in its own browsing context group, away from cross-origin
	// windows it opens or that open it. Pages that sign in through a popup
	// of another origin need "same-origin-allow-popups".
	CrossOriginOpenerPolicy string

	// StrictTransportSecurity is Strict-Transport-Security (RFC 6797
	// section 6.1), sent only on requests that came over TLS (section 7.2):
	// "" means "max-age=31536000; includeSubDomains", one year for this
	// host and its subdomains. It needs a max-age directive.
	StrictTransportSecurity string

	// TrustForwardedProto makes a request with one X-Forwarded-Proto
	// field, "https" in any case, count as one that came over TLS, for
	// HSTS. Set it only behind a proxy that terminates TLS and sets that
	// header, since clients can send it too.
	TrustForwardedProto bool
}

// SecureHeaders returns middleware that sets response headers telling
// browsers to defend the site: X-Content-Type-Options, Referrer-Policy,
// X-Frame-Options, Content-Security-Policy, Cross-Origin-Opener-Policy and,
// on requests that came over TLS (Request.TLS set, or X-Forwarded-Proto
// "https" when TrustForwardedProto), Strict-Transport-Security, with the
// values that [SecureHeadersOptions] describes. They are set before the
// handlers run, so they are on every response, error pages included; a
// handler may replace one with Header().Set, or delete it.
//
// The values are checked and built once, here; each response gets them in
// value slices of its own, so an edit in place of one response's field
// never shows in another. Cost per request, held by a test: 1 allocation,
// those slices (a response header map may still grow to hold the headers,
// as for any header a handler sets).
//
// SecureHeaders panics with a message naming the field for a value that
// is no valid value of its header: one with control bytes or non-ASCII,
// a ContentTypeOptions other than "nosniff", an unknown referrer policy or
// X-Frame-Options value or opener policy, a Strict-Transport-Security
// without a numeric max-age.
func SecureHeaders(o SecureHeadersOptions) waltz.Middleware {
	var fields []field
	add := func(name, key, value, def string, valid func(string) bool) {
		if value == "" {
			value = def
		}
		if value == "off" {
			return
		}
		if !visibleASCII(value) || !valid(value) {
			panic(fmt.Sprintf("waltz: SecureHeadersOptions.%s %q is not a valid %s value", name, value, key))
		}
		fields = append(fields, field{key, value})
	}
	add("ContentTypeOptions", "X-Content-Type-Options", o.ContentTypeOptions, "nosniff",
		func(v string) bool { return header.EqualFold(v, "nosniff") })
	add("ReferrerPolicy", "Referrer-Policy", o.ReferrerPolicy, "strict-origin-when-cross-origin", validReferrerPolicy)
	add("FrameOptions", "X-Frame-Options", o.FrameOptions, "DENY",
		func(v string) bool { return header.EqualFold(v, "DENY") || header.EqualFold(v, "SAMEORIGIN") })
	add("ContentSecurityPolicy", "Content-Security-Policy", o.ContentSecurityPolicy, "frame-ancestors 'none'",
		func(string) bool { return true })
	add("CrossOriginOpenerPolicy", "Cross-Origin-Opener-Policy", o.CrossOriginOpenerPolicy, "same-origin", validOpenerPolicy)
	plain := fields
	add("StrictTransportSecurity", "Strict-Transport-Security", o.StrictTransportSecurity,
		"max-age=31536000; includeSubDomains", validHSTS)
	var hsts *field
	if len(fields) > len(plain) {
		hsts = &fields[len(fields)-1]
	}
	trustProto := o.TrustForwardedProto
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			h := c.Writer.Header()
			vs := newValues(len(plain) + 1)
			for _, f := range plain {
				h[f.key] = vs.one(f.value)
			}
			if hsts != nil && (c.Request.TLS != nil || trustProto && forwardedHTTPS(c.Request.Header)) {
				h[hsts.key] = vs.one(hsts.value)
			}
			return next(c)
		}
	}
}

// field is a header set on every response. Each response gets the value
// in a slice of its own (see values).
type field struct {
	key   string // canonical
	value string
}

// forwardedHTTPS reports whether h has exactly one X-Forwarded-Proto, and
// it says "https".
func forwardedHTTPS(h http.Header) bool {
	v := h["X-Forwarded-Proto"]
	return len(v) == 1 && header.EqualFold(header.TrimOWS(v[0]), "https")
}

// visibleASCII reports whether s is non-empty and holds only printable
// ASCII and spaces, so it cannot break a header line.
func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] > '~' {
			return false
		}
	}
	return s != ""
}

// validReferrerPolicy reports whether v is a comma-separated list of the
// policy tokens of W3C Referrer Policy section 3.
func validReferrerPolicy(v string) bool {
	for tok := range strings.SplitSeq(v, ",") {
		switch strings.ToLower(strings.TrimSpace(tok)) {
		case "no-referrer", "no-referrer-when-downgrade", "same-origin", "origin", "strict-origin",
			"origin-when-cross-origin", "strict-origin-when-cross-origin", "unsafe-url":
		default:
			return false
		}
	}
	return true
}

// validOpenerPolicy reports whether v is one of the opener policies of
// WHATWG HTML, with parameters (such as report-to) allowed after ";".
func validOpenerPolicy(v string) bool {
	tok, _, _ := strings.Cut(v, ";")
	switch strings.TrimSpace(tok) {
	case "same-origin", "same-origin-allow-popups", "noopener-allow-popups", "unsafe-none":
		return true
	}
	return false
}

// validHSTS reports whether v has exactly one max-age directive with a
// decimal value, optionally quoted (RFC 6797 section 6.1.1).
func validHSTS(v string) bool {
	n := 0
	for d := range strings.SplitSeq(v, ";") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		if !header.EqualFold(strings.TrimSpace(name), "max-age") {
			continue
		}
		n++
		val = strings.TrimSpace(val)
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val = val[1 : len(val)-1]
		}
		if val == "" || strings.Trim(val, "0123456789") != "" {
			return false
		}
	}
	return n == 1
}
