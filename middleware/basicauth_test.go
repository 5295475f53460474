package middleware

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

func basic(userPass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(userPass))
}

func TestBasicAuth(t *testing.T) {
	users := map[string]string{"alice": "secret", "bob": "pa:ss", "jörg": "pässword", "eve": ""}
	validate := func(user, pass string) bool {
		want, ok := users[user]
		return ok && subtle.ConstantTimeCompare([]byte(pass), []byte(want)) == 1
	}
	for _, mode := range []struct {
		name string
		o    BasicAuthOptions
	}{
		{"Users", BasicAuthOptions{Users: users}},
		{"Validate", BasicAuthOptions{Validate: validate}},
	} {
		for _, tc := range []struct {
			name string
			auth []string // Authorization values; nil for none
			user string   // the user admitted; "" for a 401
		}{
			{"valid (RFC 7617 section 2)", []string{basic("alice:secret")}, "alice"},
			{"scheme in lower case (RFC 9110 section 11.1)", []string{"basic " + basic("alice:secret")[6:]}, "alice"},
			{"several spaces before the token", []string{"Basic   " + basic("alice:secret")[6:]}, "alice"},
			{"colon in the password (section 2: split at the first)", []string{basic("bob:pa:ss")}, "bob"},
			{"UTF-8 (section 2.1)", []string{basic("jörg:pässword")}, "jörg"},
			{"empty password", []string{basic("eve:")}, "eve"},
			{"no header", nil, ""},
			{"wrong password", []string{basic("alice:secreT")}, ""},
			{"password prefix", []string{basic("alice:secre")}, ""},
			{"password longer", []string{basic("alice:secret1")}, ""},
			{"unknown user", []string{basic("mallory:secret")}, ""},
			{"empty user and password", []string{basic(":")}, ""},
			{"other scheme", []string{"Bearer " + basic("alice:secret")[6:]}, ""},
			{"scheme only Unicode folds to Basic (U+017F)", []string{"Ba\u017fic " + basic("alice:secret")[6:]}, ""},
			// Hostile rows: malformed input is a 401, never a 500.
			{"scheme only", []string{"Basic"}, ""},
			{"scheme and space", []string{"Basic "}, ""},
			{"no colon", []string{basic("alice")}, ""},
			{"bad base64", []string{"Basic !!!!"}, ""},
			{"base64 without padding", []string{strings.TrimRight(basic("alice:secre"), "=")}, ""},
			{"NUL after the password (section 2: no CTL)", []string{basic("alice:secret\x00")}, ""},
			{"CR LF in the user", []string{basic("alice\r\n:secret")}, ""},
			{"two headers", []string{basic("alice:secret"), basic("alice:secret")}, ""},
			{"10 KB token", []string{"Basic " + strings.Repeat("QUFB", 2560)}, ""},
			{"768 bytes decoded, wrong", []string{basic("alice:" + strings.Repeat("x", 762))}, ""},
			{"769 bytes decoded", []string{basic("alice:" + strings.Repeat("x", 763))}, ""},
		} {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				req := httptest.NewRequest(http.MethodGet, "/", nil)
				if tc.auth != nil {
					req.Header["Authorization"] = tc.auth
				}
				var got string
				w := serve(t, BasicAuth(mode.o), func(c *waltz.Context) error {
					got = BasicAuthUser(c.Request.Context())
					return c.Text(http.StatusOK, "in")
				}, req)
				challenge := w.Header().Get("WWW-Authenticate")
				switch {
				case tc.user != "" && (w.Code != http.StatusOK || got != tc.user || challenge != ""):
					t.Errorf("got %d, user %q, challenge %q, want 200 as %q with no challenge", w.Code, got, challenge, tc.user)
				case tc.user == "" && (w.Code != http.StatusUnauthorized || w.Body.String() != "Unauthorized" ||
					challenge != `Basic realm="Restricted", charset="UTF-8"`):
					t.Errorf("got %d %q with challenge %q, want 401 with the Basic challenge (RFC 7617 section 2)",
						w.Code, w.Body.String(), challenge)
				}
			})
		}
	}
}

func TestBasicAuthLongPassword(t *testing.T) {
	// The longest credentials accepted, 768 bytes decoded.
	pass := strings.Repeat("x", 762)
	w := serve(t, BasicAuth(BasicAuthOptions{Users: map[string]string{"alice": pass}}), ok,
		withHeader("Authorization", basic("alice:"+pass)))
	if w.Code != http.StatusNoContent {
		t.Errorf("got %d, want 204", w.Code)
	}
}

func TestBasicAuthRealm(t *testing.T) {
	for _, tc := range []struct{ realm, want string }{
		{"", `Basic realm="Restricted", charset="UTF-8"`},
		{"Admin area", `Basic realm="Admin area", charset="UTF-8"`},
		{`say "hi" \ bye`, `Basic realm="say \"hi\" \\ bye", charset="UTF-8"`}, // RFC 9110 section 5.6.4
	} {
		t.Run(tc.realm, func(t *testing.T) {
			w := serve(t, BasicAuth(BasicAuthOptions{Realm: tc.realm, Users: map[string]string{"a": "b"}}), ok,
				httptest.NewRequest(http.MethodGet, "/", nil))
			if got := w.Header().Get("WWW-Authenticate"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBasicAuthAllocs(t *testing.T) {
	users := BasicAuth(BasicAuthOptions{Users: map[string]string{"alice": "secret", "bob": "x"}})
	validate := BasicAuth(BasicAuthOptions{Validate: func(u, p string) bool { return u == "alice" && p == "secret" }})
	good, bad := withHeader("Authorization", basic("alice:secret")), withHeader("Authorization", basic("alice:nope"))
	for _, tc := range []struct {
		name string
		mw   waltz.Middleware
		req  *http.Request
		want float64
	}{
		{"Users, admitted", users, good, 2},
		// A refusal's challenge is a value slice of its own: 1.
		{"Users, refused", users, bad, 1},
		{"Users, no header", users, httptest.NewRequest(http.MethodGet, "/", nil), 1},
		{"Validate, admitted", validate, good, 3},
		{"Validate, refused", validate, bad, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := func(c *waltz.Context) error {
				_ = BasicAuthUser(c.Request.Context()) // reading it is free
				return nil
			}
			if got := allocs(t, tc.mw, h, tc.req); got != tc.want {
				t.Errorf("got %v allocations per request, want %v", got, tc.want)
			}
		})
	}
}

func TestBasicAuthBadOptions(t *testing.T) {
	v := func(string, string) bool { return true }
	for _, tc := range []struct {
		name string
		o    BasicAuthOptions
		want string
	}{
		{"zero", BasicAuthOptions{}, "waltz: BasicAuthOptions needs either Users, not empty, or Validate"},
		{"empty map", BasicAuthOptions{Users: map[string]string{}}, "waltz: BasicAuthOptions needs either Users, not empty, or Validate"},
		{"both", BasicAuthOptions{Users: map[string]string{"a": "b"}, Validate: v}, "waltz: BasicAuthOptions needs either Users, not empty, or Validate"},
		{"colon in a name", BasicAuthOptions{Users: map[string]string{"a:b": "c"}}, `waltz: BasicAuthOptions.Users name "a:b" holds a colon`},
		{"CR LF in the realm", BasicAuthOptions{Realm: "x\r\nSet-Cookie: a=b", Validate: v},
			`waltz: BasicAuthOptions.Realm "x\r\nSet-Cookie: a=b" is not printable ASCII`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := panicMessage(func() { BasicAuth(tc.o) }); got != tc.want {
				t.Errorf("got panic %q, want %q", got, tc.want)
			}
		})
	}
}

func ExampleBasicAuth() {
	r := waltz.New()
	admin := r.Group("/admin", BasicAuth(BasicAuthOptions{
		Realm: "Admin",
		Users: map[string]string{"alice": "correct horse"},
	}))
	admin.Get("/", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "hello "+BasicAuthUser(c.Request.Context()))
	})

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/admin/", nil))
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))

	req := httptest.NewRequest(http.MethodGet, "/admin/", nil)
	req.SetBasicAuth("alice", "correct horse")
	w = httptest.NewRecorder()
	r.ServeHTTP(w, req)
	fmt.Println(w.Code, w.Body.String())
	// Output:
	// 401 Basic realm="Admin", charset="UTF-8"
	// 200 hello alice
}
