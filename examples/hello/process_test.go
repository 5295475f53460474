package main

import (
	"bufio"
	"errors"
	"io"
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

// TestMain runs main itself when the test binary is started as the
// command by TestProcess.
func TestMain(m *testing.M) {
	if os.Getenv("WALTZ_EXAMPLE_MAIN") == "1" {
		os.Args = append([]string{os.Args[0]}, strings.Fields(os.Getenv("WALTZ_EXAMPLE_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var listening = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)`)

// TestProcess runs the command as a user does (issue 9, fault 5): it says
// "listening" only once the address is bound, serves, and exits 0 on
// Ctrl-C (SIGINT) after a clean shutdown; a busy address exits 1 without
// claiming to listen.
func TestProcess(t *testing.T) {
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
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "WALTZ_EXAMPLE_MAIN=1", "WALTZ_EXAMPLE_ARGS=-addr "+tc.addr)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			timer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
			defer timer.Stop()
			lines := bufio.NewScanner(stderr)
			var out strings.Builder
			if lines.Scan() {
				out.WriteString(lines.Text())
			}
			if m := listening.FindStringSubmatch(out.String()); m != nil {
				if tc.exit != 0 {
					t.Errorf("got %q, want no claim to listen", out.String())
				}
				res, err := http.Get("http://" + m[1] + "/")
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if string(b) != "Hello" {
					t.Errorf("GET /: got %q, want %q", b, "Hello")
				}
				cmd.Process.Signal(syscall.SIGINT)
			} else if tc.exit == 0 {
				t.Errorf("got first line %q, want %q", out.String(), "... listening on 127.0.0.1:port")
			}
			for lines.Scan() {
				out.WriteString("\n" + lines.Text())
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			code := 0
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.exit {
				t.Errorf("got exit code %d, want %d; output:\n%s", code, tc.exit, out.String())
			}
		})
	}
}
