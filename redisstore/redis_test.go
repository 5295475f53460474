package redisstore_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is a real redis-server this test started on a loopback port,
// with no persistence; it is stopped when the test ends.
type redisServer struct {
	tb   testing.TB
	addr string
	dir  string
	cmd  *exec.Cmd
}

// startRedis starts redis-server on a free loopback port. The test fails,
// never skips, when there is none: ci.sh installs Debian's package.
func startRedis(tb testing.TB) *redisServer {
	tb.Helper()
	addr, err := freeAddr()
	if err != nil {
		tb.Fatal(err)
	}
	s := &redisServer{tb: tb, addr: addr, dir: tb.TempDir()}
	s.start()
	tb.Cleanup(s.stop)
	return s
}

// start runs redis-server at s.addr and waits until it answers PING.
func (s *redisServer) start() {
	s.tb.Helper()
	cmd, err := launchRedis(s.addr, s.dir)
	if err != nil {
		s.tb.Fatal(err)
	}
	s.cmd = cmd
}

// launchRedis runs redis-server at addr, a free loopback host:port, with
// no persistence and its log in dir, and waits until it answers PING.
func launchRedis(addr, dir string) (*exec.Cmd, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server not found (%v): run redisstore/ci.sh, or apt-get install -y redis-server", err)
	}
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return cmd, nil
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return nil, fmt.Errorf("redis-server at %s did not answer PING within 10s: %v\n%s", addr, err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeAddr returns a loopback host:port that nothing listens on.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// stop ends the server, if it runs, and waits for it.
func (s *redisServer) stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot act on SIGTERM
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// kill ends the server at once, as a crash would.
func (s *redisServer) kill() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// pause stops the server's process (SIGSTOP): connections stay open and
// nothing answers, as with a hung server or a partitioned network.
func (s *redisServer) pause() { s.cmd.Process.Signal(syscall.SIGSTOP) }

// resume undoes pause.
func (s *redisServer) resume() { s.cmd.Process.Signal(syscall.SIGCONT) }

// client returns a go-redis client for s with context deadlines honoured,
// closed when the test ends.
func (s *redisServer) client() *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.addr, ContextTimeoutEnabled: true})
	s.tb.Cleanup(func() { c.Close() })
	return c
}

// info returns the field name of the INFO section section.
func (s *redisServer) info(section, name string) int64 {
	s.tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr})
	defer c.Close()
	text, err := c.Info(context.Background(), section).Result()
	if err != nil {
		s.tb.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				s.tb.Fatal(err)
			}
			return n
		}
	}
	s.tb.Fatalf("INFO %s has no %s", section, name)
	return 0
}

// uniquePrefix returns a key prefix no other store in this run uses.
func uniquePrefix(tb testing.TB) string {
	return fmt.Sprintf("test:%s:%d:", tb.Name(), time.Now().UnixNano())
}
