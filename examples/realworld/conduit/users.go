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
	var id int64
	email := strings.ToLower(u.Email)
	if err := a.db.QueryRowContext(c.Request.Context(), "INSERT INTO users (username, email, password) VALUES ($1, $2, $3) RETURNING id",
		u.Username, email, h).Scan(&id); err != nil {
		return nil, err
	}
	return a.userOut(id, User{Username: u.Username, Email: email}), nil
}

func (a *app) login(c *waltz.Context, in *LoginIn) (*UserOut, error) {
	var id int64
	var u User
	var h string
	err := a.db.QueryRowContext(c.Request.Context(), "SELECT id, username, email, bio, image, password FROM users WHERE email = $1",
		strings.ToLower(in.Body.User.Email)).Scan(&id, &u.Username, &u.Email, &u.Bio, &u.Image, &h)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_ = bcrypt.CompareHashAndPassword(a.decoy, []byte(in.Body.User.Password))
		return nil, unauthorized(c, badLogin)
	case err != nil:
		return nil, err
	case bcrypt.CompareHashAndPassword([]byte(h), []byte(in.Body.User.Password)) != nil:
		return nil, unauthorized(c, badLogin)
	}
	return a.userOut(id, u), nil
}

func (a *app) currentUser(c *waltz.Context, _ *struct{}) (*UserOut, error) {
	id := viewer(c)
	var u User
	err := a.db.QueryRowContext(c.Request.Context(), "SELECT username, email, bio, image FROM users WHERE id = $1", id).
		Scan(&u.Username, &u.Email, &u.Bio, &u.Image)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unauthorized(c, gone)
	}
	return a.userOut(id, u), err
}

func (a *app) updateUser(c *waltz.Context, in *UpdateUserIn) (*UserOut, error) {
	u := &in.Body.User
	var h *string
	if u.Password != nil {
		s, err := hash(*u.Password, a.cost)
		if err != nil {
			return nil, err
		}
		h = &s
	}
	if u.Email != nil {
		*u.Email = strings.ToLower(*u.Email)
	}
	id := viewer(c)
	var out User
	err := a.db.QueryRowContext(c.Request.Context(), `UPDATE users SET email = COALESCE($2, email), password = COALESCE($3, password),
		username = COALESCE($4, username), bio = COALESCE($5, bio), image = COALESCE($6, image)
		WHERE id = $1 RETURNING username, email, bio, image`, id, u.Email, h, u.Username, u.Bio, u.Image).
		Scan(&out.Username, &out.Email, &out.Bio, &out.Image)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unauthorized(c, gone)
	}
	if err != nil {
		return nil, err
	}
	return a.userOut(id, out), nil
}

// userOut is the answer of an operation on the user id, u with a token.
func (a *app) userOut(id int64, u User) *UserOut {
	out := &UserOut{}
	out.Body.User = u
	out.Body.User.Token = a.tokens.issue(id)
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
