package benchmarks

import (
	"os"
	"runtime"
	"testing"
)

// TestMain pins GOMAXPROCS to 1 as the classic suite does: the routers are
// single-request code paths, and one P keeps the GC and scheduler from
// borrowing the second core of a small machine mid-measurement. Setting it
// before m.Run also makes the testing package's default -cpu list [1], so
// benchmark names carry no -N suffix and compare across runs.
func TestMain(m *testing.M) {
	runtime.GOMAXPROCS(1)
	os.Exit(m.Run())
}
