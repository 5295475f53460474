package redisstore_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// nopWriter is a ResponseWriter that keeps nothing, so a benchmark counts
// the router's and the middleware's work alone.
type nopWriter struct{ h http.Header }

func (w *nopWriter) Header() http.Header               { return w.h }
func (w *nopWriter) Write(b []byte) (int, error)       { return len(b), nil }
func (w *nopWriter) WriteString(s string) (int, error) { return len(s), nil }
func (w *nopWriter) WriteHeader(int)                   {}

// BenchmarkTake: one Take on a real Redis on loopback, a round trip each.
func BenchmarkTake(b *testing.B) {
	srv := startRedis(b)
	s := redisstore.New(srv.client(), redisstore.Options{})
	l := middleware.RatePolicy{Requests: 1 << 30, Window: time.Hour}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Take(ctx, "bench", time.Now(), l); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRequest serves GET / through a router: with no limit, rate
// limited in the memory store, and rate limited in the Redis store on
// loopback. The allocations the Redis store adds per request are
// redis's minus memory's.
func BenchmarkRequest(b *testing.B) {
	srv := startRedis(b)
	l := middleware.RatePolicy{Requests: 1 << 30, Window: time.Hour} // never refuses
	for _, bc := range []struct {
		name  string
		store middleware.RateStore
	}{
		{"unlimited", nil},
		{"memory", middleware.NewMemoryRateStore(10000)},
		{"redis", redisstore.New(srv.client(), redisstore.Options{})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := waltz.New()
			if bc.store != nil {
				r.Use(middleware.RateLimit(middleware.RateLimitOptions{Limit: l, Store: bc.store}))
			}
			r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			w := &nopWriter{h: make(http.Header)}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				r.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkIdempotencyReplay serves a replay of POST /orders through
// Idempotency: in the memory store, and in the Redis store on loopback
// (one SET NX GET per request).
func BenchmarkIdempotencyReplay(b *testing.B) {
	srv := startRedis(b)
	for _, bc := range []struct {
		name  string
		store middleware.IdempotencyStore
	}{
		{"memory", middleware.NewMemoryIdempotencyStore(64 << 20)},
		{"redis", redisstore.NewIdempotency(srv.client(), redisstore.IdempotencyOptions{Prefix: uniquePrefix(b)})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := waltz.New()
			r.Use(middleware.Idempotency(middleware.IdempotencyOptions{Store: bc.store, Scope: func(*waltz.Context) string { return "bench" }}))
			r.Post("/orders", func(c *waltz.Context) error { return c.Text(http.StatusCreated, "created") })
			body := strings.NewReader(`{"qty":1}`)
			req := httptest.NewRequest(http.MethodPost, "/orders", body)
			req.Header.Set("Idempotency-Key", `"bench"`)
			w := &nopWriter{h: make(http.Header)}
			r.ServeHTTP(w, req) // the first request: claimed and saved
			b.ReportAllocs()
			for b.Loop() {
				body.Seek(0, io.SeekStart)
				clear(w.h)
				r.ServeHTTP(w, req)
				if w.h.Get("Idempotent-Replayed") != "true" {
					b.Fatal("not a replay")
				}
			}
		})
	}
}
