package jwtauth_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/jwtauth"
)

// The tests' keys, made once (an RSA key takes a while).
var (
	rsaA    = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
	rsaB    = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })
	ecA     = sync.OnceValue(func() *ecdsa.PrivateKey { return must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)) })
	ec384   = sync.OnceValue(func() *ecdsa.PrivateKey { return must(ecdsa.GenerateKey(elliptic.P384(), rand.Reader)) })
	edA     = sync.OnceValue(func() ed25519.PrivateKey { _, k := must2(ed25519.GenerateKey(rand.Reader)); return k })
	secret  = []byte("the tests' HMAC secret, 32 bytes or more")
	secret2 = []byte("another HMAC secret, 32 bytes or more, not the server's")
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

// claims returns a token's claims valid for an hour from now, edited by
// edit.
func claims(edit func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"sub": "ana", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if edit != nil {
		edit(c)
	}
	return c
}

// sign returns a token with claims c, its header's kid (if not ""),
// signed by method with key.
func sign(t testing.TB, method jwt.SigningMethod, key any, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// forge returns a token with the header and claims given as JSON, and the
// signature sig, none of them checked.
func forge(header, claims string, sig []byte) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(claims)) + "." + enc.EncodeToString(sig)
}

// answer is a response, as send returns it.
type answer struct {
	code      int
	body      string
	challenge string
}

// send serves one GET / with the header h through mw, whose handler
// answers the subject of the claims, or "anonymous" without.
func send(t testing.TB, mw waltz.Middleware, h http.Header) answer {
	t.Helper()
	r := waltz.New()
	r.With(mw).Get("/", subject)
	return serveRouter(r, h)
}

// serveRouter serves one GET / with the header h by r.
func serveRouter(r *waltz.Router, h http.Header) answer {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header = h
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return answer{w.Code, strings.TrimSpace(w.Body.String()), w.Header().Get("WWW-Authenticate")}
}

// subject answers the subject of the request's claims.
func subject(c *waltz.Context) error {
	cl := jwtauth.Claims[jwt.RegisteredClaims](c.Request.Context())
	if cl == nil {
		return c.Text(http.StatusOK, "anonymous")
	}
	return c.Text(http.StatusOK, "sub="+cl.Subject)
}

// bearer returns a header with "Authorization: Bearer tok".
func bearer(tok string) http.Header {
	return http.Header{"Authorization": {"Bearer " + tok}}
}

// jwksServer serves a JWK Set that a test changes, and counts its
// fetches.
type jwksServer struct {
	*httptest.Server
	fetches atomic.Int32

	mu     sync.Mutex
	body   string
	status int
	cache  string // the Cache-Control field, if not ""
}

func newJWKSServer(t testing.TB, keys ...jwkOf) *jwksServer {
	s := &jwksServer{status: http.StatusOK}
	s.set(keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		body, status, cache := s.body, s.status, s.cache
		s.mu.Unlock()
		if cache != "" {
			w.Header().Set("Cache-Control", cache)
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

// set makes the set's keys keys.
func (s *jwksServer) set(keys ...jwkOf) {
	var doc struct {
		Keys []map[string]string `json:"keys"`
	}
	doc.Keys = []map[string]string{}
	for _, k := range keys {
		doc.Keys = append(doc.Keys, k.jwk())
	}
	b, _ := json.Marshal(doc)
	s.setBody(http.StatusOK, string(b))
}

func (s *jwksServer) setBody(status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.body = status, body
}

func (s *jwksServer) setCache(cc string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cache = cc
}

// jwkOf is a public key as a member of a JWK Set, with its kid and alg.
type jwkOf struct {
	kid, alg string
	pub      any
	extra    map[string]string // members added or replaced
}

func (k jwkOf) jwk() map[string]string {
	enc := base64.RawURLEncoding.EncodeToString
	m := map[string]string{"kid": k.kid}
	if k.alg != "" {
		m["alg"] = k.alg
	}
	switch p := k.pub.(type) {
	case *rsa.PublicKey:
		m["kty"], m["n"], m["e"] = "RSA", enc(p.N.Bytes()), enc(big.NewInt(int64(p.E)).Bytes())
	case *ecdsa.PublicKey:
		b := must(p.Bytes())
		size := (len(b) - 1) / 2
		m["kty"], m["crv"], m["x"], m["y"] = "EC", p.Curve.Params().Name, enc(b[1:1+size]), enc(b[1+size:])
	case ed25519.PublicKey:
		m["kty"], m["crv"], m["x"] = "OKP", "Ed25519", enc(p)
	case []byte:
		m["kty"], m["k"] = "oct", enc(p)
	}
	for name, v := range k.extra {
		m[name] = v
	}
	return m
}

// eventually calls f every 20 ms until it returns true, and fails t if it
// has not within 10 s.
func eventually(t testing.TB, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !f(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s", what)
		}
	}
}

// panicMessage returns the message f panics with, or "" if it returns.
func panicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	f()
	return ""
}
