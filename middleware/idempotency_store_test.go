package middleware

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// TestMemoryIdempotencyStoreBound: however many answers are saved, the
// store holds at most its bound, dropping the least recently touched.
func TestMemoryIdempotencyStoreBound(t *testing.T) {
	ctx := context.Background()
	for _, max := range []int64{1 << 20, 32 << 20} { // one shard, and sixteen
		s := NewMemoryIdempotencyStore(max)
		body := bytes.Repeat([]byte("x"), 10<<10)
		const n = 5000 // 50 MB of answers
		for i := range n {
			key := fmt.Sprint("k", i)
			c, err := s.Claim(ctx, "s", key, Fingerprint{}, time.Minute)
			if err != nil || !c.Claimed {
				t.Fatalf("key %d: got claimed %v, %v", i, c.Claimed, err)
			}
			if err := s.Save(ctx, "s", key, c.Token, &IdempotencyAnswer{Status: 201, Body: body}, time.Hour); err != nil {
				t.Fatal(err)
			}
			if b := s.Bytes(); b > max {
				t.Fatalf("bound %d, after %d answers: got %d bytes held", max, i+1, b)
			}
		}
		perShard := max / int64(len(s.shards))
		if got, most := s.Len(), int(max/(10<<10)); got > most || got < most/2 {
			t.Errorf("bound %d: got %d keys held, want about %d (at most %d)", max, got, most, most)
		}
		if c, _ := s.Claim(ctx, "s", fmt.Sprint("k", n-1), Fingerprint{}, time.Minute); c.Claimed || c.Answer == nil {
			t.Errorf("bound %d: the newest answer was dropped", max)
		}
		if c, _ := s.Claim(ctx, "s", "k0", Fingerprint{}, time.Minute); !c.Claimed {
			t.Errorf("bound %d: the oldest answer is still held", max)
		}
		t.Logf("bound %d (%d per shard): %d keys, %d bytes", max, perShard, s.Len(), s.Bytes())
	}
}

// TestMemoryIdempotencyStoreDropsExpired: expired keys at the old end go
// as new ones arrive, so they cost no memory however long they sit.
func TestMemoryIdempotencyStoreDropsExpired(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryIdempotencyStore(1 << 20)
	for i := range 100 {
		c, _ := s.Claim(ctx, "s", fmt.Sprint("old", i), Fingerprint{}, time.Minute)
		s.Save(ctx, "s", fmt.Sprint("old", i), c.Token, &IdempotencyAnswer{Status: 201}, 10*time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	s.Claim(ctx, "s", "new", Fingerprint{}, time.Minute)
	if n := s.Len(); n != 1 {
		t.Errorf("got %d keys after the old ones expired and a new one came, want 1", n)
	}
}
