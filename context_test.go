package waltz

import (
	"errors"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestContextHelpers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		h     HandlerFunc
		code  int
		ctype string
		body  string
	}{
		{"Text", func(c *Context) error { return c.Text(201, "hi") }, 201, "text/plain; charset=utf-8", "hi"},
		{"HTML", func(c *Context) error { return c.HTML(200, "<p>hi</p>") }, 200, "text/html; charset=utf-8", "<p>hi</p>"},
		{"JSON", func(c *Context) error {
			return c.JSON(200, map[string]any{"id": 7, "tags": []string{"a"}})
		}, 200, "application/json", `{"id":7,"tags":["a"]}` + "\n"},
		{"JSON error sends nothing", func(c *Context) error { return c.JSON(200, math.Inf(1)) }, 500, "text/plain; charset=utf-8", "Internal Server Error"},
		{"Blob", func(c *Context) error { return c.Blob(200, "image/png", []byte{0x89, 'P'}) }, 200, "image/png", "\x89P"},
		{"NoContent", func(c *Context) error { return c.NoContent(204) }, 204, "", ""},
		{"Query", func(c *Context) error { return c.Text(200, c.Query("q")+"|"+c.Query("missing")+"|"+c.Query("q")) }, 200, "text/plain; charset=utf-8", "a b||a b"},
		{"Params", func(c *Context) error {
			ps := c.Params()
			return c.Text(200, ps[0].Key+"="+ps[0].Value)
		}, 200, "text/plain; charset=utf-8", "id=42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			silenceLogs(t)
			r := New()
			r.Get("/x/:id", tc.h)
			w := serve(t, r, "GET", "/x/42?q=a+b")
			if w.Code != tc.code || w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.code, tc.body)
			}
			if got := w.Header().Get("Content-Type"); got != tc.ctype {
				t.Errorf("Content-Type: got %q, want %q", got, tc.ctype)
			}
		})
	}
}

func TestRedirectHelper(t *testing.T) {
	silenceLogs(t)
	r := New()
	r.Get("/old", func(c *Context) error { return c.Redirect(http.StatusFound, "/new?x=1") })
	r.Get("/bad", func(c *Context) error { return c.Redirect(http.StatusOK, "/new") })
	if w := serve(t, r, "GET", "/old"); w.Code != 302 || w.Header().Get("Location") != "/new?x=1" {
		t.Errorf("got %d Location %q, want 302 %q", w.Code, w.Header().Get("Location"), "/new?x=1")
	}
	if w := serve(t, r, "GET", "/bad"); w.Code != 500 || w.Header().Get("Location") != "" {
		t.Errorf("non-3xx redirect: got %d Location %q, want 500 and no Location", w.Code, w.Header().Get("Location"))
	}
}

// TestCopy checks that a copied Context keeps its params after the request
// ends and the pooled Context is reused, and that writing to it fails.
func TestCopy(t *testing.T) {
	r := New()
	var kept *Context
	r.Get("/user/:id", func(c *Context) error {
		if kept == nil {
			kept = c.Copy()
		}
		return nil
	})
	serve(t, r, "GET", "/user/first")
	serve(t, r, "GET", "/user/second")
	if got := kept.Param("id"); got != "first" {
		t.Errorf("copied param: got %q, want %q", got, "first")
	}
	if got := kept.Pattern(); got != "/user/:id" {
		t.Errorf("copied pattern: got %q, want %q", got, "/user/:id")
	}
	if err := kept.Text(200, "late"); !errors.Is(err, ErrDetached) {
		t.Errorf("write to copy: got %v, want ErrDetached", err)
	}
}

func TestParams(t *testing.T) {
	ps := Params{{"a", "1"}, {"path", ""}}
	for _, tc := range []struct {
		name, value string
		ok          bool
	}{{"a", "1", true}, {"path", "", true}, {"b", "", false}} {
		if v, ok := ps.Lookup(tc.name); v != tc.value || ok != tc.ok {
			t.Errorf("Lookup(%q): got %q %v, want %q %v", tc.name, v, ok, tc.value, tc.ok)
		}
		if v := ps.Get(tc.name); v != tc.value {
			t.Errorf("Get(%q): got %q, want %q", tc.name, v, tc.value)
		}
	}
}

// TestSecondResponse: a helper called after the response started writes
// nothing and returns an error, which the error handler logs, as net/http
// logs a superfluous WriteHeader; the first helper's answer was whole, so
// it stands, not aborted: the client gets it whole.
func TestSecondResponse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		second func(c *Context) error
	}{
		{"JSON", func(c *Context) error { return c.JSON(http.StatusInternalServerError, "second") }},
		{"Text", func(c *Context) error { return c.Text(http.StatusInternalServerError, "second") }},
		{"HTML", func(c *Context) error { return c.HTML(http.StatusOK, "second") }},
		{"Blob", func(c *Context) error { return c.Blob(http.StatusOK, "x/y", []byte("second")) }},
		{"NoContent", func(c *Context) error { return c.NoContent(http.StatusNoContent) }},
		{"Redirect", func(c *Context) error { return c.Redirect(http.StatusFound, "/x") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs strings.Builder
			r := New()
			r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			r.Get("/", func(c *Context) error {
				if err := c.JSON(http.StatusOK, "first"); err != nil {
					return err
				}
				return tc.second(c)
			})
			w := httptest.NewRecorder()
			if got := panicMessage(func() { r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil)) }); got != "" {
				t.Errorf("got panic %q, want none", got)
			}
			if w.Code != 200 || w.Body.String() != "\"first\"\n" {
				t.Errorf("got %d %q, want 200 \"first\"", w.Code, w.Body.String())
			}
			if !strings.Contains(logs.String(), "response already started") || !strings.Contains(logs.String(), tc.name+"(") {
				t.Errorf("got log %q, want the second call reported", logs.String())
			}
			// The status sent, not the 500 the error would have had.
			if want := "status=200"; !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), "aborted=false") {
				t.Errorf("got log %q, want %s and aborted=false", logs.String(), want)
			}
		})
	}
}
