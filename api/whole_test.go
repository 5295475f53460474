package api

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/waltz-go/waltz"
)

type wholeOut struct {
	Body struct {
		A int `json:"a"`
	}
}

type wholeHeaders struct {
	X string `header:"X-Thing"`
}

// TestTypedAnswerWhole: a typed operation's answer, with a body or with
// header fields alone, is whole: an error a middleware returns after it
// is logged, and the answer stands, as after a helper's.
func TestTypedAnswerWhole(t *testing.T) {
	r := waltz.New()
	r.Logger = slog.New(slog.DiscardHandler)
	r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			if err := next(c); err != nil {
				return err
			}
			return errors.New("failed after the answer")
		}
	})
	Op(r, http.MethodGet, "/body", func(c *waltz.Context, _ *struct{}) (*wholeOut, error) {
		o := &wholeOut{}
		o.Body.A = 1
		return o, nil
	}, Operation{ID: "body"})
	Op(r, http.MethodGet, "/fields", func(c *waltz.Context, _ *struct{}) (*wholeHeaders, error) {
		return &wholeHeaders{X: "y"}, nil
	}, Operation{ID: "fields"})
	for _, path := range []string{"/body", "/fields"} {
		w := httptest.NewRecorder()
		var got any
		func() {
			defer func() { got = recover() }()
			r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		}()
		if got != nil {
			t.Errorf("%s: panic %v (the answer cut), want it to stand: %d %q", path, got, w.Code, w.Body)
		}
	}
}
