package conduit_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// sqlish are values that would change a query built by pasting them
// into its text: quotes, comments, statement ends, LIKE's wildcards,
// every engine's parameter markers, and whole injections.
var sqlish = []string{
	`'`, `''`, `"`, `\`, `\'`, `;`, `--`, `/*`, `%`, `_`, `$1`, `?`, `?1`, `:id`, `@id`, `)`, `)) OR ((1=1`,
	`' OR '1'='1`, `' OR 1=1 --`, `'; DROP TABLE users; --`, `"; DROP TABLE articles; --`,
	`x' UNION SELECT password FROM users --`, `Robert'); DROP TABLE students;--`,
}

// TestSQLMetacharacters sends every value of sqlish in every place a
// value goes: a username (in bodies, paths and the author and favorited
// filters), an article's title, description, body and tag (and the tag
// filter), a comment, a bio. Each must come back as it was sent and match
// itself alone; no table may be lost.
func TestSQLMetacharacters(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		reader := s.register(t, "reader")
		for i, v := range sqlish {
			t.Run(v, func(t *testing.T) {
				token := s.register(t, v)
				p := url.PathEscape(v)
				q := url.QueryEscape(v)
				a := s.post(t, token, v+" title", v)
				if a.Title != v+" title" || !slices.Equal(a.TagList, []string{v}) || a.Author.Username != v {
					t.Fatalf("created %+v", a)
				}
				s.call(t, "PUT", "/api/articles/"+url.PathEscape(a.Slug), token, `{"article":{"description":`+jsonString(v)+`,"body":`+jsonString(v)+`}}`).want(t, 200)
				var one struct{ Article article }
				s.call(t, "GET", "/api/articles/"+url.PathEscape(a.Slug), "", "").want(t, 200).decode(t, &one)
				if one.Article.Description != v || one.Article.Body != v {
					t.Errorf("got description %q body %q, want %q", one.Article.Description, one.Article.Body, v)
				}
				s.call(t, "POST", "/api/articles/"+url.PathEscape(a.Slug)+"/favorite", reader, "").want(t, 200)
				s.call(t, "POST", "/api/profiles/"+p+"/follow", reader, "").want(t, 200)
				for _, target := range []string{"/api/articles?author=" + q, "/api/articles?tag=" + q} {
					if list, n := s.list(t, target, reader); n != 1 || len(list) != 1 || list[0].Author.Username != v || !list[0].Author.Following {
						t.Errorf("%s: got %d %+v, want the one article", target, n, list)
					}
				}
				if _, n := s.list(t, "/api/articles?favorited=reader", ""); n != i+1 {
					t.Errorf("favorited by reader: got %d, want %d", n, i+1)
				}
				if _, n := s.list(t, "/api/articles/feed", reader); n != i+1 {
					t.Errorf("reader's feed: got %d, want %d", n, i+1)
				}
				var profile struct {
					Profile struct{ Username, Bio string }
				}
				s.call(t, "PUT", "/api/user", token, `{"user":{"bio":`+jsonString(v)+`}}`).want(t, 200)
				s.call(t, "GET", "/api/profiles/"+p, "", "").want(t, 200).decode(t, &profile)
				if profile.Profile.Username != v || profile.Profile.Bio != v {
					t.Errorf("got %+v, want %q as username and bio", profile.Profile, v)
				}
				var comment struct{ Comments []struct{ Body string } }
				s.call(t, "POST", "/api/articles/"+url.PathEscape(a.Slug)+"/comments", token, `{"comment":{"body":`+jsonString(v)+`}}`).want(t, 200)
				s.call(t, "GET", "/api/articles/"+url.PathEscape(a.Slug)+"/comments", "", "").want(t, 200).decode(t, &comment)
				if len(comment.Comments) != 1 || comment.Comments[0].Body != v {
					t.Errorf("got comments %+v, want one with body %q", comment.Comments, v)
				}
				s.call(t, "POST", "/api/users/login", "", `{"user":{"email":`+jsonString(v)+`,"password":`+jsonString(v)+`}}`).want(t, 401)
			})
		}
		var users, articles, tags int
		if err := s.db.QueryRow("SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM articles), (SELECT COUNT(*) FROM article_tags)").
			Scan(&users, &articles, &tags); err != nil {
			t.Fatal(err)
		}
		if users != len(sqlish)+1 || articles != len(sqlish) || tags != len(sqlish) {
			t.Errorf("got %d users, %d articles, %d tags; want %d, %d, %d", users, articles, tags, len(sqlish)+1, len(sqlish), len(sqlish))
		}
	})
}

// TestUnstorableText sends text PostgreSQL cannot store, a NUL character
// and invalid UTF-8: SQLite stores a NUL and finds nothing by it,
// PostgreSQL refuses it, which is a 422, never a 500; a param of invalid
// UTF-8 is no string of the schema's, a 422 before any database sees it.
func TestUnstorableText(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		token := s.register(t, "writer")
		for _, tc := range []struct {
			method, target, body string
			sqlite, postgres     int
		}{
			{"POST", "/api/users", `{"user":{"username":"nul\u0000","email":"nul@example.com","password":"password"}}`, 201, 422},
			{"POST", "/api/articles", `{"article":{"title":"nul\u0000","description":"d","body":"b"}}`, 201, 422},
			{"PUT", "/api/user", `{"user":{"bio":"nul\u0000"}}`, 200, 422},
			{"GET", "/api/profiles/nul%00", "", 200, 422},
			{"GET", "/api/profiles/bad%FF", "", 422, 422},
			{"GET", "/api/articles?tag=bad%FF", "", 422, 422},
			{"GET", "/api/articles?author=nul%00", "", 200, 422},
		} {
			t.Run(tc.method+" "+tc.target+" "+tc.body, func(t *testing.T) {
				want := tc.sqlite
				if s.engine == "postgres" {
					want = tc.postgres
				}
				a := s.call(t, tc.method, tc.target, token, tc.body).want(t, want)
				if want == 422 && !strings.Contains(a.body, "text must be UTF-8 without NUL characters") && !strings.Contains(a.body, "must be text in UTF-8") {
					t.Errorf("got %s, want it to say why", a.body)
				}
			})
		}
	})
}

// sign returns a token with the claims, signed by method with key.
func sign(t testing.TB, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTokens sends tokens that must not pass: expired, unsigned (alg
// none), signed with another key or another algorithm, without an expiry,
// issued in the future, naming no user, in another scheme. Each is a 401
// with the challenge, on an operation that needs a token and on one that
// reads one if sent.
func TestTokens(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		valid := s.register(t, "jake")
		var sub, stamp string
		if err := s.db.QueryRow("SELECT CAST(id AS TEXT), stamp FROM users WHERE username = 'jake'").Scan(&sub, &stamp); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
			c := jwt.MapClaims{"sub": sub, "stamp": stamp, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
			if edit != nil {
				edit(c)
			}
			return c
		}
		rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		other := []byte("another key, 32 bytes or more, that the server does not have")
		for _, tc := range []struct {
			name, field string
		}{
			{"a valid token in the Bearer scheme", "Bearer " + valid},
			{"the token alone", valid},
			{"no token", "Token "},
			{"not a JWT", "Token abc.def.ghi"},
			{"a valid token cut short", "Token " + valid[:len(valid)-3]},
			{"expired", "Token " + sign(t, jwt.SigningMethodHS256, testKey, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() }))},
			{"without an expiry", "Token " + sign(t, jwt.SigningMethodHS256, testKey, claims(func(c jwt.MapClaims) { delete(c, "exp") }))},
			{"issued in the future", "Token " + sign(t, jwt.SigningMethodHS256, testKey, claims(func(c jwt.MapClaims) { c["iat"] = now.Add(time.Hour).Unix() }))},
			{"unsigned, alg none", "Token " + sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(nil))},
			{"alg none with a signature", "Token " + strings.Join(append(strings.Split(sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims(nil)), ".")[:2], strings.Split(valid, ".")[2]), ".")},
			{"another key", "Token " + sign(t, jwt.SigningMethodHS256, other, claims(nil))},
			{"HS384 with the key", "Token " + sign(t, jwt.SigningMethodHS384, testKey, claims(nil))},
			{"HS512 with the key", "Token " + sign(t, jwt.SigningMethodHS512, testKey, claims(nil))},
			{"RS256", "Token " + sign(t, jwt.SigningMethodRS256, rsaKey, claims(nil))},
			{"ES256", "Token " + sign(t, jwt.SigningMethodES256, ecKey, claims(nil))},
			{"a subject that is no id", "Token " + sign(t, jwt.SigningMethodHS256, testKey, claims(func(c jwt.MapClaims) { c["sub"] = "1 OR 1=1" }))},
			{"the subject 0", "Token " + sign(t, jwt.SigningMethodHS256, testKey, claims(func(c jwt.MapClaims) { c["sub"] = "0" }))},
			{"a user that does not exist", "Token " + sign(t, jwt.SigningMethodHS256, testKey, claims(func(c jwt.MapClaims) { c["sub"] = "999999" }))},
			{"without a stamp", "Token " + sign(t, jwt.SigningMethodHS256, testKey, claims(func(c jwt.MapClaims) { delete(c, "stamp") }))},
			{"another stamp", "Token " + sign(t, jwt.SigningMethodHS256, testKey, claims(func(c jwt.MapClaims) { c["stamp"] = stamp + "x" }))},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, target := range []string{"/api/user", "/api/articles"} {
					a := s.send(t, "GET", target, http.Header{"Authorization": {tc.field}}, "").want(t, 401)
					if a.header.Get("WWW-Authenticate") == "" {
						t.Errorf("%s: a 401 without WWW-Authenticate", target)
					}
				}
			})
		}
		s.call(t, "GET", "/api/user", valid, "").want(t, 200)
		s.call(t, "GET", "/api/user", sign(t, jwt.SigningMethodHS256, testKey, claims(nil)), "").want(t, 200)
	})
}

// TestLimits sends a limit of 10^9 and other numbers out of bounds, and
// bodies, paths and queries of a MiB or half of one: each a 4xx (or, for a
// long value that names nothing, an empty answer), never a 500.
func TestLimits(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		token := s.register(t, "jake")
		s.post(t, token, "Kept")
		mib := strings.Repeat("x", 1<<20)
		half := strings.Repeat("y", 1<<19)
		for _, tc := range []struct {
			name, method, target, body string
			code                       int
		}{
			{"a limit of 10^9", "GET", "/api/articles?limit=1000000000", "", 422},
			{"a limit of 100", "GET", "/api/articles?limit=100", "", 200},
			{"a limit of -1", "GET", "/api/articles?limit=-1", "", 422},
			{"a limit of 2^63", "GET", "/api/articles?limit=9223372036854775808", "", 422},
			{"a word as limit", "GET", "/api/articles?limit=all", "", 422},
			{"an offset of 10^18", "GET", "/api/articles?offset=1000000000000000000", "", 200},
			{"an offset of 10^30", "GET", "/api/articles?offset=1000000000000000000000000000000", "", 422},
			{"a feed's limit of 10^9", "GET", "/api/articles/feed?limit=1000000000", "", 422},
			{"a MiB registration", "POST", "/api/users", `{"user":{"username":"` + mib + `","email":"big@example.com","password":"password"}}`, 413},
			{"a MiB article", "POST", "/api/articles", `{"article":{"title":"t","description":"d","body":"` + mib + `"}}`, 413},
			{"a half-MiB article body", "POST", "/api/articles", `{"article":{"title":"t","description":"d","body":"` + half + `"}}`, 422},
			{"a half-MiB title", "POST", "/api/articles", `{"article":{"title":"` + half + `","description":"d","body":"b"}}`, 422},
			{"a tag list of null (the spec's is an array)", "POST", "/api/articles", `{"article":{"title":"t","description":"d","body":"b","tagList":null}}`, 422},
			{"a half-MiB tag list", "POST", "/api/articles", `{"article":{"title":"t","description":"d","body":"b","tagList":[` + strings.Repeat(`"t",`, 1<<17) + `"t"]}}`, 422},
			{"a MiB comment", "POST", "/api/articles/kept/comments", `{"comment":{"body":"` + mib + `"}}`, 413},
			{"a half-MiB bio", "PUT", "/api/user", `{"user":{"bio":"` + half + `"}}`, 422},
			{"a half-MiB password", "POST", "/api/users/login", `{"user":{"email":"a@example.com","password":"` + half + `"}}`, 422},
			{"a half-MiB username in the path", "GET", "/api/profiles/" + half, "", 404},
			{"a half-MiB slug", "GET", "/api/articles/" + half, "", 404},
			{"a half-MiB tag filter", "GET", "/api/articles?tag=" + half, "", 200},
			{"half a MiB of nested arrays", "POST", "/api/articles", `{"article":` + strings.Repeat("[", 1<<18) + strings.Repeat("]", 1<<18) + `}`, 400},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s.call(t, tc.method, tc.target, token, tc.body).want(t, tc.code)
			})
		}
	})
}

// request is one request of a race.
type request struct{ token, method, target, body string }

// race sends the requests made by req(0) to req(n-1) at once and returns
// their answers, each checked as send checks it.
func (s *server) race(t *testing.T, n int, req func(i int) request) []answer {
	t.Helper()
	answers := make([]answer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		r := req(i)
		wg.Go(func() {
			<-start
			answers[i], errs[i] = s.do(r.method, r.target, http.Header{"Authorization": {"Token " + r.token}}, r.body)
		})
	}
	close(start)
	wg.Wait()
	for i, a := range answers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if a.code >= 400 {
			a.errors(t)
		}
	}
	return answers
}

// codes returns the answers' status codes, sorted.
func codes(answers []answer) []int {
	var c []int
	for _, a := range answers {
		c = append(c, a.code)
	}
	slices.Sort(c)
	return c
}

// TestRaces sends requests that must count once however many come at
// the same time: users racing for one username (one wins, the others get
// a 422 naming it), one user favoriting or following many times at once,
// many users favoriting one article, many articles of one title (each its
// own slug).
func TestRaces(t *testing.T) {
	const n = 8
	engines(t, func(t *testing.T, s *server) {
		answers := s.race(t, n, func(i int) request {
			return request{"", "POST", "/api/users", fmt.Sprintf(`{"user":{"username":"racer","email":"racer%d@example.com","password":"password"}}`, i)}
		})
		if want := append([]int{201}, slices.Repeat([]int{422}, n-1)...); !slices.Equal(codes(answers), want) {
			t.Errorf("one username, %d at once: got %v, want %v", n, codes(answers), want)
		}
		for _, a := range answers {
			if a.code == 422 && !strings.Contains(a.body, "username has already been taken") {
				t.Errorf("got %s, want the username named", a.body)
			}
		}

		jake := s.register(t, "jake")
		s.post(t, jake, "Popular")
		fan := s.register(t, "fan")
		answers = s.race(t, 2*n, func(i int) request {
			if i%2 == 0 {
				return request{fan, "POST", "/api/articles/popular/favorite", ""}
			}
			return request{fan, "POST", "/api/profiles/jake/follow", ""}
		})
		if got := codes(answers); !slices.Equal(got, slices.Repeat([]int{200}, 2*n)) {
			t.Errorf("one user's favorites and follows at once: got %v, want every one 200", got)
		}
		var follows, favorites int
		if err := s.db.QueryRow("SELECT (SELECT COUNT(*) FROM follows), (SELECT COUNT(*) FROM favorites)").Scan(&follows, &favorites); err != nil {
			t.Fatal(err)
		}
		if follows != 1 || favorites != 1 {
			t.Errorf("got %d follows, %d favorites; want 1, 1", follows, favorites)
		}

		fans := make([]string, n)
		for i := range fans {
			fans[i] = s.register(t, fmt.Sprintf("fan%d", i))
		}
		answers = s.race(t, n, func(i int) request { return request{fans[i], "POST", "/api/articles/popular/favorite", ""} })
		if got := codes(answers); !slices.Equal(got, slices.Repeat([]int{200}, n)) {
			t.Errorf("%d users favoriting at once: got %v, want every one 200", n, got)
		}
		var one struct{ Article article }
		s.call(t, "GET", "/api/articles/popular", fan, "").want(t, 200).decode(t, &one)
		if one.Article.FavoritesCount != n+1 || !one.Article.Favorited {
			t.Errorf("got %d favorites, favorited %v; want %d, true", one.Article.FavoritesCount, one.Article.Favorited, n+1)
		}

		answers = s.race(t, n, func(int) request {
			return request{jake, "POST", "/api/articles", `{"article":{"title":"Same Title","description":"d","body":"b"}}`}
		})
		var slugs []string
		for _, a := range answers {
			var out struct{ Article article }
			a.want(t, 201).decode(t, &out)
			slugs = append(slugs, out.Article.Slug)
		}
		slices.Sort(slugs)
		if len(slices.Compact(slugs)) != n || !slices.Contains(slugs, "same-title") {
			t.Errorf("got slugs %q, want %d different ones, same-title among them", slugs, n)
		}
	})
}
