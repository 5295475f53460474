//go:build !race

package testhelp

// RaceEnabled reports whether the race detector is on: it makes sync.Pool
// drop items at random, so allocation counts are not exact.
const RaceEnabled = false
