// Command memory prints, for each router and route set, the heap that the
// built router keeps alive: live heap after building minus before, each read
// after forced collections, as the classic suite measures "memory at load".
//
//	go run ./cmd/memory
package main

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"text/tabwriter"

	"github.com/waltz-go/waltz/benchmarks"
)

// liveHeap returns the bytes of live heap after two collections; the second
// one frees what finalizers or sweeping left from the first.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// sink keeps each router reachable until its size has been read.
var sink http.Handler

// heldBy returns the live heap that a router built from routes keeps. It
// builds it several times and keeps the smallest reading: the runtime's own
// background allocations can only add to a reading, never take from it.
func heldBy(p benchmarks.Peer, routes []benchmarks.Route) int64 {
	best := int64(-1)
	for range 5 {
		before := liveHeap()
		sink, _ = p.Build(routes, benchmarks.Noop, nil)
		after := liveHeap()
		sink = nil
		if d := int64(after) - int64(before); best < 0 || d < best {
			best = d
		}
	}
	return best
}

func main() {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "router\t")
	for _, set := range benchmarks.Sets {
		fmt.Fprintf(w, "%s (B)\t", set)
	}
	fmt.Fprintln(w)
	// Load every set first so that parsing the files is not counted.
	routes := map[string][]benchmarks.Route{}
	for _, set := range benchmarks.Sets {
		routes[set] = benchmarks.MustLoadSet(set)
	}
	for _, p := range benchmarks.Peers {
		fmt.Fprintf(w, "%s\t", p.Name)
		for _, set := range benchmarks.Sets {
			// Build once untimed so lazily made package state (gin's and
			// echo's pools, ServeMux's caches) is not billed to one set.
			if _, err := p.Build(routes[set], benchmarks.Noop, nil); err != nil {
				fmt.Fprint(w, "n/a\t")
				continue
			}
			fmt.Fprintf(w, "%d\t", heldBy(p, routes[set]))
		}
		fmt.Fprintln(w)
	}
	w.Flush()
}
