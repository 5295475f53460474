package jwtauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"fmt"
	"slices"
	"time"
)

// Key is one key of a static key set: a secret that verifies HMAC
// signatures or a public key that verifies others, and the one algorithm
// it verifies (RFC 8725 section 3.1: a key is used with one algorithm,
// so that a token cannot choose how its signature is checked).
type Key struct {
	// ID is the key's "kid": a token whose header names a kid is checked
	// only against the keys with that ID or none. "" answers to any kid.
	ID string

	// Algorithm is the JWS "alg" the key verifies (RFC 7518 section 3.1):
	// HS256, HS384 or HS512 with a Secret; RS256, RS384, RS512, PS256,
	// PS384 or PS512 with an *rsa.PublicKey; ES256, ES384 or ES512 with an
	// *ecdsa.PublicKey on P-256, P-384 or P-521; EdDSA with an
	// ed25519.PublicKey.
	Algorithm string

	// Secret is an HMAC key, at least as long as the hash's output (32
	// bytes for HS256, 48 for HS384, 64 for HS512; RFC 7518 section
	// 3.2). It is copied.
	Secret []byte

	// Public is a public key: *rsa.PublicKey (2048 to 8192 bits),
	// *ecdsa.PublicKey or ed25519.PublicKey.
	Public crypto.PublicKey
}

// family is the kind of key an algorithm takes. An HMAC secret, an RSA
// key, a key on each curve and an Ed25519 key are each a family of their
// own: a key verifies only algorithms of its family.
type family uint8

const (
	hmacKey family = iota + 1
	rsaKey
	p256Key
	p384Key
	p521Key
	edKey
)

// algorithms are the JWS algorithms waltz verifies, each with its family
// and, for HMAC, the shortest secret (RFC 7518 sections 3.1 and 3.2, RFC
// 8037 section 3.1). "none" is not one of them.
var algorithms = map[string]struct {
	fam       family
	minSecret int
}{
	"HS256": {hmacKey, 32}, "HS384": {hmacKey, 48}, "HS512": {hmacKey, 64},
	"RS256": {rsaKey, 0}, "RS384": {rsaKey, 0}, "RS512": {rsaKey, 0},
	"PS256": {rsaKey, 0}, "PS384": {rsaKey, 0}, "PS512": {rsaKey, 0},
	"ES256": {p256Key, 0}, "ES384": {p384Key, 0}, "ES512": {p521Key, 0},
	"EdDSA": {edKey, 0},
}

// minRSABits is the smallest RSA modulus accepted (RFC 7518 section
// 3.3), maxRSABits the largest, so that a key cannot make each check cost
// what a modulus of a megabyte would.
const minRSABits, maxRSABits = 2048, 8192

// key is one key of a set: its kid, the algorithm it declared ("" for a
// JWK without "alg"), its family, and the value golang-jwt verifies with,
// boxed once here rather than on each request.
type key struct {
	id     string
	alg    string
	fam    family
	verify any
}

// fits reports whether k may verify a token with the header's kid and
// alg: a key of alg's family, with no algorithm of its own or alg, and
// no kid of its own or kid (any, when the token names none).
func (k *key) fits(kid, alg string) bool {
	return algorithms[alg].fam == k.fam && (k.alg == "" || k.alg == alg) &&
		(kid == "" || k.id == "" || k.id == kid)
}

// keySet is a set of keys as one fetch gave them (or the static ones): it
// is never changed, only replaced. Its keys are used until fresh without
// a fetch, and until usable while fetches fail.
type keySet struct {
	keys          []key
	fresh, usable time.Time
}

// match appends to out the keys of s that fit kid and alg.
func (s *keySet) match(kid, alg string, out []any) []any {
	for i := range s.keys {
		if s.keys[i].fits(kid, alg) {
			out = append(out, s.keys[i].verify)
		}
	}
	return out
}

// familyOf returns the family of a public key, or 0 for a type or curve
// waltz does not verify with.
func familyOf(pub crypto.PublicKey) family {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return rsaKey
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return p256Key
		case elliptic.P384():
			return p384Key
		case elliptic.P521():
			return p521Key
		}
	case ed25519.PublicKey:
		return edKey
	}
	return 0
}

// checkPublic returns why pub cannot be a key of family fam, or "".
func checkPublic(pub crypto.PublicKey, fam family) string {
	if got := familyOf(pub); got != fam {
		return fmt.Sprintf("is a %s, not a %s", familyName(got), familyName(fam))
	}
	switch k := pub.(type) {
	case *rsa.PublicKey:
		if k.N == nil || k.N.BitLen() < minRSABits || k.N.BitLen() > maxRSABits {
			return fmt.Sprintf("is an RSA key of fewer than %d bits or more than %d", minRSABits, maxRSABits)
		}
		if k.E < 3 || k.E%2 == 0 {
			return fmt.Sprintf("has the exponent %d: an odd one, 3 or more", k.E)
		}
	case ed25519.PublicKey:
		if len(k) != ed25519.PublicKeySize {
			return fmt.Sprintf("has %d bytes, not %d", len(k), ed25519.PublicKeySize)
		}
	}
	return ""
}

func familyName(f family) string {
	switch f {
	case hmacKey:
		return "HMAC secret ([]byte)"
	case rsaKey:
		return "*rsa.PublicKey"
	case p256Key:
		return "*ecdsa.PublicKey on P-256"
	case p384Key:
		return "*ecdsa.PublicKey on P-384"
	case p521Key:
		return "*ecdsa.PublicKey on P-521"
	case edKey:
		return "ed25519.PublicKey"
	}
	return "key of no type waltz verifies with"
}

// staticKeys returns the keys ks as a set that never expires, or panics
// naming the first that is wrong and why. Each key's Algorithm must be
// one of algs when algs is not nil.
func staticKeys(ks []Key, algs []string) *keySet {
	s := &keySet{fresh: farFuture, usable: farFuture}
	for i, k := range ks {
		field := fmt.Sprintf("jwtauth.Options.Keys[%d]", i)
		a, ok := algorithms[k.Algorithm]
		switch {
		case !ok:
			panic(fmt.Sprintf("waltz: %s.Algorithm %q is not one of %s", field, k.Algorithm, algorithmList()))
		case algs != nil && !slices.Contains(algs, k.Algorithm):
			panic(fmt.Sprintf("waltz: %s.Algorithm %q is not in Options.Algorithms: the key would verify nothing", field, k.Algorithm))
		case (k.Secret != nil) == (k.Public != nil):
			panic(fmt.Sprintf("waltz: %s needs either Secret or Public, not both or neither", field))
		case a.fam == hmacKey && k.Secret == nil:
			panic(fmt.Sprintf("waltz: %s.Algorithm %q takes a Secret, not a public key: an HMAC never verifies with a public key", field, k.Algorithm))
		case a.fam != hmacKey && k.Public == nil:
			panic(fmt.Sprintf("waltz: %s.Algorithm %q takes a Public key, not a Secret: a public key is never an HMAC secret", field, k.Algorithm))
		case a.fam == hmacKey && len(k.Secret) < a.minSecret:
			panic(fmt.Sprintf("waltz: %s.Secret has %d bytes: %s needs at least %d (RFC 7518 section 3.2)", field, len(k.Secret), k.Algorithm, a.minSecret))
		}
		var verify any
		if a.fam == hmacKey {
			verify = slices.Clone(k.Secret)
		} else {
			if why := checkPublic(k.Public, a.fam); why != "" {
				panic(fmt.Sprintf("waltz: %s.Public %s for %s", field, why, k.Algorithm))
			}
			verify = k.Public
		}
		s.keys = append(s.keys, key{id: k.ID, alg: k.Algorithm, fam: a.fam, verify: verify})
	}
	return s
}

// farFuture is when static keys stop being fresh: never.
var farFuture = time.Unix(1<<62, 0)

// algorithmList names the algorithms waltz verifies, for messages.
func algorithmList() string {
	return "HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA"
}
