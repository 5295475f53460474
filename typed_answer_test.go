package waltz

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

type echoIn struct {
	Body struct {
		A string `json:"a"`
	}
}

type echoOut struct {
	Body any
}

// TestTypedOutIntoIn: an answer that points into its input is written
// before the input goes back to the pool, so it is sent whole, and never
// mixed with a concurrent request's input.
func TestTypedOutIntoIn(t *testing.T) {
	r := New()
	Op(r, http.MethodPost, "/echo", func(c *Context, in *echoIn) (*echoOut, error) {
		return &echoOut{Body: &in.Body}, nil
	}, Operation{})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			want := strings.Repeat("x", i+1)
			req := httptest.NewRequest(http.MethodPost, "/echo", strings.NewReader(`{"a":"`+want+`"}`))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if got := strings.TrimSpace(w.Body.String()); w.Code != http.StatusOK || got != `{"a":"`+want+`"}` {
				t.Errorf("got %d %s, want 200 {\"a\":%q}", w.Code, got, want)
			}
		})
	}
	wg.Wait()
}

// TestErrorDropsEntityFields: an error answer carries none of the fields
// that described the body it replaces, Content-Language included.
func TestErrorDropsEntityFields(t *testing.T) {
	r := New()
	r.Get("/", func(c *Context) error {
		h := c.Writer.Header()
		for _, k := range []string{"Etag", "Content-Length", "Content-Encoding", "Content-Language", "Content-Range", "Last-Modified"} {
			h.Set(k, "x")
		}
		return &HTTPError{Code: http.StatusConflict}
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	for _, k := range []string{"Etag", "Content-Encoding", "Content-Language", "Content-Range", "Last-Modified"} {
		if v := w.Header().Get(k); v != "" {
			t.Errorf("got %s %q on the 409, want none", k, v)
		}
	}
	if w.Code != http.StatusConflict {
		t.Errorf("got %d, want 409", w.Code)
	}
}
