//go:build !race

package waltz_test

// resRace reports whether the race detector is on: it makes sync.Pool drop
// items at random, so allocation counts are not exact.
const resRace = false
