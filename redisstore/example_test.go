package redisstore_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
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
