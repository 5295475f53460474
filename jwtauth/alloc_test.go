package jwtauth_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/jwtauth"
)

// discard is a ResponseWriter that keeps nothing but its header map,
// emptied between runs; a WriteString of its own spares a body's copy.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header               { return d.h }
func (d *discard) Write(b []byte) (int, error)       { return len(b), nil }
func (d *discard) WriteString(s string) (int, error) { return len(s), nil }
func (d *discard) WriteHeader(int)                   {}

// allocs returns the allocations of one request with the header h
// through mw, the router's cost (none) included.
func allocs(t *testing.T, mw waltz.Middleware, h http.Header) float64 {
	t.Helper()
	r := waltz.New()
	r.With(mw).Get("/", func(c *waltz.Context) error {
		if jwtauth.Claims[jwt.RegisteredClaims](c.Request.Context()) == nil {
			t.Error("no claims")
		}
		return c.NoContent(http.StatusNoContent)
	})
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header = h
	w := &discard{h: http.Header{}}
	return testing.AllocsPerRun(200, func() {
		clear(w.h)
		r.ServeHTTP(w, req)
	})
}

// parseAllocs returns what golang-jwt allocates to parse and check tok
// into a new RegisteredClaims, as New's middleware asks it to.
func parseAllocs(tok string, key any, alg string) float64 {
	p := jwt.NewParser(jwt.WithValidMethods([]string{alg}), jwt.WithStrictDecoding(),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(30*time.Second))
	kf := func(*jwt.Token) (any, error) { return key, nil }
	return testing.AllocsPerRun(200, func() {
		if _, err := p.ParseWithClaims(tok, new(jwt.RegisteredClaims), kf); err != nil {
			panic(err)
		}
	})
}

// TestAllocs holds the cost New's doc states: an admitted request costs
// golang-jwt's parse and checks (the claims included) and one allocation
// more, the request's copy, whose context holds the claims.
func TestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	hsTok := sign(t, jwt.SigningMethodHS256, secret, "", claims(nil))
	rsTok := sign(t, jwt.SigningMethodRS256, rsaA(), "rsa", claims(nil))
	mw := jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{Keys: []jwtauth.Key{
		{Algorithm: "HS256", Secret: secret},
		{ID: "rsa", Algorithm: "RS256", Public: &rsaA().PublicKey},
	}})
	for _, tc := range []struct {
		name, tok string
		key       any
		alg       string
	}{
		{"HS256", hsTok, secret, "HS256"},
		{"RS256", rsTok, &rsaA().PublicKey, "RS256"},
	} {
		got := allocs(t, mw, bearer(tc.tok))
		jwtCost := parseAllocs(tc.tok, tc.key, tc.alg)
		t.Logf("%s: %v allocations a request, golang-jwt's %v", tc.name, got, jwtCost)
		if got != jwtCost+1 {
			t.Errorf("%s: got %v allocations, want golang-jwt's %v and 1", tc.name, got, jwtCost)
		}
	}
	for _, h := range []http.Header{{}, {"Authorization": {"Basic YWxhZGRpbjpvcGVuc2VzYW1l"}}} {
		if got := allocs(t, mw, h); got != 1 {
			t.Errorf("no token, %v: got %v allocations, want 1 (the challenge)", h, got)
		}
	}
}
