package middleware

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// idemAPI is a router with Idempotency on POST /orders/:id and a handler
// that counts its runs, answers 201 with the body it read, a Location,
// an ETag and a Set-Cookie, and does what the request's X-Do asks: "panic",
// "fail" (a plain error, so 500), "reject" (a 400 HTTPError), "wait" (block
// until release is closed).
type idemAPI struct {
	r       *waltz.Router
	runs    atomic.Int64
	entered chan struct{}
	release chan struct{}
}

func newIdemAPI(t testing.TB, o IdempotencyOptions) *idemAPI {
	t.Helper()
	a := &idemAPI{r: waltz.New(), entered: make(chan struct{}, 100), release: make(chan struct{})}
	a.r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	a.r.Use(Recoverer, func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			// An outer middleware's per-request field, which a replay must
			// not carry over from the first request.
			c.Writer.Header().Set("X-Request-Id", c.Request.Header.Get("X-Trace"))
			return next(c)
		}
	})
	auth := BasicAuth(BasicAuthOptions{Users: map[string]string{"alice": "a-pass", "bob": "b-pass"}})
	g := a.r.Group("", auth, Idempotency(o))
	g.Post("/orders/:id", func(c *waltz.Context) error {
		n := a.runs.Add(1)
		body, err := io.ReadAll(c.Request.Body)
		if err != nil {
			return err
		}
		switch c.Request.Header.Get("X-Do") {
		case "panic":
			panic("handler failed after the claim")
		case "fail":
			return errors.New("database down")
		case "reject":
			return &waltz.HTTPError{Code: http.StatusBadRequest, Message: "no such product"}
		case "wait":
			a.entered <- struct{}{}
			<-a.release
		}
		h := c.Writer.Header()
		h.Set("Location", "/orders/"+c.Param("id"))
		h.Set("ETag", `"v1"`)
		h.Set("Set-Cookie", "session=first-callers-secret")
		return c.JSON(http.StatusCreated, map[string]any{"run": n, "body": string(body)})
	})
	g.Get("/orders/:id", func(c *waltz.Context) error { a.runs.Add(1); return c.Text(http.StatusOK, "ok") })
	return a
}

// send sends method path with body as user, with the Idempotency-Key
// field set to key unless key is "-", and the extra fields kv.
func (a *idemAPI) send(method, path, user, key, body string, kv ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if user != "" {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":"+user[:1]+"-pass")))
	}
	if key != "-" {
		req.Header["Idempotency-Key"] = []string{key}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	w := httptest.NewRecorder()
	a.r.ServeHTTP(w, req)
	return w
}

func TestIdempotencyReplay(t *testing.T) {
	a := newIdemAPI(t, IdempotencyOptions{})
	first := a.send("POST", "/orders/1", "alice", `"k-1"`, `{"qty":2}`, "X-Trace", "first")
	if first.Code != 201 || first.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: got %d replayed %q, want 201 not replayed: %s", first.Code, first.Header().Get("Idempotent-Replayed"), first.Body)
	}
	for i, key := range []string{`"k-1"`, `k-1`, ` "k-1" `} { // the quoted, bare and padded forms are one key
		again := a.send("POST", "/orders/1", "alice", key, `{"qty":2}`, "X-Trace", "retry")
		if again.Code != 201 || again.Body.String() != first.Body.String() {
			t.Fatalf("retry %d (%s): got %d %q, want the first answer 201 %q", i, key, again.Code, again.Body, first.Body)
		}
		h := again.Header()
		for name, want := range map[string]string{
			"Idempotent-Replayed": "true", "Location": "/orders/1", "Etag": `"v1"`, "Content-Type": "application/json",
			"Set-Cookie": "", "X-Request-Id": "retry",
		} {
			if got := h.Get(name); got != want {
				t.Errorf("retry %d: got %s %q, want %q", i, name, got, want)
			}
		}
	}
	if n := a.runs.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want 1", n)
	}
}

func TestIdempotencyConflictAndReuse(t *testing.T) {
	a := newIdemAPI(t, IdempotencyOptions{})
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- a.send("POST", "/orders/1", "alice", `"k"`, `{"qty":2}`, "X-Do", "wait") }()
	<-a.entered
	for _, tc := range []struct {
		name, path, body string
		code             int
		retryAfter       string // a 409 says when to come back; a 422 is final
	}{
		{"same request, in flight", "/orders/1", `{"qty":2}`, 409, "1"},
		{"a body one byte off, in flight: 422 wins over 409", "/orders/1", `{"qty":3}`, 422, ""},
		{"another resource of the route, in flight", "/orders/2", `{"qty":2}`, 422, ""},
	} {
		w := a.send("POST", tc.path, "alice", `"k"`, tc.body, "X-Do", "wait")
		if w.Code != tc.code {
			t.Errorf("%s: got %d %q, want %d", tc.name, w.Code, w.Body, tc.code)
		}
		if got := w.Header().Values("Retry-After"); strings.Join(got, ",") != tc.retryAfter {
			t.Errorf("%s: got Retry-After %q, want %q", tc.name, got, tc.retryAfter)
		}
	}
	close(a.release)
	if w := <-done; w.Code != 201 {
		t.Fatalf("first: got %d, want 201", w.Code)
	}
	if w := a.send("POST", "/orders/1", "alice", `"k"`, `{"qty":2} `); w.Code != 422 {
		t.Errorf("a body one byte longer, done: got %d, want 422", w.Code)
	}
	if w := a.send("POST", "/orders/1", "alice", `"k"`, `{"qty":2}`); w.Code != 201 || w.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("same request, done: got %d replayed %q, want the replayed 201", w.Code, w.Header().Get("Idempotent-Replayed"))
	}
	if n := a.runs.Load(); n != 1 {
		t.Errorf("the handler ran %d times, want 1", n)
	}
}

func TestIdempotencyKeys(t *testing.T) {
	a := newIdemAPI(t, IdempotencyOptions{})
	long := strings.Repeat("k", 255)
	for _, tc := range []struct {
		name, key string
		code      int
	}{
		{"quoted", `"8e03978e-40d5-43e8-bc93-6894a57f9324"`, 201},
		{"bare uuid", `8e03978e-40d5-43e8-bc93-6894a57f9325`, 201},
		{"escapes", `"a\"b\\c"`, 201},
		{"space inside", `"a b"`, 201},
		{"255 bytes", `"` + long + `"`, 201},
		{"256 bytes", `"` + long + `k"`, 400},
		{"10 KiB", `"` + strings.Repeat("x", 10<<10) + `"`, 400},
		{"10 KiB bare", strings.Repeat("x", 10<<10), 400},
		{"empty field", ``, 400},
		{"empty string", `""`, 400},
		{"CR LF inside", "\"a\r\nX-Injected: 1\"", 400},
		{"LF bare", "a\nb", 400},
		{"tab inside", "\"a\tb\"", 400},
		{"unknown escape", `"a\nb"`, 400},
		{"no closing quote", `"abc`, 400},
		{"parameters", `"abc";v=1`, 400},
		{"two items", `"a", "b"`, 400},
		{"non-ASCII", `"ключ"`, 400},
		{"bare with a quote", `ab"c`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := a.send("POST", "/orders/1", "alice", tc.key, "{}")
			if w.Code != tc.code {
				t.Fatalf("got %d %q, want %d", w.Code, w.Body, tc.code)
			}
			if tc.code == 400 && !strings.Contains(w.Body.String(), "Idempotency-Key") {
				t.Errorf("got body %q, want it to name the header", w.Body)
			}
		})
	}
	req := httptest.NewRequest("POST", "/orders/1", strings.NewReader("{}"))
	req.SetBasicAuth("alice", "a-pass")
	req.Header["Idempotency-Key"] = []string{`"a"`, `"b"`}
	w := httptest.NewRecorder()
	a.r.ServeHTTP(w, req)
	if w.Code != 400 {
		t.Errorf("two fields: got %d, want 400", w.Code)
	}
}

func TestIdempotencyScope(t *testing.T) {
	a := newIdemAPI(t, IdempotencyOptions{})
	alice := a.send("POST", "/orders/1", "alice", `"shared"`, `{"qty":2}`)
	bob := a.send("POST", "/orders/1", "bob", `"shared"`, `{"qty":2}`)
	if alice.Code != 201 || bob.Code != 201 || bob.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("got %d and %d (replayed %q), want two 201s, the second not replayed", alice.Code, bob.Code, bob.Header().Get("Idempotent-Replayed"))
	}
	if bob.Body.String() == alice.Body.String() {
		t.Errorf("bob got alice's answer %q", alice.Body)
	}
	if n := a.runs.Load(); n != 2 {
		t.Errorf("the handler ran %d times, want 2: one per caller", n)
	}

	// A bearer caller is scoped by its token, and a request with no caller
	// at all is refused rather than shared.
	var runs atomic.Int64
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	r.Use(Idempotency(IdempotencyOptions{}))
	r.Post("/", func(c *waltz.Context) error { return c.Text(200, strings.Repeat("x", int(runs.Add(1)))) })
	do := func(auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/", nil)
		req.Header.Set("Idempotency-Key", `"k"`)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	if w := do(""); w.Code != 500 || runs.Load() != 0 {
		t.Errorf("no caller: got %d after %d runs, want 500 and no run", w.Code, runs.Load())
	}
	t1, t2, t1again := do("Bearer one"), do("Bearer two"), do("Bearer one")
	if t1.Body.String() != "x" || t2.Body.String() != "xx" || t1again.Body.String() != "x" || t1again.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("bearer callers: got %q, %q, %q, want x, xx, and x replayed", t1.Body, t2.Body, t1again.Body)
	}
}

func TestIdempotencyFailures(t *testing.T) {
	a := newIdemAPI(t, IdempotencyOptions{})
	for _, tc := range []struct {
		do           string
		code         int
		runsAfterTwo int64 // the handler's runs after the request and a retry
	}{
		{"panic", 500, 2},  // released: the retry runs
		{"fail", 500, 2},   // released
		{"reject", 400, 1}, // a 4xx is the answer: kept and replayed
	} {
		t.Run(tc.do, func(t *testing.T) {
			a.runs.Store(0)
			key := `"fail-` + tc.do + `"`
			first := a.send("POST", "/orders/1", "alice", key, "{}", "X-Do", tc.do)
			again := a.send("POST", "/orders/1", "alice", key, "{}", "X-Do", tc.do)
			if first.Code != tc.code || again.Code != tc.code {
				t.Errorf("got %d then %d, want %d twice", first.Code, again.Code, tc.code)
			}
			if n := a.runs.Load(); n != tc.runsAfterTwo {
				t.Errorf("the handler ran %d times, want %d", n, tc.runsAfterTwo)
			}
			if strings.Contains(first.Body.String()+again.Body.String(), "database") {
				t.Errorf("an internal error leaked: %q", first.Body.String()+again.Body.String())
			}
			// Never stuck: the same key now succeeds.
			if w := a.send("POST", "/orders/1", "alice", key, "{}"); tc.do != "reject" && w.Code != 201 {
				t.Errorf("after the failure: got %d, want 201", w.Code)
			}
		})
	}
}

func TestIdempotencyPassesThrough(t *testing.T) {
	a := newIdemAPI(t, IdempotencyOptions{})
	if w := a.send("GET", "/orders/1", "alice", `"k"`, ""); w.Code != 200 {
		t.Errorf("GET with a key: got %d, want 200", w.Code)
	}
	a.send("POST", "/orders/1", "alice", "-", "{}")
	a.send("POST", "/orders/1", "alice", "-", "{}")
	if n := a.runs.Load(); n != 3 {
		t.Errorf("got %d runs, want 3: GET and POST without a key are not made idempotent", n)
	}
	req := newIdemAPI(t, IdempotencyOptions{Required: true})
	if w := req.send("POST", "/orders/1", "alice", "-", "{}"); w.Code != 400 || !strings.Contains(w.Body.String(), "needs an idempotency key") {
		t.Errorf("Required, no key: got %d %q, want 400 naming the key", w.Code, w.Body)
	}
	custom := newIdemAPI(t, IdempotencyOptions{Header: "X-Request-Key", Methods: []string{"POST", "PUT"}})
	for range 2 {
		custom.send("POST", "/orders/1", "alice", "-", "{}", "X-Request-Key", `"c"`)
	}
	if n := custom.runs.Load(); n != 1 {
		t.Errorf("a configured header: got %d runs, want 1", n)
	}
}

func TestIdempotencyBody(t *testing.T) {
	r := waltz.New()
	r.MaxBodyBytes = 64
	var got []string
	r.Use(Idempotency(IdempotencyOptions{Scope: func(*waltz.Context) string { return "s" }}))
	r.Post("/", func(c *waltz.Context) error {
		b, _ := io.ReadAll(c.Request.Body)
		got = append(got, string(b))
		return c.NoContent(204)
	})
	for _, tc := range []struct {
		name, body string
		chunked    bool
		code       int
	}{
		{"64 bytes", strings.Repeat("b", 64), false, 204},
		{"65 bytes, declared", strings.Repeat("b", 65), false, 413},
		{"65 bytes, chunked", strings.Repeat("c", 65), true, 413},
		{"empty", "", false, 204},
	} {
		var body io.Reader = strings.NewReader(tc.body)
		if tc.chunked {
			body = io.MultiReader(body) // no length known
		}
		req := httptest.NewRequest("POST", "/", body)
		req.Header.Set("Idempotency-Key", `"`+strings.ReplaceAll(tc.name, ",", "")+`"`)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != tc.code {
			t.Errorf("%s: got %d, want %d", tc.name, w.Code, tc.code)
		}
	}
	if len(got) != 2 || got[0] != strings.Repeat("b", 64) || got[1] != "" {
		t.Errorf("the handler read %q, want the 64-byte body then the empty one", got)
	}
}

func TestIdempotencyExpiry(t *testing.T) {
	a := newIdemAPI(t, IdempotencyOptions{Expiry: 50 * time.Millisecond, Lease: 50 * time.Millisecond})
	a.send("POST", "/orders/1", "alice", `"e"`, "{}")
	time.Sleep(100 * time.Millisecond)
	if w := a.send("POST", "/orders/1", "alice", `"e"`, "{}"); w.Header().Get("Idempotent-Replayed") != "" {
		t.Errorf("after the expiry: got a replay, want a new run")
	}
	// A claim whose lease lapsed (the server died, say) frees the key.
	done := make(chan struct{})
	go func() { a.send("POST", "/orders/1", "alice", `"l"`, "{}", "X-Do", "wait"); close(done) }()
	<-a.entered
	time.Sleep(100 * time.Millisecond)
	go a.send("POST", "/orders/1", "alice", `"l"`, "{}", "X-Do", "wait")
	select {
	case <-a.entered:
	case <-time.After(5 * time.Second):
		t.Errorf("a lapsed claim still held the key")
	}
	close(a.release)
	<-done
	if n := a.runs.Load(); n != 4 { // "e" twice, "l" twice
		t.Errorf("got %d runs, want 4", n)
	}
}

// TestIdempotencyConcurrent sends one key from many goroutines: one run,
// every other answer a 409 or the replay.
func TestIdempotencyConcurrent(t *testing.T) {
	var runs atomic.Int64
	r := waltz.New()
	r.Use(Idempotency(IdempotencyOptions{Scope: func(*waltz.Context) string { return "s" }}))
	r.Post("/", func(c *waltz.Context) error {
		time.Sleep(5 * time.Millisecond)
		return c.Text(201, "run "+string(rune('0'+runs.Add(1))))
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	for i := range 100 {
		wg.Go(func() {
			time.Sleep(time.Duration(i%20) * time.Millisecond)
			req := httptest.NewRequest("POST", "/", strings.NewReader("same"))
			req.Header.Set("Idempotency-Key", "k")
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			mu.Lock()
			counts[w.Result().Status+" "+w.Header().Get("Idempotent-Replayed")+" "+w.Body.String()]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if runs.Load() != 1 {
		t.Fatalf("the handler ran %d times, want 1", runs.Load())
	}
	for k, n := range counts {
		switch {
		case k == "201 Created  run 1" && n == 1, k == "201 Created true run 1", strings.HasPrefix(k, "409 Conflict "):
		default:
			t.Errorf("got %d answers %q, want one 201, then 409s and replays", n, k)
		}
	}
	t.Logf("answers: %v", counts)
}

func TestIdempotencyDocument(t *testing.T) {
	r := waltz.New()
	type in struct {
		Body struct {
			Name string `json:"name"`
		}
	}
	type out struct {
		Body struct {
			ID int `json:"id"`
		}
	}
	h := func(c *waltz.Context, in *in) (*out, error) { return &out{}, nil }
	api.Op(r.With(Idempotency(IdempotencyOptions{})), http.MethodPost, "/memory", h, api.Operation{Status: http.StatusCreated})
	api.Op(r.With(Idempotency(IdempotencyOptions{Store: awayStore{}})), http.MethodPost, "/remote", h, api.Operation{Status: http.StatusCreated})
	api.Op(r.With(Idempotency(IdempotencyOptions{Store: awayStore{}, FailOpen: true})), http.MethodPost, "/open", h, api.Operation{Status: http.StatusCreated})
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name     string `json:"name"`
				In       string `json:"in"`
				Required bool   `json:"required"`
			} `json:"parameters"`
			Responses map[string]struct {
				Headers map[string]struct {
					Required bool `json:"required"`
				} `json:"headers"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(r, api.Info{}), &doc); err != nil {
		t.Fatal(err)
	}
	for path, want503 := range map[string]bool{"/memory": false, "/remote": true, "/open": false} {
		// A replayed answer is marked: a field the success may carry.
		if h, ok := doc.Paths[path]["post"].Responses["201"].Headers["Idempotent-Replayed"]; !ok || h.Required {
			t.Errorf("%s 201: got Idempotent-Replayed %v (required %v), want the optional field", path, ok, h.Required)
		}
		ps := doc.Paths[path]["post"].Parameters
		if len(ps) != 1 || ps[0].Name != "Idempotency-Key" || ps[0].In != "header" || ps[0].Required {
			t.Errorf("%s: got parameters %+v, want the optional header Idempotency-Key", path, ps)
		}
		resp := doc.Paths[path]["post"].Responses
		for _, code := range []string{"400", "409", "413", "422"} {
			if _, ok := resp[code]; !ok {
				t.Errorf("%s: the document has no %s; got %v", path, code, resp)
			}
		}
		if _, ok := resp["503"]; ok != want503 {
			t.Errorf("%s: got a 503 %v, want %v", path, ok, want503)
		}
	}
}

func TestIdempotencyPanicsAtConstruction(t *testing.T) {
	for _, tc := range []struct {
		o    IdempotencyOptions
		want string
	}{
		{IdempotencyOptions{Header: "Bad Header"}, "IdempotencyOptions.Header"},
		{IdempotencyOptions{Methods: []string{"PO ST"}}, "IdempotencyOptions.Methods"},
		{IdempotencyOptions{MaxKeyLength: -1}, "IdempotencyOptions.MaxKeyLength"},
		{IdempotencyOptions{Expiry: -time.Second}, "IdempotencyOptions.Expiry"},
		{IdempotencyOptions{ReplayHeaders: []string{"set-cookie"}}, "IdempotencyOptions.ReplayHeaders"},
		{IdempotencyOptions{ReplayHeaders: []string{"Date"}}, "never replayed"},
		{IdempotencyOptions{ReplayHeaders: []string{"keep-alive"}}, "never replayed"},
		{IdempotencyOptions{ReplayHeaders: []string{"Upgrade"}}, "never replayed"},
		{IdempotencyOptions{ReplayHeaders: []string{"Trailer"}}, "never replayed"},
		{IdempotencyOptions{ReplayHeaders: []string{"TE"}}, "never replayed"},
	} {
		if msg := panicMessage(func() { Idempotency(tc.o) }); !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%+v: got panic %q, want one naming %s", tc.o, msg, tc.want)
		}
	}
	if msg := panicMessage(func() { NewMemoryIdempotencyStore(1) }); !strings.HasPrefix(msg, "waltz: ") {
		t.Errorf("a store of 1 byte: got panic %q", msg)
	}
}

// awayStore is an IdempotencyStore whose every call fails, as one whose backend is
// away.
type awayStore struct{}

var errStoreAway = errors.New("store unreachable")

func (awayStore) Claim(context.Context, string, string, Fingerprint, time.Duration) (IdempotencyClaim, error) {
	return IdempotencyClaim{}, errStoreAway
}

func (awayStore) Save(context.Context, string, string, uint64, *IdempotencyAnswer, time.Duration) error {
	return errStoreAway
}

func (awayStore) Release(context.Context, string, string, uint64) error { return errStoreAway }

func TestIdempotencyStoreFails(t *testing.T) {
	for _, tc := range []struct {
		failOpen bool
		code     int
		runs     int64
	}{{false, 503, 0}, {true, 201, 2}} {
		a := newIdemAPI(t, IdempotencyOptions{Store: awayStore{}, FailOpen: tc.failOpen})
		var logs bytes.Buffer
		a.r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		for range 2 {
			if w := a.send("POST", "/orders/1", "alice", `"k"`, "{}"); w.Code != tc.code || strings.Contains(w.Body.String(), "unreachable") {
				t.Errorf("FailOpen %v: got %d %q, want %d leaking nothing", tc.failOpen, w.Code, w.Body, tc.code)
			}
		}
		if n := a.runs.Load(); n != tc.runs {
			t.Errorf("FailOpen %v: the handler ran %d times, want %d", tc.failOpen, n, tc.runs)
		}
		if !strings.Contains(logs.String(), "store unreachable") {
			t.Errorf("FailOpen %v: the failure was not logged: %q", tc.failOpen, logs.String())
		}
		if tc.failOpen && strings.Count(logs.String(), "run without a claim") != 1 {
			t.Errorf("FailOpen: got log %q, want one line for two failures within a second", logs.String())
		}
	}
}

// brokenWriter fails every write, as a connection whose client went away.
type brokenWriter struct{ http.ResponseWriter }

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestIdempotencyLostAnswer: a first answer the client never got (every
// write failed) is kept whole, and the retry gets it.
func TestIdempotencyLostAnswer(t *testing.T) {
	var runs atomic.Int64
	r := waltz.New()
	r.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	r.Use(func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			if c.Request.Header.Get("X-Lost") != "" {
				c.Writer = brokenWriter{c.Writer}
			}
			return next(c)
		}
	}, Idempotency(IdempotencyOptions{Scope: func(*waltz.Context) string { return "s" }}))
	r.Post("/", func(c *waltz.Context) error {
		runs.Add(1)
		return c.Blob(http.StatusCreated, "text/plain", []byte("order 1 created"))
	})
	for _, lost := range []string{"yes", ""} {
		req := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
		req.Header.Set("Idempotency-Key", `"lost"`)
		req.Header.Set("X-Lost", lost)
		w := httptest.NewRecorder()
		// The lost answer's write error, after its status, aborts it.
		_ = panicMessage(func() { r.ServeHTTP(w, req) })
		if lost == "" && (w.Code != 201 || w.Body.String() != "order 1 created" || w.Header().Get("Idempotent-Replayed") != "true") {
			t.Errorf("the retry: got %d %q (replayed %q), want the whole first answer replayed", w.Code, w.Body, w.Header().Get("Idempotent-Replayed"))
		}
	}
	if runs.Load() != 1 {
		t.Errorf("the handler ran %d times, want 1", runs.Load())
	}
}

// stalledBody fails its read as a body whose read deadline passed.
type stalledBody struct{}

func (stalledBody) Read([]byte) (int, error) { return 0, os.ErrDeadlineExceeded }
func (stalledBody) Close() error             { return nil }

// TestIdempotencyBodyFails: a body that stops arriving is a 408 that
// closes the connection, one that fails otherwise a 400, as Bind answers;
// neither claims the key.
func TestIdempotencyBodyFails(t *testing.T) {
	a := newIdemAPI(t, IdempotencyOptions{})
	for _, tc := range []struct {
		body  io.ReadCloser
		code  int
		close bool
	}{
		{stalledBody{}, http.StatusRequestTimeout, true},
		{io.NopCloser(iotest.ErrReader(errors.New("reset"))), http.StatusBadRequest, false},
	} {
		req := httptest.NewRequest("POST", "/orders/1", nil)
		req.Body, req.ContentLength = tc.body, -1
		req.SetBasicAuth("alice", "a-pass")
		req.Header.Set("Idempotency-Key", `"body-fails"`)
		w := httptest.NewRecorder()
		a.r.ServeHTTP(w, req)
		if w.Code != tc.code || (w.Header().Get("Connection") == "close") != tc.close {
			t.Errorf("got %d, Connection %q, want %d (close %v)", w.Code, w.Header().Get("Connection"), tc.code, tc.close)
		}
	}
	if w := a.send("POST", "/orders/1", "alice", `"body-fails"`, "{}"); w.Code != 201 || a.runs.Load() != 1 {
		t.Errorf("then a whole body: got %d after %d runs, want 201 and one run", w.Code, a.runs.Load())
	}
}

// TestIdempotencyAborted: a response cut after part of its body (an error
// after the handler wrote a part) is no answer to replay: a retry with the
// key runs the handler again, never gets the part as a whole 409.
func TestIdempotencyAborted(t *testing.T) {
	r := waltz.New()
	r.Logger = slog.New(slog.DiscardHandler)
	r.Use(Idempotency(IdempotencyOptions{Store: NewMemoryIdempotencyStore(1 << 20),
		Scope: func(*waltz.Context) string { return "u" }}))
	runs := 0
	r.Post("/", func(c *waltz.Context) error {
		runs++
		c.Writer.Header().Set("Content-Type", "application/json")
		c.Writer.WriteHeader(http.StatusConflict)
		_, _ = c.Writer.Write([]byte(`{"error":"conflict","detail":"par`))
		return errors.New("encoder failed midway")
	})
	for i := range 2 {
		req := httptest.NewRequest(http.MethodPost, "/", nil)
		req.Header.Set("Idempotency-Key", `"k1"`)
		w := httptest.NewRecorder()
		if got := panicMessage(func() { r.ServeHTTP(w, req) }); got != http.ErrAbortHandler.Error() {
			t.Errorf("request %d: got panic %q and %d %q, want the response cut", i, got, w.Code, w.Body)
		}
	}
	if runs != 2 {
		t.Errorf("the handler ran %d times, want 2: a cut answer is not kept", runs)
	}
}
