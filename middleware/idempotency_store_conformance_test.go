package middleware_test

import (
	"testing"

	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/middleware/idemtest"
)

// TestMemoryIdempotencyStoreConformance runs the IdempotencyStore
// conformance checks on the memory store.
func TestMemoryIdempotencyStoreConformance(t *testing.T) {
	idemtest.Run(t, func(t *testing.T) middleware.IdempotencyStore { return middleware.NewMemoryIdempotencyStore(64 << 20) })
}
