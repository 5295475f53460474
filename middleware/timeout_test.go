package middleware

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

func toRouter(o TimeoutOptions) *waltz.Router {
	r := waltz.New()
	g := r.Group("/t", Timeout(o))
	g.Get("/fast", func(c *waltz.Context) error { return c.Text(http.StatusOK, "fast") })
	g.Get("/obeys", func(c *waltz.Context) error {
		<-c.Request.Context().Done()
		return c.Request.Context().Err()
	})
	g.Get("/ignores", func(c *waltz.Context) error {
		time.Sleep(3 * o.Duration)
		return c.Text(http.StatusOK, "late")
	})
	g.Get("/started", func(c *waltz.Context) error {
		if err := c.Text(http.StatusOK, "early "); err != nil {
			return err
		}
		<-c.Request.Context().Done()
		_, err := io.WriteString(c.Writer, "and late")
		return err
	})
	// Not under Timeout: a stream that outlives the group's duration.
	r.Get("/stream", func(c *waltz.Context) error {
		for i := range 3 {
			time.Sleep(o.Duration)
			if _, err := io.WriteString(c.Writer, "event "); err != nil {
				return err
			}
			if err := http.NewResponseController(c.Writer).Flush(); err != nil {
				return err
			}
			_ = i
		}
		return nil
	})
	return r
}

func TestTimeout(t *testing.T) {
	d := 20 * time.Millisecond
	for _, tc := range []struct {
		name string
		o    TimeoutOptions
		path string
		code int
		body string
	}{
		{"fast handler", TimeoutOptions{Duration: d}, "/t/fast", 200, "fast"},
		// RFC 9110 section 15.6.4: 503, the server cannot answer now.
		{"handler obeys its context", TimeoutOptions{Duration: d}, "/t/obeys", 503, "Service Unavailable"},
		{"handler ignores its context", TimeoutOptions{Duration: d}, "/t/ignores", 503, "Service Unavailable"},
		{"custom answer", TimeoutOptions{Duration: d, Code: 504, Message: "upstream slow"}, "/t/obeys", 504, "upstream slow"},
		// A response that started in time is left to finish.
		{"started before the deadline", TimeoutOptions{Duration: d}, "/t/started", 200, "early and late"},
		{"streaming route outside the group", TimeoutOptions{Duration: d}, "/stream", 200, "event event event "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(toRouter(tc.o))
			defer srv.Close()
			res, err := http.Get(srv.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.code || string(body) != tc.body {
				t.Errorf("got %d %q, want %d %q", res.StatusCode, body, tc.code, tc.body)
			}
		})
	}
}

func TestTimeoutLogsOnce(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), Timeout(TimeoutOptions{Duration: time.Millisecond}))
	r.Get("/", func(c *waltz.Context) error {
		<-c.Request.Context().Done()
		return c.Request.Context().Err()
	})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 503 {
		t.Errorf("got %d, want 503", w.Code)
	}
	if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), "status=503") {
		t.Errorf("got log %q, want one line with status=503", logs.String())
	}
}

func TestTimeoutError(t *testing.T) {
	var got error
	r := waltz.New()
	r.ErrorHandler = func(c *waltz.Context, err error) { got = err; waltz.DefaultErrorHandler(c, err) }
	r.Use(Timeout(TimeoutOptions{Duration: time.Millisecond}))
	r.Get("/", func(c *waltz.Context) error { <-c.Request.Context().Done(); return nil })
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	var he *waltz.HTTPError
	if !errors.As(got, &he) || he.Code != 503 || !errors.Is(got, context.DeadlineExceeded) {
		t.Errorf("got error %v, want a 503 HTTPError wrapping context.DeadlineExceeded", got)
	}
}

func TestTimeoutOptionsPanic(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    TimeoutOptions
		want string
	}{
		{"zero", TimeoutOptions{}, "waltz: TimeoutOptions.Duration is 0s"},
		{"negative", TimeoutOptions{Duration: -time.Second}, "waltz: TimeoutOptions.Duration is -1s"},
		{"2xx code", TimeoutOptions{Duration: time.Second, Code: 200}, "waltz: TimeoutOptions.Code is 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if v, _ := recover().(string); !strings.HasPrefix(v, tc.want) {
					t.Errorf("got panic %q, want %q", v, tc.want)
				}
			}()
			Timeout(tc.o)
		})
	}
}

// TestTimeoutClientStays: a request answered in time, inside Timeout, is
// logged by a Logger outside it as answered, not as one whose client left:
// Timeout hands the middleware outside its own request back, whose context
// its deferred cancel does not end.
func TestTimeoutClientStays(t *testing.T) {
	var logs bytes.Buffer
	r := waltz.New()
	r.Use(Logger(slog.New(slog.NewTextHandler(&logs, nil))), Timeout(TimeoutOptions{Duration: time.Minute}))
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 200 || strings.Contains(logs.String(), "client_gone") || !strings.Contains(logs.String(), "status=200") {
		t.Errorf("got %d and log %q, want 200 logged with status=200 and no client_gone", w.Code, logs.String())
	}
}

func TestTimeoutAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items, which allocates")
	}
	r := waltz.New()
	r.Use(Timeout(TimeoutOptions{Duration: time.Minute}))
	r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
	req := httptest.NewRequest("GET", "/", nil)
	w := httptest.NewRecorder()
	if got := testing.AllocsPerRun(200, func() { r.ServeHTTP(w, req) }); got > 6 {
		t.Errorf("got %v allocs per request, want at most 6", got)
	}
}

// TestTimeoutLogsOnceWithoutLogger: with no Logger, the error handler logs
// the 503 only, not the handler's error that the client never saw.
func TestTimeoutLogsOnceWithoutLogger(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    waltz.HandlerFunc
	}{
		{"returns ctx.Err()", func(c *waltz.Context) error {
			<-c.Request.Context().Done()
			return c.Request.Context().Err()
		}},
		{"writes late", func(c *waltz.Context) error {
			<-c.Request.Context().Done()
			return c.Text(http.StatusOK, "late")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			r := waltz.New()
			r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			r.Use(Timeout(TimeoutOptions{Duration: time.Millisecond}))
			r.Get("/", tc.h)
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
			if w.Code != 503 {
				t.Errorf("got %d, want 503", w.Code)
			}
			if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), "status=503") {
				t.Errorf("got log %q, want one line with status=503", logs.String())
			}
		})
	}
}

// TestTimeoutWrappedLate: a handler under net/http middleware
// (WrapMiddleware) inside a Timeout writes its status after the deadline,
// which Timeout's writer drops, and fails on its body. The chain inside
// has a response of its own that looks started, but nothing reached the
// client: Timeout still answers 503, and the response is not cut.
func TestTimeoutWrappedLate(t *testing.T) {
	r := waltz.New()
	r.Logger = slog.New(slog.DiscardHandler)
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			next.ServeHTTP(&unwrapping{w}, req)
		})
	}
	r.With(Timeout(TimeoutOptions{Duration: 20 * time.Millisecond}), waltz.WrapMiddleware(record)).
		Get("/late", func(c *waltz.Context) error {
			<-c.Request.Context().Done()
			return c.Text(http.StatusOK, "too late")
		})
	rec := httptest.NewRecorder()
	func() {
		defer func() {
			if v := recover(); v != nil {
				t.Fatalf("ServeHTTP panicked with %v: the response was cut, though nothing of it was sent", v)
			}
		}()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/late", nil))
	}()
	if rec.Code != http.StatusServiceUnavailable || strings.Contains(rec.Body.String(), "too late") {
		t.Errorf("got %d %q, want Timeout's 503", rec.Code, rec.Body)
	}
}

// TestTimeoutMountLate: a Router mounted inside a Timeout writes its
// answer after the deadline, which Timeout's writer drops. The mounted
// Router's own response looks started, so its error answer would cut
// it, but nothing reached the client: Timeout answers 503, whole, over
// a real connection, and the request is logged on one line.
func TestTimeoutMountLate(t *testing.T) {
	var logs lockedBuffer
	lg := slog.New(slog.NewTextHandler(&logs, nil))
	r, sub := waltz.New(), waltz.New()
	r.Logger, sub.Logger = lg, lg
	sub.Get("/late", func(c *waltz.Context) error {
		<-c.Request.Context().Done()
		return c.Text(http.StatusOK, "too late")
	})
	r.With(Logger(lg), Timeout(TimeoutOptions{Duration: 20 * time.Millisecond})).Mount("/m", sub)
	srv := httptest.NewServer(r)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/m/late")
	if err != nil {
		t.Fatalf("got %v, want Timeout's 503", err)
	}
	body, rerr := io.ReadAll(res.Body)
	res.Body.Close()
	if rerr != nil || res.StatusCode != http.StatusServiceUnavailable || strings.Contains(string(body), "too late") {
		t.Errorf("got %d %q (read error %v), want Timeout's 503, whole", res.StatusCode, body, rerr)
	}
	got := logs.take()
	if n := strings.Count(got, "\n"); n != 1 || strings.Contains(got, "aborted=true") || !strings.Contains(got, "status=503") {
		t.Errorf("got %d log lines, want 1 with status=503, not aborted:\n%s", n, got)
	}
}

// unwrapping is a net/http middleware's writer that passes everything on
// and unwraps, as http.ResponseController asks.
type unwrapping struct{ http.ResponseWriter }

func (u *unwrapping) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// TestTimeoutDropsInnerFields: the handler set fields for an answer it
// never sent, then ran out of time. Timeout's 503 keeps the fields set
// outside it (a request ID, CORS, security headers) and none of the
// handler's: a Cache-Control of the 200 would have a shared cache serve
// the 503 for an hour (RFC 9111 section 3: any status with explicit
// freshness may be stored), a Set-Cookie or Location would act on an
// answer that failed.
func TestTimeoutDropsInnerFields(t *testing.T) {
	r := waltz.New()
	r.Logger = slog.New(slog.DiscardHandler)
	outer := func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			c.Writer.Header().Set("X-Outer", "kept")
			c.Writer.Header().Set("Vary", "Origin")
			return next(c)
		}
	}
	r.With(outer, Timeout(TimeoutOptions{Duration: 10 * time.Millisecond}), ETag(ETagOptions{})).
		Get("/slow", func(c *waltz.Context) error {
			h := c.Writer.Header()
			h.Set("Cache-Control", "public, max-age=3600")
			h.Set("Set-Cookie", "session=abc")
			h.Set("Location", "/orders/1")
			h.Add("Vary", "Accept")
			<-c.Request.Context().Done()
			return c.JSON(http.StatusCreated, "late")
		})
	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/slow", nil))
	h := w.Header()
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("got %d, want 503", w.Code)
	}
	for _, k := range []string{"Cache-Control", "Set-Cookie", "Location"} {
		if v, ok := h[k]; ok {
			t.Errorf("the 503 carries the handler's %s %q", k, v)
		}
	}
	if h.Get("X-Outer") != "kept" || h.Get("Vary") != "Origin" {
		t.Errorf("got X-Outer %q, Vary %q: want the fields set outside Timeout kept", h.Get("X-Outer"), h.Values("Vary"))
	}
}
