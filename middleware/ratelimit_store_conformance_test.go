package middleware_test

import (
	"testing"

	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/middleware/storetest"
)

// TestMemoryStoreConformance runs the Store conformance checks on the
// memory store.
func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) middleware.Store { return middleware.NewMemoryStore(10000) })
}
