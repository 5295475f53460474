package middleware

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/internal/header"
)

// BasicAuthOptions configures [BasicAuth]. Set exactly one of Users and
// Validate.
type BasicAuthOptions struct {
	// Realm names the protected space in the challenge (RFC 7617 section
	// 2); "" means "Restricted". Printable ASCII only.
	Realm string

	// Users maps each user name to its password. It is copied: changing
	// the map later changes nothing. A name must not hold a colon, which
	// the Basic scheme cannot carry (RFC 7617 section 2).
	Users map[string]string

	// Validate reports whether user and password are valid, for
	// credentials kept elsewhere (a database, password hashes). It should
	// compare in constant time, as crypto/subtle and bcrypt do, and may be
	// called from many goroutines at once.
	Validate func(user, password string) bool
}

// BasicAuth returns middleware that admits only requests with valid
// credentials in the Basic authentication scheme (RFC 7617): an
// Authorization header "Basic " followed by the base64 of "user:password"
// (scheme name in any case, RFC 9110 section 11.1). The user name of an
// admitted request is in its context.Context, for [BasicAuthUser].
//
// Any other request — no Authorization header, another scheme, two such
// headers, malformed base64, no colon, a control byte in the name or the
// password (section 2), decoded credentials over 768 bytes, or wrong ones —
// gets the same answer: the challenge
//
//	WWW-Authenticate: Basic realm="Restricted", charset="UTF-8"
//
// (section 2.1; the realm quoted with backslash escapes, RFC 9110 section
// 5.6.4) on the response, and a 401 [waltz.HTTPError] returned for the
// error handler, so that nothing tells a guess that was near from one that
// was not (RFC 9110 section 15.5.2).
//
// With Users, the name and password are compared as SHA-256 hashes with
// crypto/subtle against every user each time, so the time taken tells
// neither their length, nor which bytes matched, nor whether the user
// exists.
//
// Cost per request, held by a test: with Users, 2 allocations when
// admitted (the request's copy and its context) and 1 when refused (the
// challenge in a value slice of the response's own, so that an edit in
// place never shows in another response);
// with Validate, one more (the decoded credentials as a string) for each
// request with well-formed credentials.
//
// BasicAuth panics with a message naming the field when both or neither of
// Users and Validate are set, Users is empty or has a name with a colon, or
// Realm is not printable ASCII.
func BasicAuth(o BasicAuthOptions) waltz.Middleware {
	if (len(o.Users) == 0) == (o.Validate == nil) {
		panic("waltz: BasicAuthOptions needs either Users, not empty, or Validate")
	}
	var users []basicUser
	for name, pass := range o.Users {
		if strings.IndexByte(name, ':') >= 0 {
			panic(fmt.Sprintf("waltz: BasicAuthOptions.Users name %q holds a colon", name))
		}
		users = append(users, basicUser{name, sha256.Sum256([]byte(name)), sha256.Sum256([]byte(pass))})
	}
	challenge := "Basic realm=" + quote("BasicAuthOptions.Realm", o.Realm) + `, charset="UTF-8"` // each refusal gets its own slice (see values)
	validate := o.Validate
	return api.Authenticates(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			var buf [maxBasicDecoded]byte
			cred, ok := basicCredentials(c.Request.Header, &buf)
			user := ""
			if ok {
				if validate != nil {
					s := string(cred)
					name, pass, _ := strings.Cut(s, ":")
					ok, user = validate(name, pass), name
				} else {
					user, ok = matchUser(users, cred)
				}
			}
			if !ok {
				c.Writer.Header()["Www-Authenticate"] = []string{challenge}
				return errUnauthorized
			}
			c.Request = c.Request.WithContext(&userContext{Context: c.Request.Context(), user: user})
			return next(c)
		}
	}, api.SecurityScheme{Name: "basicAuth", Type: "http", Scheme: "basic"})
}

// BasicAuthUser returns the user name that [BasicAuth] admitted the request
// with, from the request's context, or "" if there is none.
func BasicAuthUser(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	if u, ok := ctx.Value(basicAuthUserKey{}).(*string); ok {
		return *u
	}
	return ""
}

// errUnauthorized is every refusal. NOTE: shared, never modified.
var errUnauthorized = &waltz.HTTPError{Code: http.StatusUnauthorized}

// maxBasicDecoded is the longest decoded "user:password" accepted, in
// bytes; its base64 is 1024 bytes. It bounds the stack buffer it is
// decoded into.
const maxBasicDecoded = 768

type basicUser struct {
	name       string
	user, pass [sha256.Size]byte
}

// basicCredentials returns the decoded "user:password" of h's one
// Authorization header in the Basic scheme, in buf, and whether it is
// well formed: a colon, no control bytes (RFC 7617 section 2).
func basicCredentials(h http.Header, buf *[maxBasicDecoded]byte) ([]byte, bool) {
	v := h["Authorization"]
	if len(v) != 1 {
		return nil, false
	}
	scheme, token, _ := strings.Cut(v[0], " ")
	token = strings.Trim(token, " ")
	if !header.EqualFold(scheme, "Basic") || len(token) > base64.StdEncoding.EncodedLen(maxBasicDecoded) {
		return nil, false
	}
	var src [1024]byte
	n, err := base64.StdEncoding.Decode(buf[:], src[:copy(src[:], token)])
	cred := buf[:n]
	if err != nil || bytes.IndexByte(cred, ':') < 0 {
		return nil, false
	}
	for _, b := range cred {
		if b < ' ' || b == 0x7f {
			return nil, false
		}
	}
	return cred, true
}

// matchUser returns the name of the user whose credentials cred holds, in
// time that depends only on the number of users.
func matchUser(users []basicUser, cred []byte) (string, bool) {
	i := bytes.IndexByte(cred, ':')
	uh, ph := sha256.Sum256(cred[:i]), sha256.Sum256(cred[i+1:])
	found := -1
	for j := range users {
		if subtle.ConstantTimeCompare(uh[:], users[j].user[:])&subtle.ConstantTimeCompare(ph[:], users[j].pass[:]) == 1 {
			found = j
		}
	}
	if found < 0 {
		return "", false
	}
	return users[found].name, true
}

type basicAuthUserKey struct{}

// userContext is a context.Context with the user name BasicAuth admitted:
// one allocation, where context.WithValue would take two.
type userContext struct {
	context.Context
	user string
}

func (c *userContext) Value(key any) any {
	if key == (basicAuthUserKey{}) {
		return &c.user // a pointer: a string would be copied to the heap
	}
	return c.Context.Value(key)
}

func (c *userContext) String() string {
	return fmt.Sprintf("%v.WithBasicAuthUser(%q)", c.Context, c.user)
}

// quote returns realm, or "Restricted" if it is "", as a quoted-string (RFC
// 9110 section 5.6.4), with '"' and '\' escaped. It panics, naming field,
// if realm is not printable ASCII.
func quote(field, realm string) string {
	if realm == "" {
		realm = "Restricted"
	}
	if !visibleASCII(realm) {
		panic(fmt.Sprintf("waltz: %s %q is not printable ASCII", field, realm))
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(realm); i++ {
		if realm[i] == '"' || realm[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(realm[i])
	}
	b.WriteByte('"')
	return b.String()
}
