package conduit

import (
	"crypto/rand"
	"database/sql"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/jwtauth"
	"golang.org/x/crypto/bcrypt"
)

// tokens signs the API's tokens: JWTs signed with HS256 under one key,
// whose subject is the user's id and whose stamp is the user's (known).
// jwtauth checks them (authenticate).
type tokens struct {
	key []byte
	ttl time.Duration
}

// issue returns a token for the user id with the stamp, valid for t.ttl.
func (t *tokens) issue(id int64, stamp string) string {
	now := time.Now()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims{RegisteredClaims: jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(id, 10),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(t.ttl)),
	}, Stamp: stamp}).SignedString(t.key)
	if err != nil {
		panic(err) // HMAC signing fails only without a key, which New refuses
	}
	return s
}

// newStamp returns a new token stamp: 128 random bits, as text.
func newStamp() string { return rand.Text() }

// claims are a token's claims; its subject is a user's id, and its stamp
// the one the user had when it was issued.
type claims struct {
	jwt.RegisteredClaims
	Stamp string `json:"stamp"`
	user  int64
}

// Validate refuses a token whose subject is no user id or that has no
// stamp; jwtauth calls it once the signature and the times are checked.
func (c *claims) Validate() error {
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id < 1 {
		return errors.New("the token names no user")
	}
	if c.Stamp == "" {
		return errors.New("the token has no stamp")
	}
	c.user = id
	return nil
}

// authenticate returns middleware that reads "Authorization: Token <jwt>"
// (jwtauth: HS256 only, an expiry required, no "none"): a request without
// the field goes on as nobody's when optional, and one that sends it with
// no valid token is answered 401. The document shows the credential as
// the spec does: an API key named Token, in the Authorization field.
func (a *app) authenticate(optional bool) waltz.Middleware {
	return jwtauth.New[claims](jwtauth.Options{Keys: []jwtauth.Key{{Algorithm: "HS256", Secret: a.tokens.key}},
		Scheme: "Token", Realm: "conduit", Optional: optional})
}

// known is the middleware after authenticate: a token whose user no
// longer has its stamp (the user is gone, the database was reset or
// restored since, or the password changed) is answered 401 as one that
// is not valid, with error="invalid_token" (RFC 6750 section 3), on every
// operation alike. The signature alone cannot tell: a token outlives
// the rows it was issued for.
func (a *app) known(next waltz.HandlerFunc) waltz.HandlerFunc {
	return func(c *waltz.Context) error {
		cl := jwtauth.Claims[claims](c.Request.Context())
		if cl == nil {
			return next(c) // nobody's, where a token is optional
		}
		var stamp string
		err := a.db.QueryRowContext(c.Request.Context(), "SELECT stamp FROM users WHERE id = $1", cl.user).Scan(&stamp)
		switch {
		case errors.Is(err, sql.ErrNoRows) || err == nil && stamp != cl.Stamp:
			c.Writer.Header().Set("WWW-Authenticate", `Token realm="conduit", error="invalid_token", error_description="the access token is no longer valid"`)
			return &waltz.HTTPError{Code: http.StatusUnauthorized, Message: "the access token is no longer valid"}
		case err != nil:
			return err
		}
		return next(c)
	}
}

// unauthorized returns a 401 answer with msg, and sets the challenge
// every 401 carries (RFC 9110 section 11.6.1).
func unauthorized(c *waltz.Context, msg string) error {
	c.Writer.Header().Set("WWW-Authenticate", `Token realm="conduit"`)
	return &waltz.HTTPError{Code: http.StatusUnauthorized, Message: msg}
}

// viewer returns the id of the user the request authenticated as, 0 for
// nobody.
func viewer(c *waltz.Context) int64 {
	if cl := jwtauth.Claims[claims](c.Request.Context()); cl != nil {
		return cl.user
	}
	return 0
}

// maxPassword is the longest password in bytes: bcrypt reads no more.
const maxPassword = 72

// hash returns password's bcrypt hash at cost, or a 422 for a password
// longer than bcrypt reads.
func hash(password string, cost int) (string, error) {
	if len(password) > maxPassword {
		return "", unprocessable("user.password is longer than 72 bytes")
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	return string(h), err
}
