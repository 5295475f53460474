package middleware

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/internal/header"
)

// BearerAuthOptions configures [BearerAuth]. Set exactly one of Tokens and
// Validate.
type BearerAuthOptions struct {
	// Realm names the protected space in the challenge (RFC 6750 section
	// 3); "" means "Restricted". Printable ASCII only.
	Realm string

	// Tokens are the access tokens admitted, such as API keys. The slice
	// is copied. Each must have the b64token syntax of RFC 6750 section
	// 2.1: letters, digits and - . _ ~ + /, then any number of "=".
	Tokens []string

	// Validate reports whether token is admitted, for tokens checked
	// elsewhere (a database, a JWT library). It should compare in
	// constant time, and may be called from many goroutines at once.
	Validate func(token string) bool

	// Header, if set, names a request header that may carry the token
	// instead of an Authorization header, such as "X-API-Key". A request
	// may use one of the two, not both.
	Header string
}

// BearerAuth returns middleware that admits only requests with a valid
// access token (RFC 6750): an Authorization header "Bearer " and the token
// (section 2.1; scheme name in any case), or the token alone in the
// configured Header. Tokens in the URI query or a form body (sections 2.2
// and 2.3) are not read: they end up in logs and browser histories.
//
// A refused request gets a WWW-Authenticate challenge (section 3, the
// realm quoted as RFC 9110 section 5.6.4 says) and a [waltz.HTTPError]
// returned for the error handler:
//
//   - no token (no Authorization header, or one of another scheme): 401
//     with Bearer realm="Restricted" and no error code (section 3.1);
//   - a token that is not admitted: 401 with Bearer realm="Restricted",
//     error="invalid_token";
//   - a malformed request — an empty token or one outside the b64token
//     syntax, two Authorization headers or two of Header, a token in both:
//     400 with error="invalid_request".
//
// With Tokens, the token is compared as a SHA-256 hash with crypto/subtle
// against every token each time, so the time taken tells neither its
// length nor which bytes matched.
//
// Cost per request, held by a test: no allocation when admitted, 1 when
// refused (the challenge in a value slice of the response's own, so that
// an edit in place never shows in another response); with Tokens, one
// more for a token over 512 bytes.
//
// BearerAuth panics with a message naming the field when both or neither of
// Tokens and Validate are set, a token is not a b64token, Header is not a
// valid header field name, or Realm is not printable ASCII.
func BearerAuth(o BearerAuthOptions) waltz.Middleware {
	if (len(o.Tokens) == 0) == (o.Validate == nil) {
		panic("waltz: BearerAuthOptions needs either Tokens, not empty, or Validate")
	}
	hashes := make([][sha256.Size]byte, len(o.Tokens))
	for i, tok := range o.Tokens {
		if !b64token(tok) {
			panic(fmt.Sprintf("waltz: BearerAuthOptions.Tokens[%d] is not a b64token (RFC 6750 section 2.1)", i))
		}
		hashes[i] = sha256.Sum256([]byte(tok))
	}
	key := ""
	if o.Header != "" {
		if !validFieldName(o.Header) {
			panic(fmt.Sprintf("waltz: BearerAuthOptions.Header %q is not a valid header field name", o.Header))
		}
		key = http.CanonicalHeaderKey(o.Header)
	}
	realm := "Bearer realm=" + quote("BearerAuthOptions.Realm", o.Realm)
	// Each refusal gets its challenge in a value slice of its own (see values).
	missing, invalid, malformed := realm, realm+`, error="invalid_token"`, realm+`, error="invalid_request"`
	validate := o.Validate
	scheme := api.SecurityScheme{Name: "bearerAuth", Type: "http", Scheme: "bearer"}
	if key != "" && key != "Authorization" {
		// The document shows the header as configured; either that header
		// or Authorization is let through.
		scheme = api.SecurityScheme{Name: "bearerAuth" + strings.ReplaceAll(o.Header, "-", ""), Type: "apiKey",
			In: "header", Param: o.Header, Description: "An access token in the " + o.Header + " header, or as a Bearer token in Authorization."}
	}
	return api.Responds(api.Authenticates(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			token, found, ok := bearerToken(c.Request.Header, key)
			switch {
			case !ok:
				c.Writer.Header()["Www-Authenticate"] = []string{malformed}
				return errBearerRequest
			case !found:
				c.Writer.Header()["Www-Authenticate"] = []string{missing}
				return errUnauthorized
			case validate != nil && !validate(token), validate == nil && !matchToken(hashes, token):
				c.Writer.Header()["Www-Authenticate"] = []string{invalid}
				return errUnauthorized
			}
			return next(c)
		}
	}, scheme), http.StatusBadRequest)
}

// errBearerRequest is the answer to a malformed request. NOTE: shared,
// never modified.
var errBearerRequest = &waltz.HTTPError{Code: http.StatusBadRequest,
	Message: "malformed or repeated access token"}

// bearerToken returns the token of h, from a Bearer Authorization header or
// from the header key if key is not "", whether there is one, and whether
// the request is well formed (RFC 6750 section 3.1, invalid_request).
func bearerToken(h http.Header, key string) (token string, found, ok bool) {
	if v := h["Authorization"]; len(v) > 1 {
		return "", false, false
	} else if len(v) == 1 {
		scheme, rest, _ := strings.Cut(v[0], " ")
		if header.EqualFold(scheme, "Bearer") {
			token, found = strings.Trim(rest, " "), true
		}
	}
	if key != "" {
		if v := h[key]; len(v) > 1 || len(v) == 1 && found {
			return "", false, false
		} else if len(v) == 1 {
			token, found = strings.Trim(v[0], " "), true
		}
	}
	return token, found, !found || b64token(token)
}

// b64token reports whether s has the b64token syntax of RFC 6750 section
// 2.1: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func b64token(s string) bool {
	t := strings.TrimRight(s, "=")
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if b := t[i]; b == '=' || b == ':' || !idByte[b] {
			return false
		}
	}
	return true
}

// matchToken reports whether token is one of those hashed, in time that
// depends only on the number of tokens.
func matchToken(hashes [][sha256.Size]byte, token string) bool {
	var buf [512]byte
	b := buf[:0]
	if len(token) > len(buf) {
		b = nil // a long token is hashed from its own copy
	}
	th := sha256.Sum256(append(b, token...))
	match := 0
	for i := range hashes {
		match |= subtle.ConstantTimeCompare(th[:], hashes[i][:])
	}
	return match == 1
}
