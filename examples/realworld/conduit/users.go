package conduit

import (
	"database/sql"
	"errors"
	"strings"

	"github.com/waltz-go/waltz"
	"golang.org/x/crypto/bcrypt"
)

// User is the spec's User: the user who sent the request, with a fresh
// token.
type User struct {
	Email    string `json:"email"`
	Token    string `json:"token" doc:"a JWT, sent back as \"Authorization: Token <jwt>\""`
	Username string `json:"username"`
	Bio      string `json:"bio"`
	Image    string `json:"image"`
}

// UserOut is the answer of the operations on users.
type UserOut struct {
	Body struct {
		User User `json:"user"`
	}
}

// LoginUser is the spec's LoginUser: a user's credentials.
type LoginUser struct {
	Email    string `json:"email" minLength:"1" maxLength:"254"`
	Password string `json:"password" minLength:"1" maxLength:"72"`
}

// LoginIn is the input of POST /api/users/login.
type LoginIn struct {
	Body struct {
		User LoginUser `json:"user"`
	}
}

// NewUser is the spec's NewUser: who registers.
type NewUser struct {
	Username string `json:"username" minLength:"1" maxLength:"64"`
	Email    string `json:"email" format:"email" maxLength:"254"`
	Password string `json:"password" minLength:"8" maxLength:"72"`
}

// RegisterIn is the input of POST /api/users.
type RegisterIn struct {
	Body struct {
		User NewUser `json:"user"`
	}
}

// UpdateUser is the spec's UpdateUser: the members sent are changed, the
// others (left out or null) kept.
type UpdateUser struct {
	Email    *string `json:"email,omitempty" format:"email" maxLength:"254"`
	Password *string `json:"password,omitempty" minLength:"8" maxLength:"72"`
	Username *string `json:"username,omitempty" minLength:"1" maxLength:"64"`
	Bio      *string `json:"bio,omitempty" maxLength:"4096"`
	Image    *string `json:"image,omitempty" maxLength:"2048"`
}

// UpdateUserIn is the input of PUT /api/user.
type UpdateUserIn struct {
	Body struct {
		User UpdateUser `json:"user"`
	}
}

// Profile is the spec's Profile: a user as another sees them.
type Profile struct {
	Username  string `json:"username"`
	Bio       string `json:"bio"`
	Image     string `json:"image"`
	Following bool   `json:"following" doc:"whether the user who asks follows this one"`
}

// ProfileOut is the answer of the operations on profiles.
type ProfileOut struct {
	Body struct {
		Profile Profile `json:"profile"`
	}
}

// UsernameIn names a user by the path.
type UsernameIn struct {
	Username string `path:"username" doc:"the user's username"`
}

// badLogin is the answer to a login whose email or password is wrong, the
// same for both, so that it does not tell which emails have accounts.
const badLogin = "email or password is invalid"

// gone is the answer to a valid token whose user is not in the database.
const gone = "the token's user does not exist"

func (a *app) register(c *waltz.Context, in *RegisterIn) (*UserOut, error) {
	u := &in.Body.User
	h, err := hash(u.Password, a.cost)
	if err != nil {
		return nil, err
	}
	if err := pathSafe(u.Username); err != nil {
		return nil, err
	}
	var id int64
	email, stamp := strings.ToLower(u.Email), newStamp()
	if err := a.db.QueryRowContext(c.Request.Context(), "INSERT INTO users (username, email, password, stamp) VALUES ($1, $2, $3, $4) RETURNING id",
		u.Username, email, h, stamp).Scan(&id); err != nil {
		return nil, err
	}
	return a.userOut(id, stamp, User{Username: u.Username, Email: email}), nil
}

// pathSafe refuses the usernames "." and "..": a profile's URL holds the
// username as a path segment, which clients and proxies remove as a dot
// segment (RFC 3986 section 5.2.4), so no request could reach it.
func pathSafe(username string) error {
	if username == "." || username == ".." {
		return unprocessable("user.username: must not be . or ..")
	}
	return nil
}

func (a *app) login(c *waltz.Context, in *LoginIn) (*UserOut, error) {
	var id int64
	var u User
	var h, stamp string
	err := a.db.QueryRowContext(c.Request.Context(), "SELECT id, username, email, bio, image, password, stamp FROM users WHERE email = $1",
		strings.ToLower(in.Body.User.Email)).Scan(&id, &u.Username, &u.Email, &u.Bio, &u.Image, &h, &stamp)
	password := []byte(in.Body.User.Password)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_ = bcrypt.CompareHashAndPassword(a.decoy, password)
		return nil, unauthorized(c, badLogin)
	case err != nil:
		return nil, err
	// bcrypt reads the first 72 bytes alone: a longer password would
	// match any stored one that is its first 72 bytes. None is stored
	// (hash refuses them), so a longer one is wrong.
	case bcrypt.CompareHashAndPassword([]byte(h), password) != nil || len(password) > maxPassword:
		return nil, unauthorized(c, badLogin)
	}
	return a.userOut(id, stamp, u), nil
}

func (a *app) currentUser(c *waltz.Context, _ *struct{}) (*UserOut, error) {
	id := viewer(c)
	var u User
	var stamp string
	err := a.db.QueryRowContext(c.Request.Context(), "SELECT username, email, bio, image, stamp FROM users WHERE id = $1", id).
		Scan(&u.Username, &u.Email, &u.Bio, &u.Image, &stamp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unauthorized(c, gone)
	}
	return a.userOut(id, stamp, u), err
}

func (a *app) updateUser(c *waltz.Context, in *UpdateUserIn) (*UserOut, error) {
	u := &in.Body.User
	var h, stamp *string // a new password gets a new stamp: older tokens are refused
	if u.Password != nil {
		s, err := hash(*u.Password, a.cost)
		if err != nil {
			return nil, err
		}
		st := newStamp()
		h, stamp = &s, &st
	}
	if u.Email != nil {
		*u.Email = strings.ToLower(*u.Email)
	}
	if u.Username != nil {
		if err := pathSafe(*u.Username); err != nil {
			return nil, err
		}
	}
	id := viewer(c)
	var out User
	var st string
	err := a.db.QueryRowContext(c.Request.Context(), `UPDATE users SET email = COALESCE($2, email), password = COALESCE($3, password),
		username = COALESCE($4, username), bio = COALESCE($5, bio), image = COALESCE($6, image), stamp = COALESCE($7, stamp)
		WHERE id = $1 RETURNING username, email, bio, image, stamp`, id, u.Email, h, u.Username, u.Bio, u.Image, stamp).
		Scan(&out.Username, &out.Email, &out.Bio, &out.Image, &st)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unauthorized(c, gone)
	}
	if err != nil {
		return nil, err
	}
	return a.userOut(id, st, out), nil
}

// userOut is the answer of an operation on the user id, u with a token
// that carries the user's stamp.
func (a *app) userOut(id int64, stamp string, u User) *UserOut {
	out := &UserOut{}
	out.Body.User = u
	out.Body.User.Token = a.tokens.issue(id, stamp)
	return out
}

func (a *app) profile(c *waltz.Context, in *UsernameIn) (*ProfileOut, error) {
	out := &ProfileOut{}
	p := &out.Body.Profile
	err := a.db.QueryRowContext(c.Request.Context(), `SELECT username, bio, image,
		EXISTS (SELECT 1 FROM follows WHERE follower_id = $1 AND followee_id = u.id) FROM users u WHERE username = $2`,
		viewer(c), in.Username).Scan(&p.Username, &p.Bio, &p.Image, &p.Following)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("user", in.Username)
	}
	return out, err
}

// follow makes the user who asks follow the one named, once however many
// ask at the same time: the follows table's key holds the rule.
func (a *app) follow(c *waltz.Context, in *UsernameIn) (*ProfileOut, error) {
	if _, err := a.db.ExecContext(c.Request.Context(), `INSERT INTO follows (follower_id, followee_id)
		SELECT $1, id FROM users WHERE username = $2 ON CONFLICT DO NOTHING`, viewer(c), in.Username); err != nil {
		return nil, err
	}
	return a.profile(c, in)
}

func (a *app) unfollow(c *waltz.Context, in *UsernameIn) (*ProfileOut, error) {
	if _, err := a.db.ExecContext(c.Request.Context(), `DELETE FROM follows
		WHERE follower_id = $1 AND followee_id IN (SELECT id FROM users WHERE username = $2)`, viewer(c), in.Username); err != nil {
		return nil, err
	}
	return a.profile(c, in)
}
