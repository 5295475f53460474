package middleware

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

func TestBearerAuth(t *testing.T) {
	const (
		missing   = `Bearer realm="Restricted"`
		invalid   = `Bearer realm="Restricted", error="invalid_token"`
		malformed = `Bearer realm="Restricted", error="invalid_request"`
	)
	tokens := []string{"mF_9.B5f-4.1JqM", "c2VjcmV0/dG9rZW4+==", "k1"}
	known := map[string]bool{}
	for _, tok := range tokens {
		known[tok] = true
	}
	for _, mode := range []struct {
		name string
		o    BearerAuthOptions
	}{
		{"Tokens", BearerAuthOptions{Tokens: tokens, Header: "X-API-Key"}},
		{"Validate", BearerAuthOptions{Validate: func(tok string) bool { return known[tok] }, Header: "X-API-Key"}},
	} {
		for _, tc := range []struct {
			name      string
			header    map[string][]string
			code      int
			challenge string
		}{
			{"valid (RFC 6750 section 2.1)", map[string][]string{"Authorization": {"Bearer mF_9.B5f-4.1JqM"}}, 200, ""},
			{"scheme in lower case (RFC 9110 section 11.1)", map[string][]string{"Authorization": {"bearer k1"}}, 200, ""},
			{"padding", map[string][]string{"Authorization": {"Bearer c2VjcmV0/dG9rZW4+=="}}, 200, ""},
			{"key header", map[string][]string{"X-Api-Key": {"k1"}}, 200, ""},
			{"key header and a Basic Authorization", map[string][]string{"X-Api-Key": {"k1"}, "Authorization": {"Basic YTpi"}}, 200, ""},
			{"no token (section 3.1: no error code)", nil, 401, missing},
			{"other scheme", map[string][]string{"Authorization": {"Basic YTpi"}}, 401, missing},
			{"unknown token (section 3.1: invalid_token)", map[string][]string{"Authorization": {"Bearer k2"}}, 401, invalid},
			{"token prefix", map[string][]string{"Authorization": {"Bearer k"}}, 401, invalid},
			{"token longer", map[string][]string{"Authorization": {"Bearer k11"}}, 401, invalid},
			{"unknown key", map[string][]string{"X-Api-Key": {"nope"}}, 401, invalid},
			{"10 KB token", map[string][]string{"Authorization": {"Bearer " + strings.Repeat("A", 10<<10)}}, 401, invalid},
			// Hostile and malformed rows: 400 invalid_request (section 3.1), never a 500.
			{"scheme only", map[string][]string{"Authorization": {"Bearer"}}, 400, malformed},
			{"empty token", map[string][]string{"Authorization": {"Bearer   "}}, 400, malformed},
			{"space inside", map[string][]string{"Authorization": {"Bearer k1 k1"}}, 400, malformed},
			{"padding inside", map[string][]string{"Authorization": {"Bearer k=1"}}, 400, malformed},
			{"only padding", map[string][]string{"Authorization": {"Bearer =="}}, 400, malformed},
			{"NUL", map[string][]string{"Authorization": {"Bearer k1\x00"}}, 400, malformed},
			{"CR LF", map[string][]string{"Authorization": {"Bearer k1\r\nX: y"}}, 400, malformed},
			{"non-ASCII", map[string][]string{"Authorization": {"Bearer k\u00e91"}}, 400, malformed},
			{"two Authorization headers", map[string][]string{"Authorization": {"Bearer k1", "Bearer k1"}}, 400, malformed},
			{"two key headers", map[string][]string{"X-Api-Key": {"k1", "k1"}}, 400, malformed},
			{"both ways at once", map[string][]string{"Authorization": {"Bearer k1"}, "X-Api-Key": {"k1"}}, 400, malformed},
		} {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				req := httptest.NewRequest(http.MethodGet, "/", nil)
				for k, v := range tc.header {
					req.Header[k] = v
				}
				w := serve(t, BearerAuth(mode.o), func(c *waltz.Context) error { return c.Text(http.StatusOK, "in") }, req)
				if got := w.Header().Get("WWW-Authenticate"); w.Code != tc.code || got != tc.challenge {
					t.Errorf("got %d with challenge %q, want %d with %q", w.Code, got, tc.code, tc.challenge)
				}
			})
		}
	}
}

// Without Header, a key header is not read.
func TestBearerAuthNoKeyHeader(t *testing.T) {
	w := serve(t, BearerAuth(BearerAuthOptions{Tokens: []string{"k1"}}), ok, withHeader("X-API-Key", "k1"))
	if w.Code != http.StatusUnauthorized {
		t.Errorf("got %d, want 401", w.Code)
	}
}

func TestBearerAuthAllocs(t *testing.T) {
	long := strings.Repeat("t", 512)
	tokens := BearerAuth(BearerAuthOptions{Tokens: []string{"mF_9.B5f-4.1JqM", long}, Header: "X-API-Key"})
	validate := BearerAuth(BearerAuthOptions{Validate: func(tok string) bool { return tok == "mF_9.B5f-4.1JqM" }})
	for _, tc := range []struct {
		name string
		mw   waltz.Middleware
		req  *http.Request
	}{
		// An admitted request costs nothing; a refused one 1, its
		// challenge's value slice of its own.
		{"Tokens, admitted", tokens, withHeader("Authorization", "Bearer mF_9.B5f-4.1JqM")},
		{"Tokens, 512-byte token admitted", tokens, withHeader("Authorization", "Bearer "+long)},
		{"Tokens, key header", tokens, withHeader("X-API-Key", "mF_9.B5f-4.1JqM")},
		{"Tokens, refused", tokens, withHeader("Authorization", "Bearer nope")},
		{"Tokens, missing", tokens, httptest.NewRequest(http.MethodGet, "/", nil)},
		{"Tokens, malformed", tokens, withHeader("Authorization", "Bearer a b")},
		{"Validate, admitted", validate, withHeader("Authorization", "Bearer mF_9.B5f-4.1JqM")},
		{"Validate, refused", validate, withHeader("Authorization", "Bearer nope")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := 0.0
			if strings.Contains(tc.name, "refused") || strings.Contains(tc.name, "missing") || strings.Contains(tc.name, "malformed") {
				want = 1
			}
			if got := allocs(t, tc.mw, ok, tc.req); got != want {
				t.Errorf("got %v allocations per request, want %v", got, want)
			}
		})
	}
}

func TestBearerAuthBadOptions(t *testing.T) {
	v := func(string) bool { return true }
	for _, tc := range []struct {
		name string
		o    BearerAuthOptions
		want string
	}{
		{"zero", BearerAuthOptions{}, "waltz: BearerAuthOptions needs either Tokens, not empty, or Validate"},
		{"both", BearerAuthOptions{Tokens: []string{"a"}, Validate: v}, "waltz: BearerAuthOptions needs either Tokens, not empty, or Validate"},
		{"empty token", BearerAuthOptions{Tokens: []string{"a", ""}}, "waltz: BearerAuthOptions.Tokens[1] is not a b64token (RFC 6750 section 2.1)"},
		{"token with space", BearerAuthOptions{Tokens: []string{"a b"}}, "waltz: BearerAuthOptions.Tokens[0] is not a b64token (RFC 6750 section 2.1)"},
		{"bad header", BearerAuthOptions{Validate: v, Header: "X Key"}, `waltz: BearerAuthOptions.Header "X Key" is not a valid header field name`},
		{"realm with a tab", BearerAuthOptions{Validate: v, Realm: "a\tb"}, `waltz: BearerAuthOptions.Realm "a\tb" is not printable ASCII`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := panicMessage(func() { BearerAuth(tc.o) }); got != tc.want {
				t.Errorf("got panic %q, want %q", got, tc.want)
			}
		})
	}
}

func ExampleBearerAuth() {
	r := waltz.New()
	api := r.Group("/api", BearerAuth(BearerAuthOptions{
		Realm:  "api",
		Tokens: []string{"s3cr3t-key"}, // from the environment, in real life
		Header: "X-API-Key",            // also accepted instead of Authorization
	}))
	api.Get("/ping", func(c *waltz.Context) error { return c.Text(http.StatusOK, "pong") })

	for _, auth := range []string{"", "Bearer wrong", "Bearer s3cr3t-key"} {
		req := httptest.NewRequest(http.MethodGet, "/api/ping", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		fmt.Printf("%d %q %q\n", w.Code, w.Header().Get("WWW-Authenticate"), w.Body.String())
	}
	// Output:
	// 401 "Bearer realm=\"api\"" "Unauthorized"
	// 401 "Bearer realm=\"api\", error=\"invalid_token\"" "Unauthorized"
	// 200 "" "pong"
}
