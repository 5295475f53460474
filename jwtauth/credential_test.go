package jwtauth

import (
	"net/http"
	"strings"
	"testing"
)

func TestCredential(t *testing.T) {
	for _, tc := range []struct {
		name   string
		h      http.Header
		key    string
		scheme string
		token  string
		sent   sent
	}{
		{"none", http.Header{}, "Authorization", "Bearer", "", absent},
		{"empty", http.Header{"Authorization": {""}}, "Authorization", "Bearer", "", absent},
		{"white space", http.Header{"Authorization": {" \t "}}, "Authorization", "Bearer", "", absent},
		{"bearer", http.Header{"Authorization": {"Bearer a.b.c"}}, "Authorization", "Bearer", "a.b.c", token},
		{"any case, spaces", http.Header{"Authorization": {"\tbEaReR   a.b.c  "}}, "Authorization", "Bearer", "a.b.c", token},
		{"the scheme alone", http.Header{"Authorization": {"Bearer"}}, "Authorization", "Bearer", "", token},
		{"another scheme", http.Header{"Authorization": {"Basic a.b.c"}}, "Authorization", "Bearer", "", foreign},
		{"a longer scheme", http.Header{"Authorization": {"Bearers a.b.c"}}, "Authorization", "Bearer", "", foreign},
		{"a tab for the space", http.Header{"Authorization": {"Bearer\ta.b.c"}}, "Authorization", "Bearer", "", foreign},
		{"twice", http.Header{"Authorization": {"Bearer a", "Bearer b"}}, "Authorization", "Bearer", "", repeated},
		{"token scheme", http.Header{"Authorization": {"Token a.b.c"}}, "Authorization", "Token", "a.b.c", token},
		{"a scheme only Unicode folds to it (U+212A)", http.Header{"Authorization": {"To\u212aen a.b.c"}}, "Authorization", "Token", "", foreign},
		{"a field of its own", http.Header{"X-Token": {" a.b.c "}}, "X-Token", "", "a.b.c", token},
		{"a field of its own, with a scheme", http.Header{"X-Token": {"Bearer a.b.c"}}, "X-Token", "", "Bearer a.b.c", token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, s := credential(tc.h, tc.key, tc.scheme)
			if tok != tc.token || s != tc.sent {
				t.Errorf("got %q %d, want %q %d", tok, s, tc.token, tc.sent)
			}
		})
	}
}

// FuzzCredential holds that reading the field never panics, that a token
// is never empty of meaning (no white space around it, part of the
// field), and that any token of the JWS alphabet sent in the scheme is
// read back as sent.
func FuzzCredential(f *testing.F) {
	for _, s := range []string{"Bearer a.b.c", "bearer  x", "Bearer", "Basic YWxh", " ", "Bearer\t\tx", "Token a b c"} {
		f.Add(s, "Bearer", "eyJhbGciOiJIUzI1NiJ9.e30.sig")
	}
	f.Fuzz(func(t *testing.T, field, scheme, tok string) {
		got, s := credential(http.Header{"Authorization": {field}}, "Authorization", scheme)
		if s == token {
			if strings.Trim(got, " \t") != got || !strings.Contains(field, got) {
				t.Fatalf("%q: got the token %q", field, got)
			}
		} else if got != "" {
			t.Fatalf("%q: got %q with %d", field, got, s)
		}
		if !isToken(scheme) || !jwsText(tok) {
			return
		}
		got, s = credential(http.Header{"Authorization": {scheme + " " + tok}}, "Authorization", strings.ToUpper(scheme))
		if s != token || got != tok {
			t.Fatalf("%q %q: got %q %d", scheme, tok, got, s)
		}
	})
}

// jwsText reports whether s is made of base64url and dots.
func jwsText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
