package jwtauth_test

import (
	"crypto/rand"
	"crypto/rsa"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz/jwtauth"
)

// TestBadOptions holds that a configuration that would accept what it
// should not, or verify nothing, panics at construction, naming the
// field.
func TestBadOptions(t *testing.T) {
	small := must(rsa.GenerateKey(rand.Reader, 1024))
	hs := []jwtauth.Key{{Algorithm: "HS256", Secret: secret}}
	for _, tc := range []struct {
		name string
		o    jwtauth.Options
		want string
	}{
		{"zero", jwtauth.Options{}, "waltz: jwtauth.Options needs Keys, JWKS.URL or both: the keys that verify tokens"},
		{"none", jwtauth.Options{Keys: hs, Algorithms: []string{"HS256", "none"}},
			`waltz: jwtauth.Options.Algorithms[1] "none" is not one of HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA`},
		{"a key's alg none", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "none", Secret: secret}}},
			`waltz: jwtauth.Options.Keys[0].Algorithm "none" is not one of HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA`},
		{"a key without alg", jwtauth.Options{Keys: []jwtauth.Key{{Secret: secret}}},
			`waltz: jwtauth.Options.Keys[0].Algorithm "" is not one of HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA`},
		{"a key's alg not allowed", jwtauth.Options{Keys: hs, Algorithms: []string{"RS256"}},
			`waltz: jwtauth.Options.Keys[0].Algorithm "HS256" is not in Options.Algorithms: the key would verify nothing`},
		{"a short secret", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "HS256", Secret: []byte("short")}}},
			"waltz: jwtauth.Options.Keys[0].Secret has 5 bytes: HS256 needs at least 32 (RFC 7518 section 3.2)"},
		{"a secret too short for HS512", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "HS512", Secret: secret}}},
			"waltz: jwtauth.Options.Keys[0].Secret has 40 bytes: HS512 needs at least 64 (RFC 7518 section 3.2)"},
		{"both", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "RS256", Secret: secret, Public: &rsaA().PublicKey}}},
			"waltz: jwtauth.Options.Keys[0] needs either Secret or Public, not both or neither"},
		{"a public key for HMAC", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "HS256", Public: &rsaA().PublicKey}}},
			`waltz: jwtauth.Options.Keys[0].Algorithm "HS256" takes a Secret, not a public key: an HMAC never verifies with a public key`},
		{"a secret for RSA", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "RS256", Secret: secret}}},
			`waltz: jwtauth.Options.Keys[0].Algorithm "RS256" takes a Public key, not a Secret: a public key is never an HMAC secret`},
		{"a private key", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "RS256", Public: rsaA()}}},
			"waltz: jwtauth.Options.Keys[0].Public is a key of no type waltz verifies with, not a *rsa.PublicKey for RS256"},
		{"an EC key for RSA", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "RS256", Public: &ecA().PublicKey}}},
			"waltz: jwtauth.Options.Keys[0].Public is a *ecdsa.PublicKey on P-256, not a *rsa.PublicKey for RS256"},
		{"a P-256 key for ES384", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "ES384", Public: &ecA().PublicKey}}},
			"waltz: jwtauth.Options.Keys[0].Public is a *ecdsa.PublicKey on P-256, not a *ecdsa.PublicKey on P-384 for ES384"},
		{"RSA of 1024 bits", jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "RS256", Public: &small.PublicKey}}},
			"waltz: jwtauth.Options.Keys[0].Public is an RSA key of fewer than 2048 bits or more than 8192 for RS256"},
		{"HMAC only with a JWKS", jwtauth.Options{Keys: hs, Algorithms: []string{"HS256"}, JWKS: jwtauth.JWKS{URL: "https://id.example.com/jwks"}},
			"waltz: jwtauth.Options.Algorithms has no public-key algorithm: the keys of JWKS.URL would verify nothing"},
		{"a JWKS over http", jwtauth.Options{JWKS: jwtauth.JWKS{URL: "http://id.example.com/jwks"}},
			`waltz: jwtauth.Options.JWKS.URL "http://id.example.com/jwks" is not an https URL (or http to a loopback address): keys fetched in the clear could be anyone's`},
		{"a JWKS URL with no host", jwtauth.Options{JWKS: jwtauth.JWKS{URL: "/jwks"}},
			`waltz: jwtauth.Options.JWKS.URL "/jwks" is not an https URL (or http to a loopback address): keys fetched in the clear could be anyone's`},
		{"a negative MaxStale", jwtauth.Options{JWKS: jwtauth.JWKS{URL: "https://id.example.com/jwks", MaxStale: -time.Second}},
			"waltz: jwtauth.Options.JWKS.MaxStale is negative (-1s)"},
		{"MinInterval over MaxInterval", jwtauth.Options{JWKS: jwtauth.JWKS{URL: "https://id.example.com/jwks", MinInterval: 2 * time.Hour}},
			"waltz: jwtauth.Options.JWKS.MinInterval (2h0m0s) is longer than MaxInterval (1h0m0s)"},
		{"a leeway of an hour", jwtauth.Options{Keys: hs, Leeway: time.Hour},
			"waltz: jwtauth.Options.Leeway 1h0m0s is not between 0 and 5 minutes"},
		{"an empty audience", jwtauth.Options{Keys: hs, Audience: []string{"api", ""}},
			"waltz: jwtauth.Options.Audience holds an empty string"},
		{"a scheme with a space", jwtauth.Options{Keys: hs, Scheme: "Bear er"},
			`waltz: jwtauth.Options.Scheme "Bear er" is not a token (RFC 9110 section 11.1)`},
		{"a scheme with a field", jwtauth.Options{Keys: hs, Scheme: "Token", Header: "X-Token"},
			`waltz: jwtauth.Options.Scheme "Token" is set with Header "X-Token", which carries the token alone`},
		{"a field with a colon", jwtauth.Options{Keys: hs, Header: "X-Token:"},
			`waltz: jwtauth.Options.Header "X-Token:" is not a header field name`},
		{"a realm with a newline", jwtauth.Options{Keys: hs, Realm: "a\nb"},
			`waltz: jwtauth.Options.Realm "a\nb" is not printable ASCII`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := panicMessage(func() { jwtauth.New[jwt.RegisteredClaims](tc.o) }); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
