package contracttest

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// TestSharedURL runs the API with a static path beside routes of other
// patterns that serve other methods at its URL, as RealWorld has GET
// /articles/feed beside PUT /articles/{slug}: a param route, a catch-all,
// a mount, a trailing slash the router redirects. The router serves PUT
// /items/latest by the other route, which the document allows (it cannot
// say which operation the request belongs to): the probes of
// /items/latest do not send PUT, and take an Allow that names it. A
// constraint the URL does not meet leaves PUT to the probes.
func TestSharedURL(t *testing.T) {
	type put struct {
		ID   string `path:"id"`
		Body NewItem
	}
	replace := func(c *waltz.Context, in *put) (*ItemOut, error) { return &ItemOut{sample(1)}, nil }
	ok := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }
	for _, c := range []struct {
		name, static, other string
		mount               bool
		probed              bool // whether PUT static is probed
	}{
		{name: "param", static: "/items/latest", other: "/items/:id"},
		{name: "catch-all", static: "/items/latest/raw", other: "/items/*id"},
		{name: "trailing slash", static: "/items/latest/", other: "/items/:id"},
		{name: "trailing slash on the param route", static: "/items/latest", other: "/items/:id/"},
		{name: "mount", static: "/items/latest", other: "/items", mount: true},
		{name: "constraint not met", static: "/items/latest", other: "/items/:id<int>", probed: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			probed := map[string]bool{}
			traceCase = func(name string, valid bool, w *wire, code int) { probed[name] = true }
			defer func() { traceCase = nil }()
			r := waltz.New()
			api.Op(r, http.MethodGet, c.static, func(c *waltz.Context, _ *struct{}) (*ItemOut, error) {
				return &ItemOut{sample(1)}, nil
			}, api.Operation{ID: "latestItem"})
			if c.mount {
				r.Mount(c.other, http.HandlerFunc(ok))
			} else {
				api.Op(r, http.MethodPut, c.other, replace, api.Operation{ID: "replaceItem"})
			}
			for _, e := range record(t, r, Options{Count: 1}).errs {
				t.Errorf("a failure: %s", e)
			}
			path := c.static // no param: the document's path is the pattern
			if c.mount {     // every method goes to the mount
				for _, m := range []string{"PUT", "POST", "DELETE", "PATCH", "TRACE"} {
					if probed[m+" "+path] {
						t.Errorf("%s %s, which the mount takes, was probed", m, path)
					}
				}
				return
			}
			if !probed["POST "+path] || !probed["DELETE "+path] {
				t.Errorf("the methods no route serves at %s were not probed: %v", c.static, probed)
			}
			if got := probed["PUT "+path]; got != c.probed {
				t.Errorf("PUT %s probed: %v, want %v", c.static, got, c.probed)
			}
		})
	}
}

// TestSharedURLFound plants a server that answers PUT /items/latest
// itself, where the only other PUT is of /items/:id<int>, which that URL
// does not meet: the probe is sent and the 200 reported.
func TestSharedURLFound(t *testing.T) {
	type put struct {
		ID int64 `path:"id" minimum:"1"`
	}
	r := waltz.New()
	api.Op(r, http.MethodGet, "/items/latest", func(c *waltz.Context, _ *struct{}) (*ItemOut, error) {
		return &ItemOut{sample(1)}, nil
	}, api.Operation{ID: "latestItem"})
	api.Op(r, http.MethodPut, "/items/:id<int>", func(c *waltz.Context, in *put) (*ItemOut, error) {
		return &ItemOut{sample(in.ID)}, nil
	}, api.Operation{ID: "replaceItem"})
	planted := http.HandlerFunc(func(w http.ResponseWriter, q *http.Request) {
		if q.Method == http.MethodPut && q.URL.Path == "/items/latest" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":1,"name":"hammer","kind":"tool","score":7.5}`))
			return
		}
		r.ServeHTTP(w, q)
	})
	rec := &recorder{TB: t}
	check(rec, planted, api.Describe(r, api.Info{}), routesOf(r), Options{Count: 1})
	want := []string{"PUT /items/latest: a method the document does not declare on this path: got 200"}
	if len(rec.errs) != 1 || !matches(rec.errs[0], want) {
		t.Errorf("got the failures %q, want one: %q", rec.errs, want)
	}
}

// TestRepeatRefused runs an API that refuses an email or a name it holds
// already with a 422, as RealWorld's registration does, under several
// seeds: each valid case sends values of its own beside its change (a
// body's boundary, a param's, the request without its optional key), and
// the random ones draw strings not sent before (short names too), so none
// is refused for repeating an earlier one. The boundary of an item of a
// uniqueItems array keeps its array's other items, which new ones could
// repeat.
func TestRepeatRefused(t *testing.T) {
	type signup struct {
		Ref  string `query:"ref" maxLength:"10"`
		Body struct {
			Email string   `json:"email" required:"true" format:"email"`
			Name  string   `json:"name" required:"true" minLength:"1" maxLength:"20"`
			Bio   string   `json:"bio,omitempty" maxLength:"40"`
			Kinds []string `json:"kinds" required:"true" minItems:"2" maxItems:"3" uniqueItems:"true" enum:"a,b,c"`
		}
	}
	type user struct {
		Body struct {
			Email string `json:"email"`
		}
	}
	items := false // whether a boundary of an item of kinds was sent (the seeds that draw it)
	for seed := uint64(1); seed <= 6; seed++ {
		var mu sync.Mutex
		taken := map[string]bool{}
		signUp := func(c *waltz.Context, in *signup) (*user, error) {
			mu.Lock()
			defer mu.Unlock()
			if taken[in.Body.Email] || taken["name:"+in.Body.Name] {
				return nil, &waltz.HTTPError{Code: http.StatusUnprocessableEntity, Message: "already taken"}
			}
			taken[in.Body.Email], taken["name:"+in.Body.Name] = true, true
			out := &user{}
			out.Body.Email = in.Body.Email
			return out, nil
		}
		r := waltz.New()
		api.Op(r, http.MethodPost, "/users", signUp, api.Operation{ID: "signUp", Status: http.StatusCreated})
		api.Op(r.With(itemKey(true, false)), http.MethodPost, "/invited", signUp, api.Operation{ID: "signUpInvited", Status: http.StatusCreated})
		sent := map[string]bool{}
		traceCase = func(name string, valid bool, w *wire, code int) { sent[name] = true }
		defer func() { traceCase = nil }()
		opts := Options{Seed: seed, Count: 60, Credentials: map[string]string{"itemKey": "k"}}
		for _, e := range record(t, r, opts).errs {
			t.Errorf("seed %d: a failure: %s", seed, e)
		}
		for _, name := range []string{"signUp body.name at maxLength", "signUp body.bio left out", "signUp valid #60",
			"signUp query.ref at maxLength", "signUpInvited without credentials"} {
			if !sent[name] {
				t.Errorf("seed %d: no case %q was sent", seed, name)
			}
		}
		items = items || sent["signUp body.kinds[0] enum value 1"]
	}
	if !items {
		t.Error("no seed sent a boundary of an item of kinds")
	}
}

// TestSameShape runs routes of one template shape on different leaves of
// the router, a catch-all beside a param (PATCH /items/*rest, PUT
// /items/:id), a constrained param beside a plain one (GET /y/:id<int>,
// DELETE /y/:key) and a mount beside a route (/m, GET /m/:id): the
// document has one path for each shape (two would be the same template,
// which OpenAPI 3.1 section 4.8.8 forbids, and a validator would take
// every request for the first), and the constrained GET lists the 405
// the router answers to a value its constraint refuses, which the
// DELETE's route takes.
func TestSameShape(t *testing.T) {
	type rest struct {
		Rest string `path:"rest"`
	}
	type key struct {
		Key string `path:"key"`
	}
	answer := func(c *waltz.Context, _ *struct{}) (*ItemOut, error) { return &ItemOut{sample(1)}, nil }
	r := waltz.New()
	api.Op(r, http.MethodPatch, "/items/*rest", func(c *waltz.Context, in *rest) (*ItemOut, error) { return answer(c, nil) }, api.Operation{ID: "patchRest"})
	api.Op(r, http.MethodPut, "/items/:id", func(c *waltz.Context, in *IDIn) (*ItemOut, error) { return answer(c, nil) }, api.Operation{ID: "putItem"})
	api.Op(r, http.MethodGet, "/y/:id<int>", func(c *waltz.Context, in *IDIn) (*ItemOut, error) { return answer(c, nil) }, api.Operation{ID: "getY"})
	api.Op(r, http.MethodDelete, "/y/:key", func(c *waltz.Context, in *key) (*ItemOut, error) { return answer(c, nil) }, api.Operation{ID: "deleteY"})
	r.Mount("/m", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	api.Op(r, http.MethodGet, "/m/:id", func(c *waltz.Context, in *IDIn) (*ItemOut, error) { return answer(c, nil) }, api.Operation{ID: "getM"})
	for _, e := range record(t, r, Options{}).errs {
		t.Errorf("a failure: %s", e)
	}
}

// TestRouterAnswers runs routers whose routes share URLs in the ways a
// constraint makes: a value the operation's route refuses makes a URL
// another route serves (a plain GET beside a constrained one), one the
// router answers 405 (a route of the same shape with other methods, a
// hidden one, a catch-all of a shorter pattern) or redirects (a trailing
// slash); and a merged path whose first operation's value another's
// constraint refuses, so Allow rightly leaves that one out. A correct
// router gets no failure, with or without its automatic OPTIONS, and
// with an OPTIONS route of its own.
func TestRouterAnswers(t *testing.T) {
	type key struct {
		Key string `path:"key"`
	}
	type rest struct {
		Rest string `path:"rest"`
	}
	byID := func(c *waltz.Context, in *IDIn) (*ItemOut, error) { return &ItemOut{sample(1)}, nil }
	byKey := func(c *waltz.Context, in *key) (*ItemOut, error) { return &ItemOut{sample(1)}, nil }
	byRest := func(c *waltz.Context, in *rest) (*ItemOut, error) { return &ItemOut{sample(1)}, nil }
	plain := func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }
	for name, build := range map[string]func(r *waltz.Router){
		"plain GET beside a constrained one": func(r *waltz.Router) {
			api.Op(r, http.MethodGet, "/c/:id<int>", byID, api.Operation{ID: "getC"})
			api.Op(r, http.MethodGet, "/c/:key", byKey, api.Operation{ID: "getCKey"})
		},
		"other methods on the same shape": func(r *waltz.Router) {
			api.Op(r, http.MethodGet, "/y/:key", byKey, api.Operation{ID: "getY"})
			api.Op(r, http.MethodDelete, "/y/:id<int>", byID, api.Operation{ID: "deleteY"})
		},
		"a hidden route": func(r *waltz.Router) {
			api.Op(r, http.MethodGet, "/h/:id<int>", byID, api.Operation{ID: "getH"})
			r.With(api.Hide).Delete("/h/:key", plain)
		},
		"a catch-all of a shorter pattern": func(r *waltz.Router) {
			api.Op(r, http.MethodGet, "/k/:id<int>/b", byID, api.Operation{ID: "getK"})
			api.Op(r, http.MethodDelete, "/k/*rest", byRest, api.Operation{ID: "deleteK"})
		},
		"a trailing slash": func(r *waltz.Router) {
			api.Op(r, http.MethodGet, "/r/:id<int>", byID, api.Operation{ID: "getR"})
			r.Get("/r/:name/", plain)
		},
		"no automatic OPTIONS": func(r *waltz.Router) {
			r.HandleOPTIONS = false
			api.Op(r, http.MethodGet, "/items/latest", func(c *waltz.Context, _ *struct{}) (*ItemOut, error) { return &ItemOut{sample(1)}, nil }, api.Operation{ID: "latest"})
			api.Op(r, http.MethodPut, "/items/:id", byID, api.Operation{ID: "putItem"})
		},
		"an OPTIONS route": func(r *waltz.Router) {
			api.Op(r, http.MethodGet, "/items/latest", func(c *waltz.Context, _ *struct{}) (*ItemOut, error) { return &ItemOut{sample(1)}, nil }, api.Operation{ID: "latest"})
			api.Op(r, http.MethodPut, "/items/:id", byID, api.Operation{ID: "putItem"})
			r.Options("/items/:id", plain)
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := waltz.New()
			build(r)
			for _, e := range record(t, r, Options{Count: 5}).errs {
				t.Errorf("a failure: %s", e)
			}
		})
	}
}

// TestOwnRoute runs a constrained GET beside a plain one of its shape
// (/c/:id<int>, /c/:key), whose valid values may be digits the other
// route takes: each operation's requests are judged against the route it
// describes (api.Paths), not the one its first request lands on, so a
// correct router gets no failure and a planted undeclared status of the
// plain route is found.
func TestOwnRoute(t *testing.T) {
	type key struct {
		Key string `path:"key" maxLength:"10"`
	}
	build := func(plant bool) *waltz.Router {
		r := waltz.New()
		api.Op(r, http.MethodGet, "/c/:id<int>", func(c *waltz.Context, in *IDIn) (*ItemOut, error) { return &ItemOut{sample(1)}, nil },
			api.Operation{ID: "getC"})
		api.Op(r, http.MethodGet, "/c/:key", func(c *waltz.Context, in *key) (*ItemOut, error) {
			if plant {
				return nil, &waltz.HTTPError{Code: http.StatusTeapot}
			}
			return &ItemOut{sample(1)}, nil
		}, api.Operation{ID: "getCKey"})
		return r
	}
	for _, seed := range []uint64{1, 2, 3} {
		for _, e := range record(t, build(false), Options{Seed: seed}).errs {
			t.Errorf("seed %d: a failure: %s", seed, e)
		}
		errs := record(t, build(true), Options{Seed: seed}).errs
		if !slices.ContainsFunc(errs, func(e string) bool {
			return strings.HasPrefix(e, "getCKey valid #") && strings.Contains(e, "an undeclared status: got 418")
		}) {
			t.Errorf("seed %d: the planted 418 was not found: %q", seed, errs)
		}
	}
}
