package conduit_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waltz-go/waltz/examples/realworld/conduit"
	"golang.org/x/crypto/bcrypt"
)

// testKey signs the tests' tokens.
var testKey = []byte("the tests' key, 32 bytes or more, never used elsewhere")

// server is the API served over real HTTP on a real database.
type server struct {
	url    string
	db     *conduit.DB
	engine string // "sqlite" or "postgres"
}

// engines runs f once on SQLite (a file in a temporary directory) and
// once on PostgreSQL when CONDUIT_TEST_POSTGRES is set: the URL of a
// server where the tests may create and drop databases, such as
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable (ci.sh sets
// it).
func engines(t *testing.T, f func(t *testing.T, s *server)) {
	t.Run("sqlite", func(t *testing.T) {
		f(t, serve(t, "sqlite", filepath.Join(t.TempDir(), "conduit.db")))
	})
	admin := os.Getenv("CONDUIT_TEST_POSTGRES")
	if admin == "" {
		t.Log("CONDUIT_TEST_POSTGRES is not set: not on PostgreSQL")
		return
	}
	t.Run("postgres", func(t *testing.T) {
		f(t, serve(t, "postgres", freshPostgres(t, admin)))
	})
}

// freshPostgres creates a database of its own for t on the server admin
// names, dropped when t ends, and returns its URL.
func freshPostgres(t *testing.T, admin string) string {
	t.Helper()
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	// A collation of people's (ICU's en-US), not the server's default,
	// which is often C: ORDER BY then sorts as most databases in use do.
	name := "conduit_test_" + strings.ToLower(rand.Text()[:12])
	if _, err := db.Exec("CREATE DATABASE " + name + " TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// serve opens the database dsn on engine and serves the API on it until
// t ends.
func serve(t *testing.T, engine, dsn string) *server {
	t.Helper()
	db, err := conduit.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(conduit.New(db, conduit.Options{Key: testKey, BcryptCost: bcrypt.MinCost}))
	t.Cleanup(func() {
		srv.Close()
		db.Close()
	})
	return &server{url: srv.URL, db: db, engine: engine}
}

// answer is a response as the tests read it.
type answer struct {
	code   int
	header http.Header
	body   string
}

// decode decodes the answer's JSON body into v.
func (a answer) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(a.body), v); err != nil {
		t.Fatalf("body %q: %v", a.body, err)
	}
}

// errors returns the messages of an error answer, failing t unless it is
// in the spec's shape, {"errors": {"body": [...]}}, with one or more.
func (a answer) errors(t testing.TB) []string {
	t.Helper()
	var e struct {
		Errors struct {
			Body []string `json:"body"`
		} `json:"errors"`
	}
	a.decode(t, &e)
	if len(e.Errors.Body) == 0 || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
		t.Fatalf("error answer %d %s %q: want {\"errors\": {\"body\": [...]}} as application/json", a.code, a.header.Get("Content-Type"), a.body)
	}
	return e.Errors.Body
}

// call sends one request: token, when set, as "Authorization: Token
// <token>"; a body as application/json.
func (s *server) call(t testing.TB, method, target, token, body string) answer {
	t.Helper()
	var header http.Header
	if token != "" {
		header = http.Header{"Authorization": {"Token " + token}}
	}
	return s.send(t, method, target, header, body)
}

// send sends one request with the header fields h.
func (s *server) send(t testing.TB, method, target string, h http.Header, body string) answer {
	t.Helper()
	a, err := s.do(method, target, h, body)
	if err != nil {
		t.Fatal(err)
	}
	if a.code >= 400 {
		a.errors(t)
	}
	return a
}

// do sends one request with the header fields h: send, for goroutines
// other than the test's.
func (s *server) do(method, target string, h http.Header, body string) (answer, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+target, rd)
	if err != nil {
		return answer{}, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, string(b)}, err
}

// want fails t unless a has the status code.
func (a answer) want(t testing.TB, code int) answer {
	t.Helper()
	if a.code != code {
		t.Fatalf("got %d %s, want %d", a.code, a.body, code)
	}
	return a
}

// jsonString returns s as a JSON string.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// register registers the user name (email name@example.com, password
// "password") and returns its token.
func (s *server) register(t testing.TB, name string) string {
	t.Helper()
	a := s.call(t, "POST", "/api/users", "", `{"user":{"username":`+jsonString(name)+`,"email":`+
		jsonString(strings.ToLower(emailOf(name)))+`,"password":"password"}}`).want(t, http.StatusCreated)
	var u struct{ User struct{ Token string } }
	a.decode(t, &u)
	return u.User.Token
}

// emailOf returns an email address for the username name, which may hold
// any character.
func emailOf(name string) string {
	return fmt.Sprintf("u%x@example.com", name)
}

// article is an article as the tests read it.
type article struct {
	Slug           string   `json:"slug"`
	Title          string   `json:"title"`
	Description    string   `json:"description"`
	Body           string   `json:"body"`
	TagList        []string `json:"tagList"`
	CreatedAt      string   `json:"createdAt"`
	Favorited      bool     `json:"favorited"`
	FavoritesCount int      `json:"favoritesCount"`
	Author         struct {
		Username  string `json:"username"`
		Following bool   `json:"following"`
	} `json:"author"`
}

// post creates an article as token and returns it.
func (s *server) post(t testing.TB, token, title string, tags ...string) article {
	t.Helper()
	list := ""
	if tags != nil { // the spec's tagList is an array: null is refused
		b, _ := json.Marshal(tags)
		list = `,"tagList":` + string(b)
	}
	a := s.call(t, "POST", "/api/articles", token, `{"article":{"title":`+jsonString(title)+
		`,"description":"d","body":"b"`+list+`}}`).want(t, http.StatusCreated)
	var out struct{ Article article }
	a.decode(t, &out)
	return out.Article
}

// list answers GET target's articles and their count.
func (s *server) list(t testing.TB, target, token string) ([]article, int) {
	t.Helper()
	var out struct {
		Articles      []article
		ArticlesCount int
	}
	s.call(t, "GET", target, token, "").want(t, http.StatusOK).decode(t, &out)
	return out.Articles, out.ArticlesCount
}
