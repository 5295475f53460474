package reliability

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// TestReliabilityDrain puts a real load generator's 256 keep-alive
// connections, posting, on a server process (testdata/drainserver, built
// without the race detector), and sends the process SIGTERM while they
// post: wrk over HTTP/1.1, h2load (nghttp2) over h2c,
// each installed from Debian when missing. The load goes on for most of
// the drain delay after the signal, as a load balancer's does until it
// has learnt that the instance is leaving, and ends before the listener
// closes. What must hold: no request fails (none refused, reset, cut or
// answered other than 200); /readyz, probed every 10 ms, answers 200
// before the signal and 503 to every probe sent 100 ms or more after it
// (a probe is judged by when it was sent, not answered, so that the time
// a loaded server keeps it queued is not counted; the test logs when the
// first 503 arrived); the process exits 0, after the drain delay and
// within drain delay plus grace period.
func TestReliabilityDrain(t *testing.T) {
	drain := size(3*time.Second, waltz.DrainDelay)
	grace := size(3*time.Second, waltz.ShutdownTimeout)
	before := size(time.Second, 3*time.Second) // load before the signal
	// The load's length in whole seconds (wrk's unit): it ends a second
	// before the drain does.
	load := before + drain - time.Second
	body := filepath.Join(t.TempDir(), "body")
	if err := os.WriteFile(body, []byte(strings.Repeat("p", 512)), 0o644); err != nil {
		t.Fatal(err)
	}
	wrkScript := filepath.Join(t.TempDir(), "post.lua")
	script := "wrk.method = \"POST\"\nwrk.body = string.rep(\"p\", 512)\nwrk.headers[\"Content-Type\"] = \"text/plain\"\n"
	if err := os.WriteFile(wrkScript, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	secs := strconv.Itoa(int(load / time.Second))
	bin := filepath.Join(t.TempDir(), "drainserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/drainserver").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/drainserver: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		proto string
		tool  string
		args  func(url string) []string
		parse func(out string) (done, failed int, err error)
	}{
		{"HTTP/1.1", "wrk", func(url string) []string {
			return []string{"-t2", "-c256", "-d" + secs + "s", "--timeout", "10s", "-s", wrkScript, url + "/work"}
		}, parseWrk},
		{"h2c", "h2load", func(url string) []string {
			return []string{"-t2", "-c256", "-m1", "-D", secs, "-d", body, url + "/work"}
		}, parseH2load},
	} {
		t.Run(tc.proto, func(t *testing.T) {
			tool := lookOrInstall(t, tc.tool)
			addr, exited := startDrainServer(t, bin, drain, grace)
			url := "http://" + addr

			pollCtx, stopPoll := context.WithCancel(context.Background())
			defer stopPoll()
			probes := make(chan []readyProbe, 1)
			go func() { probes <- pollReady(pollCtx, url) }()

			gen := exec.Command(tool, tc.args(url)...)
			var out strings.Builder
			gen.Stdout, gen.Stderr = &out, &out
			if err := gen.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(before)
			sent := time.Now()
			if err := syscall.Kill(exited.pid, syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if err := gen.Wait(); err != nil {
				t.Fatalf("%s: %v\n%s", tc.tool, err, out.String())
			}
			stopPoll()
			late, first, bad := judgeProbes(<-probes, sent)
			var code int
			var took time.Duration
			select {
			case code = <-exited.code:
				took = time.Since(sent)
			case <-time.After(drain + grace + 10*time.Second):
				t.Fatalf("the server process had not exited %v after SIGTERM", drain+grace+10*time.Second)
			}
			done, failed, err := tc.parse(out.String())
			if err != nil {
				t.Fatalf("%s's output: %v\n%s", tc.tool, err, out.String())
			}
			t.Logf("%s, 256 connections, %v of load, SIGTERM after %v: %d requests answered 200, %d failed; /readyz: the first 503 arrived %v after the signal, %d probes sent 100ms or more after it; exit %d after %v (drain %v, grace %v)",
				tc.tool, load, before, done, failed, first.Round(time.Millisecond), late, code, took.Round(time.Millisecond), drain, grace)
			if failed != 0 || done == 0 {
				t.Errorf("%s: got %d failed of %d, want 0 failed and some answered\n%s", tc.tool, failed, done+failed, out.String())
			}
			if late == 0 || bad != "" {
				t.Errorf("/readyz probes sent 100ms or more after the signal: %d, want some, each answered 503, and 200 before it %s", late, bad)
			}
			if code != 0 {
				t.Errorf("the server exited %d, want 0", code)
			}
			if took < drain || took > drain+grace {
				t.Errorf("the server exited %v after the signal, want between the drain delay %v and drain plus grace %v", took, drain, drain+grace)
			}
		})
	}
}

// drainProcess is a running drain server.
type drainProcess struct {
	pid  int
	code <-chan int // its exit code, once it exited
}

// startDrainServer starts the drain server bin and returns its address
// once it listens; it is killed when the test ends.
func startDrainServer(t *testing.T, bin string, drain, grace time.Duration) (string, drainProcess) {
	t.Helper()
	cmd := exec.Command(bin, "-drain", drain.String(), "-grace", grace.String())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		t.Fatalf("the drain server's first line: got %q (%v), want \"listening host:port\"", line, err)
	}
	code := make(chan int, 1)
	go func() {
		io.Copy(io.Discard, stdout)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			code <- ee.ExitCode()
			return
		}
		if err != nil {
			code <- -1
			return
		}
		code <- 0
	}()
	return addr, drainProcess{pid: cmd.Process.Pid, code: code}
}

// readyProbe is one /readyz probe: when it was sent and answered, and its
// status (0 when it failed).
type readyProbe struct {
	sent, answered time.Time
	code           int
}

// pollReady sends a /readyz probe to url every 10 ms, each on its own
// goroutine so that one kept waiting by a loaded server holds up no
// other, until ctx is done, and returns them.
func pollReady(ctx context.Context, url string) []readyProbe {
	client := &http.Client{Transport: &http.Transport{}, Timeout: 5 * time.Second}
	defer client.CloseIdleConnections()
	results := make(chan readyProbe)
	n := 0
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for ctx.Err() == nil {
		n++
		go func() {
			p := readyProbe{sent: time.Now()}
			if res, err := client.Get(url + "/readyz"); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				p.code = res.StatusCode
			}
			p.answered = time.Now()
			results <- p
		}()
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
	out := make([]readyProbe, n)
	for i := range out {
		out[i] = <-results
	}
	return out
}

// judgeProbes returns how many probes were sent 100 ms or more after the
// signal at sent, how long after it the first 503 arrived, and a
// description of a late probe not answered 503 or of one answered before
// the signal with other than 200, or "".
func judgeProbes(ps []readyProbe, sent time.Time) (late int, first time.Duration, bad string) {
	first = -1
	for _, p := range ps {
		if p.code == http.StatusServiceUnavailable && (first < 0 || p.answered.Sub(sent) < first) {
			first = p.answered.Sub(sent)
		}
		if p.answered.Before(sent) && p.code != http.StatusOK && bad == "" {
			bad = fmt.Sprintf("(one answered before it got %d)", p.code)
		}
		if p.sent.Sub(sent) >= 100*time.Millisecond {
			late++
			if p.code != http.StatusServiceUnavailable && bad == "" {
				bad = fmt.Sprintf("(one sent %v after it got %d)", p.sent.Sub(sent).Round(time.Millisecond), p.code)
			}
		}
	}
	return late, first, bad
}

// lookOrInstall returns the path of the command tool, installing its
// Debian package first when it is missing.
func lookOrInstall(t *testing.T, tool string) string {
	t.Helper()
	if p, err := exec.LookPath(tool); err == nil {
		return p
	}
	pkg := map[string]string{"wrk": "wrk", "h2load": "nghttp2-client"}[tool]
	if out, err := exec.Command("apt-get", "install", "-y", pkg).CombinedOutput(); err != nil {
		if out2, err2 := exec.Command("sh", "-c", "apt-get update && apt-get install -y "+pkg).CombinedOutput(); err2 != nil {
			t.Fatalf("installing %s for %s: %v\n%s\n%s", pkg, tool, err2, out, out2)
		}
	}
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	wrkRequests = regexp.MustCompile(`(\d+) requests in`)
	wrkSocket   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	h2Requests  = regexp.MustCompile(`requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2Status    = regexp.MustCompile(`status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx`)
)

// parseWrk reads wrk's summary: requests completed, and those that failed
// (socket errors of every kind, and answers other than 2xx or 3xx, which
// wrk counts among the completed).
func parseWrk(out string) (done, failed int, err error) {
	m := wrkRequests.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("no request count")
	}
	done, _ = strconv.Atoi(m[1])
	for _, n := range wrkSocket.FindStringSubmatch(out) {
		if k, err := strconv.Atoi(n); err == nil {
			failed += k
		}
	}
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		k, _ := strconv.Atoi(m[1])
		failed += k
		done -= k
	}
	return done, failed, nil
}

// parseH2load reads h2load's summary: requests that succeeded with a 2xx,
// and those that failed (h2load's count includes the errored and timed
// out ones) or got another status.
func parseH2load(out string) (done, failed int, err error) {
	m := h2Requests.FindStringSubmatch(out)
	s := h2Status.FindStringSubmatch(out)
	if m == nil || s == nil {
		return 0, 0, fmt.Errorf("no request or status counts")
	}
	n := func(v string) int { k, _ := strconv.Atoi(v); return k }
	done = n(s[1])
	failed = n(m[5]) + n(s[2]) + n(s[3]) + n(s[4])
	return done, failed, nil
}
