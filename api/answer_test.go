package api

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
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
	r := waltz.New()
	Op(r, http.MethodPost, "/echo", func(c *waltz.Context, in *echoIn) (*echoOut, error) {
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
	r := waltz.New()
	r.Get("/", func(c *waltz.Context) error {
		h := c.Writer.Header()
		for _, k := range []string{"Etag", "Content-Length", "Content-Encoding", "Content-Language", "Content-Range", "Last-Modified"} {
			h.Set(k, "x")
		}
		return &waltz.HTTPError{Code: http.StatusConflict}
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

// TestTypedAnswerJSON holds that a typed answer's body is json.Marshal's
// bytes and a newline, whether its type is written by the encoder's plan
// (plain data) or by encoding/json (a map, a time), answer after answer
// from the pooled buffer, and that a NaN is a 500, as json.Marshal
// refuses it.
func TestTypedAnswerJSON(t *testing.T) {
	type leaf struct {
		Name string `json:"name"`
	}
	type item struct {
		Name  string   `json:"name"`
		Score float64  `json:"score,omitempty"`
		Tags  []string `json:"tags"`
		Next  *leaf    `json:"next,omitempty"`
	}
	type plain struct {
		Body struct {
			ID    int64   `json:"id"`
			Items []item  `json:"items"`
			Note  *string `json:"note"`
			HTML  string  `json:"html"`
		}
	}
	type mixed struct {
		Body struct {
			At   time.Time      `json:"at"`
			Meta map[string]int `json:"meta"`
		}
	}
	note := "<b>&</b>"
	var ps []plain
	for i := range 5 {
		var p plain
		p.Body.ID = int64(i) - 2
		p.Body.HTML = strings.Repeat("é<\u2028", i)
		for j := range i {
			p.Body.Items = append(p.Body.Items, item{Name: strconv.Itoa(j), Score: float64(j) / 3, Tags: []string{"a", ""}[:j%3], Next: &leaf{Name: "n"}})
		}
		if i%2 == 0 {
			p.Body.Note = &note
		}
		ps = append(ps, p)
	}
	var m mixed
	m.Body.At, m.Body.Meta = time.Date(2026, 12, 2, 3, 4, 5, 6, time.UTC), map[string]int{"b": 2, "a": 1}
	var nan plain
	nan.Body.Items = []item{{Score: math.NaN()}}

	r := waltz.New()
	n := 0
	Op(r, http.MethodGet, "/plain", func(*waltz.Context, *struct{}) (*plain, error) { n++; return &ps[n%len(ps)], nil }, Operation{})
	Op(r, http.MethodGet, "/mixed", func(*waltz.Context, *struct{}) (*mixed, error) { return &m, nil }, Operation{})
	Op(r, http.MethodGet, "/nan", func(*waltz.Context, *struct{}) (*plain, error) { return &nan, nil }, Operation{})
	for range 12 {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/plain", nil))
		want, _ := json.Marshal(ps[n%len(ps)].Body)
		if w.Code != http.StatusOK || w.Body.String() != string(want)+"\n" {
			t.Fatalf("got %d %s, want %s", w.Code, w.Body, want)
		}
	}
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/mixed", nil))
	if want, _ := json.Marshal(m.Body); w.Body.String() != string(want)+"\n" {
		t.Errorf("mixed: got %s, want %s", w.Body, want)
	}
	w = httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/nan", nil))
	if w.Code != http.StatusInternalServerError {
		t.Errorf("NaN: got %d %s, want 500", w.Code, w.Body)
	}
}
