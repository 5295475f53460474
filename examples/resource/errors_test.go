package main

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestErrorsLoggedOnce holds that the app renders its JSON errors under
// the default rules: a 500 leaks nothing and is logged once, and not at
// all by the error handler when a middleware logs the request itself.
func TestErrorsLoggedOnce(t *testing.T) {
	var logs bytes.Buffer
	r := newApp(NewStore(), testToken, &waltz.Server{})
	r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	fail := func(c *waltz.Context) error { return errors.New("disk on fire") }
	r.Get("/boom", fail)
	markLogged := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error { c.MarkLogged(); return next(c) }
	}
	r.With(markLogged).Get("/boom-logged", fail)
	for _, tc := range []struct {
		path  string
		lines int
	}{{"/boom", 1}, {"/boom-logged", 0}} {
		logs.Reset()
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if got, want := strings.TrimSpace(w.Body.String()), `{"error":"Internal Server Error"}`; w.Code != 500 || got != want {
			t.Errorf("%s: got %d %s, want 500 %s", tc.path, w.Code, got, want)
		}
		if got := strings.Count(logs.String(), "disk on fire"); got != tc.lines {
			t.Errorf("%s: got %d log lines with the error, want %d:\n%s", tc.path, got, tc.lines, &logs)
		}
	}
}
