package waltz

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
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
	r := New()
	out := &allocOut{Status: http.StatusNoContent}
	var got allocIn
	Op(r, http.MethodGet, "/orgs/:org/items/:id", func(c *Context, in *allocIn) (*allocOut, error) {
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
