package jwtauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// jwk is one member of a JWK Set's "keys" (RFC 7517 section 4, RFC 7518
// section 6, RFC 8037 section 2), as far as verifying reads it.
type jwk struct {
	Kty    string   `json:"kty"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Alg    string   `json:"alg"`
	Kid    string   `json:"kid"`
	Crv    string   `json:"crv"`
	N      string   `json:"n"`
	E      string   `json:"e"`
	X      string   `json:"x"`
	Y      string   `json:"y"`
}

// maxKeys is the most keys of a JWK Set that are read; an identity
// provider publishes a few.
const maxKeys = 100

// parseJWKS returns the keys of a JWK Set document (RFC 7517 section 5)
// that can verify signatures, and for each member that cannot, why. An
// error is a document that is not a JWK Set.
func parseJWKS(b []byte) ([]key, []error, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, nil, fmt.Errorf("not a JWK Set: %w", err)
	}
	if doc.Keys == nil {
		return nil, nil, errors.New(`not a JWK Set: no "keys" array`)
	}
	var keys []key
	var skipped []error
	for i, raw := range doc.Keys {
		if i == maxKeys {
			skipped = append(skipped, fmt.Errorf("keys[%d] on: more than %d keys", i, maxKeys))
			break
		}
		var j jwk
		k, err := key{}, json.Unmarshal(raw, &j)
		if err == nil {
			k, err = j.key()
		}
		if err != nil {
			skipped = append(skipped, fmt.Errorf("keys[%d] (kid %q): %w", i, j.Kid, err))
			continue
		}
		keys = append(keys, k)
	}
	return keys, skipped, nil
}

// key returns j as a key that verifies signatures, or why it cannot be
// one: a key for encryption, a secret ("oct": a JWK Set is public, and a
// secret in it would let anyone who reads it sign), a type, curve or
// algorithm waltz does not verify with, an "alg" of another family than
// its key ("RS256" on an EC key), an RSA key under 2048 bits or over
// 8192, a point
// not on its curve.
func (j *jwk) key() (key, error) {
	if j.Use != "" && j.Use != "sig" {
		return key{}, fmt.Errorf("its use is %q, not \"sig\"", j.Use)
	}
	if j.KeyOps != nil && !slices.Contains(j.KeyOps, "verify") {
		return key{}, errors.New(`its key_ops do not hold "verify"`)
	}
	var k key
	var err error
	switch j.Kty {
	case "RSA":
		k.fam, k.verify, err = j.rsa()
	case "EC":
		k.fam, k.verify, err = j.ec()
	case "OKP":
		k.fam, k.verify, err = j.okp()
	case "oct":
		return key{}, errors.New(`a secret ("oct") is never taken from a JWK Set`)
	default:
		return key{}, fmt.Errorf("kty %q is not RSA, EC or OKP", j.Kty)
	}
	if err != nil {
		return key{}, err
	}
	if j.Alg != "" {
		if a, ok := algorithms[j.Alg]; !ok || a.fam != k.fam {
			return key{}, fmt.Errorf("alg %q is not an algorithm of its key, a %s", j.Alg, familyName(k.fam))
		}
	}
	k.id, k.alg = j.Kid, j.Alg
	return k, nil
}

func (j *jwk) rsa() (family, any, error) {
	n, err1 := decodeMember(j.N)
	e, err2 := decodeMember(j.E)
	if err := errors.Join(err1, err2); err != nil {
		return 0, nil, err
	}
	if len(e) == 0 || len(e) > 4 {
		return 0, nil, errors.New("e is empty or over 32 bits")
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	if why := checkPublic(pub, rsaKey); why != "" {
		return 0, nil, errors.New("it " + why)
	}
	return rsaKey, pub, nil
}

func (j *jwk) ec() (family, any, error) {
	var curve elliptic.Curve
	var fam family
	switch j.Crv {
	case "P-256":
		curve, fam = elliptic.P256(), p256Key
	case "P-384":
		curve, fam = elliptic.P384(), p384Key
	case "P-521":
		curve, fam = elliptic.P521(), p521Key
	default:
		return 0, nil, fmt.Errorf("crv %q is not P-256, P-384 or P-521", j.Crv)
	}
	x, err1 := decodeMember(j.X)
	y, err2 := decodeMember(j.Y)
	if err := errors.Join(err1, err2); err != nil {
		return 0, nil, err
	}
	size := (curve.Params().BitSize + 7) / 8
	if len(x) != size || len(y) != size {
		return 0, nil, fmt.Errorf("x and y must have %d bytes each (RFC 7518 section 6.2.1.2)", size)
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(curve, slices.Concat([]byte{4}, x, y))
	if err != nil {
		return 0, nil, err
	}
	return fam, pub, nil
}

func (j *jwk) okp() (family, any, error) {
	if j.Crv != "Ed25519" {
		return 0, nil, fmt.Errorf("crv %q is not Ed25519", j.Crv)
	}
	x, err := decodeMember(j.X)
	if err != nil {
		return 0, nil, err
	}
	if len(x) != ed25519.PublicKeySize {
		return 0, nil, fmt.Errorf("x has %d bytes, not %d", len(x), ed25519.PublicKeySize)
	}
	return edKey, ed25519.PublicKey(x), nil
}

// decodeMember decodes a member in base64url (RFC 7515 section 2), with
// or without the padding some publishers add.
func decodeMember(s string) ([]byte, error) {
	b, err := base64.RawURLEncoding.Strict().DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fmt.Errorf("a member is not base64url: %w", err)
	}
	return b, nil
}
