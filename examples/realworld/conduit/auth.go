package conduit

import (
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
// whose subject is the user's id. jwtauth checks them (authenticate).
type tokens struct {
	key []byte
	ttl time.Duration
}

// issue returns a token for the user id, valid for t.ttl.
func (t *tokens) issue(id int64) string {
	now := time.Now()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(id, 10),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(t.ttl)),
	}).SignedString(t.key)
	if err != nil {
		panic(err) // HMAC signing fails only without a key, which New refuses
	}
	return s
}

// claims are a token's claims; its subject is a user's id.
type claims struct {
	jwt.RegisteredClaims
	user int64
}

// Validate refuses a token whose subject is no user id; jwtauth calls it
// once the signature and the times are checked.
func (c *claims) Validate() error {
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil || id < 1 {
		return errors.New("the token names no user")
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

// hash returns password's bcrypt hash at cost.
func hash(password string, cost int) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if errors.Is(err, bcrypt.ErrPasswordTooLong) {
		return "", unprocessable("user.password is longer than 72 bytes")
	}
	return string(h), err
}
