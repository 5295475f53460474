package waltz

// The readiness probe: Server.Ready and the checks it asks.

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// ReadyCheck is one check of [Server.ReadyChecks].
type ReadyCheck struct {
	// Name names the check in Ready's answer and in the log, such as
	// "postgres".
	Name string

	// Timeout bounds each call of Check: its context's deadline. Zero
	// means the ReadyCheckTimeout constant (1 s).
	Timeout time.Duration

	// Check reports, with a nil error, that the dependency answers. It
	// should return once ctx is done: Ready does not wait for it past
	// Timeout (the check has timed out, whatever it returns later). One
	// call runs at a time: a probe that comes while a call runs waits for
	// that call's answer, up to its own Timeout, rather than call Check
	// again, so a Check that does not return is called once until it
	// does. A panic is a failed check; nil is refused by Run.
	Check func(ctx context.Context) error
}

// Ready is a handler for the readiness probe, to mount where the platform
// probes: r.Get("/readyz", srv.Ready). It answers 200 "ready" when every
// ReadyCheck returns nil within its timeout, and 503 Service Unavailable
// (RFC 9110 section 15.6.4) otherwise, and from the moment Run's context
// is done (the drain: see [Server.Run]). The 503's text/plain body names
// what failed ("not ready: draining", "not ready: postgres timed out"),
// never an error's text, which is logged with [Context.Logger] at level
// Warn. The 503 is written, not returned as an error, so the bundled
// middleware.Logger logs it at Warn, not Error: it is the expected
// answer during a deploy. Both answers carry "Cache-Control: no-store".
// The checks run concurrently, each probe calling each check, unless a
// call of that check still runs: then the probe waits for that call's
// answer (see [ReadyCheck.Check]).
//
// A Check that panics is a failed check ("postgres panicked"): the panic
// is recovered, so a probe never ends the process. So is a ReadyCheck
// with no Check ("postgres has no Check"), which [Server.Run] refuses
// before it serves. Either is logged at level Error once, when the check
// begins to fail so (the panic's value and stack), and a check that
// panicked once more at level Info when it passes again, rather than on
// every probe. Serving a probe makes Run drain on shutdown when
// DrainDelay is zero.
func (s *Server) Ready(c *Context) error {
	s.probed.Store(true)
	c.Writer.Header().Set("Cache-Control", "no-store")
	if s.draining.Load() {
		return c.Text(http.StatusServiceUnavailable, "not ready: draining\n")
	}
	if len(s.ReadyChecks) == 0 {
		return c.Text(http.StatusOK, "ready\n")
	}
	failed := make([]string, len(s.ReadyChecks))
	var wg sync.WaitGroup
	for i, rc := range s.ReadyChecks {
		wg.Go(func() { failed[i] = s.check(c, i, rc) })
	}
	wg.Wait()
	failed = slices.DeleteFunc(failed, func(f string) bool { return f == "" })
	if len(failed) > 0 {
		return c.Text(http.StatusServiceUnavailable, "not ready: "+strings.Join(failed, ", ")+"\n")
	}
	return c.Text(http.StatusOK, "ready\n")
}

// check runs rc, the i-th ReadyCheck, for the probe c, and returns what
// failed in Ready's words, or "" when it passed. A panic or a nil Check
// is logged when check i begins to fail so (broken), not on every probe.
func (s *Server) check(c *Context, i int, rc ReadyCheck) string {
	rctx := c.Request.Context()
	if rc.Check == nil {
		if s.broken(i, true) {
			c.Logger().ErrorContext(rctx, "waltz: readiness check has no Check; counted failed", "check", rc.Name)
		}
		return rc.Name + " has no Check"
	}
	timeout := rc.Timeout
	if timeout <= 0 {
		timeout = ReadyCheckTimeout
	}
	ctx, cancel := context.WithTimeout(rctx, timeout)
	defer cancel()
	call := s.call(i, rc.Check, timeout, rctx)
	select {
	case <-call.done:
	case <-ctx.Done(): // a Check that does not return once its ctx is done is left to return when it does
		c.Logger().WarnContext(rctx, "waltz: readiness check failed", "check", rc.Name, "err", ctx.Err())
		return rc.Name + " timed out"
	}
	err, stack := call.err, call.stack
	if stack != nil {
		if s.broken(i, true) {
			c.Logger().ErrorContext(rctx, "waltz: readiness check panicked; counted failed, and logged again once it passes",
				"check", rc.Name, "panic", err.(checkPanic).v, "stack", string(stack))
		}
		return rc.Name + " panicked"
	}
	if s.broken(i, false) {
		msg := "waltz: readiness check passes again"
		if err != nil {
			msg = "waltz: readiness check no longer panics"
		}
		c.Logger().InfoContext(rctx, msg, "check", rc.Name)
	}
	switch {
	case call.late || ctx.Err() != nil: // past its deadline or this probe's, whatever it returned
		c.Logger().WarnContext(rctx, "waltz: readiness check failed", "check", rc.Name, "err", cmp.Or(err, context.DeadlineExceeded))
		return rc.Name + " timed out"
	case err == nil:
		return ""
	}
	c.Logger().WarnContext(rctx, "waltz: readiness check failed", "check", rc.Name, "err", err)
	return rc.Name + " failed"
}

// A checkCall is one call of a ReadyCheck's Check, which the probes that
// come while it runs share.
type checkCall struct {
	done  chan struct{} // closed when Check has returned, and the rest is set
	err   error
	stack []byte // the stack of a panic
	late  bool   // Check returned after its context was done
}

// call returns the running call of check, the i-th ReadyCheck's Check, or
// starts one, with a context of rctx's values, done after timeout. The
// call runs on a goroutine of its own, which touches no Context.
func (s *Server) call(i int, check func(context.Context) error, timeout time.Duration, rctx context.Context) *checkCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	if call := s.calls[i]; call != nil {
		return call
	}
	if s.calls == nil {
		s.calls = make(map[int]*checkCall)
	}
	call := &checkCall{done: make(chan struct{})}
	s.calls[i] = call
	// Not rctx's cancellation: a client that leaves ends its probe, not
	// the call the others wait on.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(rctx), timeout)
	go func() {
		defer cancel()
		call.stack, call.err = callCheck(ctx, check)
		call.late = ctx.Err() != nil
		s.mu.Lock()
		delete(s.calls, i)
		s.mu.Unlock()
		close(call.done)
	}()
	return call
}

// checkPanic is the error of a Check that panicked with v.
type checkPanic struct{ v any }

func (p checkPanic) Error() string { return fmt.Sprintf("panic: %v", p.v) }

// callCheck calls check with ctx, and returns its error; or, when it
// panics, the goroutine's stack and a checkPanic.
func callCheck(ctx context.Context, check func(context.Context) error) (stack []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			stack, err = debug.Stack(), checkPanic{v}
		}
	}()
	return nil, check(ctx)
}

// broken records whether the i-th ReadyCheck now fails by a panic or a
// nil Check (now), and reports whether that changed: whether it is to be
// logged.
func (s *Server) broken(i int, now bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.brokenChecks[i] == now {
		return false
	}
	if s.brokenChecks == nil {
		s.brokenChecks = make(map[int]bool)
	}
	s.brokenChecks[i] = now
	return true
}
