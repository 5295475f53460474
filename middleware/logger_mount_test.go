package middleware

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// lockedBuffer is a log sink the server's goroutines write while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (lb *lockedBuffer) Write(p []byte) (int, error) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.b.Write(p)
}

// take returns what was written since the last take, and forgets it.
func (lb *lockedBuffer) take() string {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	s := lb.b.String()
	lb.b.Reset()
	return s
}

// passOn is standard middleware that does nothing but call the next
// handler, as a tracing or metrics middleware does around it.
func passOn(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })
}

// failing registers the routes whose errors TestLoggerAcrossBoundaries
// logs, under prefix.
func failing(g interface {
	Get(string, waltz.HandlerFunc) *waltz.Registration
}, prefix string) {
	g.Get(prefix+"/unavailable", func(c *waltz.Context) error {
		return &waltz.HTTPError{Code: http.StatusServiceUnavailable, Err: errors.New("db down")}
	})
	g.Get(prefix+"/fail", func(c *waltz.Context) error { return errors.New("disk full") })
	g.Get(prefix+"/cut", func(c *waltz.Context) error {
		_, _ = c.Writer.Write([]byte("part of a body"))
		c.Writer.(http.Flusher).Flush()
		return errors.New("lost the rest")
	})
}

// TestLoggerAcrossBoundaries checks that a request whose error a mounted
// Router, or the chain inside a wrapped standard middleware, answers is
// logged on one line, by the outermost Logger, with the error; and by the
// inner error handler when no Logger logs the request.
func TestLoggerAcrossBoundaries(t *testing.T) {
	var logs lockedBuffer
	lg := slog.New(slog.NewTextHandler(&logs, nil))
	build := map[string]func(outer, inner bool) (http.Handler, string){
		"mount": func(outer, inner bool) (http.Handler, string) {
			r, sub := waltz.New(), waltz.New()
			r.Logger, sub.Logger = lg, lg
			if outer {
				r.Use(Logger(lg))
			}
			if inner {
				sub.Use(Logger(lg))
			}
			failing(sub, "")
			r.Mount("/api", sub)
			return r, "/api/*"
		},
		// A Router mounted in a mounted Router, through a wrapped
		// middleware of the one between.
		"nested": func(outer, inner bool) (http.Handler, string) {
			r, mid, sub := waltz.New(), waltz.New(), waltz.New()
			r.Logger, mid.Logger, sub.Logger = lg, lg, lg
			if outer {
				r.Use(Logger(lg))
			}
			mid.Use(waltz.WrapMiddleware(passOn))
			if inner {
				sub.Use(Logger(lg))
			}
			failing(sub, "")
			mid.Mount("", sub)
			r.Mount("/api", mid)
			return r, "/api/*"
		},
		"wrap": func(outer, inner bool) (http.Handler, string) {
			r := waltz.New()
			r.Logger = lg
			var mw []waltz.Middleware
			if outer {
				mw = append(mw, Logger(lg))
			}
			mw = append(mw, waltz.WrapMiddleware(passOn))
			if inner {
				mw = append(mw, Logger(lg))
			}
			r.Use(mw...)
			failing(r, "/api")
			return r, "/api/"
		},
	}
	for kind, mk := range build {
		for _, place := range []struct {
			name         string
			outer, inner bool
			msg          string // the one line's message
		}{
			{"outer", true, false, "msg=request"},
			{"both", true, true, "msg=request"},
			{"inner", false, true, "msg=request"},
			{"none", false, false, `msg="waltz: handler error"`},
		} {
			h, pattern := mk(place.outer, place.inner)
			srv := httptest.NewServer(h)
			for _, tc := range []struct {
				path, err string
				status    int
			}{
				{"/api/unavailable", "err=\"503 Service Unavailable: db down\"", http.StatusServiceUnavailable},
				{"/api/fail", `err="disk full"`, http.StatusInternalServerError},
				{"/api/cut", `err="lost the rest"`, http.StatusOK},
			} {
				t.Run(kind+"/"+place.name+tc.path, func(t *testing.T) {
					logs.take()
					res, err := http.Get(srv.URL + tc.path)
					if err != nil {
						t.Fatal(err)
					}
					_, rerr := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != tc.status {
						t.Errorf("got status %d, want %d", res.StatusCode, tc.status)
					}
					if cut := rerr != nil; cut != (tc.path == "/api/cut") {
						t.Errorf("got body error %v, want one only for the cut response", rerr)
					}
					got := logs.take()
					if n := strings.Count(got, "\n"); n != 1 {
						t.Fatalf("got %d log lines, want 1:\n%s", n, got)
					}
					for _, want := range []string{"level=ERROR", place.msg, tc.err} {
						if !strings.Contains(got, want) {
							t.Errorf("got line %q, want %s in it", got, want)
						}
					}
					if place.outer && !strings.Contains(got, "pattern="+pattern) {
						t.Errorf("got line %q, want the outermost Logger's (pattern=%s)", got, pattern)
					}
					if tc.path == "/api/cut" && !strings.Contains(got, "aborted=true") {
						t.Errorf("got line %q, want aborted=true in it", got)
					}
				})
			}
			srv.Close()
		}
	}
}

// TestLoggerLateChainLogged checks that an error the chain inside a
// wrapped middleware returns after that middleware gave up on it
// (http.TimeoutHandler's) is still logged, by the error handler: the
// Logger outside logged the request before the error was returned.
func TestLoggerLateChainLogged(t *testing.T) {
	var logs lockedBuffer
	lg := slog.New(slog.NewTextHandler(&logs, nil))
	release, done := make(chan struct{}), make(chan struct{})
	r := waltz.New()
	r.Logger = lg
	r.Use(Logger(lg), waltz.WrapMiddleware(func(h http.Handler) http.Handler {
		return http.TimeoutHandler(h, 50*time.Millisecond, "late")
	}))
	r.Get("/slow", func(c *waltz.Context) error {
		<-release
		defer close(done)
		return errors.New("late failure")
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/slow")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("got status %d, want 503", res.StatusCode)
	}
	close(release)
	<-done
	deadline := time.Now().Add(5 * time.Second)
	var seen string
	for !strings.Contains(seen, `msg="waltz: handler error"`) {
		seen += logs.take()
		if time.Now().After(deadline) {
			t.Fatalf("the late chain's error was never logged:\n%s", seen)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLoggerTwiceInOneChain checks that a Logger inside another in one
// chain leaves the request to the outer one: one request, one line.
func TestLoggerTwiceInOneChain(t *testing.T) {
	var logs lockedBuffer
	lg := slog.New(slog.NewTextHandler(&logs, nil))
	r := waltz.New()
	r.Logger = lg
	r.Use(Logger(lg))
	r.With(Logger(lg)).Get("/fail", func(c *waltz.Context) error { return errors.New("disk full") })
	srv := httptest.NewServer(r)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/fail")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	got := logs.take()
	if n := strings.Count(got, "\n"); n != 1 || !strings.Contains(got, `err="disk full"`) {
		t.Errorf("got %d log lines, want 1 with the error:\n%s", n, got)
	}
}
