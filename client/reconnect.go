package client

import (
	"context"
	"errors"
	"net/http"
	"time"

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
	lastID string        // the last event ID
}

// errStop is what run returns when the loop stopped.
var errStop = errors.New("stop")

// run connects, reads, and connects again until ctx is done, the loop
// stops or a final error, which it returns (nil for a stopped loop).
func (s *stream[E]) run(ctx context.Context) error {
	hc := s.o.c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	for {
		req := s.req.Clone(ctx)
		if s.req.GetBody != nil {
			req.Body, _ = s.req.GetBody() // each request sends the body again
		}
		if s.lastID != "" {
			req.Header.Set("Last-Event-ID", s.lastID)
		} else {
			req.Header.Del("Last-Event-ID")
		}
		err := s.connect(hc, req)
		switch {
		case err == errStop:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && !errors.Is(err, errAgain):
			var fatal *finalError
			if errors.As(err, &fatal) {
				return fatal.err
			}
			// A connection that failed: connect again.
		}
		t := time.NewTimer(s.delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// connect sends req through hc and reads the events of its answer (see
// read). The answer is closed however connect ends, a panic or
// runtime.Goexit in the loop's body included (as the Go blog's "Range
// Over Function Types" asks of an iterator that holds a resource).
func (s *stream[E]) connect(hc *http.Client, req *http.Request) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return s.read(resp)
}

// errAgain is read's error for an answer to retry (502, 503, 504).
var errAgain = errors.New("answer to retry")

// finalError is an error that ends the stream.
type finalError struct{ err error }

func (e *finalError) Error() string { return e.err.Error() }
