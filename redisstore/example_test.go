package redisstore_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// A rate limit that every instance of a service shares: two routers, as
// two instances would be, count one client against one bucket in Redis.
func ExampleNew() {
	addr := exampleRedis // the shared Redis, host:port
	newInstance := func() *waltz.Router {
		rdb := redis.NewClient(&redis.Options{
			Addr:                  addr,
			ContextTimeoutEnabled: true, // Options.Timeout bounds every call
			MaxRetries:            -1,   // a failed call is not sent again within the deadline
			DialerRetries:         1,    // nor is a refused dial
		})
		r := waltz.New()
		r.Use(middleware.RateLimit(middleware.RateLimitOptions{
			Limit:    middleware.RatePolicy{Requests: 3, Window: time.Minute},
			Store:    redisstore.New(rdb, redisstore.Options{Timeout: 50 * time.Millisecond}),
			FailOpen: true, // while Redis is unreachable, let requests through
		}))
		r.Get("/", func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") })
		return r
	}
	a, b := newInstance(), newInstance()

	for _, instance := range []*waltz.Router{a, b, a, b} {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = "192.0.2.1:1234"
		instance.ServeHTTP(w, req)
		fmt.Println(w.Code, w.Header().Get("RateLimit"))
	}
	// Output:
	// 200 "default";r=2;t=20
	// 200 "default";r=1;t=20
	// 200 "default";r=0;t=20
	// 429 "default";r=0;t=20
}

// Idempotency keys that every instance of a service shares: a create sent
// to one instance and retried on another runs once, and the retry gets
// the first answer from Redis.
func ExampleNewIdempotency() {
	addr := exampleRedis // the shared Redis, host:port
	created := 0
	newInstance := func() *waltz.Router {
		rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
		r := waltz.New()
		r.Use(middleware.Idempotency(middleware.IdempotencyOptions{
			Store: redisstore.NewIdempotency(rdb, redisstore.IdempotencyOptions{Timeout: 50 * time.Millisecond}),
			Scope: func(c *waltz.Context) string { return c.Request.Header.Get("X-Client") },
		}))
		r.Post("/orders", func(c *waltz.Context) error {
			created++
			return c.Text(http.StatusCreated, fmt.Sprintf("order %d", created))
		})
		return r
	}
	a, b := newInstance(), newInstance()

	for _, instance := range []*waltz.Router{a, b} {
		w := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/orders", strings.NewReader(`{"sku":"A-1"}`))
		req.Header.Set("X-Client", "alice")
		req.Header.Set("Idempotency-Key", `"example-order-1"`)
		instance.ServeHTTP(w, req)
		fmt.Println(w.Code, w.Header().Get("Idempotent-Replayed"), w.Body)
	}
	fmt.Println("created:", created)
	// Output:
	// 201  order 1
	// 201 true order 1
	// created: 1
}
