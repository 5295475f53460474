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
// a client left at go-redis's retry defaults spends each Take retrying,
// until the deadline or through its retry backoffs (30ms at least); one
// with MaxRetries -1 and DialerRetries 1, as the README advises for a
// rate limit, gets the refusal itself, with no wait, so FailOpen answers
// at once. Within a few seconds of a restart,
// both clients' limits hold again.
func TestRefusedConnection(t *testing.T) {
	srv := startRedis(t)
	const deadline = 100 * time.Millisecond
	l := middleware.RatePolicy{Requests: 3, Window: time.Hour}
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
		stores[i] = redisstore.New(rdb, redisstore.Options{Prefix: uniquePrefix(t) + fmt.Sprint(i), Timeout: deadline, BreakAfter: -1})
		if _, err := stores[i].Take(context.Background(), "warm", time.Now(), l); err != nil {
			t.Fatal(err)
		}
	}
	srv.kill()
	for i, c := range clients {
		var refused, slow int
		var took time.Duration
		for k := range 20 {
			start := time.Now()
			_, err := stores[i].Take(context.Background(), fmt.Sprint("k", k), time.Now(), l)
			d := time.Since(start)
			took += d
			switch {
			case errors.Is(err, syscall.ECONNREFUSED):
				refused++
			case errors.Is(err, context.DeadlineExceeded):
			default:
				t.Fatalf("%s: got error %v, want the refusal or the deadline", c.name, err)
			}
			// go-redis sleeps at least MinRetryBackoff (10ms) before each
			// of its 3 retries: 30ms that a client without retries never
			// waits.
			if d >= 30*time.Millisecond {
				slow++
			}
		}
		t.Logf("%s: 20 takes with Redis gone took %v in all, %d refused, %d of 30ms or more", c.name, took, refused, slow)
		if c.refusals && refused != 20 {
			t.Errorf("%s: got %d of 20 takes refused, want all: the refusal itself, not the deadline", c.name, refused)
		}
		if !c.refusals && slow != 20 {
			t.Errorf("%s: got %d of 20 takes of 30ms or more, want all: retry backoffs or the %v deadline", c.name, slow, deadline)
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
