package waltz

import (
	"net/http"
	"slices"
	"testing"
)

// TestDeclarationOf holds what a middleware declares to what Responds and
// Authenticates were given, told apart by the value each returns, never
// by where the func is in memory.
func TestDeclarationOf(t *testing.T) {
	pass := func(next HandlerFunc) HandlerFunc { return next }
	bearer := SecurityScheme{Name: "bearerAuth", Type: "http", Scheme: "bearer"}
	other := SecurityScheme{Name: "keyAuth", Type: "apiKey", In: "header", Param: "X-Key"}
	limited := Responds(pass, http.StatusTooManyRequests)
	for _, tc := range []struct {
		name   string
		mw     Middleware
		codes  []int
		scheme string
	}{
		{"plain", pass, nil, ""},
		{"panics on nil next", func(next HandlerFunc) HandlerFunc {
			if next == nil {
				panic("nil next")
			}
			return next
		}, nil, ""},
		{"responds", limited, []int{429}, ""},
		{"authenticates", Authenticates(pass, bearer), []int{401}, "bearerAuth"},
		{"both, merged", Responds(Authenticates(pass, bearer), 400, 401), []int{400, 401}, "bearerAuth"},
		{"same func, other scheme", Authenticates(pass, other), []int{401}, "keyAuth"},
		{"wrapping a declaring one", func(next HandlerFunc) HandlerFunc { return limited(next) }, []int{429}, ""},
	} {
		d := declarationOf(tc.mw)
		var codes []int
		scheme := ""
		if d != nil {
			codes = d.codes
			if d.scheme != nil {
				scheme = d.scheme.Name
			}
		}
		if !slices.Equal(codes, tc.codes) || scheme != tc.scheme {
			t.Errorf("%s: got %v %q, want %v %q", tc.name, codes, scheme, tc.codes, tc.scheme)
		}
	}
}

// TestDeclaringServes checks that a declaring middleware serves requests
// as the middleware it was given.
func TestDeclaringServes(t *testing.T) {
	mark := func(next HandlerFunc) HandlerFunc {
		return func(c *Context) error {
			c.Writer.Header().Set("X-Mark", "1")
			return next(c)
		}
	}
	r := New()
	r.Use(Responds(Authenticates(mark, SecurityScheme{Name: "a", Type: "http", Scheme: "basic"}), 429))
	r.Get("/", func(c *Context) error { return c.NoContent(http.StatusNoContent) })
	w := serve(t, r, http.MethodGet, "/")
	if w.Code != http.StatusNoContent || w.Header().Get("X-Mark") != "1" {
		t.Errorf("got %d X-Mark %q, want 204 and 1", w.Code, w.Header().Get("X-Mark"))
	}
}
