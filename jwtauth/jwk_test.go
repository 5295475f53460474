package jwtauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A P-256 key and a 2048-bit RSA modulus from RFC 7517 Appendix A.1,
// with an Ed25519 key from RFC 8037 Appendix A.2.
const (
	ecX  = "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4"
	ecY  = "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"
	rsaN = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
	edX  = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
)

func TestParseJWKS(t *testing.T) {
	for _, tc := range []struct {
		name, member string
		fam          family // 0: left out
		why          string
	}{
		{"RSA", `{"kty":"RSA","kid":"k","alg":"RS256","n":"` + rsaN + `","e":"AQAB"}`, rsaKey, ""},
		{"RSA, padded, use sig, key_ops verify", `{"kty":"RSA","use":"sig","key_ops":["verify"],"n":"` + rsaN + `==","e":"AQAB"}`, rsaKey, ""},
		{"EC", `{"kty":"EC","crv":"P-256","alg":"ES256","x":"` + ecX + `","y":"` + ecY + `"}`, p256Key, ""},
		{"Ed25519", `{"kty":"OKP","crv":"Ed25519","alg":"EdDSA","x":"` + edX + `"}`, edKey, ""},
		{"a secret", `{"kty":"oct","k":"c2VjcmV0"}`, 0, "never taken"},
		{"for encryption", `{"kty":"RSA","use":"enc","n":"` + rsaN + `","e":"AQAB"}`, 0, `use is "enc"`},
		{"key_ops without verify", `{"kty":"RSA","key_ops":["encrypt"],"n":"` + rsaN + `","e":"AQAB"}`, 0, "key_ops"},
		{"RSA of 1024 bits", `{"kty":"RSA","n":"` + rsaN[:172] + `","e":"AQAB"}`, 0, "fewer than 2048 bits"},
		{"RSA of 8200 bits", `{"kty":"RSA","n":"` + strings.Repeat(rsaN[:340], 4) + rsaN[:8] + `","e":"AQAB"}`, 0, "more than 8192"},
		{"an even exponent", `{"kty":"RSA","n":"` + rsaN + `","e":"AQAA"}`, 0, "exponent"},
		{"an exponent of 5 bytes", `{"kty":"RSA","n":"` + rsaN + `","e":"AQABAQAB"}`, 0, "over 32 bits"},
		{"an RSA key with an EC alg", `{"kty":"RSA","alg":"ES256","n":"` + rsaN + `","e":"AQAB"}`, 0, "not an algorithm of its key"},
		{"an EC key with an RSA alg", `{"kty":"EC","crv":"P-256","alg":"RS256","x":"` + ecX + `","y":"` + ecY + `"}`, 0, "not an algorithm of its key"},
		{"a P-256 key with ES384", `{"kty":"EC","crv":"P-256","alg":"ES384","x":"` + ecX + `","y":"` + ecY + `"}`, 0, "not an algorithm of its key"},
		{"an RSA key with alg none", `{"kty":"RSA","alg":"none","n":"` + rsaN + `","e":"AQAB"}`, 0, "not an algorithm of its key"},
		{"an RSA key with an HMAC alg", `{"kty":"RSA","alg":"HS256","n":"` + rsaN + `","e":"AQAB"}`, 0, "not an algorithm of its key"},
		{"a point off the curve", `{"kty":"EC","crv":"P-256","x":"` + ecX + `","y":"` + ecX + `"}`, 0, "not on curve"},
		{"a short coordinate", `{"kty":"EC","crv":"P-256","x":"` + ecX[:40] + `","y":"` + ecY + `"}`, 0, "32 bytes each"},
		{"P-192", `{"kty":"EC","crv":"P-192","x":"` + ecX + `","y":"` + ecY + `"}`, 0, "crv"},
		{"X25519", `{"kty":"OKP","crv":"X25519","x":"` + edX + `"}`, 0, "crv"},
		{"not base64url", `{"kty":"RSA","n":"` + strings.ReplaceAll(rsaN, "_", "/") + `","e":"AQAB"}`, 0, "base64url"},
		{"no kty", `{"n":"` + rsaN + `","e":"AQAB"}`, 0, "kty"},
		{"not an object", `"RSA"`, 0, "cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, skipped, err := parseJWKS([]byte(`{"keys":[` + tc.member + `]}`))
			if err != nil {
				t.Fatal(err)
			}
			if tc.fam != 0 {
				if len(keys) != 1 || keys[0].fam != tc.fam || len(skipped) != 0 {
					t.Fatalf("got %v, %v; want one key of family %d", keys, skipped, tc.fam)
				}
				return
			}
			if len(keys) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0].Error(), tc.why) {
				t.Fatalf("got %v, %v; want it left out because %q", keys, skipped, tc.why)
			}
		})
	}
	for _, doc := range []string{``, `[]`, `{}`, `{"keys":{}}`, `{"keys":null}`, `<html>`} {
		if _, _, err := parseJWKS([]byte(doc)); err == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}

// FuzzParseJWKS holds that no document makes parsing panic, and that
// every key it keeps is a public key of the family it says, with an alg
// of that family if any.
func FuzzParseJWKS(f *testing.F) {
	f.Add(`{"keys":[{"kty":"RSA","kid":"k","alg":"RS256","n":"` + rsaN + `","e":"AQAB"}]}`)
	f.Add(`{"keys":[{"kty":"EC","crv":"P-256","alg":"ES256","x":"` + ecX + `","y":"` + ecY + `"}]}`)
	f.Add(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + edX + `"},{"kty":"oct","k":"AAAA"}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		keys, _, _ := parseJWKS([]byte(doc))
		for _, k := range keys {
			if k.fam == hmacKey || familyOf(k.verify) != k.fam {
				t.Fatalf("a key of family %d is a %T", k.fam, k.verify)
			}
			switch p := k.verify.(type) {
			case *rsa.PublicKey:
				if p.N.BitLen() < minRSABits || p.N.BitLen() > maxRSABits {
					t.Fatalf("an RSA key of %d bits", p.N.BitLen())
				}
			case *ecdsa.PublicKey, ed25519.PublicKey:
			default:
				t.Fatalf("a key of type %T", p)
			}
			if k.alg != "" && algorithms[k.alg].fam != k.fam {
				t.Fatalf("alg %q on a key of family %d", k.alg, k.fam)
			}
		}
	})
}

func TestLifetime(t *testing.T) {
	lo, hi := 30*time.Second, time.Hour
	for _, tc := range []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, hi},
		{"max-age", http.Header{"Cache-Control": {"public, max-age=600"}}, 600 * time.Second},
		{"quoted, any case", http.Header{"Cache-Control": {`Max-Age="600"`}}, 600 * time.Second},
		{"less Age", http.Header{"Cache-Control": {"max-age=600"}, "Age": {"100"}}, 500 * time.Second},
		{"Age over max-age", http.Header{"Cache-Control": {"max-age=600"}, "Age": {"1000"}}, lo},
		{"under the bound", http.Header{"Cache-Control": {"max-age=5"}}, lo},
		{"over the bound", http.Header{"Cache-Control": {"max-age=86400"}}, hi},
		{"past 2^31", http.Header{"Cache-Control": {"max-age=99999999999999"}}, hi},
		{"no-cache", http.Header{"Cache-Control": {"max-age=600, no-cache"}}, lo},
		{"no-store", http.Header{"Cache-Control": {"no-store"}}, lo},
		{"unreadable", http.Header{"Cache-Control": {"max-age=soon"}}, lo},
		{"negative", http.Header{"Cache-Control": {"max-age=-1"}}, lo},
		{"two fields", http.Header{"Cache-Control": {"public", "max-age=120"}}, 120 * time.Second},
		// RFC 9111 section 4.2.1: of two max-age directives the first is
		// used (or the answer is stale), never the last.
		{"max-age twice", http.Header{"Cache-Control": {"max-age=60, max-age=3600"}}, 60 * time.Second},
		{"max-age twice, two fields", http.Header{"Cache-Control": {"max-age=60", "max-age=3600"}}, 60 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lifetime(tc.h, lo, hi); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSecureURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"https://id.example.com/jwks.json", true},
		{"http://127.0.0.1:8080/jwks", true},
		{"http://[::1]/jwks", true},
		{"http://localhost/jwks", true},
		{"http://id.example.com/jwks.json", false},
		{"http://10.0.0.1/jwks", false},
		{"http://127.0.0.1.example.com/jwks", false},
		{"ftp://id.example.com/jwks", false},
		{"https:///jwks", false},
		{"/jwks", false},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := secureURL(u); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.url, got, tc.want)
		}
	}
}
