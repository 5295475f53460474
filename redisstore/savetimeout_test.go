package redisstore

import (
	"testing"
	"time"
)

// TestSaveTimeout holds a Save's deadline: the store's Timeout for each
// MiB of the encoded answer begun, one at least.
func TestSaveTimeout(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{
		{0, 100 * time.Millisecond},
		{1 << 20, 100 * time.Millisecond},
		{1<<20 + 1, 200 * time.Millisecond},
		{48 << 20, 4800 * time.Millisecond},
	} {
		if got := saveTimeout(100*time.Millisecond, tc.n); got != tc.want {
			t.Errorf("saveTimeout(100ms, %d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}
