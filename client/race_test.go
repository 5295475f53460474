//go:build race

package client_test

// raceEnabled: the race detector's sync.Pool drops items at random, so
// allocation counts are not held under it.
const raceEnabled = true
