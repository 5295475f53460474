package main

import (
	"strings"
	"testing"

	"github.com/waltz-go/waltz/internal/proctest"
)

// TestMain runs main itself when the test binary is started as the
// command by TestProcess.
func TestMain(m *testing.M) { proctest.Main(m, main) }

// TestProcess runs the command as a user does: it says
// "listening" only once the address is bound, serves, and exits 0 on
// Ctrl-C (SIGINT); a busy address exits 1 without claiming to listen.
func TestProcess(t *testing.T) {
	proctest.Process(t, func(t *testing.T, addr string) {
		if code, body := proctest.Get(t, "http://"+addr+"/api/notes"); code != 200 || !strings.HasPrefix(body, "[") {
			t.Errorf("GET /api/notes: got %d %q, want 200 and a JSON array", code, body)
		}
	})
}

// TestSecondSignal: a second signal during the drain (5 s by default)
// ends the process at once.
func TestSecondSignal(t *testing.T) {
	proctest.SecondSignal(t, "")
}
