package waltz

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestZeroAllocs holds the allocation budget: routing and the Context cost
// nothing per request on static, param and catch-all routes. A 405 and an
// automatic OPTIONS cost one: the Allow field's value slice of its own,
// which no other response shares (see allowField).
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	r := New()
	// A middleware that does nothing but call on: chains cost nothing either.
	r.Use(func(next HandlerFunc) HandlerFunc { return func(c *Context) error { return next(c) } })
	r.Get("/", func(c *Context) error { return c.Text(http.StatusOK, "Hello") })
	r.Get("/user/:id", func(c *Context) error {
		_, err := io.WriteString(c.Writer, c.Param("id"))
		return err
	})
	r.Get("/repos/:owner/:repo/stargazers", func(c *Context) error {
		return c.Text(http.StatusOK, c.Param("owner"))
	})
	r.Get("/static/*path", func(c *Context) error { return c.NoContent(http.StatusNoContent) })
	for _, tc := range []struct {
		method, path string
		allocs       float64
	}{
		{"GET", "/", 0},
		{"GET", "/user/123", 0},
		{"HEAD", "/user/123", 0},
		{"GET", "/repos/julienschmidt/httprouter/stargazers", 0},
		{"GET", "/static/css/site.css", 0},
		{"POST", "/user/123", 1},
		{"OPTIONS", "/user/123", 1},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			w, req := newNopWriter(), httptest.NewRequest(tc.method, tc.path, nil)
			if got := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, req) }); got != tc.allocs {
				t.Errorf("got %v allocs per request, want %v", got, tc.allocs)
			}
		})
	}
}

// TestMiddlewareOrder checks the documented order: router Use, then each
// enclosing group's, outer to inner, then With; and that each middleware sees
// the matched pattern and the error returned inside it.
func TestMiddlewareOrder(t *testing.T) {
	var log []string
	mw := func(name string) Middleware {
		return func(next HandlerFunc) HandlerFunc {
			return func(c *Context) error {
				log = append(log, name+">"+c.Pattern())
				err := next(c)
				log = append(log, fmt.Sprintf("<%s %v", name, err))
				return err
			}
		}
	}
	r := New()
	r.Use(mw("router"))
	api := r.Group("/api", mw("api"))
	v1 := api.Group("/v1")
	v1.Use(mw("v1"))
	v1.With(mw("with")).Get("/items/:id", func(c *Context) error {
		log = append(log, "handler")
		return errors.New("boom")
	})
	api.Get("/other", func(c *Context) error { log = append(log, "other"); return nil })
	r.Get("/api/v1/plain", func(c *Context) error { log = append(log, "plain"); return nil })

	silenceLogs(t)
	for _, tc := range []struct {
		path string
		want string
	}{
		{"/api/v1/items/7", "router>/api/v1/items/:id api>/api/v1/items/:id v1>/api/v1/items/:id with>/api/v1/items/:id handler <with boom <v1 boom <api boom <router boom"},
		{"/api/other", "router>/api/other api>/api/other other <api <nil> <router <nil>"},
		// A route outside the group that shares its prefix runs without it.
		{"/api/v1/plain", "router>/api/v1/plain plain <router <nil>"},
		// Router middleware also runs for the router's own answers.
		{"/nope", "router> <router 404 Not Found"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			log = nil
			serve(t, r, "GET", tc.path)
			if got := strings.Join(log, " "); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestGroupIsolation checks that a group copies its parent's middleware, so
// adding to one never changes another.
func TestGroupIsolation(t *testing.T) {
	var hits []string
	tag := func(s string) Middleware {
		return func(next HandlerFunc) HandlerFunc {
			return func(c *Context) error { hits = append(hits, s); return next(c) }
		}
	}
	r := New()
	a := r.Group("/a")
	b := r.Group("/b")
	a.Use(tag("a"))
	b.Use(tag("b"))
	a.Get("/x", nopHandler)
	b.Get("/x", nopHandler)
	serve(t, r, "GET", "/a/x")
	serve(t, r, "GET", "/b/x")
	if got, want := strings.Join(hits, ","), "a,b"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestUseAfterRegistrationPanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(r *Router)
	}{
		{"after route", func(r *Router) { r.Get("/", nopHandler) }},
		{"after group", func(r *Router) { r.Group("/api") }},
		{"after With", func(r *Router) { r.With() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			tc.setup(r)
			msg := panicMessage(func() { r.Use(func(next HandlerFunc) HandlerFunc { return next }) })
			// The message names the router, both places and the fix.
			if !strings.HasPrefix(msg, "waltz: Use on the router (at router_test.go:") ||
				!strings.Contains(msg, "made a group (at router_test.go:") || !strings.Contains(msg, "call Use before registering routes") {
				t.Errorf("got panic %q, want a waltz: message naming both places and saying to call Use first", msg)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	secret := errors.New("db password is hunter2")
	for _, tc := range []struct {
		name     string
		h        HandlerFunc
		code     int
		body     string
		logged   bool
		notInLog string
	}{
		{"HTTPError", func(c *Context) error {
			return &HTTPError{Code: http.StatusConflict, Message: "note exists"}
		}, 409, "note exists", false, ""},
		{"HTTPError without message", func(c *Context) error {
			return &HTTPError{Code: http.StatusTeapot}
		}, 418, "I'm a teapot", false, ""},
		{"wrapped HTTPError", func(c *Context) error {
			return fmt.Errorf("loading: %w", &HTTPError{Code: http.StatusNotFound, Message: "no such note"})
		}, 404, "no such note", false, ""},
		{"plain error leaks nothing", func(c *Context) error { return secret }, 500, "Internal Server Error", true, ""},
		{"HTTPError with cause", func(c *Context) error {
			return &HTTPError{Code: http.StatusServiceUnavailable, Message: "try later", Err: secret}
		}, 503, "try later", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs := silenceLogs(t)
			r := New()
			r.Get("/", tc.h)
			w := serve(t, r, "GET", "/")
			if w.Code != tc.code || w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.code, tc.body)
			}
			if strings.Contains(w.Body.String(), "hunter2") {
				t.Errorf("body %q leaks the error", w.Body.String())
			}
			if got := strings.Contains(logs.String(), "hunter2"); got != tc.logged {
				t.Errorf("error logged: got %v, want %v (log %q)", got, tc.logged, logs.String())
			}
		})
	}
}

func TestHooks(t *testing.T) {
	r := New()
	r.Get("/a", nopHandler)
	r.NotFound = func(c *Context) error { return c.Text(http.StatusNotFound, "custom 404") }
	r.MethodNotAllowed = func(c *Context) error {
		return c.Text(http.StatusMethodNotAllowed, "custom 405, allow "+c.Writer.Header().Get("Allow"))
	}
	var handled []string
	r.ErrorHandler = func(c *Context, err error) {
		handled = append(handled, err.Error())
		c.Text(http.StatusInternalServerError, "custom error")
	}
	r.Get("/err", func(c *Context) error { return errors.New("x") })
	for _, tc := range []struct {
		method, path string
		code         int
		body         string
	}{
		{"GET", "/nope", 404, "custom 404"},
		{"DELETE", "/a", 405, "custom 405, allow GET, HEAD, OPTIONS"},
		{"GET", "/err", 500, "custom error"},
	} {
		w := serve(t, r, tc.method, tc.path)
		if w.Code != tc.code || w.Body.String() != tc.body {
			t.Errorf("%s %s: got %d %q, want %d %q", tc.method, tc.path, w.Code, w.Body.String(), tc.code, tc.body)
		}
	}
	if len(handled) != 1 || handled[0] != "x" {
		t.Errorf("ErrorHandler got %q, want [x]", handled)
	}
}

func TestRoutes(t *testing.T) {
	r := New()
	r.Post("/users", nopHandler)
	r.Get("/users/:id", nopHandler)
	r.Get("/users", nopHandler)
	r.Group("/admin").Delete("/users/:id", nopHandler)
	r.Handle("PURGE", "/cache/*key", nopHandler)
	r.Mount("/debug", http.NotFoundHandler())
	want := []Route{
		{"DELETE", "/admin/users/:id"},
		{"PURGE", "/cache/*key"},
		{"*", "/debug/*"},
		{"GET", "/users"},
		{"POST", "/users"},
		{"GET", "/users/:id"},
	}
	if got := r.Routes(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestCustomMethod checks a method outside the standard set routes, and is
// listed in Allow.
func TestCustomMethod(t *testing.T) {
	r := New()
	r.Handle("PURGE", "/cache/:key", func(c *Context) error { return c.Text(200, "purged "+c.Param("key")) })
	if w := serve(t, r, "PURGE", "/cache/k1"); w.Code != 200 || w.Body.String() != "purged k1" {
		t.Errorf("got %d %q, want 200 %q", w.Code, w.Body.String(), "purged k1")
	}
	w := serve(t, r, "GET", "/cache/k1")
	if got, want := w.Header().Get("Allow"), "OPTIONS, PURGE"; w.Code != 405 || got != want {
		t.Errorf("got %d Allow %q, want 405 Allow %q", w.Code, got, want)
	}
}

func TestBadMethodPanics(t *testing.T) {
	for _, m := range []string{"", "GE T", "GET/", "G\x00"} {
		msg := panicMessage(func() { New().Handle(m, "/", nopHandler) })
		if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, `"/"`) {
			t.Errorf("method %q: got panic %q, want a waltz: message naming the pattern", m, msg)
		}
	}
}

// TestConcurrent serves many requests at once; run with -race.
func TestConcurrent(t *testing.T) {
	r := New()
	r.Get("/user/:id", func(c *Context) error { return c.Text(200, c.Param("id")) })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				id := fmt.Sprint(i*1000 + j)
				if w := serve(t, r, "GET", "/user/"+id); w.Body.String() != id {
					t.Errorf("got %q, want %q", w.Body.String(), id)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestRequestTargets covers request targets that are not a plain
// origin-form path.
func TestRequestTargets(t *testing.T) {
	r := New()
	r.Get("/", func(c *Context) error { return c.Text(200, "root") })
	r.Get("/files/:name", func(c *Context) error { return c.Text(200, c.Param("name")) })
	for _, tc := range []struct {
		name string
		url  *url.URL
		code int
		body string
	}{
		// RFC 9110 section 4.2.3: an empty path is "/", as in the
		// absolute-form target "GET http://example.com HTTP/1.1".
		{"empty path", &url.URL{Scheme: "http", Host: "example.com"}, 200, "root"},
		// RawPath still encodes Path: matched on it, %2F stays data.
		{"escaped", &url.URL{Path: "/files/a/b", RawPath: "/files/a%2Fb"}, 200, "a/b"},
		// A handler in front rewrote Path but left RawPath behind: route on
		// Path, as URL.EscapedPath does.
		{"stale RawPath", &url.URL{Path: "/files/new", RawPath: "/files/old%2Fname"}, 200, "new"},
		{"malformed escape", &url.URL{Path: "/files/x", RawPath: "/files/%zz"}, 400, "malformed path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A client's bad request is answered, not logged: clients
			// must not be able to fill the server's log.
			logs := silenceLogs(t)
			defer func() {
				if logs.Len() > 0 {
					t.Errorf("logged %q, want nothing", logs.String())
				}
			}()
			req := httptest.NewRequest("GET", "/", nil)
			req.URL = tc.url
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code || w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.code, tc.body)
			}
		})
	}
}

// TestMisuse checks that each programming mistake panics at registration
// with a waltz: message that says what is wrong, rather than failing later
// with a runtime error.
func TestMisuse(t *testing.T) {
	id := func(next HandlerFunc) HandlerFunc { return next }
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"group path without slash", func() { New().Group("/api").Get("notes", nopHandler) },
			`waltz: pattern "/apinotes" (GET, at router_test.go:`},
		{"group param without slash", func() { New().Group("/api").Get(":id", nopHandler) },
			`pattern must start with '/': ":id" follows the group prefix "/api"`},
		{"lower-case method", func() { New().Handle("get", "/", nopHandler) },
			`method "get" is not "GET": methods are case-sensitive`},
		{"nil middleware in Use", func() { New().Use(id, nil) }, `waltz: Use on the router (at router_test.go:`},
		{"nil middleware in group Use", func() { New().Group("/v1").Use(nil) }, `waltz: Use on group "/v1" (at router_test.go:`},
		{"Use after Get on a group", func() { g := New().Group("/v1"); g.Get("/", nopHandler); g.Use(id) },
			`waltz: Use on group "/v1" (at router_test.go:`},
		{"nil middleware in Group", func() { New().Group("/a", id, nil) }, `waltz: pattern "/a" (at router_test.go:`},
		{"middleware returns nil", func() {
			r := New()
			r.Use(func(HandlerFunc) HandlerFunc { return nil })
			r.Get("/", nopHandler)
		}, "waltz: Use on the router (at router_test.go:358): middleware 1 of 1 returned a nil HandlerFunc"},
		{"group middleware returns nil", func() {
			New().Group("/g", func(HandlerFunc) HandlerFunc { return nil }).Get("/x", nopHandler)
		}, `waltz: pattern "/g/x" (GET, at router_test.go:362): middleware 1 of 1 returned a nil HandlerFunc`},
		{"group prefix with trailing slash", func() { New().Group("/api/") },
			`group prefix "/api/" must not end with '/': use "/api"`},
		{"group prefix without slash", func() { New().Group("api") }, `group prefix "api" must start with '/': use "/api"`},
		{"group prefix in braces", func() { New().Group("/u/{id}") }, `("/u/:id/")`},
		{"zero Router", func() { new(Router).Get("/", nopHandler) }, "waltz: a Router must be made with waltz.New"},
		{"zero Router serving", func() { new(Router).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)) },
			"waltz: a Router must be made with waltz.New"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := panicMessage(tc.f); !strings.Contains(msg, tc.want) {
				t.Errorf("got panic %q, want it to contain %q", msg, tc.want)
			}
		})
	}
}

// TestHTTPErrorCodes checks that an HTTPError whose Code is no error status
// cannot break the response: net/http panics on codes outside 100-999.
func TestHTTPErrorCodes(t *testing.T) {
	for _, code := range []int{0, 99, 200, 302, 1000} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			logs := silenceLogs(t)
			r := New()
			r.Get("/", func(c *Context) error { return &HTTPError{Code: code, Message: "m"} })
			if w := serve(t, r, "GET", "/"); w.Code != 500 || w.Body.String() != "Internal Server Error" {
				t.Errorf("got %d %q, want 500 %q", w.Code, w.Body.String(), "Internal Server Error")
			}
			if !strings.Contains(logs.String(), "status=500") {
				t.Errorf("not logged: %q", logs.String())
			}
		})
	}
}

// TestHTTPErrorString checks Error's text: the status, the message, the
// failures (one named alone, more counted with the first named) and the
// cause.
func TestHTTPErrorString(t *testing.T) {
	one := FieldError{Location: "path.id", Keyword: "minimum", Message: "must be at least 1"}
	two := FieldError{Location: "query.limit", Keyword: "maximum", Message: "must be at most 100"}
	for _, tc := range []struct {
		err  *HTTPError
		want string
	}{
		{&HTTPError{Code: 404}, "404 Not Found"},
		{&HTTPError{Code: 404, Message: "no bookmark"}, "404 no bookmark"},
		{&HTTPError{Code: 422, Message: "bad", Errors: []FieldError{one}}, "422 bad (path.id: must be at least 1)"},
		{&HTTPError{Code: 422, Message: "bad", Errors: []FieldError{one, two}}, "422 bad (2 errors, first path.id: must be at least 1)"},
		{&HTTPError{Code: 500, Message: "m", Err: errors.New("cause")}, "500 m: cause"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestConnect checks that CONNECT's authority form, which has no path, is
// routed as "/".
func TestConnect(t *testing.T) {
	r := New()
	r.Handle(http.MethodConnect, "/", func(c *Context) error { return c.Text(200, "tunnel to "+c.Request.Host) })
	req := &http.Request{Method: "CONNECT", URL: &url.URL{Host: "example.com:443"}, Host: "example.com:443", Header: http.Header{}}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 200 || w.Body.String() != "tunnel to example.com:443" {
		t.Errorf("got %d %q, want 200 %q", w.Code, w.Body.String(), "tunnel to example.com:443")
	}
}

// TestClientErrorsNotLogged checks that a 4xx, even with a cause (a
// malformed JSON body, say), is answered without a log line: clients must
// not be able to fill the server's log.
func TestClientErrorsNotLogged(t *testing.T) {
	logs := silenceLogs(t)
	r := New()
	r.Post("/notes", func(c *Context) error {
		var v struct{ Title string }
		return c.Bind(&v)
	})
	req := httptest.NewRequest("POST", "/notes", strings.NewReader("{bad"))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != 400 || logs.Len() != 0 {
		t.Errorf("got %d and log %q, want 400 and no log", w.Code, logs.String())
	}
}

// TestPatternSeen: mounted handlers and net/http handlers see the matched
// pattern in r.Pattern, as under ServeMux; a mount shows as "prefix/*"
// everywhere, never as its internal catch-all.
func TestPatternSeen(t *testing.T) {
	var got []string
	show := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = append(got, r.Pattern) })
	r := New()
	var mwSaw []string
	r.Use(func(next HandlerFunc) HandlerFunc {
		return func(c *Context) error { mwSaw = append(mwSaw, c.Pattern()); return next(c) }
	})
	r.Handler(http.MethodGet, "/raw/:id", show)
	r.Handler(http.MethodGet, "/plain", show)
	r.Mount("/static", show)
	r.Group("/u/:uid").Mount("/files", show)
	for _, target := range []string{"/raw/7", "/plain", "/static/a/b.css", "/u/3/files/x"} {
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", target, nil))
	}
	want := []string{"/raw/:id", "/plain", "/static/*", "/u/:uid/files/*"}
	if !slices.Equal(got, want) || !slices.Equal(mwSaw, want) {
		t.Errorf("got r.Pattern %q and c.Pattern %q, want %q", got, mwSaw, want)
	}
	for _, rt := range r.Routes() {
		if strings.Contains(rt.Pattern, mountName) {
			t.Errorf("Routes shows %q", rt.Pattern)
		}
	}
}

// TestErrorAnsweredOnceWhenWrapped checks that an error a middleware
// wraps with %w on its way out is not answered a second time: the error
// handler runs once, and a 4xx leaves no log line ("one request, one log
// line"; a client must not be able to fill the log with 404s).
func TestErrorAnsweredOnceWhenWrapped(t *testing.T) {
	for _, tc := range []struct {
		path string
		code int
		body string
	}{
		{"/x", 404, "no x"},         // a handler's HTTPError
		{"/nope", 404, "Not Found"}, // the router's own 404 (hostile: any client)
		{"/x/", 301, ""},            // the router's own redirect is no error
	} {
		t.Run(tc.path, func(t *testing.T) {
			var logs bytes.Buffer
			r := New()
			r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			calls := 0
			r.ErrorHandler = func(c *Context, err error) {
				calls++
				DefaultErrorHandler(c, err)
			}
			r.Use(func(next HandlerFunc) HandlerFunc {
				return func(c *Context) error {
					if err := next(c); err != nil {
						return fmt.Errorf("api: %w", err)
					}
					return nil
				}
			})
			r.Get("/x", func(c *Context) error { return &HTTPError{Code: http.StatusNotFound, Message: "no x"} })
			w := serve(t, r, "GET", tc.path)
			if w.Code != tc.code || w.Body.String() != tc.body {
				t.Errorf("got %d %q, want %d %q", w.Code, w.Body.String(), tc.code, tc.body)
			}
			if want := min(1, len(tc.body)); calls != want {
				t.Errorf("got %d ErrorHandler calls, want %d", calls, want)
			}
			if logs.Len() != 0 {
				t.Errorf("got log %q, want none for a 4xx", logs.String())
			}
		})
	}
}

// TestMountLeavesRequest: a mount with prefix params gives h its values on
// the request copy it passes, not on the caller's request.
func TestMountLeavesRequest(t *testing.T) {
	var inner string
	r := New()
	r.Mount("/p/:id", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { inner = req.PathValue("id") }))
	req := httptest.NewRequest("GET", "/p/7/x", nil)
	r.ServeHTTP(httptest.NewRecorder(), req)
	if inner != "7" || req.PathValue("id") != "" {
		t.Errorf("got %q in the mount and %q on the caller's request, want \"7\" and \"\"", inner, req.PathValue("id"))
	}
}

// TestErrorAfterStart: an error returned after a part of the response
// was written aborts it, as a panic does: net/http would otherwise end it
// cleanly (with a Content-Length of its own, or a chunked end), and the
// client would take the part it got for the whole answer. After a
// helper's whole answer, the error is logged and the answer stands.
func TestErrorAfterStart(t *testing.T) {
	silenceLogs(t)
	part := strings.Repeat("x", 500)
	r := New()
	r.Get("/buffered", func(c *Context) error {
		_, _ = c.Writer.Write([]byte(part))
		return errors.New("db failed midway")
	})
	r.Get("/flushed", func(c *Context) error {
		_, _ = c.Writer.Write([]byte(part))
		http.NewResponseController(c.Writer).Flush()
		return errors.New("db failed midway")
	})
	r.Get("/helper", func(c *Context) error {
		if err := c.Text(http.StatusOK, part); err != nil {
			return err
		}
		return errors.New("failed after answering")
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	for _, path := range []string{"/buffered", "/flushed", "/helper"} {
		t.Run(path, func(t *testing.T) {
			res, err := srv.Client().Get(srv.URL + path)
			if err != nil {
				return // aborted before the status line: the client knows
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			switch {
			case path == "/helper" && (err != nil || string(body) != part):
				t.Errorf("got %d %d bytes, %v: want the helper's whole answer", res.StatusCode, len(body), err)
			case path != "/helper" && err == nil:
				t.Errorf("got a complete %d with %d bytes, want an aborted response", res.StatusCode, len(body))
			}
		})
	}
}
