package conduit_test

import (
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAPI drives the API over real HTTP through the answers the Postman
// collection does not check: the spec's 401 and 422, the 403 and 404 it
// leaves out, each in the spec's error shape (call checks the shape of
// every error answer). The rows run in order: each sees the data the ones
// before it left.
func TestAPI(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		jake, jane := s.register(t, "jake"), s.register(t, "jane")
		dragon := s.post(t, jake, "How to train your dragon", "training", "dragons", "training", " ")
		if dragon.Slug != "how-to-train-your-dragon" || !slices.Equal(dragon.TagList, []string{"dragons", "training"}) {
			t.Fatalf("created %+v, want the slug how-to-train-your-dragon and the tags [dragons training]", dragon)
		}
		var comment struct{ Comment struct{ ID int } }
		s.call(t, "POST", "/api/articles/how-to-train-your-dragon/comments", jane, `{"comment":{"body":"Thank you so much!"}}`).
			want(t, 200).decode(t, &comment)
		cid := strconv.Itoa(comment.Comment.ID)
		for _, tc := range []struct {
			name, method, target, token, body string
			code                              int
			want                              string // a substring of the body
		}{
			{"register again", "POST", "/api/users", "", `{"user":{"username":"jake","email":"new@example.com","password":"password"}}`, 422, "username has already been taken"},
			{"register an email again", "POST", "/api/users", "", `{"user":{"username":"jacob","email":"U6a616b65@EXAMPLE.com","password":"password"}}`, 422, "email has already been taken"},
			{"register with nothing", "POST", "/api/users", "", `{"user":{}}`, 422, "user.email: is required"},
			{"register a short password", "POST", "/api/users", "", `{"user":{"username":"x","email":"x@example.com","password":"short"}}`, 422, "user.password"},
			{"register not JSON", "POST", "/api/users", "", `{"user":`, 400, ""},
			{"login", "POST", "/api/users/login", "", `{"user":{"email":"u6a616b65@example.com","password":"password"}}`, 200, `"username":"jake"`},
			{"login, the email in capitals", "POST", "/api/users/login", "", `{"user":{"email":"U6A616B65@EXAMPLE.COM","password":"password"}}`, 200, `"username":"jake"`},
			{"login with a wrong password", "POST", "/api/users/login", "", `{"user":{"email":"u6a616b65@example.com","password":"wrong"}}`, 401, "email or password is invalid"},
			{"login as nobody", "POST", "/api/users/login", "", `{"user":{"email":"nobody@example.com","password":"password"}}`, 401, "email or password is invalid"},
			{"current user without a token", "GET", "/api/user", "", "", 401, "Authorization"},
			{"current user", "GET", "/api/user", jake, "", 200, `"username":"jake"`},
			{"update the user", "PUT", "/api/user", jake, `{"user":{"bio":"I like to skateboard","image":"https://example.com/jake.png"}}`, 200, `"bio":"I like to skateboard"`},
			{"update to a taken username", "PUT", "/api/user", jake, `{"user":{"username":"jane"}}`, 422, "username has already been taken"},
			{"update to a bad email", "PUT", "/api/user", jake, `{"user":{"email":"jake"}}`, 422, "user.email"},
			{"profile as nobody", "GET", "/api/profiles/jake", "", "", 200, `"following":false`},
			{"profile of nobody", "GET", "/api/profiles/nobody", jane, "", 404, "no user is named"},
			{"follow", "POST", "/api/profiles/jake/follow", jane, "", 200, `"following":true`},
			{"follow again", "POST", "/api/profiles/jake/follow", jane, "", 200, `"following":true`},
			{"profile as a follower", "GET", "/api/profiles/jake", jane, "", 200, `"following":true`},
			{"follow nobody", "POST", "/api/profiles/nobody/follow", jane, "", 404, "no user is named"},
			{"follow without a token", "POST", "/api/profiles/jake/follow", "", "", 401, ""},
			{"feed", "GET", "/api/articles/feed", jane, "", 200, `"articlesCount":1`},
			{"feed of who follows nobody", "GET", "/api/articles/feed", jake, "", 200, `{"articles":[],"articlesCount":0}`},
			{"feed without a token", "GET", "/api/articles/feed", "", "", 401, ""},
			{"an article", "GET", "/api/articles/how-to-train-your-dragon", "", "", 200, `"body":"b"`},
			{"no article", "GET", "/api/articles/nothing", "", "", 404, "no article is named"},
			{"create an article without a title", "POST", "/api/articles", jake, `{"article":{"description":"d","body":"b"}}`, 422, "article.title: is required"},
			{"create an article without a token", "POST", "/api/articles", "", `{"article":{"title":"t","description":"d","body":"b"}}`, 401, ""},
			{"create an article with a long tag", "POST", "/api/articles", jake, `{"article":{"title":"t","description":"d","body":"b","tagList":["` + strings.Repeat("t", 65) + `"]}}`, 422, "tagList"},
			{"update another's article", "PUT", "/api/articles/how-to-train-your-dragon", jane, `{"article":{"body":"mine"}}`, 403, "only its author"},
			{"update no article", "PUT", "/api/articles/nothing", jake, `{"article":{"body":"b"}}`, 404, "no such article"},
			{"update an article", "PUT", "/api/articles/how-to-train-your-dragon", jake, `{"article":{"body":"With two hands"}}`, 200, `"body":"With two hands"`},
			{"favorite", "POST", "/api/articles/how-to-train-your-dragon/favorite", jane, "", 200, `"favorited":true,"favoritesCount":1`},
			{"favorite again", "POST", "/api/articles/how-to-train-your-dragon/favorite", jane, "", 200, `"favorited":true,"favoritesCount":1`},
			{"favorited, as another", "GET", "/api/articles/how-to-train-your-dragon", jake, "", 200, `"favorited":false,"favoritesCount":1`},
			{"favorite nothing", "POST", "/api/articles/nothing/favorite", jane, "", 404, ""},
			{"articles favorited by jane", "GET", "/api/articles?favorited=jane", "", "", 200, `"articlesCount":1`},
			{"articles favorited by jake", "GET", "/api/articles?favorited=jake", "", "", 200, `"articlesCount":0`},
			{"articles by jake", "GET", "/api/articles?author=jake", "", "", 200, `"articlesCount":1`},
			{"articles tagged dragons", "GET", "/api/articles?tag=dragons", "", "", 200, `"articlesCount":1`},
			{"articles tagged d", "GET", "/api/articles?tag=d", "", "", 200, `"articlesCount":0`},
			{"articles with a bad limit", "GET", "/api/articles?limit=0&offset=-1", "", "", 422, "query.limit"},
			{"articles past the end", "GET", "/api/articles?offset=5", "", "", 200, `{"articles":[],"articlesCount":1}`},
			{"unfavorite", "DELETE", "/api/articles/how-to-train-your-dragon/favorite", jane, "", 200, `"favorited":false,"favoritesCount":0`},
			{"comments", "GET", "/api/articles/how-to-train-your-dragon/comments", "", "", 200, `"body":"Thank you so much!"`},
			{"comments of no article", "GET", "/api/articles/nothing/comments", "", "", 404, ""},
			{"comment on no article", "POST", "/api/articles/nothing/comments", jane, `{"comment":{"body":"b"}}`, 404, ""},
			{"an empty comment", "POST", "/api/articles/how-to-train-your-dragon/comments", jane, `{"comment":{"body":""}}`, 422, "comment.body"},
			{"delete another's comment", "DELETE", "/api/articles/how-to-train-your-dragon/comments/" + cid, jake, "", 403, ""},
			{"delete a comment of another article", "DELETE", "/api/articles/nothing/comments/" + cid, jane, "", 404, ""},
			{"delete comment 0", "DELETE", "/api/articles/how-to-train-your-dragon/comments/0", jane, "", 422, "path.id"},
			{"delete a comment", "DELETE", "/api/articles/how-to-train-your-dragon/comments/" + cid, jane, "", 204, ""},
			{"delete it again", "DELETE", "/api/articles/how-to-train-your-dragon/comments/" + cid, jane, "", 404, "no such comment"},
			{"rename an article", "PUT", "/api/articles/how-to-train-your-dragon", jake, `{"article":{"title":"Dragons, Trained!"}}`, 200, `"slug":"dragons-trained"`},
			{"the old slug", "GET", "/api/articles/how-to-train-your-dragon", "", "", 404, ""},
			{"delete another's article", "DELETE", "/api/articles/dragons-trained", jane, "", 403, ""},
			{"delete an article", "DELETE", "/api/articles/dragons-trained", jake, "", 204, ""},
			{"delete it twice", "DELETE", "/api/articles/dragons-trained", jake, "", 404, ""},
			{"its comments", "GET", "/api/articles/dragons-trained/comments", "", "", 404, ""},
			{"tags", "GET", "/api/tags", "", "", 200, `{"tags":[]}`},
			{"unfollow", "DELETE", "/api/profiles/jake/follow", jane, "", 200, `"following":false`},
			{"no route", "GET", "/api/nothing", "", "", 404, ""},
			{"no method", "PATCH", "/api/user", jake, "", 405, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				a := s.call(t, tc.method, tc.target, tc.token, tc.body).want(t, tc.code)
				if !strings.Contains(a.body, tc.want) {
					t.Errorf("got %s, want it to contain %s", a.body, tc.want)
				}
				if tc.code == 401 && a.header.Get("WWW-Authenticate") == "" {
					t.Error("a 401 without WWW-Authenticate (RFC 9110 section 11.6.1)")
				}
			})
		}
	})
}

// TestPaging checks limit, offset and the count against articles made in
// a known order: newest first, the count the same on every page.
func TestPaging(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		token := s.register(t, "writer")
		for i := range 7 {
			s.post(t, token, "Article "+strconv.Itoa(i), "t"+strconv.Itoa(i%2))
		}
		for _, tc := range []struct {
			target string
			titles string
			count  int
		}{
			{"/api/articles", "6 5 4 3 2 1 0", 7},
			{"/api/articles?limit=3", "6 5 4", 7},
			{"/api/articles?limit=3&offset=3", "3 2 1", 7},
			{"/api/articles?limit=3&offset=6", "0", 7},
			{"/api/articles?offset=7", "", 7},
			{"/api/articles?tag=t1&limit=2", "5 3", 3},
			{"/api/articles?tag=t0&author=writer&offset=1", "4 2 0", 4},
			{"/api/articles?limit=100&offset=1000000000000", "", 7},
		} {
			t.Run(tc.target, func(t *testing.T) {
				list, count := s.list(t, tc.target, "")
				var titles []string
				for _, a := range list {
					titles = append(titles, strings.TrimPrefix(a.Title, "Article "))
				}
				if got := strings.Join(titles, " "); got != tc.titles || count != tc.count {
					t.Errorf("got %q, count %d; want %q, count %d", got, count, tc.titles, tc.count)
				}
			})
		}
	})
}

// TestTimestamps checks the form of createdAt, as the collection's
// regular expression reads it, with a fraction of a second even at a
// whole second.
func TestTimestamps(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		token := s.register(t, "writer")
		a := s.post(t, token, "When")
		iso := regexp.MustCompile(`^\d{4,}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d.\d+(?:[+-][0-2]\d:[0-5]\d|Z)$`)
		if !iso.MatchString(a.CreatedAt) {
			t.Errorf("createdAt %q is not what the collection takes for ISO 8601", a.CreatedAt)
		}
		if _, err := s.db.Exec("UPDATE articles SET created_at = 1700000000000000"); err != nil {
			t.Fatal(err)
		}
		list, _ := s.list(t, "/api/articles", "")
		if len(list) != 1 || list[0].CreatedAt != "2023-11-14T22:13:20.000Z" {
			t.Errorf("got %+v, want createdAt 2023-11-14T22:13:20.000Z", list)
		}
	})
}

// TestMemory serves from the database in memory that the command uses
// when nothing is configured.
func TestMemory(t *testing.T) {
	s := serve(t, "sqlite", "")
	token := s.register(t, "jake")
	s.post(t, token, "Kept")
	if _, count := s.list(t, "/api/articles", ""); count != 1 {
		t.Errorf("got %d articles, want 1", count)
	}
	s.call(t, "GET", "/api/articles/kept", "", "").want(t, http.StatusOK)
}
