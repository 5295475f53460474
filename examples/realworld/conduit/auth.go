package conduit

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"golang.org/x/crypto/bcrypt"
)

// tokens signs and checks the API's tokens: JWTs signed with HS256 under
// one key, whose subject is the user's id. Checking pins the algorithm
// (a token signed otherwise, or unsigned with "alg": "none", is refused
// before its signature is looked at) and requires an expiry in the future.
type tokens struct {
	key    []byte
	ttl    time.Duration
	parser *jwt.Parser
}

func newTokens(key []byte, ttl time.Duration) *tokens {
	return &tokens{key: key, ttl: ttl, parser: jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithLeeway(5*time.Second))}
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

// user returns the id of the user an Authorization field value
// "Token <jwt>" names.
func (t *tokens) user(field string) (int64, error) {
	scheme, token, _ := strings.Cut(field, " ")
	if !strings.EqualFold(scheme, "Token") {
		return 0, errors.New(`the Authorization field must be "Token " and a token`)
	}
	var claims jwt.RegisteredClaims
	if _, err := t.parser.ParseWithClaims(strings.TrimSpace(token), &claims, func(*jwt.Token) (any, error) {
		return t.key, nil
	}); err != nil {
		return 0, err
	}
	id, err := strconv.ParseInt(claims.Subject, 10, 64)
	if err != nil || id < 1 {
		return 0, errors.New("the token names no user")
	}
	return id, nil
}

// tokenScheme is how the document describes the credential, as the spec
// does: an API key in the Authorization field.
var tokenScheme = api.SecurityScheme{Name: "Token", Type: "apiKey", In: "header", Param: "Authorization",
	Description: `A JWT from POST /api/users or POST /api/users/login, sent as "Authorization: Token <jwt>".`}

// viewerKey is the request context's key of the authenticated user's id.
type viewerKey struct{}

// authenticate returns middleware that reads the Authorization field:
// a request without one goes on as nobody's unless required, and one with
// a field that names no valid token is answered 401.
func (a *app) authenticate(required bool) waltz.Middleware {
	mw := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			field := c.Request.Header.Get("Authorization")
			if field == "" && !required {
				return next(c)
			}
			id, err := a.tokens.user(field)
			if field == "" {
				err = errors.New("this needs an Authorization field: Token <jwt>")
			}
			if err != nil {
				return unauthorized(c, err.Error())
			}
			c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), viewerKey{}, id))
			return next(c)
		}
	}
	if required {
		return api.Authenticates(mw, tokenScheme)
	}
	return api.Responds(mw, http.StatusUnauthorized)
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
	id, _ := c.Request.Context().Value(viewerKey{}).(int64)
	return id
}

// hash returns password's bcrypt hash at cost.
func hash(password string, cost int) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if errors.Is(err, bcrypt.ErrPasswordTooLong) {
		return "", unprocessable("user.password is longer than 72 bytes")
	}
	return string(h), err
}
