//go:build race

package jwtauth_test

// raceEnabled reports whether the tests run under the race detector,
// whose instrumentation allocates.
const raceEnabled = true
