package jwtauth_test

import (
	"crypto/x509"
	"encoding/pem"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/jwtauth"
)

const (
	invalid = `Bearer realm="Restricted", error="invalid_token", error_description="the access token is invalid"`
	expired = `Bearer realm="Restricted", error="invalid_token", error_description="the access token expired"`
	missing = `Bearer realm="Restricted"`
)

// TestTokens holds the rules a token must pass against keys held in the
// program: an HMAC secret (HS256) and an RSA public key (RS256, kid
// "rsa"), both algorithms allowed. Each refusal is a 401 whose challenge
// and message say no more than whether it expired.
func TestTokens(t *testing.T) {
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&rsaA().PublicKey))})
	pubDER := must(x509.MarshalPKIXPublicKey(&rsaA().PublicKey))
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{Keys: []jwtauth.Key{
		{Algorithm: "HS256", Secret: secret},
		{ID: "rsa", Algorithm: "RS256", Public: &rsaA().PublicKey},
	}})
	hs := func(edit func(jwt.MapClaims)) string {
		return sign(t, jwt.SigningMethodHS256, secret, "", claims(edit))
	}
	now := time.Now()
	valid := hs(nil)
	for _, tc := range []struct {
		name, token string
		code        int
		challenge   string
	}{
		{"HS256 with the secret", valid, 200, ""},
		{"RS256 with the key", sign(t, jwt.SigningMethodRS256, rsaA(), "rsa", claims(nil)), 200, ""},
		{"RS256 without a kid", sign(t, jwt.SigningMethodRS256, rsaA(), "", claims(nil)), 200, ""},
		{"not before now, within the leeway", hs(func(c jwt.MapClaims) { c["nbf"] = now.Add(20 * time.Second).Unix() }), 200, ""},
		{"expired within the leeway", hs(func(c jwt.MapClaims) { c["exp"] = now.Add(-20 * time.Second).Unix() }), 200, ""},

		{"expired", hs(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() }), 401, expired},
		{"without an expiry", hs(func(c jwt.MapClaims) { delete(c, "exp") }), 401, invalid},
		{"an expiry that is no number", hs(func(c jwt.MapClaims) { c["exp"] = "tomorrow" }), 401, invalid},
		{"not valid yet", hs(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() }), 401, invalid},
		{"issued in the future", hs(func(c jwt.MapClaims) { c["iat"] = now.Add(time.Hour).Unix() }), 401, invalid},
		// NumericDates beyond what time.Time holds, which golang-jwt's
		// conversion wraps into the distant past: far in the future, not
		// in the past.
		{"not before the year 1e300", hs(func(c jwt.MapClaims) { c["nbf"] = 1e300 }), 401, invalid},
		{"issued in the year 1e300", hs(func(c jwt.MapClaims) { c["iat"] = 1e300 }), 401, invalid},
		{"not before 2^63 - 1 s", hs(func(c jwt.MapClaims) { c["nbf"] = int64(math.MaxInt64) }), 401, invalid},
		{"issued at -1e300", hs(func(c jwt.MapClaims) { c["iat"] = -1e300 }), 401, invalid},
		{"an expiry in the year 1e300", hs(func(c jwt.MapClaims) { c["exp"] = 1e300 }), 401, invalid},
		{"an expiry far ahead, within time.Time", hs(func(c jwt.MapClaims) { c["exp"] = 9e15 }), 200, ""},
		{"unsigned (alg none)", sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "", claims(nil)), 401, invalid},
		{"alg none with a valid HS256 signature", strings.Join(append(strings.Split(sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "", claims(nil)), ".")[:2], strings.Split(valid, ".")[2]), "."), 401, invalid},
		{"alg None", forge(`{"alg":"None","typ":"JWT"}`, `{"sub":"ana","exp":4102444800}`, nil), 401, invalid},
		{"no alg", forge(`{"typ":"JWT"}`, `{"sub":"ana","exp":4102444800}`, nil), 401, invalid},
		{"HS256 with another secret", sign(t, jwt.SigningMethodHS256, secret2, "", claims(nil)), 401, invalid},
		{"RS256 with another key", sign(t, jwt.SigningMethodRS256, rsaB(), "rsa", claims(nil)), 401, invalid},
		{"RS256 with the key, another kid", sign(t, jwt.SigningMethodRS256, rsaA(), "other", claims(nil)), 401, invalid},
		{"HS384, not allowed, with the secret", sign(t, jwt.SigningMethodHS384, secret, "", claims(nil)), 401, invalid},
		{"ES256, not allowed", sign(t, jwt.SigningMethodES256, ecA(), "", claims(nil)), 401, invalid},
		{"confusion: HS256 signed with the RSA public key's PEM", sign(t, jwt.SigningMethodHS256, pubPEM, "rsa", claims(nil)), 401, invalid},
		{"confusion: HS256 signed with the RSA public key's DER", sign(t, jwt.SigningMethodHS256, pubDER, "rsa", claims(nil)), 401, invalid},
		{"confusion: HS256 signed with the RSA modulus", sign(t, jwt.SigningMethodHS256, rsaA().N.Bytes(), "", claims(nil)), 401, invalid},
		{"confusion: RS256 header on an HMAC signature", strings.Join(append(strings.Split(sign(t, jwt.SigningMethodRS256, rsaA(), "", claims(nil)), ".")[:2], strings.Split(valid, ".")[2]), "."), 401, invalid},
		{"crit in the header", sign(t, jwt.SigningMethodHS256, secret, "", claims(nil)), 401, invalid},
		{"a kid that is no string", "", 401, invalid},
		{"two parts", strings.Join(strings.Split(valid, ".")[:2], "."), 401, invalid},
		{"four parts", valid + ".abc", 401, invalid},
		{"padded base64", strings.Replace(valid, ".", "==.", 1), 401, invalid},
		{"not base64", "!!!.???.***", 401, invalid},
		{"a header that is no JSON", forge(`{"alg":"HS256"`, `{}`, nil), 401, invalid},
		{"claims that are no object", "", 401, invalid},
		{"a space in the token", valid[:10] + " " + valid[10:], 401, invalid},
		{"over 16 KiB", hs(func(c jwt.MapClaims) { c["pad"] = strings.Repeat("x", 16<<10) }), 401, invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := tc.token
			switch tc.name {
			case "crit in the header":
				j := jwt.NewWithClaims(jwt.SigningMethodHS256, claims(nil))
				j.Header["crit"] = []string{"exp"}
				tok = must(j.SignedString(secret))
			case "a kid that is no string":
				j := jwt.NewWithClaims(jwt.SigningMethodRS256, claims(nil))
				j.Header["kid"] = 7
				tok = must(j.SignedString(rsaA()))
			case "claims that are no object":
				tok = forge(`{"alg":"HS256","typ":"JWT"}`, `["ana"]`, nil)
			}
			a := send(t, mw, bearer(tok))
			if a.code != tc.code || a.challenge != tc.challenge {
				t.Fatalf("got %d %q, want %d %q (%s)", a.code, a.challenge, tc.code, tc.challenge, a.body)
			}
			want := "sub=ana"
			switch tc.challenge {
			case invalid:
				want = "the access token is invalid"
			case expired:
				want = "the access token expired"
			}
			if a.body != want {
				t.Errorf("got the body %q, want %q", a.body, want)
			}
		})
	}
}

// TestAlgorithmConfusion holds that a key verifies only its algorithm's
// family, whatever Algorithms allows: an RSA public key is never an HMAC
// secret, an HMAC secret never checks an RSA or EC signature, and an EC
// key checks only its curve's algorithm.
func TestAlgorithmConfusion(t *testing.T) {
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&rsaA().PublicKey))})
	rsaOnly := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{
		Keys:       []jwtauth.Key{{Algorithm: "RS256", Public: &rsaA().PublicKey}},
		Algorithms: []string{"RS256", "HS256", "ES256"}, // more than the key has
	})
	for _, tc := range []struct{ name, token string }{
		{"HS256 signed with the public key's PEM", sign(t, jwt.SigningMethodHS256, pubPEM, "", claims(nil))},
		{"HS256 signed with the public key's modulus", sign(t, jwt.SigningMethodHS256, rsaA().N.Bytes(), "", claims(nil))},
		{"ES256", sign(t, jwt.SigningMethodES256, ecA(), "", claims(nil))},
	} {
		t.Run("RSA key: "+tc.name, func(t *testing.T) {
			if a := send(t, rsaOnly, bearer(tc.token)); a.code != 401 {
				t.Errorf("got %d, want 401", a.code)
			}
		})
	}
	hmacOnly := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{
		Keys: []jwtauth.Key{{Algorithm: "HS256", Secret: secret}}, Algorithms: []string{"HS256", "RS256"},
	})
	if a := send(t, hmacOnly, bearer(sign(t, jwt.SigningMethodRS256, rsaA(), "", claims(nil)))); a.code != 401 {
		t.Errorf("HMAC key, RS256 token: got %d, want 401", a.code)
	}
	ec := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{
		Keys: []jwtauth.Key{{Algorithm: "ES256", Public: &ecA().PublicKey}}, Algorithms: []string{"ES256", "ES384"},
	})
	if a := send(t, ec, bearer(sign(t, jwt.SigningMethodES384, ec384(), "", claims(nil)))); a.code != 401 {
		t.Errorf("P-256 key, ES384 token: got %d, want 401", a.code)
	}
	if a := send(t, ec, bearer(sign(t, jwt.SigningMethodES256, ecA(), "", claims(nil)))); a.code != 200 {
		t.Errorf("P-256 key, ES256 token: got %d, want 200", a.code)
	}
	ed := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "EdDSA", Public: edA().Public()}}})
	if a := send(t, ed, bearer(sign(t, jwt.SigningMethodEdDSA, edA(), "", claims(nil)))); a.code != 200 {
		t.Errorf("Ed25519 key, EdDSA token: got %d, want 200", a.code)
	}
}

// TestIssuerAudience holds that iss and aud are checked when set, and
// required then.
func TestIssuerAudience(t *testing.T) {
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{
		Keys:   []jwtauth.Key{{Algorithm: "HS256", Secret: secret}},
		Issuer: "https://id.example.com/", Audience: []string{"api", "api-v2"},
	})
	for _, tc := range []struct {
		name string
		edit func(jwt.MapClaims)
		code int
	}{
		{"both", func(c jwt.MapClaims) { c["iss"], c["aud"] = "https://id.example.com/", "api" }, 200},
		{"one audience of several", func(c jwt.MapClaims) { c["iss"], c["aud"] = "https://id.example.com/", []string{"other", "api-v2"} }, 200},
		{"another issuer", func(c jwt.MapClaims) { c["iss"], c["aud"] = "https://evil.example.com/", "api" }, 401},
		{"the issuer without its slash", func(c jwt.MapClaims) { c["iss"], c["aud"] = "https://id.example.com", "api" }, 401},
		{"no issuer", func(c jwt.MapClaims) { c["aud"] = "api" }, 401},
		{"another audience", func(c jwt.MapClaims) { c["iss"], c["aud"] = "https://id.example.com/", "billing" }, 401},
		{"no audience", func(c jwt.MapClaims) { c["iss"] = "https://id.example.com/" }, 401},
		{"an empty audience", func(c jwt.MapClaims) { c["iss"], c["aud"] = "https://id.example.com/", []string{} }, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, mw, bearer(sign(t, jwt.SigningMethodHS256, secret, "", claims(tc.edit))))
			if a.code != tc.code {
				t.Errorf("got %d, want %d (%s)", a.code, tc.code, a.body)
			}
		})
	}
}

// TestFields holds how the field is read: the scheme in any case, a field
// of another scheme or none a 401 without an error code (RFC 6750
// section 3.1), the field twice a 400; a custom scheme and field.
func TestFields(t *testing.T) {
	tok := sign(t, jwt.SigningMethodHS256, secret, "", claims(nil))
	keys := []jwtauth.Key{{Algorithm: "HS256", Secret: secret}}
	bearerMW := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{Keys: keys})
	tokenMW := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{Keys: keys, Scheme: "Token", Realm: `conduit "api"`})
	headerMW := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{Keys: keys, Header: "x-access-token"})
	tokenInvalid := `Token realm="conduit \"api\"", error="invalid_token", error_description="the access token is invalid"`
	for _, tc := range []struct {
		name      string
		mw        waltz.Middleware
		h         http.Header
		code      int
		challenge string
	}{
		{"Bearer", bearerMW, http.Header{"Authorization": {"Bearer " + tok}}, 200, ""},
		{"bearer in lower case, spaces around", bearerMW, http.Header{"Authorization": {" bearer   " + tok + " "}}, 200, ""},
		{"no field", bearerMW, http.Header{}, 401, missing},
		{"an empty field", bearerMW, http.Header{"Authorization": {""}}, 401, missing},
		{"another scheme", bearerMW, http.Header{"Authorization": {"Basic YWxhZGRpbjpvcGVuc2VzYW1l"}}, 401, missing},
		{"the token alone", bearerMW, http.Header{"Authorization": {tok}}, 401, missing},
		{"the scheme alone", bearerMW, http.Header{"Authorization": {"Bearer"}}, 401, invalid},
		{"the scheme and spaces", bearerMW, http.Header{"Authorization": {"Bearer   "}}, 401, invalid},
		{"a tab after the scheme", bearerMW, http.Header{"Authorization": {"Bearer\t" + tok}}, 401, missing},
		{"the field twice", bearerMW, http.Header{"Authorization": {"Bearer " + tok, "Bearer " + tok}}, 400,
			`Bearer realm="Restricted", error="invalid_request", error_description="the Authorization field is sent more than once"`},
		{"Token", tokenMW, http.Header{"Authorization": {"Token " + tok}}, 200, ""},
		{"Token: Bearer", tokenMW, http.Header{"Authorization": {"Bearer " + tok}}, 401, `Token realm="conduit \"api\""`},
		{"Token: another key", tokenMW, http.Header{"Authorization": {"Token " + sign(t, jwt.SigningMethodHS256, secret2, "", claims(nil))}}, 401, tokenInvalid},
		{"X-Access-Token", headerMW, http.Header{"X-Access-Token": {tok}}, 200, ""},
		{"X-Access-Token: a Bearer field", headerMW, http.Header{"X-Access-Token": {"Bearer " + tok}}, 401, invalid},
		{"X-Access-Token: Authorization instead", headerMW, http.Header{"Authorization": {"Bearer " + tok}}, 401, missing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, tc.mw, tc.h)
			if a.code != tc.code || a.challenge != tc.challenge {
				t.Errorf("got %d %q, want %d %q (%s)", a.code, a.challenge, tc.code, tc.challenge, a.body)
			}
		})
	}
	if a := send(t, bearerMW, http.Header{}); a.body != `this needs an access token: "Authorization: Bearer <JWT>"` {
		t.Errorf("got the body %q without a token", a.body)
	}
	if a := send(t, headerMW, http.Header{}); a.body != `this needs an access token: "X-Access-Token: <JWT>"` {
		t.Errorf("got the body %q without a token", a.body)
	}
}

// TestOptional holds the optional mode: a request without a token goes
// through without claims; one that sends the field is judged.
func TestOptional(t *testing.T) {
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "HS256", Secret: secret}}, Optional: true})
	for _, tc := range []struct {
		name      string
		h         http.Header
		code      int
		body      string
		challenge string
	}{
		{"no field", http.Header{}, 200, "anonymous", ""},
		{"an empty field", http.Header{"Authorization": {" "}}, 200, "anonymous", ""},
		{"a valid token", bearer(sign(t, jwt.SigningMethodHS256, secret, "", claims(nil))), 200, "sub=ana", ""},
		{"an expired token", bearer(sign(t, jwt.SigningMethodHS256, secret, "", claims(func(c jwt.MapClaims) { c["exp"] = 1 }))), 401, "the access token expired", expired},
		{"another scheme", http.Header{"Authorization": {"Basic YWxhZGRpbjpvcGVuc2VzYW1l"}}, 401, `this needs an access token: "Authorization: Bearer <JWT>"`, missing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := send(t, mw, tc.h)
			if a.code != tc.code || a.body != tc.body || a.challenge != tc.challenge {
				t.Errorf("got %d %q %q, want %d %q %q", a.code, a.body, a.challenge, tc.code, tc.body, tc.challenge)
			}
		})
	}
}

// userClaims are claims of the tests' own type, with a check of their own.
type userClaims struct {
	jwt.RegisteredClaims
	Role string `json:"role"`
}

func (c *userClaims) Validate() error {
	if c.Role != "admin" && c.Role != "reader" {
		return jwt.ErrTokenInvalidClaims
	}
	return nil
}

// TestClaimsType holds that the claims decode into the type New is
// given, that its Validate runs, and that Claims of another type is nil.
func TestClaimsType(t *testing.T) {
	mw := jwtauth.New[userClaims](jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "HS256", Secret: secret}}})
	r := waltz.New()
	r.With(mw).Get("/", func(c *waltz.Context) error {
		if jwtauth.Claims[jwt.RegisteredClaims](c.Request.Context()) != nil {
			t.Error("Claims of another type is not nil")
		}
		cl := jwtauth.Claims[userClaims](c.Request.Context())
		return c.Text(http.StatusOK, cl.Subject+" "+cl.Role)
	})
	for _, tc := range []struct {
		role string
		code int
		body string
	}{
		{"admin", 200, "ana admin"},
		{"root", 401, "the access token is invalid"},
	} {
		w := serveRouter(r, bearer(sign(t, jwt.SigningMethodHS256, secret, "", claims(func(c jwt.MapClaims) { c["role"] = tc.role }))))
		if w.code != tc.code || w.body != tc.body {
			t.Errorf("role %q: got %d %q, want %d %q", tc.role, w.code, w.body, tc.code, tc.body)
		}
	}
	maps := jwtauth.New[jwt.MapClaims](jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "HS256", Secret: secret}}})
	r = waltz.New()
	r.With(maps).Get("/", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, (*jwtauth.Claims[jwt.MapClaims](c.Request.Context()))["sub"].(string))
	})
	if w := serveRouter(r, bearer(sign(t, jwt.SigningMethodHS256, secret, "", claims(nil)))); w.body != "ana" {
		t.Errorf("MapClaims: got %d %q", w.code, w.body)
	}
}
