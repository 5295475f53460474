package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// TestRefusedConnection: with Redis gone (the port refuses connections),
// a client left at go-redis's retry defaults spends each Take's whole
// deadline retrying the dial; one with MaxRetries -1 and DialerRetries 1,
// as the README advises for a rate limit, gets the refusal at once, so
// FailOpen answers without waiting. Within a few seconds of a restart,
// both clients' limits hold again.
func TestRefusedConnection(t *testing.T) {
	srv := startRedis(t)
	const deadline = 100 * time.Millisecond
	l := middleware.Limit{Requests: 3, Window: time.Hour}
	clients := []struct {
		name     string
		opt      redis.Options
		refusals bool // Take reports the refusal itself, not the deadline
	}{
		{"retry defaults", redis.Options{}, false},
		{"no retries", redis.Options{MaxRetries: -1, DialerRetries: 1}, true},
	}
	stores := make([]*redisstore.Store, len(clients))
	for i, c := range clients {
		opt := c.opt
		opt.Addr, opt.ContextTimeoutEnabled = srv.addr, true
		rdb := redis.NewClient(&opt)
		t.Cleanup(func() { rdb.Close() })
		stores[i] = redisstore.New(rdb, redisstore.Options{Prefix: uniquePrefix(t) + fmt.Sprint(i), Timeout: deadline})
		if _, err := stores[i].Take(context.Background(), "warm", time.Now(), l); err != nil {
			t.Fatal(err)
		}
	}
	srv.kill()
	for i, c := range clients {
		var refused, timedOut int
		for k := range 20 {
			_, err := stores[i].Take(context.Background(), fmt.Sprint("k", k), time.Now(), l)
			switch {
			case errors.Is(err, syscall.ECONNREFUSED):
				refused++
			case errors.Is(err, context.DeadlineExceeded):
				timedOut++
			default:
				t.Fatalf("%s: got error %v, want the refusal or the deadline", c.name, err)
			}
		}
		if c.refusals && refused != 20 || !c.refusals && timedOut != 20 {
			t.Errorf("%s: of 20 takes with Redis gone, got %d refused and %d past the %v deadline, want all %s",
				c.name, refused, timedOut, deadline, map[bool]string{true: "refused", false: "past the deadline"}[c.refusals])
		}
	}
	srv.start()
	for i, c := range clients {
		// go-redis stops dialing once as many dials as its pool has
		// connections failed in a row, and answers with the last dial
		// error while a background probe dials once a second: so a
		// client may refuse for about a second after the restart.
		for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
			_, err := stores[i].Take(context.Background(), "probe", time.Now(), l)
			if err == nil {
				t.Logf("%s: Redis answered again %v after the restart", c.name, time.Since(start).Round(time.Millisecond))
				break
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s: 5s after the restart, Take still fails: %v", c.name, err)
			}
		}
		for k, want := range []bool{true, true, true, false} {
			res, err := stores[i].Take(context.Background(), "after", time.Now(), l)
			if err != nil || res.Allowed != want {
				t.Errorf("%s after the restart, take %d: got %+v, %v, want allowed %v", c.name, k+1, res, err, want)
			}
		}
	}
}
