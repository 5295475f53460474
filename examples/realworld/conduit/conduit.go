// Package conduit is the RealWorld "Conduit" API (the spec
// gothinkster/realworld publishes as api/openapi.yml) on waltz: users and
// their tokens, profiles and follows, articles with their tags, favorites
// and comments, stored in SQLite or PostgreSQL. Every operation is a typed
// one, so the router's OpenAPI document describes all of them; every
// error is answered in the spec's shape, {"errors": {"body": [...]}}.
package conduit

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/apidocs"
	"github.com/waltz-go/waltz/middleware"
	"golang.org/x/crypto/bcrypt"
)

// Options configure [New].
type Options struct {
	// Key signs and checks the tokens (HMAC-SHA256); at least 32 bytes.
	Key []byte
	// TokenTTL is how long a token is valid; 0 means 24 hours, and less
	// than 0 panics.
	TokenTTL time.Duration
	// BcryptCost is the cost of the password hashes; 0 means
	// bcrypt.DefaultCost (10). Tests lower it to bcrypt.MinCost.
	BcryptCost int
	// AllowedOrigins are the origins whose pages may call the API from a
	// browser (CORS): "https://app.example.com", or "*" for any, which is
	// safe here, as the API reads a token sent in a header and no cookie.
	// Nil allows none.
	AllowedOrigins []string
}

// app holds what the handlers share.
type app struct {
	db     *DB
	tokens *tokens
	cost   int
	decoy  []byte // a hash no password matches, for logins that name no user
}

// New returns the API's router over db: the operations under /api, the
// OpenAPI document at /openapi.json and a page of it at /docs. It panics
// on a key shorter than 32 bytes or a TokenTTL below 0.
func New(db *DB, o Options) *waltz.Router {
	if len(o.Key) < 32 {
		panic("conduit: the token key must have at least 32 bytes")
	}
	if o.TokenTTL < 0 {
		panic("conduit: a token TTL below 0")
	}
	if o.TokenTTL == 0 {
		o.TokenTTL = 24 * time.Hour
	}
	if o.BcryptCost == 0 {
		o.BcryptCost = bcrypt.DefaultCost
	}
	decoy, err := bcrypt.GenerateFromPassword([]byte("no user has this password"), o.BcryptCost)
	if err != nil {
		panic(err)
	}
	a := &app{db: db, tokens: &tokens{o.Key, o.TokenTTL}, cost: o.BcryptCost, decoy: decoy}
	r := waltz.New()
	r.Use(middleware.CORS(middleware.CORSOptions{AllowedOrigins: o.AllowedOrigins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete},
		AllowedHeaders: []string{"Authorization", "Content-Type"}, MaxAge: time.Hour}))
	r.RenderError = renderError
	api.ErrorBody[GenericErrorModel](r, "application/json")
	// A database error that breaks a rule of the schema is the client's:
	// answered here, for every query, before the default rules (a 500 for
	// any other error) apply.
	r.ErrorHandler = func(c *waltz.Context, err error) { waltz.DefaultErrorHandler(c, stored(err)) }
	g := r.Group("/api")
	member := g.With(a.authenticate(false), a.known) // a token is needed
	anyone := g.With(a.authenticate(true), a.known)  // a token is read if sent
	users, profile, articles := []string{"User and Authentication"}, []string{"Profile"}, []string{"Articles"}
	favorites, comments := []string{"Favorites"}, []string{"Comments"}
	notFound, forbidden := []int{http.StatusNotFound}, []int{http.StatusForbidden, http.StatusNotFound}

	api.Op(g, http.MethodPost, "/users/login", a.login, api.Operation{ID: "Login", Tags: users,
		Summary: "Existing user login", Errors: []int{http.StatusUnauthorized}})
	api.Op(g, http.MethodPost, "/users", a.register, api.Operation{ID: "CreateUser", Tags: users,
		Summary: "Register a new user", Status: http.StatusCreated})
	api.Op(member, http.MethodGet, "/user", a.currentUser, api.Operation{ID: "GetCurrentUser", Tags: users,
		Summary: "Get current user"})
	api.Op(member, http.MethodPut, "/user", a.updateUser, api.Operation{ID: "UpdateCurrentUser", Tags: users,
		Summary: "Update current user"})

	api.Op(anyone, http.MethodGet, "/profiles/:username", a.profile, api.Operation{ID: "GetProfileByUsername",
		Tags: profile, Summary: "Get a profile", Errors: notFound})
	api.Op(member, http.MethodPost, "/profiles/:username/follow", a.follow, api.Operation{ID: "FollowUserByUsername",
		Tags: profile, Summary: "Follow a user", Errors: notFound})
	api.Op(member, http.MethodDelete, "/profiles/:username/follow", a.unfollow, api.Operation{ID: "UnfollowUserByUsername",
		Tags: profile, Summary: "Unfollow a user", Errors: notFound})

	api.Op(member, http.MethodGet, "/articles/feed", a.feed, api.Operation{ID: "GetArticlesFeed", Tags: articles,
		Summary: "Get recent articles from users you follow"})
	api.Op(anyone, http.MethodGet, "/articles", a.articles, api.Operation{ID: "GetArticles", Tags: articles,
		Summary: "Get recent articles globally"})
	api.Op(member, http.MethodPost, "/articles", a.createArticle, api.Operation{ID: "CreateArticle", Tags: articles,
		Summary: "Create an article", Status: http.StatusCreated})
	api.Op(anyone, http.MethodGet, "/articles/:slug", a.article, api.Operation{ID: "GetArticle", Tags: articles,
		Summary: "Get an article", Errors: notFound})
	api.Op(member, http.MethodPut, "/articles/:slug", a.updateArticle, api.Operation{ID: "UpdateArticle", Tags: articles,
		Summary: "Update an article", Errors: forbidden})
	api.Op(member, http.MethodDelete, "/articles/:slug", a.deleteArticle, api.Operation{ID: "DeleteArticle", Tags: articles,
		Summary: "Delete an article", Errors: forbidden})

	api.Op(anyone, http.MethodGet, "/articles/:slug/comments", a.comments, api.Operation{ID: "GetArticleComments",
		Tags: comments, Summary: "Get comments for an article", Errors: notFound})
	api.Op(member, http.MethodPost, "/articles/:slug/comments", a.addComment, api.Operation{ID: "CreateArticleComment",
		Tags: comments, Summary: "Create a comment for an article", Errors: notFound})
	api.Op(member, http.MethodDelete, "/articles/:slug/comments/:id", a.deleteComment, api.Operation{ID: "DeleteArticleComment",
		Tags: comments, Summary: "Delete a comment for an article", Errors: forbidden})

	api.Op(member, http.MethodPost, "/articles/:slug/favorite", a.favorite, api.Operation{ID: "CreateArticleFavorite",
		Tags: favorites, Summary: "Favorite an article", Errors: notFound})
	api.Op(member, http.MethodDelete, "/articles/:slug/favorite", a.unfavorite, api.Operation{ID: "DeleteArticleFavorite",
		Tags: favorites, Summary: "Unfavorite an article", Errors: notFound})

	api.Op(g, http.MethodGet, "/tags", a.tags, api.Operation{ID: "GetTags", Tags: []string{"Tags"}, Summary: "Get tags"})

	info := api.Info{Title: "RealWorld Conduit API", Version: "1.1.0", License: "MIT",
		Description: "The RealWorld Conduit API (github.com/gothinkster/realworld), served by waltz."}
	docs := r.With(api.Hide) // the document's own routes, not the API's
	docs.Get("/openapi.json", api.ServeOpenAPI(r, info))
	docs.Handler(http.MethodGet, "/docs", apidocs.Handler(r, info))
	return r
}

// GenericErrorModel is the body of every error answer: the spec's
// GenericErrorModel, which the document describes (api.ErrorBody).
type GenericErrorModel struct {
	Errors struct {
		Body []string `json:"body"`
	} `json:"errors"`
}

// renderError is the router's RenderError: every error, the router's own
// 404 and 405 and the binding's 400, 413, 415 and 422 included, in the
// spec's shape, one line per failure ("user.email: must be an email
// address") or the message alone.
func renderError(c *waltz.Context, e *waltz.HTTPError) {
	var b GenericErrorModel
	for _, f := range e.Errors {
		b.Errors.Body = append(b.Errors.Body, strings.TrimPrefix(f.Location, "body.")+": "+f.Message)
	}
	if len(b.Errors.Body) == 0 {
		msg := e.Message
		if msg == "" {
			msg = strings.ToLower(http.StatusText(e.Code))
		}
		b.Errors.Body = []string{msg}
	}
	_ = c.JSON(e.Code, &b)
}

// unprocessable returns a 422 answer with msg.
func unprocessable(msg string) error {
	return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: msg}
}

// notFound returns a 404 answer saying that no what is named name, the
// name cut to its first 64 characters: a long path is not sent back whole.
func notFound(what, name string) error {
	n := 0
	for i := range name {
		if n == 64 {
			name = name[:i] + "…"
			break
		}
		n++
	}
	return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no " + what + " is named " + strconv.Quote(name)}
}

// forbidden is the answer to a change of another user's article or comment.
var forbidden = &waltz.HTTPError{Code: http.StatusForbidden, Message: "only its author can change or delete it"}

// stored returns the answer to a database error that breaks a rule of the
// schema: a unique member taken, 422 naming it; a foreign key to a row
// gone, 404; text PostgreSQL cannot store (a NUL, invalid UTF-8), 422.
// Any other error is returned as it is.
func stored(err error) error {
	switch kind, member := violation(err); kind {
	case "unique":
		if member == "" {
			member = "value"
		}
		return unprocessable(member + " has already been taken")
	case "foreign key":
		return &waltz.HTTPError{Code: http.StatusNotFound, Message: "what it refers to no longer exists", Err: err}
	case "text":
		return &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "text must be UTF-8 without NUL characters", Err: err}
	}
	return err
}

// timestamp writes a time stored as microseconds since 1970 as RFC 3339
// in UTC with milliseconds, the form the spec's examples have.
func timestamp(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000Z")
}
