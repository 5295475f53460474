package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

type allocIn struct {
	Org     string        `path:"org"`
	ID      int64         `path:"id" minimum:"1"`
	Limit   int           `query:"limit" minimum:"1" maximum:"100" default:"20"`
	Active  bool          `query:"active"`
	Sort    string        `query:"sort" enum:"asc,desc" default:"asc"`
	Ratio   float64       `query:"ratio" maximum:"1"`
	Wait    time.Duration `query:"wait"`
	Trace   string        `header:"X-Trace-Id" maxLength:"64"`
	Version uint16        `header:"X-Version"`
	Session string        `cookie:"session" minLength:"4"`
	When    time.Time     `query:"when"`
}

type allocOut struct {
	Status int
}

// TestTypedBindAllocs holds the promise that binding scalar path, query,
// header and cookie values allocates nothing: a handler that returns an
// answer it did not allocate costs no allocation per request.
func TestTypedBindAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	r := waltz.New()
	out := &allocOut{Status: http.StatusNoContent}
	var got allocIn
	Op(r, http.MethodGet, "/orgs/:org/items/:id", func(c *waltz.Context, in *allocIn) (*allocOut, error) {
		got = *in
		return out, nil
	}, Operation{})
	req := httptest.NewRequest(http.MethodGet,
		"/orgs/waltz/items/42?limit=7&active=true&sort=desc&ratio=0.5&wait=1.5s&when=2026-01-02T03:04:05Z&other=x", nil)
	req.Header.Set("X-Trace-Id", "abc")
	req.Header.Set("X-Version", "3")
	req.Header.Set("Cookie", "a=b; session=s3cret")
	w := newNopWriter()
	r.ServeHTTP(w, req)
	want := allocIn{Org: "waltz", ID: 42, Limit: 7, Active: true, Sort: "desc", Ratio: 0.5, Wait: 1500 * time.Millisecond,
		Trace: "abc", Version: 3, Session: "s3cret", When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if got != want {
		t.Fatalf("bound %+v, want %+v", got, want)
	}
	if n := testing.AllocsPerRun(200, func() { r.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("got %v allocs per request, want 0", n)
	}
	// Defaults cost nothing either.
	req = httptest.NewRequest(http.MethodGet, "/orgs/waltz/items/42", nil)
	if n := testing.AllocsPerRun(200, func() { r.ServeHTTP(w, req) }); n != 0 {
		t.Errorf("with defaults: got %v allocs per request, want 0", n)
	}
}

// TestTypedSliceAllocs checks that a repeated query param costs its
// slice, whatever the number of its values, when they are good.
func TestTypedSliceAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	type in struct {
		Tags []string `query:"tag" maxLength:"5"`
		IDs  []int    `query:"id" minimum:"1"`
	}
	r := waltz.New()
	Op(r, http.MethodGet, "/a", opFn[in, noOut], Operation{})
	w := httptest.NewRecorder()
	one := testing.AllocsPerRun(100, func() { r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/a?tag=a&id=1", nil)) })
	many := testing.AllocsPerRun(100, func() {
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/a?tag=a&tag=b&tag=c&tag=d&tag=e&tag=f&tag=g&tag=h&id=1&id=2&id=3&id=4&id=5&id=6", nil))
	})
	if many != one {
		t.Errorf("got %v allocs per request with 14 values, want %v as with 2", many, one)
	}
}

// TestTypedFailureAllocs holds that a POST whose body breaks its rules
// allocates no more than one that passes them: the failures' list,
// locations and messages, and the problem document, take about what the
// handler's answer takes; values after the first failure are checked but
// not kept (the failing body has more tags than the passing one, past
// maxItems).
func TestTypedFailureAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip(raceAllocs)
	}
	type in struct {
		Org  string `path:"org"`
		Body struct {
			Name     string   `json:"name" required:"true" minLength:"1" maxLength:"64"`
			Priority int      `json:"priority" required:"true" minimum:"1" maximum:"5"`
			Tags     []string `json:"tags,omitempty" maxItems:"8"`
		}
	}
	type out struct {
		Body struct {
			Org  string   `json:"org"`
			Name string   `json:"name"`
			Tags []string `json:"tags"`
		}
	}
	r := waltz.New()
	Op(r, http.MethodPost, "/orgs/:org/items", func(_ *waltz.Context, in *in) (*out, error) {
		o := &out{}
		o.Body.Org, o.Body.Name, o.Body.Tags = in.Org, in.Body.Name, in.Body.Tags
		return o, nil
	}, Operation{Status: http.StatusCreated})
	allocs := func(body string, status int) float64 {
		w := httptest.NewRecorder()
		send := func() {
			req := httptest.NewRequest(http.MethodPost, "/orgs/acme/items", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			w.Body.Reset()
			r.ServeHTTP(w, req)
		}
		send()
		if w.Code != status {
			t.Fatalf("%s: got %d %s, want %d", body, w.Code, w.Body, status)
		}
		return testing.AllocsPerRun(200, send)
	}
	pass := allocs(`{"name":"waltz","priority":3,"tags":["go","http"]}`, http.StatusCreated)
	fail := allocs(`{"name":"","priority":9,"tags":["go","go","http","json","api","rest","web","fast","tiny"]}`, http.StatusUnprocessableEntity)
	if fail > pass {
		t.Errorf("a failing POST allocates %v times, a passing one %v", fail, pass)
	}
}
