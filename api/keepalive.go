package api

import (
	"context"
	"sync"
	"time"

	"github.com/waltz-go/waltz"
)

// pingEvery is a Feed's Ping when it is zero.
const pingEvery = 15 * time.Second

// keepalive pings a stream on a timer of its own while the stream's
// handler waits on the log: EventStream's writes are safe from two
// goroutines. A ping that fails (the client has gone) cancels the
// stream's context, so the wait on the log ends too.
type keepalive struct {
	mu     sync.Mutex
	done   bool // NOTE: under mu; the stream's handler has returned: no more pings
	es     *waltz.EventStream
	every  time.Duration
	cancel context.CancelFunc
	t      *time.Timer
}

// startKeepalive pings es every interval until stop, cancelling with
// cancel when a ping fails.
func startKeepalive(es *waltz.EventStream, every time.Duration, cancel context.CancelFunc) *keepalive {
	k := &keepalive{es: es, every: every, cancel: cancel}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.t = time.AfterFunc(every, k.ping)
	return k
}

// ping sends one ping, and arms the timer for the next.
func (k *keepalive) ping() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return
	}
	if k.es.Ping() != nil {
		k.cancel()
		return
	}
	k.t.Reset(k.every)
}

// stop ends the pings; none is sent once it returns, so the handler may
// return and the response be finished.
func (k *keepalive) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.done = true
	k.t.Stop()
}
