package benchmarks

import (
	"sync"
	"sync/atomic"
	"testing"
	_ "unsafe" // for go:linkname
)

// The ways to reuse a per-request object across goroutines, each as one get
// and one put of a 200-byte object (waltz's Context is 232 bytes on amd64;
// the size does not enter a get or put, which move a pointer): what a
// router that pools its Context pays per request at the least. The
// README's "Where waltz still falls short" quotes them.
//
//	go test -run '^$' -bench '^BenchmarkReuse' -count 6 .

type reused struct{ _ [200]byte }

var reusePool = sync.Pool{New: func() any { return new(reused) }}

// BenchmarkReusePool is what waltz does: sync.Pool's per-P private slot.
func BenchmarkReusePool(b *testing.B) {
	for b.Loop() {
		c := reusePool.Get().(*reused)
		reusePool.Put(c)
	}
}

var reuseSlot atomic.Pointer[reused]

// BenchmarkReuseAtomicSlot swaps the object out of one shared slot and
// back, falling back to the pool when another goroutine holds it.
func BenchmarkReuseAtomicSlot(b *testing.B) {
	reuseSlot.Store(new(reused))
	for b.Loop() {
		c := reuseSlot.Swap(nil)
		if c == nil {
			c = reusePool.Get().(*reused)
		}
		if !reuseSlot.CompareAndSwap(nil, c) {
			reusePool.Put(c)
		}
	}
}

//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// perP is one slot per P, each on its own cache line.
var perP [64]struct {
	c *reused
	_ [56]byte
}

// BenchmarkReusePerP keeps one object per P, reached by pinning the
// goroutine to its P through the runtime's procPin: sync.Pool's own fast
// path without its bookkeeping. waltz would not ship a go:linkname into the
// runtime; this measures what it would buy.
func BenchmarkReusePerP(b *testing.B) {
	for b.Loop() {
		pid := procPin()
		var c *reused
		if pid < len(perP) {
			c, perP[pid].c = perP[pid].c, nil
		}
		procUnpin()
		if c == nil {
			c = reusePool.Get().(*reused)
		}
		pid = procPin()
		if pid < len(perP) && perP[pid].c == nil {
			perP[pid].c, c = c, nil
		}
		procUnpin()
		if c != nil {
			reusePool.Put(c)
		}
	}
}

var plain = new(reused)

//go:noinline
func plainGet() *reused { c := plain; plain = nil; return c }

//go:noinline
func plainPut(c *reused) { plain = c }

// BenchmarkReusePlainGlobal is one global slot with no synchronization:
// wrong with two goroutines, here only for scale.
func BenchmarkReusePlainGlobal(b *testing.B) {
	for b.Loop() {
		plainPut(plainGet())
	}
}
