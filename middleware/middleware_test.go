package middleware

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

func TestRecoverer(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(old)

	r := waltz.New()
	r.Use(Recoverer)
	r.Get("/panic", func(c *waltz.Context) error { panic("secret detail") })
	r.Get("/late", func(c *waltz.Context) error {
		c.Text(http.StatusOK, "partial")
		panic("after writing")
	})
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/panic", 500, "Internal Server Error"},
		{"/late", 200, "partial"}, // nothing appended to a started response
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
		if w.Code != tc.code || w.Body.String() != tc.body {
			t.Errorf("%s: got %d %q, want %d %q", tc.path, w.Code, w.Body.String(), tc.code, tc.body)
		}
	}
	if !strings.Contains(logs.String(), "secret detail") || !strings.Contains(logs.String(), "stack=") {
		t.Errorf("panic and stack not logged: %q", logs.String())
	}
}

func TestRecovererReraisesAbort(t *testing.T) {
	r := waltz.New()
	r.Use(Recoverer)
	r.Get("/", func(c *waltz.Context) error { panic(http.ErrAbortHandler) })
	defer func() {
		if v := recover(); v != http.ErrAbortHandler {
			t.Errorf("got panic %v, want http.ErrAbortHandler", v)
		}
	}()
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
}

func TestLogger(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))))
	r.Get("/user/:id", func(c *waltz.Context) error { return c.Text(http.StatusOK, "hi "+c.Param("id")) })
	r.Get("/gone", func(c *waltz.Context) error { return &waltz.HTTPError{Code: http.StatusGone} })
	for _, tc := range []struct{ path, want string }{
		{"/user/7", `level=INFO msg=request method=GET path=/user/7 pattern=/user/:id status=200 bytes=4`},
		{"/gone", `level=INFO msg=request method=GET path=/gone pattern=/gone status=410 bytes=0`},
		{"/nope", `level=INFO msg=request method=GET path=/nope pattern="" status=404 bytes=0`},
	} {
		logs.Reset()
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", tc.path, nil))
		if !strings.Contains(logs.String(), tc.want) {
			t.Errorf("%s: got log %q, want it to contain %q", tc.path, logs.String(), tc.want)
		}
	}
}
