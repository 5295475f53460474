package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// TestClockWentBack: a bucket stamped ahead of Redis's clock, as a
// failover to a replica whose clock is behind the old primary's leaves
// every bucket, refills from Redis's now on: the time the clock went back
// refills nothing, but the client is not held at its count until the
// clock catches up with the stamp.
func TestClockWentBack(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	prefix := uniquePrefix(t)
	s := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	l := middleware.RatePolicy{Requests: 4, Window: time.Second} // a token every 250ms
	ctx := context.Background()
	now, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, ahead := range []time.Duration{time.Second, 5 * time.Minute} {
		key := fmt.Sprint("ahead-", ahead)
		// Drained, at a time ahead of Redis's clock.
		at := now.Add(ahead).UnixMicro()
		if err := rdb.HSet(ctx, prefix+key, "tokens", "0", "at", fmt.Sprint(at)).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rdb.PExpire(ctx, prefix+key, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
		if res := take(t, s, key, l); res.Allowed {
			t.Fatalf("%v ahead: got allowed at once, want refused: the clock going back refills nothing", ahead)
		}
		time.Sleep(2 * l.Window / time.Duration(l.Requests)) // two tokens' time
		if res := take(t, s, key, l); !res.Allowed {
			t.Errorf("%v ahead: two tokens' time later got refused (%+v), want allowed: "+
				"the bucket waits for the clock to catch up with its stamp", ahead, res)
		}
	}
}

func take(t *testing.T, s *redisstore.Store, key string, l middleware.RatePolicy) middleware.RateResult {
	t.Helper()
	res, err := s.Take(context.Background(), key, time.Now(), l)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
