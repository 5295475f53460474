package main

import (
	"crypto/rand"
	"net/http"
	"sync"

	"github.com/waltz-go/waltz"
)

// maxSessions bounds the sessions kept in memory; when it is reached, the
// next sign-in forgets them all.
const maxSessions = 10000

// sessionCookie is the name of the cookie that holds a session's ID.
const sessionCookie = "session"

// sessions knows the IDs of the sessions signed in. It is safe for
// concurrent use.
type sessions struct {
	mu  sync.Mutex
	ids map[string]bool
}

func newSessions() *sessions { return &sessions{ids: make(map[string]bool)} }

func (s *sessions) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids)
}

// create answers POST /api/session: it starts a session and sets its ID in
// an HttpOnly cookie. A page on another origin of the same site keeps the
// cookie when it calls with credentials: "include", and sends it back.
func (s *sessions) create(c *waltz.Context) error {
	id := rand.Text()
	s.mu.Lock()
	if len(s.ids) >= maxSessions {
		clear(s.ids)
	}
	s.ids[id] = true
	s.mu.Unlock()
	http.SetCookie(c.Writer, &http.Cookie{
		Name: sessionCookie, Value: id, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: c.Request.TLS != nil,
	})
	return c.NoContent(http.StatusNoContent)
}

// me answers GET /api/me: 401 without a known session cookie, else what the
// server saw of the caller: the X-Client header and the request ID.
func (s *sessions) me(c *waltz.Context) error {
	ck, err := c.Request.Cookie(sessionCookie)
	if err == nil {
		s.mu.Lock()
		ok := s.ids[ck.Value]
		s.mu.Unlock()
		if !ok {
			err = http.ErrNoCookie
		}
	}
	if err != nil {
		return &waltz.HTTPError{Code: http.StatusUnauthorized, Message: "no session: POST /api/session first"}
	}
	return c.JSON(http.StatusOK, map[string]any{
		"session": true,
		"client":  c.Request.Header.Get("X-Client"),
	})
}
