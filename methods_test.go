package waltz

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAllowHeader(t *testing.T) {
	// RFC 9110 section 10.2.1: Allow is a list of method names; waltz lists
	// each once, sorted, so the header is the same on every run. A mount's
	// any-method entry is not a name and must not show as an empty item.
	for _, tt := range []struct {
		ms          []string
		withOptions bool
		want        string
	}{
		{[]string{"GET", "HEAD"}, false, "GET, HEAD"},
		{[]string{"PUT", "GET", "HEAD", "GET"}, true, "GET, HEAD, OPTIONS, PUT"},
		{[]string{"OPTIONS", "PROPFIND"}, true, "OPTIONS, PROPFIND"},
		{[]string{methodAny, "GET"}, true, "GET, OPTIONS"},
		{nil, true, "OPTIONS"},
	} {
		t.Run(strings.Join(tt.ms, ","), func(t *testing.T) {
			got := allowHeader(tt.ms, tt.withOptions)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestNotImplemented: a method outside RFC 9110's, PATCH and QUERY that
// no route serves anywhere is a 501 where another method's route matches
// the path (RFC 9110 sections 9.1 and 15.6.2); one a route serves
// elsewhere, or any method under a router with a mount, stays a 405; a
// path no route matches stays a 404.
func TestNotImplemented(t *testing.T) {
	ok := func(c *Context) error { return c.NoContent(http.StatusNoContent) }
	var logs strings.Builder
	r := New()
	r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	r.Get("/users/:id", ok)
	r.Handle("PURGE", "/cache", ok)
	mounted := New()
	mounted.Get("/users/:id", ok)
	mounted.Mount("/files", http.NotFoundHandler())
	for _, tt := range []struct {
		r              *Router
		method, target string
		code           int
	}{
		{r, "BREW", "/users/7", http.StatusNotImplemented},
		{r, "get", "/users/7", http.StatusNotImplemented},
		{r, "PURGE", "/users/7", http.StatusMethodNotAllowed},
		{r, "DELETE", "/users/7", http.StatusMethodNotAllowed},
		{r, "PATCH", "/users/7", http.StatusMethodNotAllowed},
		{r, MethodQuery, "/users/7", http.StatusMethodNotAllowed},
		{r, "BREW", "/nothing", http.StatusNotFound},
		{mounted, "BREW", "/users/7", http.StatusMethodNotAllowed},
	} {
		w := httptest.NewRecorder()
		tt.r.ServeHTTP(w, httptest.NewRequest(tt.method, tt.target, nil))
		if w.Code != tt.code {
			t.Errorf("%s %s: got %d, want %d", tt.method, tt.target, w.Code, tt.code)
		}
		if allow := w.Header().Get("Allow"); (w.Code == http.StatusMethodNotAllowed) != (allow != "") {
			t.Errorf("%s %s: %d with Allow %q", tt.method, tt.target, w.Code, allow)
		}
	}
	// The client's doing, as a 4xx is: not logged as a handler's error.
	if logs.Len() != 0 {
		t.Errorf("logged %q", logs.String())
	}
}
