package testhelp

import (
	"testing"
	"time"
)

// InOneSecond runs f from just after the start of a second of the clock,
// for a test of what happens within one second (a Last-Modified's, RFC
// 9110 section 8.8.2.2), and returns f's complaints. When the second
// ended before f returned, f's complaints are dropped and f runs again
// from the next second, at most three times in all; then tb fails.
func InOneSecond(tb testing.TB, f func() []string) []string {
	tb.Helper()
	for range 3 {
		// 20ms in: a file system's clock may lag the process's by a tick.
		next := time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)
		time.Sleep(time.Until(next))
		start := time.Now().Truncate(time.Second)
		bad := f()
		if time.Now().Truncate(time.Second).Equal(start) {
			return bad
		}
	}
	tb.Fatal("three runs each outlasted their second")
	return nil
}
