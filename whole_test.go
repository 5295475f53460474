package waltz

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestWholeAnswer: an error a middleware returns after the handler's whole
// answer leaves that answer as it is, also when the handler ran inside
// net/http middleware (WrapMiddleware); a part written to the Writer
// after a helper's answer makes it no longer whole, and the error cuts it.
func TestWholeAnswer(t *testing.T) {
	silenceLogs(t)
	late := func(next HandlerFunc) HandlerFunc {
		return func(c *Context) error {
			if err := next(c); err != nil {
				return err
			}
			return errors.New("failed after the answer")
		}
	}
	r := New()
	r.Use(late)
	r.Get("/plain", func(c *Context) error { return c.JSON(http.StatusOK, 1) })
	r.With(WrapMiddleware(func(h http.Handler) http.Handler { return h })).
		Get("/wrapped", func(c *Context) error { return c.JSON(http.StatusOK, 1) })
	r.Get("/more", func(c *Context) error {
		_ = c.JSON(http.StatusOK, map[string]int{"a": 1})
		_, err := c.Writer.Write([]byte(`{"partial":`))
		return err
	})
	for _, tt := range []struct {
		path string
		cut  bool
	}{{"/plain", false}, {"/wrapped", false}, {"/more", true}} {
		w := httptest.NewRecorder()
		got := panicMessage(func() { r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tt.path, nil)) })
		if cut := got == http.ErrAbortHandler.Error(); cut != tt.cut {
			t.Errorf("%s: cut %v (panic %q), body %q; want cut %v", tt.path, cut, got, w.Body, tt.cut)
		}
		if !tt.cut && w.Body.String() != "1\n" {
			t.Errorf("%s: body %q, want the whole answer", tt.path, w.Body)
		}
	}
}
