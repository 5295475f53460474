package redisstore_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/redisstore"
)

// TestIdempotencySaveLarge: an answer far above the middleware's default
// MaxAnswerBytes is stored whole under a Timeout that one MiB fits and
// the whole does not, and reads back whole. A Save given one Timeout
// failed, leaving the claim to lapse, and a retry would run again.
func TestIdempotencySaveLarge(t *testing.T) {
	srv := startRedis(t)
	rdb := srv.client()
	// 60ms a MiB: the 48 MiB get 2.9s. At 20ms a loaded CI machine
	// missed the 1s by 40ms; the whole still takes more than one.
	const timeout = 60 * time.Millisecond
	s := redisstore.NewIdempotency(rdb, redisstore.IdempotencyOptions{Prefix: "large:", Timeout: timeout})
	ctx := context.Background()
	c, err := s.Claim(ctx, "scope", "k", middleware.Fingerprint{1}, time.Minute)
	if err != nil || !c.Claimed {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	body := bytes.Repeat([]byte("0123456789abcdef"), 48<<20/16)
	a := &middleware.IdempotencyAnswer{Status: http.StatusCreated, Header: http.Header{"Content-Type": {"application/octet-stream"}}, Body: body}
	began := time.Now()
	if err := s.Save(ctx, "scope", "k", c.Token, a, time.Minute); err != nil {
		t.Fatalf("Save of %d bytes after %v: %v", len(body), time.Since(began), err)
	}
	if took := time.Since(began); took < timeout {
		t.Logf("the Save took %v, inside one Timeout: this run showed nothing", took)
	}
	// Read back with a deadline of its own: one Timeout is the Get's.
	rs := redisstore.NewIdempotency(rdb, redisstore.IdempotencyOptions{Prefix: "large:", Timeout: 10 * time.Second})
	got, err := rs.Claim(ctx, "scope", "k", middleware.Fingerprint{1}, time.Minute)
	if err != nil || got.Claimed || got.Answer == nil || !bytes.Equal(got.Answer.Body, body) {
		t.Fatalf("read back: claimed %v, err %v, answer of %d bytes", got.Claimed, err, answerLen(got.Answer))
	}
}

func answerLen(a *middleware.IdempotencyAnswer) int {
	if a == nil {
		return -1
	}
	return len(a.Body)
}
