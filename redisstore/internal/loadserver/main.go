// Command loadserver serves the routes that redisstore/load.sh measures
// over loopback: GET /unlimited, and GET /memory and GET /redis, rate
// limited per client address in the memory store and in the Redis store.
// Their limit lets every request through, so a run measures what taking a
// token costs, not 429s. It prints its address, then serves until killed.
//
// With -rtt N it serves nothing: it times N sequential Takes on Redis and
// prints their 50th and 99th percentiles, the round trip a request to
// /redis adds.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on, host:port (loopback)")
	redisAddr := flag.String("redis", "127.0.0.1:6379", "Redis address, host:port")
	rtt := flag.Int("rtt", 0, "time this many sequential Takes on Redis, print their p50 and p99, and exit")
	flag.Parse()

	rdb := redis.NewClient(&redis.Options{Addr: *redisAddr, ContextTimeoutEnabled: true})
	store := redisstore.New(rdb, redisstore.Options{})
	limit := middleware.RatePolicy{Requests: 1 << 30, Window: time.Hour} // never refuses
	if *rtt > 0 {
		measureRTT(store, limit, *rtt)
		return
	}

	r := waltz.New()
	ok := func(c *waltz.Context) error { return c.Text(http.StatusOK, "ok") }
	r.Get("/unlimited", ok)
	r.With(middleware.RateLimit(middleware.RateLimitOptions{Limit: limit, Store: middleware.NewMemoryRateStore(10000)})).Get("/memory", ok)
	r.With(middleware.RateLimit(middleware.RateLimitOptions{Limit: limit, Store: store})).Get("/redis", ok)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr())
	log.Fatal(http.Serve(ln, r))
}

// measureRTT times n sequential Takes and prints their p50 and p99.
func measureRTT(s *redisstore.Store, l middleware.RatePolicy, n int) {
	ds := make([]time.Duration, n)
	for i := range ds {
		start := time.Now()
		if _, err := s.Take(context.Background(), "rtt", start, l); err != nil {
			log.Fatal(err)
		}
		ds[i] = time.Since(start)
	}
	slices.Sort(ds)
	fmt.Printf("p50 %v p99 %v\n", ds[n/2], ds[n*99/100])
}
