package waltz_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
)

type formatKey struct{}

// stripFormat is standard middleware as chi users write it: a ".json" or
// ".txt" suffix becomes a format in the context, and the path without it
// is what gets routed. It passes on a copy of the request, as net/http
// middleware must.
func stripFormat(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, f := range []string{"json", "txt"} {
			if p, ok := strings.CutSuffix(r.URL.Path, "."+f); ok {
				r2 := r.WithContext(context.WithValue(r.Context(), formatKey{}, f))
				u := *r.URL
				u.Path = p
				u.RawPath, _ = strings.CutSuffix(u.RawPath, "."+f)
				r2.URL = &u
				r = r2
				break
			}
		}
		next.ServeHTTP(w, r)
	})
}

// preRouter routes after a format suffix is taken off and a method
// override applied, with router middleware that logs what it sees and
// errors rendered as "rendered <code> <message>".
func preRouter(log *[]string) *waltz.Router {
	r := waltz.New()
	r.RenderError = func(c *waltz.Context, e *waltz.HTTPError) {
		c.Text(e.Code, "rendered "+strconv.Itoa(e.Code)+" "+e.Message)
	}
	r.Pre(waltz.WrapMiddleware(stripFormat), middleware.MethodOverride(middleware.MethodOverrideOptions{}))
	r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			err := next(c)
			*log = append(*log, c.Request.Method+" "+c.Request.URL.Path+" pattern="+c.Pattern()+" status="+strconv.Itoa(c.Response().Status()))
			return err
		}
	})
	show := func(c *waltz.Context) error {
		f, _ := c.Request.Context().Value(formatKey{}).(string)
		return c.Text(http.StatusOK, c.Request.Method+" "+c.Pattern()+" id="+c.Param("id")+" format="+f)
	}
	r.Get("/articles/:id", show)
	r.Delete("/articles/:id", show)
	r.Get("/articles/", show)
	return r
}

func TestPre(t *testing.T) {
	for _, tc := range []struct {
		name, method, target, override string
		want, location, allow          string
		log                            string
	}{
		{name: "suffix", method: "GET", target: "/articles/7.json",
			want: "200 GET /articles/:id id=7 format=json", log: "GET /articles/7 pattern=/articles/:id status=200"},
		{name: "no suffix", method: "GET", target: "/articles/7",
			want: "200 GET /articles/:id id=7 format=", log: "GET /articles/7 pattern=/articles/:id status=200"},
		{name: "suffix, escaped path", method: "GET", target: "/articles/a%2Fb.txt",
			want: "200 GET /articles/:id id=a/b format=txt", log: "GET /articles/a/b pattern=/articles/:id status=200"},
		{name: "override", method: "POST", target: "/articles/7", override: "DELETE",
			want: "200 DELETE /articles/:id id=7 format=", log: "DELETE /articles/7 pattern=/articles/:id status=200"},
		{name: "override and suffix", method: "POST", target: "/articles/7.json", override: "DELETE",
			want: "200 DELETE /articles/:id id=7 format=json", log: "DELETE /articles/7 pattern=/articles/:id status=200"},
		{name: "suffix 404", method: "GET", target: "/nope.json",
			want: "404 rendered 404 ", log: "GET /nope pattern= status=404"},
		{name: "suffix 405", method: "PUT", target: "/articles/7.json",
			want: "405 rendered 405 ", allow: "DELETE, GET, HEAD, OPTIONS",
			log: "PUT /articles/7 pattern= status=405"},
		{name: "override 405", method: "POST", target: "/articles/7", override: "PATCH",
			want: "405 rendered 405 ", allow: "DELETE, GET, HEAD, OPTIONS",
			log: "PATCH /articles/7 pattern= status=405"},
		{name: "override refused", method: "POST", target: "/articles/7", override: "GET",
			want: "400 rendered 400 method override \"GET\": only PUT, PATCH and DELETE can stand in for POST"},
		{name: "redirect of the rewritten path", method: "GET", target: "/articles.json",
			want: "301 ", location: "/articles/", log: "GET /articles pattern= status=301"},
		{name: "OPTIONS of the rewritten path", method: "OPTIONS", target: "/articles/7.json",
			want: "204 ", allow: "DELETE, GET, HEAD, OPTIONS", log: "OPTIONS /articles/7 pattern= status=204"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			r := preRouter(&log)
			req := httptest.NewRequest(tc.method, tc.target, nil)
			if tc.override != "" {
				req.Header.Set("X-HTTP-Method-Override", tc.override)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if got := strconv.Itoa(w.Code) + " " + w.Body.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if got := w.Header().Get("Location"); got != tc.location {
				t.Errorf("got Location %q, want %q", got, tc.location)
			}
			if got := w.Header().Get("Allow"); got != tc.allow {
				t.Errorf("got Allow %q, want %q", got, tc.allow)
			}
			if got := strings.Join(log, "; "); got != tc.log {
				t.Errorf("router middleware saw %q, want %q", got, tc.log)
			}
		})
	}
}

// TestPreNative: native Pre middleware that rewrites c.Request is routed
// as rewritten, sees the route once next returns, and the request given
// to ServeHTTP carries the pattern; Pre middleware runs in order, and
// their errors go to the error handler.
func TestPreNative(t *testing.T) {
	var order []string
	mark := func(name string) waltz.Middleware {
		return func(next waltz.HandlerFunc) waltz.HandlerFunc {
			return func(c *waltz.Context) error {
				order = append(order, name+">"+c.Pattern())
				err := next(c)
				order = append(order, "<"+name+" "+c.Pattern())
				return err
			}
		}
	}
	strip := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			p, ok := strings.CutPrefix(c.Request.URL.Path, "/v1")
			if !ok {
				return &waltz.HTTPError{Code: http.StatusNotFound, Message: "no such version"}
			}
			r2 := new(http.Request)
			*r2 = *c.Request
			u := *c.Request.URL
			u.Path = p
			r2.URL = &u
			c.Request = r2
			return next(c)
		}
	}
	r := waltz.New()
	r.Pre(mark("a"))
	r.Pre(mark("b"), strip)
	r.Get("/users/:id", func(c *waltz.Context) error { return c.Text(http.StatusOK, c.Param("id")) })
	for _, tc := range []struct {
		path, want, pattern, order string
	}{
		{"/v1/users/3", "200 3", "/users/:id", "a>; b>; <b /users/:id; <a /users/:id"},
		{"/v2/users/3", "404 no such version", "", "a>; b>; <b ; <a "},
	} {
		order = nil
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if got := strconv.Itoa(w.Code) + " " + w.Body.String(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.path, got, tc.want)
		}
		if req.Pattern != tc.pattern {
			t.Errorf("%s: the server's request: got Pattern %q, want %q", tc.path, req.Pattern, tc.pattern)
		}
		if got := strings.Join(order, "; "); got != tc.order {
			t.Errorf("%s: got order %q, want %q", tc.path, got, tc.order)
		}
	}
	func() {
		defer func() {
			if msg, _ := recover().(string); !strings.HasPrefix(msg, "waltz: Pre (at pre_test.go:") {
				t.Errorf("got panic %q, want one naming Pre and where", msg)
			}
		}()
		r.Pre(nil)
	}()
	func() {
		defer func() {
			if msg, _ := recover().(string); !strings.Contains(msg, "after the router began serving requests") {
				t.Errorf("Pre after serving: got panic %q, want one saying it came after serving", msg)
			}
		}()
		r.Pre(mark("late")) // r served requests above
	}()
}

// TestPreSecondDispatch checks that a Pre middleware that routes its
// request a second time (the route it reached first wrote nothing, so it
// tries another path) gets the second lookup's route alone: a miss has
// no pattern, params or Accept-Query of the first route (RFC 10008
// section 3: the field is a QUERY route's), and a static route no params.
func TestPreSecondDispatch(t *testing.T) {
	r := waltz.New()
	var seen []string
	r.Pre(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			if err := next(c); err != nil || c.Response().Written() {
				return err
			}
			r2 := c.Request.Clone(c.Request.Context())
			r2.Method, r2.URL.Path = http.MethodGet, c.Request.Header.Get("Then")
			c.Request = r2
			return next(c)
		}
	})
	r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			err := next(c)
			seen = append(seen, c.Pattern()+"|"+strconv.Itoa(len(c.Params())))
			return err
		}
	})
	r.Query("/q/:id", func(c *waltz.Context) error { return nil }).Accepts("application/json")
	r.Get("/plain", func(c *waltz.Context) error { return c.Text(http.StatusOK, "id="+c.Param("id")) })
	for _, tc := range []struct {
		then, want, seen string
	}{
		{"/nowhere", "404 Not Found ", "/q/:id|1; |0"},
		{"/plain", "200 id= ", "/q/:id|1; /plain|0"},
	} {
		seen = nil
		req := httptest.NewRequest(waltz.MethodQuery, "/q/7", strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Then", tc.then)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if got := strconv.Itoa(w.Code) + " " + w.Body.String() + " " + w.Header().Get("Accept-Query"); got != tc.want {
			t.Errorf("then %s: got %q, want %q", tc.then, got, tc.want)
		}
		if got := strings.Join(seen, "; "); got != tc.seen {
			t.Errorf("then %s: the routes seen: got %q, want %q", tc.then, got, tc.seen)
		}
	}
}
