package conduit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/waltz-go/waltz/examples/realworld/conduit"
	"golang.org/x/crypto/bcrypt"
)

// another serves the API on a second, new database of s's engine, with
// the same key: a database reset or restored behind a server that keeps
// its key.
func another(t *testing.T, s *server) *server {
	t.Helper()
	if s.engine == "postgres" {
		return serve(t, "postgres", freshPostgres(t, os.Getenv("CONDUIT_TEST_POSTGRES")))
	}
	return serve(t, "sqlite", filepath.Join(t.TempDir(), "again.db"))
}

// invalidToken fails t unless a is a 401 whose challenge says the token
// is not valid (RFC 6750 section 3).
func invalidToken(t *testing.T, a answer) {
	t.Helper()
	a.want(t, http.StatusUnauthorized)
	if ch := a.header.Get("WWW-Authenticate"); !strings.Contains(ch, `error="invalid_token"`) {
		t.Errorf("WWW-Authenticate %q, want error=\"invalid_token\"", ch)
	}
}

// TestTokenOutlivesRows sends tokens whose user is not the one they were
// issued to: from a database since reset (the same id, another user),
// for a user id no row has, and from before a password change. Each is a
// 401 with error="invalid_token" on every operation, those where a token
// is optional included, never another user's session or a 404.
func TestTokenOutlivesRows(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		old := s.register(t, "olduser")
		fresh := another(t, s)
		fresh.register(t, "victim") // the same id as olduser's
		victim := fresh.register(t, "author")
		fresh.post(t, victim, "Kept", "a")
		ghost := sign(t, jwt.SigningMethodHS256, testKey, jwt.MapClaims{"sub": "999999", "stamp": "x",
			"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
		for _, tok := range []struct{ name, token string }{{"from a reset database", old}, {"for no user", ghost}} {
			for _, rq := range []struct{ method, target, body string }{
				{"GET", "/api/user", ""},
				{"PUT", "/api/user", `{"user":{"email":"attacker@example.com","password":"attackerpw"}}`},
				{"POST", "/api/articles", `{"article":{"title":"t","description":"d","body":"b"}}`},
				{"GET", "/api/articles", ""}, // a token is optional here
				{"GET", "/api/articles/feed", ""},
				{"DELETE", "/api/articles/kept", ""},
				{"DELETE", "/api/articles/kept/favorite", ""},
				{"POST", "/api/profiles/author/follow", ""},
			} {
				t.Run(tok.name+" "+rq.method+" "+rq.target, func(t *testing.T) {
					invalidToken(t, fresh.call(t, rq.method, rq.target, tok.token, rq.body))
				})
			}
		}

		// A new password refuses the tokens issued before it; the token
		// its answer carries, and a login's, are good.
		jake := s.register(t, "jake")
		s.call(t, "PUT", "/api/user", jake, `{"user":{"bio":"a bio alone keeps the tokens"}}`).want(t, 200)
		s.call(t, "GET", "/api/user", jake, "").want(t, 200)
		var u struct{ User struct{ Token string } }
		s.call(t, "PUT", "/api/user", jake, `{"user":{"password":"another password"}}`).want(t, 200).decode(t, &u)
		invalidToken(t, s.call(t, "GET", "/api/user", jake, ""))
		s.call(t, "GET", "/api/user", u.User.Token, "").want(t, 200)
		s.call(t, "POST", "/api/users/login", "", `{"user":{"email":"`+strings.ToLower(emailOf("jake"))+`","password":"another password"}}`).
			want(t, 200).decode(t, &u)
		s.call(t, "GET", "/api/user", u.User.Token, "").want(t, 200)
	})
}

// TestLongPassword logs in with a stored password of 72 bytes and more
// after it: bcrypt reads 72 bytes alone, so the login must refuse it.
func TestLongPassword(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		pw := strings.Repeat("é", 36) // 72 bytes
		s.call(t, "POST", "/api/users", "", `{"user":{"username":"long","email":"long@example.com","password":"`+pw+`"}}`).want(t, 201)
		s.call(t, "POST", "/api/users/login", "", `{"user":{"email":"long@example.com","password":"`+pw+`"}}`).want(t, 200)
		s.call(t, "POST", "/api/users/login", "", `{"user":{"email":"long@example.com","password":"`+pw+`WRONG"}}`).want(t, 401)
		s.call(t, "POST", "/api/users", "", `{"user":{"username":"longer","email":"longer@example.com","password":"`+pw+`x"}}`).want(t, 422)
	})
}

// TestSlugs checks that every article can be read at its slug: a title
// whose slug would be "feed" (the feed's own URL) gets a suffix, and an
// edit that sends the title back unchanged keeps a suffixed slug.
func TestSlugs(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		jake := s.register(t, "jake")
		for _, title := range []string{"Feed", "FEED!"} {
			a := s.post(t, jake, title)
			if a.Slug == "feed" || !strings.HasPrefix(a.Slug, "feed-") {
				t.Fatalf("%q: slug %q, want feed-<suffix>", title, a.Slug)
			}
			var got struct{ Article article }
			s.call(t, "GET", "/api/articles/"+a.Slug, "", "").want(t, 200).decode(t, &got)
			if got.Article.Title != title {
				t.Errorf("GET /api/articles/%s: %+v", a.Slug, got.Article)
			}
		}
		s.post(t, jake, "Hello")
		second := s.post(t, jake, "Hello")
		var got struct{ Article article }
		s.call(t, "PUT", "/api/articles/"+second.Slug, jake, `{"article":{"title":"Hello!","body":"edited"}}`).want(t, 200).decode(t, &got)
		if got.Article.Slug != second.Slug || got.Article.Title != "Hello!" {
			t.Fatalf("an edit with the same title's slug: %+v, want the slug %q kept", got.Article, second.Slug)
		}
		s.call(t, "GET", "/api/articles/"+second.Slug, "", "").want(t, 200)
		s.call(t, "PUT", "/api/articles/"+second.Slug, jake, `{"article":{"title":"Goodbye"}}`).want(t, 200).decode(t, &got)
		if got.Article.Slug != "goodbye" {
			t.Fatalf("an edit with a new title: slug %q, want goodbye", got.Article.Slug)
		}
		for _, name := range []string{".", ".."} {
			s.call(t, "POST", "/api/users", "", `{"user":{"username":"`+name+`","email":"dot@example.com","password":"password"}}`).want(t, 422)
			s.call(t, "PUT", "/api/user", jake, `{"user":{"username":"`+name+`"}}`).want(t, 422)
		}
	})
}

// TestTagOrder checks that GET /api/tags sorts tags as each article's
// tagList does, by bytes, whatever the database's collation: run on
// PostgreSQL with ci.sh's cluster, whose databases here take en-US
// (freshPostgres), where ORDER BY puts "_x" first and "a" before "B".
func TestTagOrder(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		jake := s.register(t, "jake")
		tags := []string{"b", "B", "a", "A", "_x", "Zeta", "éclair", "10", "9"}
		a := s.post(t, jake, "Tags", tags...)
		var got struct{ Tags []string }
		s.call(t, "GET", "/api/tags", "", "").want(t, 200).decode(t, &got)
		want := slices.Sorted(slices.Values(tags))
		if !slices.Equal(got.Tags, want) || !slices.Equal(a.TagList, want) {
			t.Fatalf("GET /api/tags %q, tagList %q: want both %q", got.Tags, a.TagList, want)
		}
	})
}

// TestCORS calls the API as a page of another origin does: the preflight
// of a POST with a token and a JSON body is allowed for an allowed
// origin, and the answer readable; another origin gets no CORS fields.
func TestCORS(t *testing.T) {
	db, err := conduit.Open(context.Background(), filepath.Join(t.TempDir(), "cors.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	srv := httptest.NewServer(conduit.New(db, conduit.Options{Key: testKey, BcryptCost: bcrypt.MinCost,
		AllowedOrigins: []string{"https://app.example"}}))
	defer srv.Close()
	s := &server{url: srv.URL, db: db, engine: "sqlite"}
	for _, origin := range []string{"https://app.example", "https://other.example"} {
		a := s.send(t, "OPTIONS", "/api/articles", http.Header{"Origin": {origin}, "Access-Control-Request-Method": {"POST"},
			"Access-Control-Request-Headers": {"authorization,content-type"}}, "")
		allowed := origin == "https://app.example"
		if got := a.header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed {
			t.Errorf("preflight from %s: Access-Control-Allow-Origin %q", origin, got)
		}
		if allowed && !strings.Contains(strings.ToLower(a.header.Get("Access-Control-Allow-Headers")), "authorization") {
			t.Errorf("preflight from %s: Access-Control-Allow-Headers %q, want Authorization", origin, a.header.Get("Access-Control-Allow-Headers"))
		}
		a = s.send(t, "GET", "/api/tags", http.Header{"Origin": {origin}}, "").want(t, 200)
		if got := a.header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed {
			t.Errorf("GET from %s: Access-Control-Allow-Origin %q", origin, got)
		}
	}
}
