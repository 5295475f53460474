package middleware

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
)

// TestIdempotencyAllocs holds the memory store's cost per request: a
// request that runs costs at most one allocation (its claim) besides
// storing its answer, over the same route without Idempotency, and a
// replay at most one in all (its fields' value slices), a 422 none and
// a 409 one (its Retry-After slice).
func TestIdempotencyAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	const runs = 100
	store := NewMemoryIdempotencyStore(64 << 20)
	// Grow the store's maps first, so that their growth is not counted.
	for i := range 4096 {
		k := fmt.Sprint("warm-", i)
		cl, _ := store.Claim(context.Background(), "s", k, Fingerprint{}, 60e9)
		store.Release(context.Background(), "s", k, cl.Token)
	}
	h := func(c *waltz.Context) error {
		c.Writer.Header()["Location"] = []string{"/orders/7"}
		return c.Text(http.StatusCreated, "created")
	}
	newRouter := func(mw ...waltz.Middleware) *waltz.Router {
		r := waltz.New()
		r.Use(mw...)
		r.Post("/orders", h)
		return r
	}
	plain := newRouter()
	idem := newRouter(Idempotency(IdempotencyOptions{Store: store, Scope: func(*waltz.Context) string { return "s" }}))

	// requests returns runs+1 requests, one per AllocsPerRun call, each
	// with a key of its own unless same.
	requests := func(prefix string, same bool) []*http.Request {
		reqs := make([]*http.Request, runs+1)
		for i := range reqs {
			key := fmt.Sprintf("%s-%d", prefix, i)
			if same {
				key = prefix
			}
			reqs[i] = httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"qty":1}`))
			reqs[i].Header.Set("Idempotency-Key", `"`+key+`"`)
		}
		return reqs
	}
	measure := func(r http.Handler, reqs []*http.Request) float64 {
		w := &nopWriter{h: http.Header{}}
		i := 0
		return testing.AllocsPerRun(runs, func() {
			clear(w.h)
			r.ServeHTTP(w, reqs[i])
			i++
		})
	}
	// Warm the pools.
	for _, req := range requests("warm-up", false)[:3] {
		idem.ServeHTTP(&nopWriter{h: http.Header{}}, req)
	}
	base := measure(plain, requests("plain", false))

	// Storing the answer: what keep makes from a recorded 201 with its
	// Location and Content-Type and a 7-byte body.
	id := newIdempotency(IdempotencyOptions{})
	st := &idemState{}
	st.rec.status, st.rec.sent, st.rec.body = 201, true, []byte("created")
	st.rec.fields = [][2]string{{"Content-Type", "text/plain; charset=utf-8"}, {"Location", "/orders/7"}}
	c := waltz.NewContext(httptest.NewRecorder(), httptest.NewRequest("POST", "/", nil))
	storing := testing.AllocsPerRun(runs, func() { id.keep(c, st, nil) })

	first := measure(idem, requests("first", false))
	if got := first - base - storing; got > 1 {
		t.Errorf("a request that runs: got %v allocations over the plain route's %v and storing's %v, want at most 1 more", first, base, storing)
	}
	idem.ServeHTTP(&nopWriter{h: http.Header{}}, requests("replayed", true)[0])
	replays := measure(idem, requests("replayed", true))
	if replays > 1 { // no handler runs, so the plain route's are not among them
		t.Errorf("a replay: got %v allocations, want at most 1", replays)
	}
	// A key held by another request (another fingerprint): 422, which
	// takes the path of a 409 but for the comparison, a shared error.
	store.Claim(context.Background(), "s", "held", Fingerprint{1}, 60e9)
	conflicts := measure(idem, requests("held", true))
	if conflicts > 0 {
		t.Errorf("a 422: got %v allocations, want none", conflicts)
	}
	// The same request in flight: 409, whose Retry-After is the
	// response's own slice.
	inflight := Fingerprint(sha256.Sum256([]byte("POST\x00/orders\x00/orders\x00\x00{\"qty\":1}")))
	store.Claim(context.Background(), "s", "running", inflight, 60e9)
	w := httptest.NewRecorder()
	idem.ServeHTTP(w, requests("running", true)[0])
	if w.Code != http.StatusConflict {
		t.Fatalf("the request in flight: got %d, want 409", w.Code)
	}
	running := measure(idem, requests("running", true))
	if running > 1 {
		t.Errorf("a 409: got %v allocations, want at most 1", running)
	}
	t.Logf("plain route %v, a request that runs %v (storing its answer %v), a replay %v, a refusal %v, a 409 %v", base, first, storing, replays, conflicts, running)
}
