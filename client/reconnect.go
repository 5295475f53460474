package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

// A stream of Events connects again when its answer ends or its
// connection fails, as an EventSource does (WHATWG HTML, "Server-sent
// events"); events.go parses each answer.

// stream is one call of Events: its request, sent again at each
// reconnection, and what the stream has told it so far.
type stream[E any] struct {
	o      *op
	plan   *typed.EventPlan
	req    *http.Request
	yield  func(Event[E], error) bool
	delay  time.Duration // the reconnection time
	idle   time.Duration // IdleTimeout: the longest silence of a connection; 0 for none
	lastID string        // the last event ID
	got    bool          // the connection dispatched an event
}

// errStop is what run returns when the loop stopped.
var errStop = errors.New("stop")

// run connects, reads, and connects again until ctx is done, the loop
// stops or a final error, which it returns (nil for a stopped loop, and
// for the clean end of a stream read once).
//
// Only a connection that failed or ended is tried again (a network
// error, a 502, 503 or 504, the answer's end), and only for a method
// that may be sent again (idempotent): another's answer is read once.
// An error made before anything is sent would come again each time, and
// is final. net/http makes one of a request it refuses (a URL that is
// not http or https, a header field name or value it cannot send) before
// it takes a connection, which an httptrace.ClientTrace's GetConn tells;
// a RoundTripper of another kind may not trace it, so a net.Error is a
// network failure all the same.
func (s *stream[E]) run(ctx context.Context) error {
	hc := eventsClient(s.o.c.HTTP, s.o.rt.method)
	once := !idempotent(s.o.rt.method)
	var conns atomic.Int64 // how many times the request took a connection
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GetConn: func(string) { conns.Add(1) }})
	fails := 0 // connections in a row that dispatched no event
	for {
		if !fieldValue(s.lastID) {
			// WHATWG HTML lets an id hold any character but NUL; net/http
			// refuses to send one with a control character (RFC 9110
			// section 5.5).
			return fmt.Errorf("waltz: %s %s: the last event ID %q cannot be sent as Last-Event-ID: it holds a control character",
				s.o.rt.method, s.o.rt.pattern, s.lastID)
		}
		req := s.req.Clone(ctx)
		if s.req.GetBody != nil {
			req.Body, _ = s.req.GetBody() // each request sends the body again
		}
		if s.lastID != "" {
			req.Header.Set("Last-Event-ID", s.lastID)
		} else {
			req.Header.Del("Last-Event-ID")
		}
		before := conns.Load()
		s.got = false
		err := s.connect(hc, req)
		var (
			fatal *finalError
			again *againError
		)
		switch {
		case err == errStop:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &fatal):
			return fatal.err
		case err != nil && conns.Load() == before && !isNetwork(err):
			return err // refused before it was sent
		case once && errors.As(err, &again):
			return again.err
		case once:
			return err // nil at a clean end
		}
		// A connection that failed or ended: connect again.
		if s.got {
			fails = 0
		} else {
			fails++
		}
		wait := backoff(s.delay, fails)
		if errors.As(err, &again) {
			wait = max(wait, again.after)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// eventsClient returns the http.Client of a stream's requests of method:
// a copy of hc (http.DefaultClient if nil), which follows a QUERY's
// redirects as Op's call does (queryClient), and whose redirect policy's
// refusal (hc's CheckRedirect, or net/http's 10 redirects at most) is
// final: the same request would be refused again.
func eventsClient(hc *http.Client, method string) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	if method == waltz.MethodQuery {
		hc = queryClient(hc)
	}
	c := *hc
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		err := checkRedirect(hc, req, via)
		if err != nil && err != http.ErrUseLastResponse {
			return &finalError{err}
		}
		return err
	}
	return &c
}

// connect sends req through hc and reads the events of its answer (see
// read). The answer is closed however connect ends, a panic or
// runtime.Goexit in the loop's body included (as the Go blog's "Range
// Over Function Types" asks of an iterator that holds a resource).
func (s *stream[E]) connect(hc *http.Client, req *http.Request) error {
	resp, err := hc.Do(req)
	if err != nil {
		if errors.As(err, new(*finalError)) {
			return &finalError{err} // the url.Error, which names the URL
		}
		return err
	}
	defer resp.Body.Close()
	return s.read(resp)
}

// againError is read's error for an answer to retry (502, 503, 504).
type againError struct {
	err   error         // its *waltz.HTTPError
	after time.Duration // its Retry-After, 0 if none
}

func (e *againError) Error() string { return e.err.Error() }

// maxDelay is the longest a stream waits before it connects again: a
// longer reconnection time or Retry-After is cut to it, so that no
// server's number overflows a time.Duration.
const maxDelay = 24 * time.Hour

// minBackoff is the least a stream waits after a connection that
// dispatched no event, so that a reconnection time of 0 does not make a
// loop of a server that fails; maxDoublings is how many times that wait
// doubles, at most: to 64 times the first.
const (
	minBackoff   = 100 * time.Millisecond
	maxDoublings = 6
)

// backoff returns the wait before the next connection when the
// reconnection time is delay, after fails connections in a row that
// dispatched no event (each failed, or ended with nothing): delay after
// one that dispatched an event, else delay (at least minBackoff) doubled
// fails-1 times, maxDoublings at most, as WHATWG HTML lets a user agent
// back off; never more than maxDelay.
func backoff(delay time.Duration, fails int) time.Duration {
	delay = min(delay, maxDelay) // a Reconnect past it, which the doubling could overflow
	if fails > 0 {
		delay = max(delay, minBackoff) << min(fails-1, maxDoublings)
	}
	return min(delay, maxDelay)
}

// retryAfter returns the wait that v, a Retry-After field's value, asks
// for at now: delay-seconds or an HTTP-date (RFC 9110 section 10.2.3),
// at most maxDelay; 0 when v is neither, or a date past.
func retryAfter(v string, now time.Time) time.Duration {
	if isDigits([]byte(v)) {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil && n < uint64(maxDelay/time.Second) {
			return time.Duration(n) * time.Second
		}
		return maxDelay // past it, or past uint64
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), maxDelay)
	}
	return 0
}

// idempotent reports whether a request of method may be sent again
// without the user's say: its method is safe or idempotent (RFC 9110
// section 9.2.2, which says a client SHOULD NOT retry another
// automatically; QUERY, RFC 10008 section 2).
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace,
		http.MethodPut, http.MethodDelete, waltz.MethodQuery:
		return true
	}
	return false
}

// finalError is an error that ends the stream.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
func (e *finalError) Unwrap() error { return e.err }

// isNetwork reports whether err, from http.Client.Do, is a net.Error
// (a *url.Error is one itself: what it wraps is judged).
func isNetwork(err error) bool {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// fieldValue reports whether net/http sends s as a header field value:
// it holds no control character but HTAB (RFC 9110 section 5.5).
func fieldValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
