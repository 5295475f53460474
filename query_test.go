package waltz

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// queryRouter is a router with a plain QUERY route that names what it
// takes, one that names nothing, and other methods beside them.
func queryRouter(t testing.TB) *Router {
	t.Helper()
	r := New()
	echo := func(c *Context) error {
		b, err := io.ReadAll(c.Request.Body)
		if err != nil {
			return err
		}
		return c.Text(http.StatusOK, c.Request.Header.Get("Content-Type")+" "+string(b))
	}
	r.Get("/contacts", func(c *Context) error { return c.Text(http.StatusOK, "all") })
	r.Query("/contacts", echo).Accepts("application/json", "text/*")
	r.Post("/contacts", func(c *Context) error { return c.NoContent(http.StatusCreated) })
	r.Query("/any", echo)
	r.Query("/files/:name", echo).Accepts("application/jsonpath")
	r.Get("/files/*path", func(c *Context) error { return c.Text(http.StatusOK, "file") })
	r.Get("/plain", func(c *Context) error { return c.Text(http.StatusOK, "plain") })
	r.Query("/broken", func(c *Context) error { return &HTTPError{Code: http.StatusUnprocessableEntity} }).Accepts("application/json")
	return r
}

// TestQueryRouting checks that routing, Allow and the router's own
// answers know QUERY (RFC 10008), and that a QUERY route holds its
// requests to the rules of section 2.1 and answers Accept-Query (section
// 3) on each refusal, on its OPTIONS and its 405, and on the GET of its
// pattern, and only where it named its media types; a QUERY's success
// does not carry it: the client sent a type the route takes.
func TestQueryRouting(t *testing.T) {
	r := queryRouter(t)
	for _, tc := range []struct {
		name, method, path, ctype, body string
		code                            int
		want                            string // the body, or "" for none to check
		allow, acceptQuery, location    string
	}{
		{name: "QUERY answered", method: MethodQuery, path: "/contacts", ctype: "application/json", body: `{"q":1}`,
			code: 200, want: `application/json {"q":1}`},
		{name: "a type under a wildcard", method: MethodQuery, path: "/contacts", ctype: "Text/CSV; charset=utf-8", body: "a,b",
			code: 200, want: "Text/CSV; charset=utf-8 a,b"},
		{name: "a type's parameters only: 400", method: MethodQuery, path: "/contacts", ctype: ";charset=utf-8", body: "a",
			code: 400, acceptQuery: "application/json, text/*"},
		{name: "no Content-Type: 400", method: MethodQuery, path: "/contacts", body: `{"q":1}`,
			code: 400, want: errNoQueryType, acceptQuery: "application/json, text/*"},
		{name: "an empty Content-Type: 400", method: MethodQuery, path: "/contacts", ctype: " ", body: `{}`,
			code: 400, acceptQuery: "application/json, text/*"},
		{name: "another type: 415", method: MethodQuery, path: "/contacts", ctype: "application/xml", body: `<q/>`,
			code: 415, want: "a QUERY of \"application/xml\" is not taken here: it takes application/json, text/*",
			acceptQuery: "application/json, text/*"},
		{name: "no types named: any goes", method: MethodQuery, path: "/any", ctype: "application/sql", body: "select 1",
			code: 200, want: "application/sql select 1"},
		{name: "no types named, no Content-Type: 400", method: MethodQuery, path: "/any", body: "select 1", code: 400},
		{name: "GET beside QUERY", method: "GET", path: "/contacts", code: 200, want: "all", acceptQuery: "application/json, text/*"},
		{name: "OPTIONS", method: "OPTIONS", path: "/contacts", code: 204,
			allow: "GET, HEAD, OPTIONS, POST, QUERY", acceptQuery: "application/json, text/*"},
		{name: "405 lists QUERY", method: "PUT", path: "/contacts", code: 405,
			allow: "GET, HEAD, OPTIONS, POST, QUERY", acceptQuery: "application/json, text/*"},
		{name: "405 for QUERY", method: MethodQuery, path: "/plain", ctype: "application/json", code: 405, allow: "GET, HEAD, OPTIONS"},
		{name: "OPTIONS, several routes match", method: "OPTIONS", path: "/files/a", code: 204,
			allow: "GET, HEAD, OPTIONS, QUERY", acceptQuery: "application/jsonpath"},
		{name: "OPTIONS of a route that names nothing", method: "OPTIONS", path: "/any", code: 204, allow: "OPTIONS, QUERY"},
		{name: "param route", method: MethodQuery, path: "/files/a", ctype: "application/jsonpath", body: "$..a",
			code: 200, want: "application/jsonpath $..a"},
		{name: "a handler's error", method: MethodQuery, path: "/broken", ctype: "Application/JSON", body: "{}",
			code: 422, acceptQuery: "application/json"},
		// Section 2.5: a redirect keeps the method and the content (308),
		// never 301, after which a client would send a GET.
		{name: "redirect is 308", method: MethodQuery, path: "/contacts/", ctype: "application/json", code: 308, location: "/contacts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Errorf("status: got %d, want %d (%s)", w.Code, tc.code, w.Body)
			}
			if tc.want != "" && w.Body.String() != tc.want {
				t.Errorf("body: got %q, want %q", w.Body, tc.want)
			}
			for _, f := range []struct{ name, want string }{{"Allow", tc.allow}, {"Accept-Query", tc.acceptQuery}, {"Location", tc.location}} {
				if got := strings.Join(w.Header().Values(f.name), ", "); got != f.want {
					t.Errorf("%s: got %q, want %q", f.name, got, f.want)
				}
			}
		})
	}
}

// TestQueryAcceptsPanics checks Registration.Accepts refuses what it
// cannot hold a route to.
func TestQueryAcceptsPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		reg  func(r *Router)
		want string
	}{
		{"a GET route", func(r *Router) { r.Get("/a", nopHandler).Accepts("application/json") }, "this is a GET route"},
		{"twice", func(r *Router) { r.Query("/a", nopHandler).Accepts("application/json").Accepts("text/csv") }, "named already"},
		{"none", func(r *Router) { r.Query("/a", nopHandler).Accepts() }, "at least one"},
		{"parameters", func(r *Router) { r.Query("/a", nopHandler).Accepts("application/sql;charset=utf-8") }, "no media range"},
		{"no subtype", func(r *Router) { r.Query("/a", nopHandler).Accepts("json") }, "no media range"},
		{"*/json", func(r *Router) { r.Query("/a", nopHandler).Accepts("*/json") }, "no media range"},
		{"a star in a subtype", func(r *Router) { r.Query("/a", nopHandler).Accepts("application/js*") }, "no media range"},
		{"a star in a type", func(r *Router) { r.Query("/a", nopHandler).Accepts("app*/*") }, "no media range"},
		{"a digit first", func(r *Router) { r.Query("/a", nopHandler).Accepts("3gpp/x") }, "no media range"},
		{"not a token's first", func(r *Router) { r.Query("/a", nopHandler).Accepts("!a/b") }, "no media range"},
		{"while serving", func(r *Router) {
			reg := r.Query("/a", nopHandler)
			r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
			reg.Accepts("application/json")
		}, "began serving"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := panicMessage(func() { tc.reg(New()) })
			if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "waltz: ") {
				t.Errorf("panic: got %q, want one with %q", msg, tc.want)
			}
		})
	}
	var re *RouteError
	func() {
		defer func() { re, _ = recover().(*RouteError) }()
		New().Get("/a", nopHandler).Accepts("application/json")
	}()
	if re == nil || re.Pattern != "/a" || re.Method != "GET" {
		t.Errorf("got %#v, want a *RouteError for GET /a", re)
	}
}

// TestQueryAllocs checks that a QUERY route's check and its Accept-Query
// cost no allocation, and that its success answer carries no
// Accept-Query and its refusal does.
func TestQueryAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	r := New()
	r.Query("/contacts", func(c *Context) error { return c.NoContent(http.StatusNoContent) }).Accepts("application/json", "text/*")
	w := newNopWriter()
	req := httptest.NewRequest(MethodQuery, "/contacts", nil)
	req.Header.Set("Content-Type", "application/json")
	h := w.Header()
	if got := testing.AllocsPerRun(100, func() {
		clear(h)
		r.ServeHTTP(w, req)
	}); got != 0 {
		t.Errorf("got %v allocs per QUERY, want 0", got)
	}
	if got := h.Get("Accept-Query"); got != "" {
		t.Errorf("Accept-Query on a success: got %q, want none", got)
	}
	bad := httptest.NewRequest(MethodQuery, "/contacts", nil)
	bad.Header.Set("Content-Type", "application/xml")
	clear(h)
	r.ServeHTTP(w, bad)
	if got := h.Get("Accept-Query"); got != "application/json, text/*" {
		t.Errorf("Accept-Query on a 415: got %q, want the route's types", got)
	}
}

// TestQueryDiscovery checks RFC 10008 appendix A.3's discovery of a
// resource's query formats: the GET and HEAD answers of a QUERY route's
// pattern carry its Accept-Query, whichever was registered first, a
// failed GET's too, and nothing is added where the QUERY route named no
// types or another pattern has the GET.
func TestQueryDiscovery(t *testing.T) {
	r := New()
	list := func(c *Context) error { return c.Text(http.StatusOK, "all") }
	r.Get("/before", list)
	r.Query("/before", nopHandler).Accepts("application/sql")
	r.Query("/after/:id", nopHandler).Accepts("application/json", "text/csv")
	r.Get("/after/:name", list)
	r.Head("/after/:name", func(c *Context) error { return c.NoContent(http.StatusOK) })
	r.Get("/failing", func(*Context) error { return errNotFound })
	r.Query("/failing", nopHandler).Accepts("application/json")
	r.Get("/untyped", list)
	r.Query("/untyped", nopHandler)
	r.Get("/other", list)
	for _, tc := range []struct {
		method, path string
		code         int
		want         string
	}{
		{"GET", "/before", 200, "application/sql"},
		{"HEAD", "/before", 200, "application/sql"},
		{"GET", "/after/1", 200, "application/json, text/csv"},
		{"HEAD", "/after/1", 200, "application/json, text/csv"},
		{"GET", "/failing", 404, "application/json"},
		{"GET", "/untyped", 200, ""},
		{"GET", "/other", 200, ""},
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Code != tc.code || w.Header().Get("Accept-Query") != tc.want {
			t.Errorf("%s %s: got %d, Accept-Query %q; want %d, %q", tc.method, tc.path, w.Code, w.Header().Get("Accept-Query"), tc.code, tc.want)
		}
	}
}

// TestQueryAcceptFirst checks that where several QUERY routes match a
// path, its OPTIONS and 405 give the Accept-Query of the one a QUERY
// would reach (a static piece before a param, a param before a
// catch-all), not a union that the route reached refuses part of.
func TestQueryAcceptFirst(t *testing.T) {
	r := New()
	r.Query("/x/me", nopHandler).Accepts("text/csv")
	r.Query("/x/:id", nopHandler).Accepts("application/json")
	r.Query("/x/*rest", nopHandler).Accepts("application/x-www-form-urlencoded", "Application/X-WWW-Form-Urlencoded")
	r.Get("/x/*rest", nopHandler)
	for _, tc := range []struct{ method, path, want string }{
		{"OPTIONS", "/x/me", "text/csv"},
		{"OPTIONS", "/x/1", "application/json"},
		{"OPTIONS", "/x/1/2", "application/x-www-form-urlencoded"},
		{"PUT", "/x/1", "application/json"},
		{"PUT", "/x/me", "text/csv"},
	} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if got := w.Header().Get("Accept-Query"); got != tc.want {
			t.Errorf("%s %s: Accept-Query %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
	// What the OPTIONS said is what the route reached takes.
	req := httptest.NewRequest(MethodQuery, "/x/1", strings.NewReader("a=b"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != http.StatusUnsupportedMediaType || w.Header().Get("Accept-Query") != "application/json" {
		t.Errorf("QUERY /x/1 of a form: got %d, Accept-Query %q; want 415, application/json", w.Code, w.Header().Get("Accept-Query"))
	}
}

// TestQueryMiddlewareAnswer checks that a refusal a middleware writes
// itself, before the handler, carries the QUERY route's Accept-Query, as
// its GET's does (Response.WriteHeader sets it).
func TestQueryMiddlewareAnswer(t *testing.T) {
	r := New()
	auth := func(next HandlerFunc) HandlerFunc {
		return func(c *Context) error {
			if c.Request.Header.Get("X-Token") == "" {
				return c.Text(http.StatusUnauthorized, "no token")
			}
			return next(c)
		}
	}
	g := r.Group("/v2", auth)
	g.Get("/e", nopHandler)
	g.Query("/e", nopHandler).Accepts("application/json")
	for _, method := range []string{MethodQuery, "GET"} {
		req := httptest.NewRequest(method, "/v2/e", strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != http.StatusUnauthorized || w.Header().Get("Accept-Query") != "application/json" {
			t.Errorf("%s: got %d, Accept-Query %q; want 401, application/json", method, w.Code, w.Header().Get("Accept-Query"))
		}
	}
}

// TestQueryFieldKept checks that an answer's Accept-Query stays its
// route's when the Context that served it serves another QUERY route: a
// recorder, or net/http cloning the header after the handler returned,
// may still read it.
func TestQueryFieldKept(t *testing.T) {
	r := New()
	r.Get("/a", nopHandler)
	r.Query("/a", nopHandler).Accepts("application/json")
	r.Query("/b", nopHandler).Accepts("text/csv")
	serve := func(method, path, ctype string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, strings.NewReader("x"))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	first := serve(MethodQuery, "/a", "text/csv") // a 415
	get := serve("GET", "/a", "")
	for range 3 {
		serve(MethodQuery, "/b", "text/csv")
		serve(MethodQuery, "/b", "") // a 400, through the error path
	}
	for name, w := range map[string]*httptest.ResponseRecorder{"QUERY /a": first, "GET /a": get} {
		if got := w.Header().Get("Accept-Query"); got != "application/json" {
			t.Errorf("%s after QUERY /b: Accept-Query %q, want application/json", name, got)
		}
	}
}

// TestQueryBind checks what Bind reads after a plain QUERY route's check:
// on a route that takes JSON alone the check stands for Bind's own (a
// JSON body binds), on a route that takes another type too Bind still
// refuses that type with its 415, the check never excuses a
// Content-Encoding nor takes a type that only Unicode folds to JSON's,
// and what the check found holds for the handler alone: not for a
// middleware that binds after it, nor for the next request the pooled
// Context serves.
func TestQueryBind(t *testing.T) {
	r := New()
	bind := func(c *Context) error {
		var v struct {
			Name string `json:"name"`
		}
		if err := c.Bind(&v); err != nil {
			return err
		}
		return c.Text(http.StatusOK, v.Name)
	}
	r.Query("/json", bind).Accepts("application/json", "application/problem+json")
	r.Query("/mixed", bind).Accepts("application/json", "text/csv")
	r.Post("/post", bind)
	// after binds once the handler returned, a request of text/plain.
	after := func(next HandlerFunc) HandlerFunc {
		return func(c *Context) error {
			if err := next(c); err != nil {
				return err
			}
			req := c.Request.Clone(c.Request.Context())
			req.Header.Set("Content-Type", "text/plain")
			req.Body = io.NopCloser(strings.NewReader(`{"name":"eve"}`))
			c.Request = req
			return bind(c)
		}
	}
	r.Group("/after", after).Query("/", func(c *Context) error { return nil }).Accepts("application/json")
	// recoverBind answers a panic by binding a request of text/plain, as
	// the panicking handler left it.
	recoverBind := func(next HandlerFunc) HandlerFunc {
		return func(c *Context) (err error) {
			defer func() {
				if recover() != nil {
					err = bind(c)
				}
			}()
			return next(c)
		}
	}
	r.Group("/panic", recoverBind).Query("/", func(c *Context) error {
		req := c.Request.Clone(c.Request.Context())
		req.Header.Set("Content-Type", "text/plain")
		req.Body = io.NopCloser(strings.NewReader(`{"name":"eve"}`))
		c.Request = req
		panic("a handler's bug")
	}).Accepts("application/json")
	for _, tc := range []struct {
		method, path, ctype, encoding string
		code                          int
		body                          string
	}{
		{MethodQuery, "/json", "application/json", "", 200, "ada"},
		{MethodQuery, "/json", "Application/Problem+JSON; charset=utf-8", "", 200, "ada"},
		{MethodQuery, "/json", "application/json", "gzip", 415, "Content-Encoding"},
		{MethodQuery, "/json", "text/csv", "", 415, "takes application/json, application/problem+json"},
		{MethodQuery, "/json", "application/j\u017fon", "", 415, "takes application/json, application/problem+json"},
		{MethodQuery, "/after/", "application/json", "", 415, "Content-Type must be application/json"},
		{MethodQuery, "/panic/", "application/json", "", 415, "Content-Type must be application/json"},
		{"POST", "/post", "appl\u0130cation/json", "", 415, "Content-Type must be application/json"},
		{MethodQuery, "/mixed", "application/json", "", 200, "ada"},
		{MethodQuery, "/mixed", "text/csv", "", 415, "Content-Type must be application/json"},
		// A field per line ("\n" apart): the type once, whatever the two
		// say; every coding line counts.
		{MethodQuery, "/json", "application/json\napplication/json", "", 400, "two Content-Type fields"},
		{MethodQuery, "/json", "text/csv\napplication/json", "", 400, "two Content-Type fields"},
		{MethodQuery, "/json", "application/json", "identity\ngzip", 415, "Content-Encoding"},
		{MethodQuery, "/mixed", "application/json\ntext/csv", "", 400, "two Content-Type fields"},
		// After a QUERY of /json, whose check found JSON, a POST of
		// text/plain must still get Bind's 415.
		{MethodQuery, "/json", "application/json", "", 200, "ada"},
		{"POST", "/post", "text/plain", "", 415, "Content-Type must be application/json"},
	} {
		req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(`{"name":"ada"}`))
		req.Header["Content-Type"] = strings.Split(tc.ctype, "\n")
		if tc.encoding != "" {
			req.Header["Content-Encoding"] = strings.Split(tc.encoding, "\n")
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.body) {
			t.Errorf("%s %s %q %q: got %d %q, want %d with %q", tc.method, tc.path, tc.ctype, tc.encoding, w.Code, w.Body.String(), tc.code, tc.body)
		}
	}
}
