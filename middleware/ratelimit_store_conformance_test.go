package middleware_test

import (
	"testing"

	"github.com/waltz-go/waltz/middleware"
	"github.com/waltz-go/waltz/middleware/storetest"
)

// TestMemoryStoreConformance runs the RateStore conformance checks on the
// memory store.
func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) middleware.RateStore { return middleware.NewMemoryRateStore(10000) })
}
