package jwtauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/jwtauth"
)

// session is the claims of the example's tokens: the registered ones and
// a role.
type session struct {
	jwt.RegisteredClaims
	Role string `json:"role"`
}

// A program that signs its own tokens holds the secret that checks them.
func ExampleNew() {
	key := []byte("a secret of 32 bytes or more, from configuration")
	r := waltz.New()
	g := r.Group("/api", jwtauth.New[session](jwtauth.Options{
		Keys: []jwtauth.Key{{Algorithm: "HS256", Secret: key}},
	}))
	g.Get("/me", func(c *waltz.Context) error {
		s := jwtauth.Claims[session](c.Request.Context())
		return c.Text(http.StatusOK, s.Subject+" is "+s.Role)
	})

	issue := func(ttl time.Duration) string {
		now := time.Now()
		tok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, session{Role: "editor", RegisteredClaims: jwt.RegisteredClaims{
			Subject: "ana", IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
		}}).SignedString(key)
		return tok
	}
	for _, field := range []string{"Bearer " + issue(time.Hour), "", "Bearer " + issue(-time.Hour)} {
		req := httptest.NewRequest(http.MethodGet, "/api/me", nil)
		if field != "" {
			req.Header.Set("Authorization", field)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
		if ch := w.Header().Get("WWW-Authenticate"); ch != "" {
			fmt.Println(" ", ch)
		}
	}
	// Output:
	// 200 ana is editor
	// 401 this needs an access token: "Authorization: Bearer <JWT>"
	//   Bearer realm="Restricted"
	// 401 the access token expired
	//   Bearer realm="Restricted", error="invalid_token", error_description="the access token expired"
}

// A service that takes the tokens of an identity provider fetches its
// public keys from the provider's JWK Set, here served by a stand-in.
func ExampleNew_jwks() {
	signer, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	idp := httptest.NewServer(jwkSet("2026-01", signer))
	defer idp.Close()
	jwksURL := idp.URL + "/.well-known/jwks.json" // the provider's jwks_uri

	r := waltz.New()
	r.Use(jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{
		JWKS:       jwtauth.JWKS{URL: jwksURL},
		Algorithms: []string{"ES256"},
		Issuer:     "https://id.example.com/",
		Audience:   []string{"https://api.example.com"},
	}))
	r.Get("/me", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "hello "+jwtauth.Claims[jwt.RegisteredClaims](c.Request.Context()).Subject)
	})

	for _, aud := range []string{"https://api.example.com", "https://billing.example.com"} {
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.RegisteredClaims{
			Issuer: "https://id.example.com/", Subject: "ana", Audience: jwt.ClaimStrings{aud},
			ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour)),
		})
		tok.Header["kid"] = "2026-01"
		signed, _ := tok.SignedString(signer)
		req := httptest.NewRequest(http.MethodGet, "/me", nil)
		req.Header.Set("Authorization", "Bearer "+signed)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// 200 hello ana
	// 401 the access token is invalid
}

// jwkSet serves a JWK Set with key's public key as kid, as a provider
// would.
func jwkSet(kid string, key *ecdsa.PrivateKey) http.Handler {
	point, _ := key.PublicKey.Bytes() // 0x04, x, y
	b64 := base64.RawURLEncoding.EncodeToString
	set, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
		"x": b64(point[1:33]), "y": b64(point[33:]),
	}}})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Write(set)
	})
}
