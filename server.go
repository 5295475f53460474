package waltz

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Defaults of a [Server] whose fields are zero. net/http's zero values mean
// "no limit", which lets slow or idle clients hold connections forever;
// these bound each phase of a request instead.
const (
	ReadHeaderTimeout = 10 * time.Second  // to read a request's headers
	ReadTimeout       = 60 * time.Second  // to read a whole request, body included
	WriteTimeout      = 60 * time.Second  // from the end of the headers to the end of the response; a long stream extends it with http.ResponseController.SetWriteDeadline
	IdleTimeout       = 120 * time.Second // a keep-alive connection may wait for its next request
	ShutdownTimeout   = 15 * time.Second  // the grace period: requests in flight get this long to finish once shutdown begins
)

// Server is a [net/http.Server] with safe defaults and a graceful shutdown
// bound to a context. Every net/http field is there to set (Handler,
// TLSConfig, Protocols, ErrorLog, ConnState, ...), with one difference:
// [Server.Run] replaces a zero ReadHeaderTimeout, ReadTimeout, WriteTimeout
// or IdleTimeout with the constant of the same name above, so the zero
// Server is safe to expose; set a negative value for no limit, as net/http
// reads it. A Server runs once, as an http.Server does.
//
// The zero value serves HTTP/1.1, and HTTP/2 too when TLSConfig is set
// (RFC 9113 section 3.2, negotiated with ALPN). Unencrypted HTTP/2 with
// prior knowledge (h2c, RFC 9113 section 3.3), for a server behind a proxy
// that speaks it, is off unless Protocols asks for it:
//
//	var p http.Protocols
//	p.SetHTTP1(true)
//	p.SetUnencryptedHTTP2(true)
//	srv.Protocols = &p
type Server struct {
	http.Server

	// ShutdownTimeout is the grace period, once Run's context is done, for
	// requests in flight to finish; zero means the ShutdownTimeout constant
	// (15 s), negative means none. When it runs out, Run closes every
	// connection still open.
	ShutdownTimeout time.Duration
}

// shutdownKey is the request-context key of the channel ShutdownStarted
// returns.
type shutdownKey struct{}

// ShutdownStarted returns a channel that is closed when the [Server] serving
// the request whose context is ctx begins to shut down; nil (which blocks
// forever in a select) for a request that a Server does not serve.
//
// A request's context is not cancelled when shutdown begins, so that a
// short request in flight, and the database calls it makes with that
// context, can finish in the grace period. A long-lived handler (a
// server-sent event stream, a long poll, a hijacked connection) selects on
// this channel too, and ends its response cleanly when it closes:
//
//	select {
//	case <-c.Request.Context().Done(): // the client went away
//		return nil
//	case <-waltz.ShutdownStarted(c.Request.Context()):
//		return nil // the stream ends with a clean end of body
//	case ev := <-events:
//		// write ev and flush
//	}
func ShutdownStarted(ctx context.Context) <-chan struct{} {
	if sd, ok := ctx.Value(shutdownKey{}).(context.Context); ok {
		return sd.Done()
	}
	return nil
}

// untilShutdown returns a context derived from ctx, cancelled by cancel,
// when ctx ends, and also when the Server serving ctx begins to shut down
// (no hook outside a Server). The hook on the Server is removed when the
// returned context ends, so a stream that ends early leaves nothing
// behind.
func untilShutdown(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if sd, ok := ctx.Value(shutdownKey{}).(context.Context); ok {
		stop := context.AfterFunc(sd, cancel)
		context.AfterFunc(ctx, func() { stop() })
	}
	return ctx, cancel
}

// Run serves on ln, with TLS when TLSConfig is set, until ctx is done, then
// shuts down: it stops accepting connections, closes idle ones, closes the
// [ShutdownStarted] channel of every request, and waits up to
// ShutdownTimeout for requests in flight. When the grace period runs out it
// closes the connections still open ([net/http.Server.Close]), so a handler
// that never returns keeps no client waiting; hijacked connections are the
// handler's to close. Run also lets "OPTIONS *" through to the Handler
// (DisableGeneralOptionsHandler), which a [Router] answers.
//
// Run returns nil after a clean shutdown; an error wrapping
// context.DeadlineExceeded when the grace period ran out; and otherwise the
// error from serving, such as [net/http.ErrServerClosed] when the Server
// was shut down by other means.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	started, begin := context.WithCancel(context.Background())
	defer begin()
	s.setDefaults(started)
	errc := make(chan error, 1)
	go func() {
		if s.TLSConfig != nil {
			errc <- s.ServeTLS(ln, "", "")
			return
		}
		errc <- s.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	begin()
	grace := s.ShutdownTimeout
	if grace == 0 {
		grace = ShutdownTimeout
	}
	sctx, cancel := context.WithTimeout(context.Background(), max(grace, 0))
	defer cancel()
	err := s.Shutdown(sctx)
	if err != nil {
		cerr := s.Close()
		err = fmt.Errorf("waltz: shutdown grace period of %v ran out, closed the connections left: %w", grace, errors.Join(err, cerr))
	}
	if serr := <-errc; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// setDefaults fills the zero timeouts, and wraps BaseContext so that every
// request's context carries started for ShutdownStarted.
func (s *Server) setDefaults(started context.Context) {
	for _, f := range []struct {
		field *time.Duration
		def   time.Duration
	}{
		{&s.ReadHeaderTimeout, ReadHeaderTimeout},
		{&s.ReadTimeout, ReadTimeout},
		{&s.WriteTimeout, WriteTimeout},
		{&s.IdleTimeout, IdleTimeout},
	} {
		if *f.field == 0 {
			*f.field = f.def
		}
	}
	// Let "OPTIONS *" reach the handler (a Router answers it with every
	// method it serves) instead of net/http's bare 200.
	s.DisableGeneralOptionsHandler = true
	base := s.BaseContext
	s.BaseContext = func(ln net.Listener) context.Context {
		ctx := context.Background()
		if base != nil {
			ctx = base(ln)
		}
		return context.WithValue(ctx, shutdownKey{}, started)
	}
}

// ListenAndServe serves h on the TCP address addr ("host:port", ":3000")
// with a zero [Server] (so the default timeouts and grace period) until ctx
// is done, then shuts down gracefully as [Server.Run] does. It returns nil
// after a clean shutdown, and otherwise the error from listening, serving
// or shutting down. A main that exits 0 on Ctrl-C or SIGTERM once requests
// in flight have finished, as examples/hello does:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	if err := waltz.ListenAndServe(ctx, ":3000", r); err != nil {
//		log.Fatal(err)
//	}
//
// To log the address only once it is bound, or to set timeouts, listen
// with [net.Listen] and call [Server.Run], as examples/resource does.
func ListenAndServe(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &Server{Server: http.Server{Handler: h}}
	return srv.Run(ctx, ln)
}
