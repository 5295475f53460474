// Package proctest runs an example command as a user does, for the
// examples' tests: the test binary starts itself as the command, and the
// test checks that it says "listening" only once its address is bound,
// serves, and exits 0 on Ctrl-C (SIGINT) after a clean shutdown, while a
// busy address exits 1 without claiming to listen.
package proctest

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Main is the example's TestMain: it runs main when the test binary was
// started as the command by Process, and the tests otherwise.
func Main(m *testing.M, main func()) {
	if os.Getenv("WALTZ_EXAMPLE_MAIN") == "1" {
		os.Args = append([]string{os.Args[0]}, strings.Fields(os.Getenv("WALTZ_EXAMPLE_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var listening = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

// Process runs the command twice, with -addr on a free loopback port and
// on a busy one. Once it listens, check is called with the address it
// listens on ("127.0.0.1:port") to try it; then the command gets SIGINT.
func Process(t *testing.T, check func(t *testing.T, addr string)) {
	t.Helper()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		name, addr string
		exit       int
	}{
		{"ctrl-c", "127.0.0.1:0", 0},
		{"address in use", busy.Addr().String(), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run(t, tc.addr, tc.exit, check)
		})
	}
}

// start starts the test binary as the command with args, killed after
// limit, and returns it, the lines of its standard error, and the func
// that stops the kill's timer.
func start(t *testing.T, args string, limit time.Duration) (*exec.Cmd, *bufio.Scanner, func() bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WALTZ_EXAMPLE_MAIN=1", "WALTZ_EXAMPLE_ARGS="+args)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit, func() { cmd.Process.Kill() })
	return cmd, bufio.NewScanner(stderr), timer.Stop
}

// run starts the command with -addr addr, checks its first line, tries it
// with check when it listens, and wants exit code exit.
func run(t *testing.T, addr string, exit int, check func(t *testing.T, addr string)) {
	cmd, lines, stop := start(t, "-addr "+addr, 10*time.Second)
	defer stop()
	var out strings.Builder
	if lines.Scan() {
		out.WriteString(lines.Text())
	}
	if m := listening.FindStringSubmatch(out.String()); m != nil {
		if exit != 0 {
			t.Errorf("got %q, want no claim to listen", out.String())
		}
		check(t, m[1])
		cmd.Process.Signal(syscall.SIGINT)
	} else if exit == 0 {
		t.Errorf("got first line %q, want %q", out.String(), "... listening on 127.0.0.1:port")
	}
	for lines.Scan() {
		out.WriteString("\n" + lines.Text())
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != exit {
		t.Errorf("got exit code %d, want %d; output:\n%s", code, exit, out.String())
	}
}

// Get returns the status and body of GET url, failing t on a transport
// error.
func Get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(res.Body).WriteTo(&b)
	return res.StatusCode, b.String()
}

// SecondSignal runs the command with -addr on a free loopback port and
// args, sends it SIGTERM once it listens and again once it logs that it
// is shutting down, and wants the second to end it at once: killed by
// SIGTERM within 2 s, however long its drain or grace period. SIGTERM,
// not SIGINT: a shell starts a background job with SIGINT ignored, and a
// Go program that stops its notification gives a signal back to what it
// was at start (os/signal), so the test would hang under such a shell;
// for a program started from a terminal, Ctrl-C takes the same path.
func SecondSignal(t *testing.T, args string) {
	t.Helper()
	cmd, lines, stop := start(t, "-addr 127.0.0.1:0 "+args, 20*time.Second)
	defer stop()
	var out strings.Builder
	var second time.Time
	for lines.Scan() {
		out.WriteString(lines.Text() + "\n")
		switch {
		case listening.MatchString(lines.Text()):
			cmd.Process.Signal(syscall.SIGTERM)
		case strings.Contains(lines.Text(), "shutting down") && second.IsZero():
			// The line comes as the first signal's context ends, and the
			// signals are given back a moment later, on another goroutine:
			// send the second every 100 ms until one ends the process, as
			// a user who presses Ctrl-C again would.
			second = time.Now()
			done := make(chan struct{})
			defer close(done)
			go func() {
				t := time.NewTicker(100 * time.Millisecond)
				defer t.Stop()
				for {
					if cmd.Process.Signal(syscall.SIGTERM) != nil {
						return
					}
					select {
					case <-done:
						return
					case <-t.C:
					}
				}
			}()
		}
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("got %v after the second SIGTERM, want the process killed by it; output:\n%s", err, out.String())
	}
	if second.IsZero() {
		t.Fatalf("no \"shutting down\" line; output:\n%s", out.String())
	}
	if d := time.Since(second); d > 2*time.Second {
		t.Errorf("the process ended %v after the second SIGTERM, want at once", d)
	}
}
