package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// Options configures [New]. Keys, JWKS.URL or both give the keys; the zero
// value has none, and New panics on it.
type Options struct {
	// Keys are keys held in the program, each with the one algorithm it
	// verifies: an HMAC secret for tokens the program signs itself, or a
	// public key. The slice and the secrets are copied.
	Keys []Key

	// JWKS is where public keys are fetched from, and how often.
	JWKS JWKS

	// Algorithms are the algorithms a token's header may name ("alg"),
	// from those [Key] lists; never "none". Nil means the Algorithm of
	// each of Keys and, with a JWKS.URL, RS256, the one every OpenID
	// provider supports (OpenID Connect Core section 15.1).
	Algorithms []string

	// Issuer, if set, is the only "iss" accepted; a token without one is
	// refused.
	Issuer string

	// Audience, if set, lists the "aud" values accepted: a token must
	// name one of them. With keys from a provider that issues tokens for
	// other services too, set it: without it, a token issued for any of
	// them is accepted here.
	Audience []string

	// Leeway is the clock skew allowed when checking "exp", "nbf" and
	// "iat"; 0 means 30 seconds, and more than 5 minutes panics.
	Leeway time.Duration

	// Scheme is the authentication scheme of the Authorization field
	// (RFC 9110 section 11.4), matched in any case; "" means "Bearer"
	// (RFC 6750). RealWorld's is "Token".
	Scheme string

	// Header, if set, names the request field that carries the token
	// instead of Authorization, as the token alone, with no scheme;
	// Scheme must then be "".
	Header string

	// Realm names the protected space in the challenge (RFC 9110 section
	// 11.6.1); "" means "Restricted". Printable ASCII only.
	Realm string

	// Optional lets a request that sends no token through, without
	// claims. A request that sends the field is judged as without
	// Optional, so that a client that meant to authenticate learns that
	// it did not.
	Optional bool
}

// maxToken is the longest token read, in bytes; golang-jwt decodes the
// claims before it checks the signature.
const maxToken = 16 << 10

// New returns middleware that admits requests with a valid JWT (RFC 7519)
// signed by one of the keys of o (RFC 7515, compact form), sent as
// "Authorization: Bearer <token>" (RFC 6750 section 2.1) or as o
// configures. The token's claims are decoded into a C, and each handler
// inside reads them with [Claims][C].
//
// A token is valid when
//
//   - its header's alg is one of o.Algorithms (never "none": unsigned
//     tokens are refused, with or without a signature part);
//   - a key of the algorithm's type fits it (each key verifies one
//     algorithm, or, from a JWKS without "alg", those of o.Algorithms of
//     its type, so that an HMAC secret never checks an RSA or EC
//     signature, and a public key is never an HMAC secret: no algorithm
//     confusion), one with its kid if it names one, and the signature
//     verifies by it;
//   - its header has no "crit" (RFC 7515 section 4.1.11: no extension is
//     understood); its "jku", "jwk", "x5u" and "x5c" are never used to
//     find a key;
//   - it has an "exp" in the future, and its "nbf" and "iat", when it has
//     them, are not in the future (each within o.Leeway); each is a date
//     time.Time holds, from the year 1 on (1e300, which golang-jwt would
//     read as a date in the distant past, is refused);
//   - its "iss" is o.Issuer and its "aud" holds one of o.Audience, when
//     they are set;
//   - its claims decode into a C, and C's Validate method, when it has one
//     (golang-jwt's ClaimsValidator), returns nil;
//   - it is at most 16 KiB long, in base64url without padding.
//
// Any other request gets a challenge in WWW-Authenticate (RFC 6750
// section 3, the scheme o's) and a [waltz.HTTPError] returned for the
// error handler, whose message says no more than the challenge:
//
//   - no token (no field, or one of another scheme), without Optional:
//     401 with the realm and no error code (section 3.1);
//   - a token that is not valid: 401 with error="invalid_token" and
//     error_description "the access token expired" when its signature
//     verified and its exp has passed (a client may then get a new one),
//     else "the access token is invalid", whatever the reason. The reason
//     is the error's Err, for logs only;
//   - the field sent twice: 400 with error="invalid_request";
//   - a token whose keys only the JWKS could give, while it holds none
//     (see [JWKS]): 503, with no challenge.
//
// New declares itself for the OpenAPI document: an http bearer scheme
// "bearerJWT" with bearerFormat JWT for the Bearer scheme in
// Authorization; for another scheme or field, an apiKey scheme in that
// header, named for the scheme ("Token") or the field, since OpenAPI's
// http schemes are the registered ones and tools send "Bearer" for them.
// With Optional it declares the scheme as optional: the operations
// inside list the empty requirement, {}, beside it. Both declare 401 and
// 400, and 503 with a JWKS.
//
// Cost per request, held by a test: a request admitted costs what
// golang-jwt allocates to parse and check its token into a new C, and one
// allocation more, the request's copy: the claims are decoded into the
// context that carries them, one allocation with them. That is 46
// allocations in all for an HS256 token with jwt.RegisteredClaims, 55
// for RS256 (Go 1.26, golang-jwt 5.3.1). A request refused for want of a
// token costs 1, its challenge's value slice, of its own, so that an edit
// in place never shows in another response.
//
// New panics, with a message naming the field, when o has no Keys and no
// JWKS.URL, an algorithm is "none" or unknown, a key does not suit its
// algorithm (a Secret for HMAC, at least as long as the hash; a public
// key of the algorithm's type and curve; RSA of 2048 to 8192 bits), a key's
// Algorithm is not in an Algorithms given, JWKS.URL is not https (or http
// to loopback), a duration is negative or out of bounds, Scheme or Header
// is not a token (RFC 9110 section 5.6.2), Scheme is set with Header, or
// Realm is not printable ASCII.
func New[C any, P interface {
	*C
	jwt.Claims
}](o Options) waltz.Middleware {
	v := newVerifier(o)
	mw := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			tok, what := credential(c.Request.Header, v.field, v.scheme)
			if what == absent && v.optional {
				return next(c)
			}
			if what != token {
				return v.refuse(c, what, nil)
			}
			cc := &claimsContext[C]{Context: c.Request.Context()}
			if err := v.verify(tok, P(&cc.claims)); err != nil {
				return v.refuse(c, what, err)
			}
			c.Request = c.Request.WithContext(cc)
			return next(c)
		}
	}
	return v.declare(mw)
}

// Claims returns the claims of the token that the middleware of [New][C]
// admitted the request with, from its context, or nil when it was let
// through without one (Optional) or by no such middleware. With
// middleware inside another, the innermost's. It does not allocate.
func Claims[C any](ctx context.Context) *C {
	c, _ := ctx.Value(claimsKey{}).(*C)
	return c
}

type claimsKey struct{}

// claimsContext is a context.Context with a request's claims: one
// allocation, where context.WithValue and the claims apart would take
// two.
type claimsContext[C any] struct {
	context.Context
	claims C
}

func (c *claimsContext[C]) Value(key any) any {
	if key == (claimsKey{}) {
		return &c.claims
	}
	return c.Context.Value(key)
}

func (c *claimsContext[C]) String() string {
	return fmt.Sprintf("%v.WithJWTClaims", c.Context)
}

// verifier is what New's middleware shares: the keys, the parser, and its
// answers, made at construction.
type verifier struct {
	static   *keySet // nil without Keys
	jwks     *jwks   // nil without JWKS.URL
	parser   *jwt.Parser
	keyfunc  jwt.Keyfunc // v.key, made once: a method value per request would allocate
	field    string      // the canonical name of the field read
	scheme   string      // its scheme; "" for a field other than Authorization
	optional bool
	doc      api.SecurityScheme

	// The challenges and the answers that never change (see refuse).
	// NOTE: shared by every request, never modified.
	missing, invalid, expired, repeated string
	errMissing, errRepeated             *waltz.HTTPError
}

func newVerifier(o Options) *verifier {
	if len(o.Keys) == 0 && o.JWKS.URL == "" {
		panic("waltz: jwtauth.Options needs Keys, JWKS.URL or both: the keys that verify tokens")
	}
	v := &verifier{optional: o.Optional, field: "Authorization", scheme: "Bearer"}
	algs := checkAlgorithms(o)
	if len(o.Keys) > 0 {
		v.static = staticKeys(o.Keys, o.Algorithms)
	}
	jwksCfg := o.JWKS
	if o.JWKS.URL != "" {
		jwksCfg = checkJWKS(o.JWKS)
	}
	switch {
	case o.Leeway < 0 || o.Leeway > 5*time.Minute:
		panic(fmt.Sprintf("waltz: jwtauth.Options.Leeway %v is not between 0 and 5 minutes", o.Leeway))
	case o.Leeway == 0:
		o.Leeway = 30 * time.Second
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods(algs), jwt.WithStrictDecoding(),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(o.Leeway)}
	if o.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(o.Issuer))
	}
	if len(o.Audience) > 0 {
		if slices.Contains(o.Audience, "") {
			panic("waltz: jwtauth.Options.Audience holds an empty string")
		}
		opts = append(opts, jwt.WithAudience(slices.Clone(o.Audience)...))
	}
	v.parser = jwt.NewParser(opts...)
	v.keyfunc = v.key
	v.answers(o)
	if o.JWKS.URL != "" {
		v.jwks = newJWKS(jwksCfg) // last: nothing is shared before o is known to be good
	}
	return v
}

// checkAlgorithms returns the algorithms o accepts, or panics naming the
// one that is wrong.
func checkAlgorithms(o Options) []string {
	if o.Algorithms == nil {
		var algs []string
		for _, k := range o.Keys {
			algs = append(algs, k.Algorithm)
		}
		if o.JWKS.URL != "" {
			algs = append(algs, "RS256")
		}
		slices.Sort(algs)
		return slices.Compact(algs)
	}
	public := false
	for i, a := range o.Algorithms {
		f, ok := algorithms[a]
		if !ok {
			panic(fmt.Sprintf("waltz: jwtauth.Options.Algorithms[%d] %q is not one of %s", i, a, algorithmList()))
		}
		public = public || f.fam != hmacKey
	}
	if o.JWKS.URL != "" && !public {
		panic("waltz: jwtauth.Options.Algorithms has no public-key algorithm: the keys of JWKS.URL would verify nothing")
	}
	return slices.Clone(o.Algorithms)
}

// The errors of the key lookup, in the chain of the parser's error.
var (
	errUnavailable = errors.New("jwtauth: no keys of the JWK Set are held: it could not be fetched")
	errNoKey       = errors.New("jwtauth: no key fits the token's kid and alg")
	errHeader      = errors.New(`jwtauth: the token's header has "crit" or a kid that is not a string`)
	errDate        = errors.New(`jwtauth: the token's "exp", "nbf" or "iat" is beyond the dates time.Time holds`)
)

// outOfRange reports whether the exp, nbf or iat of claims is a
// NumericDate (RFC 7519 section 2) outside the years 1 to 292277026596,
// which time.Time holds. golang-jwt converts such a number to a time
// through an int64 that overflows, and gets a date before the year 1: an
// nbf or iat of 1e300, far in the future, would pass as long past, and
// an exp of 1e300 be called expired. No date a time.Time holds is before
// its zero value, the year 1.
func outOfRange(claims jwt.Claims) bool {
	for _, get := range [...]func() (*jwt.NumericDate, error){claims.GetExpirationTime, claims.GetNotBefore, claims.GetIssuedAt} {
		if d, err := get(); err == nil && d != nil && d.Before(time.Time{}) {
			return true
		}
	}
	return false
}

// verify checks the token tok and decodes its claims into claims.
func (v *verifier) verify(tok string, claims jwt.Claims) error {
	if len(tok) > maxToken {
		return fmt.Errorf("jwtauth: the token is over %d bytes", maxToken)
	}
	_, err := v.parser.ParseWithClaims(tok, claims, v.keyfunc)
	return err
}

// key is the parser's Keyfunc: the keys that fit the token's kid and alg,
// the static ones and the JWKS's, whose keys are fetched again when none
// fits. The parser has checked that alg is one of o.Algorithms. A token
// with "crit" or a date out of range (outOfRange) gets none, before the
// JWKS is asked: it is refused whatever it is signed with.
func (v *verifier) key(t *jwt.Token) (any, error) {
	if _, crit := t.Header["crit"]; crit {
		return nil, errHeader
	}
	if outOfRange(t.Claims) {
		return nil, errDate
	}
	kid, ok := "", true
	if id, named := t.Header["kid"]; named {
		kid, ok = id.(string)
	}
	if !ok {
		return nil, errHeader
	}
	alg := t.Method.Alg()
	var buf [4]any
	found := buf[:0]
	if v.static != nil {
		found = v.static.match(kid, alg, found)
	}
	if v.jwks != nil && algorithms[alg].fam != hmacKey {
		n := len(found)
		s := v.jwks.keys(time.Now())
		if s != nil {
			found = s.match(kid, alg, found)
		}
		if len(found) == n {
			// None of the set fits: the provider may have added the key.
			if again := v.jwks.again(); again != nil {
				s, found = again, again.match(kid, alg, found)
			}
		}
		if s == nil && len(found) == 0 {
			return nil, errUnavailable
		}
	}
	switch len(found) {
	case 0:
		return nil, errNoKey
	case 1:
		return found[0], nil
	}
	set := jwt.VerificationKeySet{Keys: make([]jwt.VerificationKey, len(found))}
	for i, k := range found {
		set.Keys[i] = k
	}
	return set, nil
}

// answers makes v's challenges, errors and scheme for the document from
// o, or panics naming the field that is wrong.
func (v *verifier) answers(o Options) {
	if o.Header != "" {
		if !isToken(o.Header) {
			panic(fmt.Sprintf("waltz: jwtauth.Options.Header %q is not a header field name", o.Header))
		}
		v.field = http.CanonicalHeaderKey(o.Header)
	}
	custom := v.field != "Authorization"
	switch {
	case custom && o.Scheme != "":
		panic(fmt.Sprintf("waltz: jwtauth.Options.Scheme %q is set with Header %q, which carries the token alone", o.Scheme, o.Header))
	case o.Scheme != "" && !isToken(o.Scheme):
		panic(fmt.Sprintf("waltz: jwtauth.Options.Scheme %q is not a token (RFC 9110 section 11.1)", o.Scheme))
	case o.Scheme != "":
		v.scheme = o.Scheme
	}
	realm := v.scheme + " realm=" + quote(o.Realm)
	v.missing = realm
	v.invalid = realm + `, error="invalid_token", error_description="the access token is invalid"`
	v.expired = realm + `, error="invalid_token", error_description="the access token expired"`
	v.repeated = realm + `, error="invalid_request", error_description="the ` + v.field + ` field is sent more than once"`
	v.errRepeated = &waltz.HTTPError{Code: http.StatusBadRequest, Message: "the " + v.field + " field is sent more than once"}
	how := `"` + v.field + ": " + v.scheme + ` <JWT>"`
	if custom {
		how = `"` + v.field + `: <JWT>"`
		v.scheme = ""
	}
	v.errMissing = &waltz.HTTPError{Code: http.StatusUnauthorized, Message: "this needs an access token: " + how}
	v.doc = api.SecurityScheme{Name: "bearerJWT", Type: "http", Scheme: "bearer", BearerFormat: "JWT",
		Description: "A JWT, sent as " + how + "."}
	if custom || !strings.EqualFold(v.scheme, "Bearer") {
		v.doc = api.SecurityScheme{Name: docName(v.field), Type: "apiKey", In: "header", Param: v.field,
			Description: "A JWT, sent as " + how + "."}
		if !custom {
			v.doc.Name = docName(v.scheme)
		}
	}
}

// refuse answers a request that sent what, with err the parser's.
func (v *verifier) refuse(c *waltz.Context, what sent, err error) error {
	h := c.Writer.Header()
	// Each refusal gets its challenge in a value slice of its own, so that
	// an edit in place never shows in another response.
	switch {
	case what == repeated:
		h["Www-Authenticate"] = []string{v.repeated}
		return v.errRepeated
	case what != token:
		h["Www-Authenticate"] = []string{v.missing}
		return v.errMissing
	case errors.Is(err, errUnavailable):
		return &waltz.HTTPError{Code: http.StatusServiceUnavailable, Message: "the keys that verify access tokens are unavailable", Err: err}
	case errors.Is(err, jwt.ErrTokenExpired):
		h["Www-Authenticate"] = []string{v.expired}
		return &waltz.HTTPError{Code: http.StatusUnauthorized, Message: "the access token expired", Err: err}
	}
	h["Www-Authenticate"] = []string{v.invalid}
	return &waltz.HTTPError{Code: http.StatusUnauthorized, Message: "the access token is invalid", Err: err}
}

// declare returns mw declaring itself for the OpenAPI document.
func (v *verifier) declare(mw waltz.Middleware) waltz.Middleware {
	codes := []int{http.StatusBadRequest}
	if v.jwks != nil {
		codes = append(codes, http.StatusServiceUnavailable)
	}
	doc := v.doc
	doc.Optional = v.optional
	return api.Responds(api.Authenticates(mw, doc), codes...)
}

// docName returns s with only the bytes a security scheme's name may
// have: letters, digits, '.', '-', '_'.
func docName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return r
		}
		return -1
	}, s)
}

// isToken reports whether s is a token (RFC 9110 section 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// quote returns realm, or "Restricted" if it is "", as a quoted-string
// (RFC 9110 section 5.6.4), or panics if it is not printable ASCII.
func quote(realm string) string {
	if realm == "" {
		realm = "Restricted"
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(realm); i++ {
		c := realm[i]
		if c < ' ' || c > '~' {
			panic(fmt.Sprintf("waltz: jwtauth.Options.Realm %q is not printable ASCII", realm))
		}
		if c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}
