package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/openapi"
)

type mountedItem struct {
	ID int64 `path:"id"`
}

// mountedAPI returns a router with a typed operation and its document
// at /openapi.json, made with info.
func mountedAPI(info api.Info) *waltz.Router {
	sub := waltz.New()
	api.Op(sub, http.MethodGet, "/items/:id", func(c *waltz.Context, in *mountedItem) (*struct{ Body string }, error) {
		return &struct{ Body string }{"ok"}, nil
	}, api.Operation{ID: "getItem"})
	sub.With(api.Hide).Get("/openapi.json", api.ServeOpenAPI(sub, info))
	return sub
}

// servedServers fetches the document at target from h and returns its
// servers, and checks that its paths are the mounted router's own.
func servedServers(t *testing.T, h http.Handler, target string) []openapi.Server {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: got %d, want 200", target, w.Code)
	}
	var d openapi.Document
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.Paths["/items/{id}"] == nil {
		t.Errorf("GET %s: the paths are not the mounted router's own: %v", target, d.Paths)
	}
	return d.Servers
}

// TestMountedServers checks that the document of a router another
// router mounts gives the mount's prefix as its server (OpenAPI 3.1
// sections 4.8.1 and 4.8.5), so that a server's URL and a path make the
// URL the outer router serves the operation at; through a chain of
// mounts, at two places, with params as server variables (section
// 4.8.6); and that Info.Servers, when given, stays as it is.
func TestMountedServers(t *testing.T) {
	one := func(url string) []openapi.Server { return []openapi.Server{{URL: url}} }
	t.Run("not mounted", func(t *testing.T) {
		if got := servedServers(t, mountedAPI(api.Info{}), "/openapi.json"); !reflect.DeepEqual(got, one("/")) {
			t.Errorf("got %+v, want /", got)
		}
	})
	t.Run("mounted at /v1", func(t *testing.T) {
		parent := waltz.New()
		sub := mountedAPI(api.Info{})
		parent.Mount("/v1", sub)
		if got := servedServers(t, parent, "/v1/openapi.json"); !reflect.DeepEqual(got, one("/v1")) {
			t.Errorf("got %+v, want /v1", got)
		}
		// The document made offline says the same.
		var d openapi.Document
		if err := json.Unmarshal(api.OpenAPI(sub, api.Info{}), &d); err != nil || !reflect.DeepEqual(d.Servers, one("/v1")) {
			t.Errorf("api.OpenAPI: got %+v (%v), want /v1", d.Servers, err)
		}
	})
	t.Run("in a group, through two mounts", func(t *testing.T) {
		outer, parent := waltz.New(), waltz.New()
		parent.Group("/api").Mount("/v1", mountedAPI(api.Info{}))
		outer.Mount("/edge", parent)
		if got := servedServers(t, outer, "/edge/api/v1/openapi.json"); !reflect.DeepEqual(got, one("/edge/api/v1")) {
			t.Errorf("got %+v, want /edge/api/v1", got)
		}
	})
	t.Run("at two places", func(t *testing.T) {
		parent := waltz.New()
		sub := mountedAPI(api.Info{})
		parent.Mount("/v1", sub)
		parent.Mount("/latest", sub)
		want := []openapi.Server{{URL: "/v1"}, {URL: "/latest"}}
		if got := servedServers(t, parent, "/latest/openapi.json"); !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})
	t.Run("with a param", func(t *testing.T) {
		parent := waltz.New()
		parent.Mount("/org/:tenant<int>", mountedAPI(api.Info{}))
		got := servedServers(t, parent, "/org/7/openapi.json")
		if len(got) != 1 || got[0].URL != "/org/{tenant}" || got[0].Variables["tenant"] == nil || got[0].Variables["tenant"].Default != "1" {
			t.Errorf("got %+v, want the server /org/{tenant}, its variable tenant defaulting to 1 (an int)", got)
		}
	})
	t.Run("with params of other constraints", func(t *testing.T) {
		// Each default is a value its constraint takes: the URL of the
		// defaults reaches the mounted router.
		parent := waltz.New()
		parent.Mount("/u/:id<uuid>/:name<alpha>/:any", mountedAPI(api.Info{}))
		got := servedServers(t, parent, "/u/123e4567-e89b-12d3-a456-426614174000/x/y/openapi.json")
		if len(got) != 1 {
			t.Fatalf("got %+v, want one server", got)
		}
		url := got[0].URL
		for name, v := range got[0].Variables {
			url = strings.ReplaceAll(url, "{"+name+"}", v.Default)
		}
		w := httptest.NewRecorder()
		parent.ServeHTTP(w, httptest.NewRequest(http.MethodGet, url+"/openapi.json", nil))
		if w.Code != http.StatusOK {
			t.Errorf("the defaults' URL %s/openapi.json: got %d, want 200", url, w.Code)
		}
	})
	t.Run("in itself", func(t *testing.T) {
		sub := mountedAPI(api.Info{})
		sub.Mount("/again", sub) // a chain with no end: no place of its own
		if got := servedServers(t, sub, "/openapi.json"); !reflect.DeepEqual(got, one("/")) {
			t.Errorf("got %+v, want /", got)
		}
	})
	t.Run("in a cycle", func(t *testing.T) {
		// outer mounts a at /a, a mounts b at /b, b mounts a at /c: a
		// is served at /a/b/c too, and at /a/b/c/b/c, without end; its
		// place is /a, b's /a/b.
		outer, a, b := waltz.New(), mountedAPI(api.Info{}), mountedAPI(api.Info{})
		outer.Mount("/a", a)
		a.Mount("/b", b)
		b.Mount("/c", a)
		if got := servedServers(t, outer, "/a/openapi.json"); !reflect.DeepEqual(got, one("/a")) {
			t.Errorf("a: got %+v, want /a", got)
		}
		if got := servedServers(t, outer, "/a/b/openapi.json"); !reflect.DeepEqual(got, one("/a/b")) {
			t.Errorf("b: got %+v, want /a/b", got)
		}
	})
	t.Run("in itself twice, and mounted", func(t *testing.T) {
		// Each chain through sub's own mounts doubles: followed to a
		// depth, they were 2^16 servers, found in quadratic time.
		outer, sub := waltz.New(), mountedAPI(api.Info{})
		outer.Mount("/v1", sub)
		sub.Mount("/x", sub)
		sub.Mount("/y", sub)
		done := make(chan []openapi.Server, 1)
		go func() { done <- api.Describe(sub, api.Info{}).Servers }()
		select {
		case got := <-done:
			if !reflect.DeepEqual(got, one("/v1")) {
				t.Errorf("got %d servers (%+v), want /v1", len(got), got[:min(len(got), 3)])
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Describe took more than 10s")
		}
	})
	t.Run("Info.Servers kept", func(t *testing.T) {
		parent := waltz.New()
		parent.Mount("/v1", mountedAPI(api.Info{Servers: []string{"https://api.example.com/v1"}}))
		if got := servedServers(t, parent, "/v1/openapi.json"); !reflect.DeepEqual(got, one("https://api.example.com/v1")) {
			t.Errorf("got %+v, want https://api.example.com/v1", got)
		}
	})
	t.Run("behind another handler", func(t *testing.T) {
		parent := waltz.New()
		sub := mountedAPI(api.Info{})
		parent.Mount("/v1", http.HandlerFunc(sub.ServeHTTP))
		if got := servedServers(t, parent, "/v1/openapi.json"); !reflect.DeepEqual(got, one("/")) {
			t.Errorf("got %+v, want / (a mount waltz does not see)", got)
		}
	})
}
