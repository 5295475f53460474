// Command bookmarks serves the bookmarks example (examples/bookmarks)
// with its feed of changes on a Redis stream when -redis (or the
// BOOKMARKS_REDIS environment variable) names a Redis, so that several
// instances behind one address serve one feed: a change made through any
// of them reaches the streams of all, and a client that reconnects to
// another resumes after its Last-Event-ID. Without one the feed is in
// memory, as examples/bookmarks's. It lives in this module because the
// framework's module requires nothing, go-redis included.
//
//	go run ./cmd/bookmarks -addr :3001 -redis 127.0.0.1:6379
//	go run ./cmd/bookmarks -addr :3002 -redis 127.0.0.1:6379
//
// The bookmarks themselves stay in each instance's memory: what the
// instances share is the feed.
package main

import (
	"context"
	"flag"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
	"github.com/waltz-go/waltz/redisstore"
)

func main() {
	addr := flag.String("addr", ":3000", "address to listen on, host:port")
	token := flag.String("token", "dev-token", "bearer token that writes must present")
	redisAddr := flag.String("redis", os.Getenv("BOOKMARKS_REDIS"), "Redis address, host:port, of the feed's stream (default $BOOKMARKS_REDIS); empty keeps the feed in memory")
	key := flag.String("key", "bookmarks:changes", "the Redis stream of the feed")
	keep := flag.Int("keep", 10_000, "how many changes the stream keeps at least")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // a second signal (Ctrl-C, SIGTERM) ends the process at once
	if err := run(ctx, *addr, bookmarks.NewWithLog(bookmarks.NewStore(), *token, feedLog(*redisAddr, *key, *keep))); err != nil {
		log.Fatal(err)
	}
}

// feedLog returns the feed's log: the stream key on the Redis at addr,
// or one in memory when addr is empty.
func feedLog(addr, key string, keep int) api.EventLog {
	if addr == "" {
		log.Printf("bookmarks: the feed of changes is in memory")
		return api.NewMemoryLog(1000)
	}
	rdb := redis.NewClient(&redis.Options{
		Addr:                  addr,
		ContextTimeoutEnabled: true, // the log's Timeout bounds every call
		MaxRetries:            -1,   // a failed call is not sent again within the deadline
		DialerRetries:         1,    // nor is a refused dial
	})
	log.Printf("bookmarks: the feed of changes is the Redis stream %q at %s", key, addr)
	return redisstore.NewEventLog(rdb, key, redisstore.EventLogOptions{Keep: keep})
}

// run listens on addr, says so once the address is bound, and serves h
// until ctx is done, giving requests in flight 5 s to finish.
func run(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	log.Printf("bookmarks: listening on %s", ln.Addr())
	srv := &waltz.Server{ShutdownTimeout: 5 * time.Second, DrainDelay: -1}
	srv.Handler = h
	return srv.Run(ctx, ln)
}
