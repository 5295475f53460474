package jwtauth_test

import (
	"bytes"
	"crypto/rand"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/jwtauth"
)

// logs holds what the package logs to slog.Default during the tests.
var logs struct {
	sync.Mutex
	bytes.Buffer
}

type lockedWriter struct{}

func (lockedWriter) Write(p []byte) (int, error) {
	logs.Lock()
	defer logs.Unlock()
	return logs.Write(p)
}

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(lockedWriter{}, nil)))
	os.Exit(m.Run())
}

// logged reports whether a line logged holds s.
func logged(s string) bool {
	logs.Lock()
	defer logs.Unlock()
	return strings.Contains(logs.String(), s)
}

// TestJWKS holds which keys of a real JWK Set verify: RSA, EC and
// Ed25519 keys each with their algorithm, a key without "alg" with each
// allowed algorithm of its type; never a secret ("oct"), a key for
// encryption, a key whose alg is of another type, or a key with an alg
// for another algorithm. The set is fetched once.
func TestJWKS(t *testing.T) {
	srv := newJWKSServer(t,
		jwkOf{kid: "rsa", alg: "RS256", pub: &rsaA().PublicKey},
		jwkOf{kid: "rsa-any", pub: &rsaB().PublicKey},
		jwkOf{kid: "ec", alg: "ES256", pub: &ecA().PublicKey},
		jwkOf{kid: "ed", alg: "EdDSA", pub: edA().Public()},
		jwkOf{kid: "oct", alg: "HS256", pub: secret},
		jwkOf{kid: "enc", pub: &rsaA().PublicKey, extra: map[string]string{"use": "enc"}},
		jwkOf{kid: "ec-as-rsa", alg: "RS256", pub: &ec384().PublicKey},
	)
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{
		JWKS:       jwtauth.JWKS{URL: srv.URL},
		Algorithms: []string{"RS256", "PS256", "ES256", "ES384", "EdDSA", "HS256"},
	})
	for _, tc := range []struct {
		name, token string
		code        int
	}{
		{"RS256", sign(t, jwt.SigningMethodRS256, rsaA(), "rsa", claims(nil)), 200},
		{"ES256", sign(t, jwt.SigningMethodES256, ecA(), "ec", claims(nil)), 200},
		{"EdDSA", sign(t, jwt.SigningMethodEdDSA, edA(), "ed", claims(nil)), 200},
		{"RS256 by a key without alg", sign(t, jwt.SigningMethodRS256, rsaB(), "rsa-any", claims(nil)), 200},
		{"PS256 by a key without alg", sign(t, jwt.SigningMethodPS256, rsaB(), "rsa-any", claims(nil)), 200},
		{"RS256 without a kid", sign(t, jwt.SigningMethodRS256, rsaB(), "", claims(nil)), 200},
		{"PS256 by a key whose alg is RS256", sign(t, jwt.SigningMethodPS256, rsaA(), "rsa", claims(nil)), 401},
		{"RS256 by the key of another kid", sign(t, jwt.SigningMethodRS256, rsaA(), "rsa-any", claims(nil)), 401},
		{"HS256 by a secret of the set", sign(t, jwt.SigningMethodHS256, secret, "oct", claims(nil)), 401},
		{"RS256 by a key for encryption", sign(t, jwt.SigningMethodRS256, rsaA(), "enc", claims(nil)), 401},
		{"ES384 by an EC key whose alg is RS256", sign(t, jwt.SigningMethodES384, ec384(), "ec-as-rsa", claims(nil)), 401},
		{"HS256 signed with the RSA key's modulus", sign(t, jwt.SigningMethodHS256, rsaA().N.Bytes(), "rsa", claims(nil)), 401},
		{"expired", sign(t, jwt.SigningMethodRS256, rsaA(), "rsa", claims(func(c jwt.MapClaims) { c["exp"] = 1 })), 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if a := send(t, mw, bearer(tc.token)); a.code != tc.code {
				t.Errorf("got %d, want %d (%s)", a.code, tc.code, a.body)
			}
		})
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Errorf("the set was fetched %d times, want 1", n)
	}
	for _, kid := range []string{"oct", "enc", "ec-as-rsa"} {
		if !logged(`kid \"` + kid + `\"`) {
			t.Errorf("the key %q left out was not logged", kid)
		}
	}
}

// TestJWKSUnknownKid holds that a token whose kid no key held has makes
// the set be fetched again, and waits for it: a key the provider adds is
// found at once.
func TestJWKSUnknownKid(t *testing.T) {
	srv := newJWKSServer(t, jwkOf{kid: "a", alg: "RS256", pub: &rsaA().PublicKey})
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{JWKS: jwtauth.JWKS{URL: srv.URL, MinInterval: 50 * time.Millisecond}})
	if a := send(t, mw, bearer(sign(t, jwt.SigningMethodRS256, rsaA(), "a", claims(nil)))); a.code != 200 {
		t.Fatalf("got %d, want 200", a.code)
	}
	srv.set(jwkOf{kid: "a", alg: "RS256", pub: &rsaA().PublicKey}, jwkOf{kid: "b", alg: "RS256", pub: &rsaB().PublicKey})
	time.Sleep(60 * time.Millisecond)
	if a := send(t, mw, bearer(sign(t, jwt.SigningMethodRS256, rsaB(), "b", claims(nil)))); a.code != 200 {
		t.Fatalf("a new kid: got %d, want 200", a.code)
	}
	if n := srv.fetches.Load(); n != 2 {
		t.Errorf("the set was fetched %d times, want 2", n)
	}
}

// TestJWKSRateLimit holds that fetches begin at most once a MinInterval,
// however many tokens with unknown kids arrive, and that those arriving
// while one is under way wait for it.
func TestJWKSRateLimit(t *testing.T) {
	srv := newJWKSServer(t, jwkOf{kid: "a", alg: "RS256", pub: &rsaA().PublicKey})
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{JWKS: jwtauth.JWKS{URL: srv.URL, MinInterval: 500 * time.Millisecond}})
	began := time.Now()
	if a := send(t, mw, bearer(sign(t, jwt.SigningMethodRS256, rsaA(), "a", claims(nil)))); a.code != 200 {
		t.Fatalf("got %d, want 200", a.code)
	}
	made := func() string { return sign(t, jwt.SigningMethodRS256, rsaA(), rand.Text(), claims(nil)) }
	for range 20 {
		if a := send(t, mw, bearer(made())); a.code != 401 {
			t.Fatalf("an unknown kid: got %d, want 401", a.code)
		}
	}
	if n := srv.fetches.Load(); n != 1 && time.Since(began) < 500*time.Millisecond {
		t.Fatalf("20 unknown kids within MinInterval: the set was fetched %d times, want 1", n)
	}
	time.Sleep(time.Until(began.Add(600 * time.Millisecond)))
	srv.set(jwkOf{kid: "a", alg: "RS256", pub: &rsaA().PublicKey}, jwkOf{kid: "b", alg: "RS256", pub: &rsaB().PublicKey})
	tokB := sign(t, jwt.SigningMethodRS256, rsaB(), "b", claims(nil))
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		tok := made()
		if i%2 == 0 {
			tok = tokB
		}
		wg.Go(func() { codes[i] = send(t, mw, bearer(tok)).code })
	}
	wg.Wait()
	if n := srv.fetches.Load(); n != 2 {
		t.Errorf("20 at once after MinInterval: fetched %d times in all, want 2", n)
	}
	// The first to miss began the fetch; those that missed while it ran
	// waited for it; any that missed after it ended were refused without
	// a fetch. Every kid b that waited passed.
	passed := 0
	for i, c := range codes {
		if i%2 == 1 && c != 401 {
			t.Errorf("a made-up kid: got %d, want 401", c)
		}
		if i%2 == 0 && c == 200 {
			passed++
		}
	}
	if passed == 0 {
		t.Error("no token of kid b passed")
	}
}

// TestJWKSRotation holds a key replaced at the provider: its tokens pass
// while the set held is fresh (the answer's max-age), and fail once the
// set is fetched again; the new key's pass.
func TestJWKSRotation(t *testing.T) {
	srv := newJWKSServer(t, jwkOf{kid: "2025", alg: "RS256", pub: &rsaA().PublicKey})
	srv.setCache("public, max-age=1")
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{JWKS: jwtauth.JWKS{URL: srv.URL, MinInterval: 100 * time.Millisecond}})
	old := sign(t, jwt.SigningMethodRS256, rsaA(), "2025", claims(nil))
	began := time.Now()
	if a := send(t, mw, bearer(old)); a.code != 200 {
		t.Fatalf("got %d, want 200", a.code)
	}
	srv.set(jwkOf{kid: "2026", alg: "RS256", pub: &rsaB().PublicKey})
	if a := send(t, mw, bearer(old)); a.code != 200 && time.Since(began) < time.Second {
		t.Fatalf("the old key within max-age: got %d, want 200", a.code)
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Fatalf("within max-age: fetched %d times, want 1", n)
	}
	eventually(t, "the old key's token refused", func() bool { return send(t, mw, bearer(old)).code == 401 })
	if d := time.Since(began); d < time.Second {
		t.Errorf("the old key was refused after %v, before the max-age of 1 s", d)
	}
	if a := send(t, mw, bearer(sign(t, jwt.SigningMethodRS256, rsaB(), "2026", claims(nil)))); a.code != 200 {
		t.Errorf("the new key: got %d, want 200", a.code)
	}
	if a := send(t, mw, bearer(old)); a.code != 401 || a.challenge != invalid {
		t.Errorf("the old key: got %d %q, want 401 %q", a.code, a.challenge, invalid)
	}
}

// TestJWKSOutage holds that while the provider is down the keys held are
// used for MaxStale after they ran out, then tokens are answered 503,
// and that the keys come back with the provider.
func TestJWKSOutage(t *testing.T) {
	srv := newJWKSServer(t, jwkOf{kid: "a", alg: "RS256", pub: &rsaA().PublicKey})
	srv.setCache("max-age=1")
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{JWKS: jwtauth.JWKS{URL: srv.URL,
		MinInterval: 100 * time.Millisecond, MaxStale: 2 * time.Second}})
	tok := sign(t, jwt.SigningMethodRS256, rsaA(), "a", claims(nil))
	began := time.Now()
	if a := send(t, mw, bearer(tok)); a.code != 200 {
		t.Fatalf("got %d, want 200", a.code)
	}
	srv.setBody(http.StatusServiceUnavailable, "down")
	time.Sleep(1300 * time.Millisecond)
	if a := send(t, mw, bearer(tok)); a.code != 200 && time.Since(began) < 3*time.Second {
		t.Fatalf("stale keys: got %d, want 200", a.code)
	}
	eventually(t, "a 503 once the keys are past MaxStale", func() bool { return send(t, mw, bearer(tok)).code == 503 })
	if d := time.Since(began); d < 3*time.Second {
		t.Errorf("the keys were dropped after %v, before max-age and MaxStale (3 s)", d)
	}
	a := send(t, mw, bearer(tok))
	if a.challenge != "" || a.body != "the keys that verify access tokens are unavailable" {
		t.Errorf("the 503: got %q, %q", a.challenge, a.body)
	}
	if !logged("the answer is 503 Service Unavailable") {
		t.Error("the failed fetch was not logged")
	}
	srv.set(jwkOf{kid: "a", alg: "RS256", pub: &rsaA().PublicKey})
	eventually(t, "the keys back with the provider", func() bool { return send(t, mw, bearer(tok)).code == 200 })
}

// TestJWKSUnreachable holds that without a set ever fetched, a token the
// set would verify is answered 503, and one the static keys verify
// passes; an answer that is not a JWK Set is a failed fetch.
func TestJWKSUnreachable(t *testing.T) {
	gone := newJWKSServer(t)
	gone.Close()
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{
		Keys: []jwtauth.Key{{Algorithm: "HS256", Secret: secret}},
		JWKS: jwtauth.JWKS{URL: gone.URL},
	})
	if a := send(t, mw, bearer(sign(t, jwt.SigningMethodRS256, rsaA(), "a", claims(nil)))); a.code != 503 {
		t.Errorf("RS256, no set: got %d, want 503", a.code)
	}
	if a := send(t, mw, bearer(sign(t, jwt.SigningMethodHS256, secret, "", claims(nil)))); a.code != 200 {
		t.Errorf("HS256 by the static key: got %d, want 200", a.code)
	}

	html := newJWKSServer(t)
	html.setBody(http.StatusOK, "<html>sign in</html>")
	mw = jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{JWKS: jwtauth.JWKS{URL: html.URL, MinInterval: 50 * time.Millisecond}})
	tok := sign(t, jwt.SigningMethodRS256, rsaA(), "a", claims(nil))
	if a := send(t, mw, bearer(tok)); a.code != 503 {
		t.Errorf("an HTML page: got %d, want 503", a.code)
	}
	if !logged("not a JWK Set") {
		t.Error("the page that is no JWK Set was not logged")
	}
	html.set(jwkOf{kid: "a", alg: "RS256", pub: &rsaA().PublicKey})
	eventually(t, "the set served at last", func() bool { return send(t, mw, bearer(tok)).code == 200 })
}

// TestJWKSShared holds that middleware with equal JWKS values share the
// keys and their fetches: one required, one optional, on one set.
func TestJWKSShared(t *testing.T) {
	srv := newJWKSServer(t, jwkOf{kid: "a", alg: "RS256", pub: &rsaA().PublicKey})
	cfg := jwtauth.JWKS{URL: srv.URL}
	member := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{JWKS: cfg})
	anyone := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{JWKS: cfg, Optional: true})
	tok := sign(t, jwt.SigningMethodRS256, rsaA(), "a", claims(nil))
	for _, mw := range []waltz.Middleware{member, anyone, member} {
		if a := send(t, mw, bearer(tok)); a.code != 200 {
			t.Fatalf("got %d, want 200", a.code)
		}
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Errorf("fetched %d times, want 1", n)
	}
}
