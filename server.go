package waltz

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a [Server] whose fields are zero. net/http's zero values mean
// "no limit", which lets slow or idle clients hold connections forever;
// these bound each phase of a request instead.
const (
	ReadHeaderTimeout = 10 * time.Second  // to read a request's headers
	ReadTimeout       = 60 * time.Second  // to read a whole request, body included
	WriteTimeout      = 60 * time.Second  // from the end of the headers to the end of the response; a long stream extends it with http.ResponseController.SetWriteDeadline, a file served by FileServer or a download per MiB
	IdleTimeout       = 120 * time.Second // a keep-alive connection may wait for its next request
	ShutdownTimeout   = 15 * time.Second  // the grace period: requests in flight get this long to finish once shutdown begins
	DrainDelay        = 5 * time.Second   // once Run's context is done, the server keeps serving this long, readiness failing, before it shuts down
	ReadyCheckTimeout = time.Second       // a ReadyCheck's Check gets this long to answer
)

// Server is a [net/http.Server] with safe defaults, readiness and liveness
// probes, and a drain and graceful shutdown bound to a context. Every net/http field is there to set (Handler,
// TLSConfig, Protocols, ErrorLog, ConnState, ...), with one difference:
// [Server.Run] replaces a zero ReadHeaderTimeout, ReadTimeout, WriteTimeout
// or IdleTimeout with the constant of the same name above, so the zero
// Server is safe to expose; set a negative value for no limit, as net/http
// reads it. A zero ReadHeaderTimeout or IdleTimeout beside a ReadTimeout
// set shorter than its constant gets that ReadTimeout, as net/http falls
// back to it. A file that [FileServer] or a typed download sends gets the
// whole WriteTimeout for each MiB of it, so a large one reaches a client
// that keeps reading; an event stream moves the deadline per event.
// Other large answers and uploads need WriteTimeout and ReadTimeout to
// fit them, or a handler that moves its deadline
// ([net/http.ResponseController]).
// Server's own ListenAndServe, Serve, ListenAndServeTLS and
// ServeTLS (the methods an http.Server user calls) set the same defaults
// first, without Run's drain. A Server runs once, as an http.Server does.
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
//
// Behind a load balancer that probes it (a Kubernetes Service), mount
// [Server.Ready] where the readiness probe asks and [Server.Live] where
// the liveness probe asks. When Run's context ends (SIGTERM), Ready
// answers 503 at once, while the server goes on serving for DrainDelay so
// that the balancer, which keeps sending for a few seconds, learns to stop
// before anything is refused; see [Server.Run] for the steps. A server
// nothing probed (a development server's Ctrl-C) shuts down at once.
type Server struct {
	http.Server

	// ShutdownTimeout is the grace period, once the drain is over, for
	// requests in flight to finish; zero means the ShutdownTimeout constant
	// (15 s). When it runs out, Run closes every connection still open.
	// Negative means no grace period, not "no limit" as a negative
	// ReadTimeout does: Run stops listening, closes the idle connections,
	// and closes the others at once, cutting the responses in flight (its
	// error says so).
	ShutdownTimeout time.Duration

	// DrainDelay is how long, once Run's context is done, the server keeps
	// accepting and serving requests while Ready answers 503 and every
	// response carries "Connection: close" (over HTTP/2, a GOAWAY), before
	// it stops listening. Negative means none. Zero means the DrainDelay
	// constant (5 s) when someone is there to drain from: when
	// [Server.Ready] or [Server.Live] has served a probe, which tells that
	// a platform runs the instance; otherwise (a development server,
	// Ctrl-C) none, and the shutdown begins at once. A platform that stops
	// routing to an instance as it terminates, whatever it probes (a
	// Kubernetes Service takes a terminating pod out of its endpoints,
	// and its proxies learn of it a few seconds later), needs the drain:
	// set DrainDelay above zero when it probes neither (a balancer that
	// probes another path, no probe at all). Run logs at start which it
	// will be, and again when the shutdown begins. It should be longer
	// than the readiness probe's period times its failure threshold, plus
	// the few seconds a platform takes to stop routing to the instance;
	// DrainDelay plus
	// ShutdownTimeout should be shorter than the time the platform waits
	// before it kills the process (Kubernetes' terminationGracePeriodSeconds,
	// 30 s by default: 5 s + 15 s fit).
	DrainDelay time.Duration

	// ReadyChecks are what [Server.Ready] asks, all at once, on every
	// probe: the instance is ready when each returns nil within its
	// timeout. A dependency without which no request can be served (a
	// database ping) belongs here; one the service degrades without (a
	// cache, a rate-limit store that fails open) does not, or every
	// instance leaves the balancer together when it fails. Set them before
	// Run.
	ReadyChecks []ReadyCheck

	draining atomic.Bool // Run's context is done: Ready fails, responses close their connections
	probed   atomic.Bool // Ready or Live has served a probe: a zero DrainDelay drains

	once  sync.Once          // prepare's
	begin context.CancelFunc // NOTE: set once, by prepare: closes ShutdownStarted
	tls   bool               // NOTE: set once, by prepare: Run serves TLS (TLSConfig was set)

	mu           sync.Mutex
	brokenChecks map[int]bool       // NOTE: under mu; by index in ReadyChecks: failing by a panic or a nil Check
	calls        map[int]*checkCall // NOTE: under mu; by index in ReadyChecks: the call of its Check that runs
}

// Live is a handler for the liveness probe, to mount where the platform
// probes: r.Get("/livez", srv.Live). It answers 200 "live" with
// "Cache-Control: no-store" as long as the server answers at all, during
// the drain too: a liveness probe that failed then would have the
// platform restart an instance that is shutting down cleanly. It checks
// nothing else; a dependency that fails makes an instance unready, not
// dead. Serving a probe makes Run drain on shutdown when DrainDelay is
// zero, as Ready's does.
func (s *Server) Live(c *Context) error {
	s.probed.Store(true)
	c.Writer.Header().Set("Cache-Control", "no-store")
	return c.Text(http.StatusOK, "live\n")
}

// drainHandler is the Handler Run serves: the user's, with "Connection:
// close" set on every response once the drain began. net/http closes an
// HTTP/1 connection after such a response (RFC 9112 section 9.6), so the
// client does not reuse a connection the server will close; its HTTP/2
// server, which may not send the field (RFC 9113 section 8.2.2), takes it
// as the wish to close the connection and sends a GOAWAY instead (RFC
// 9113 section 6.8), for h2c as for TLS.
type drainHandler struct {
	s *Server
	h http.Handler
}

func (d *drainHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if d.s.draining.Load() {
		w.Header().Set("Connection", "close")
	}
	d.h.ServeHTTP(w, r)
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
// drains and shuts down. The drain, when there is someone to drain from
// (a readiness probe was served, or DrainDelay is set: see
// [Server.DrainDelay]): [Server.Ready] answers 503 at once, and for
// DrainDelay the server goes on accepting and serving, each
// response with "Connection: close" (HTTP/1.1) or a GOAWAY (HTTP/2), so
// that clients and a balancer still sending move elsewhere rather than
// reuse a connection as it closes (the race RFC 9112 section 9.5
// describes). The shutdown: it stops accepting connections, closes idle
// ones, closes the [ShutdownStarted] channel of every request, and waits
// up to ShutdownTimeout for requests in flight. When the grace period runs out it
// closes the connections still open ([net/http.Server.Close]), so a handler
// that never returns keeps no client waiting; hijacked connections are the
// handler's to close. Run also lets "OPTIONS *" through to the Handler
// (DisableGeneralOptionsHandler), which a [Router] answers (behind any
// wrapper); an http.ServeMux answers it 400.
//
// Run closes ln and returns an error at once, serving nothing, when a
// ReadyCheck has a nil Check. It returns nil after a clean shutdown; an
// error wrapping context.DeadlineExceeded when the grace period ran out
// (or, with a negative ShutdownTimeout, when a request was in flight);
// and otherwise the error from serving, such as
// [net/http.ErrServerClosed] when the Server was shut down by other
// means.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	for i, rc := range s.ReadyChecks {
		if rc.Check == nil {
			ln.Close()
			return fmt.Errorf("waltz: Server.ReadyChecks[%d] (%q) has a nil Check", i, rc.Name)
		}
	}
	log := s.logger()
	switch {
	case s.DrainDelay > 0:
		log.Info("waltz: serving; on shutdown, drains for DrainDelay", "drain", s.DrainDelay)
	case s.DrainDelay < 0:
		log.Info("waltz: serving; on shutdown, no drain (DrainDelay is negative)")
	default:
		log.Info("waltz: serving; on shutdown, keeps serving for the drain only if a platform has probed Server.Ready or Server.Live by then, else stops at once", "drain", drainDefault)
	}
	begin := s.prepare()
	defer begin()
	if c := s.TLSConfig; s.tls && len(c.Certificates) == 0 && c.GetCertificate == nil && c.GetConfigForClient == nil {
		ln.Close()
		return errors.New("waltz: Server.TLSConfig has no certificate: set its Certificates or GetCertificate (or serve files with ServeTLS)")
	}
	errc := make(chan error, 1)
	go func() {
		var err error
		if s.tls {
			err = s.Server.ServeTLS(ln, "", "")
		} else {
			err = s.Server.Serve(ln)
		}
		ln.Close() // already closed, unless ServeTLS failed before serving
		errc <- err
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.draining.Store(true)
	drain, why := s.drain()
	log.LogAttrs(context.Background(), slog.LevelInfo, "waltz: shutting down", slog.Duration("drain", drain), slog.String("because", why))
	if drain > 0 {
		t := time.NewTimer(drain)
		select {
		case <-t.C:
		case err := <-errc:
			t.Stop()
			return err
		}
	}
	begin()
	grace := s.ShutdownTimeout
	if grace == 0 {
		grace = ShutdownTimeout
	}
	sctx, cancel := context.WithTimeout(context.Background(), max(grace, 0))
	defer cancel()
	err := s.Shutdown(sctx)
	switch {
	case err != nil && grace < 0:
		cerr := s.Close()
		err = fmt.Errorf("waltz: no shutdown grace period (ShutdownTimeout is negative): closed the connections left at once: %w", errors.Join(err, cerr))
	case err != nil:
		cerr := s.Close()
		err = fmt.Errorf("waltz: shutdown grace period of %v ran out, closed the connections left: %w", grace, errors.Join(err, cerr))
	}
	if serr := <-errc; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// drainDefault is the drain of a zero DrainDelay once a probe was
// served: the DrainDelay constant, shorter in tests.
var drainDefault = DrainDelay

// drain returns how long Run drains, once its context is done, and why:
// see DrainDelay.
func (s *Server) drain() (time.Duration, string) {
	switch {
	case s.DrainDelay > 0:
		return s.DrainDelay, "DrainDelay is set"
	case s.DrainDelay < 0:
		return 0, "DrainDelay is negative"
	case s.probed.Load():
		return drainDefault, "a probe was served"
	}
	return 0, "no probe was served"
}

// logger returns the logger Run logs to: the Handler's (beneath the
// drain's, once served), when it is a Router with a Logger, else
// slog.Default().
func (s *Server) logger() *slog.Logger {
	h := s.Handler
	if d, ok := h.(*drainHandler); ok {
		h = d.h
	}
	if r, ok := h.(*Router); ok && r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// prepare sets the Server up to serve, once however many listeners it
// serves (setDefaults), and returns the func that begins the shutdown:
// it closes every request's ShutdownStarted channel.
func (s *Server) prepare() context.CancelFunc {
	s.once.Do(func() {
		// TLS as the user configured it: net/http's HTTP/2 setup fills
		// TLSConfig in as the first listener is served.
		s.tls = s.TLSConfig != nil
		started, begin := context.WithCancel(context.Background())
		s.begin = begin
		s.setDefaults(started, begin)
	})
	return s.begin
}

// setDefaults fills the zero timeouts, wraps BaseContext so that every
// request's context carries started for ShutdownStarted, and wraps the
// Handler for the drain.
func (s *Server) setDefaults(started context.Context, begin context.CancelFunc) {
	rt := s.ReadTimeout // the user's
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
			if rt > 0 && (f.field == &s.ReadHeaderTimeout || f.field == &s.IdleTimeout) {
				// net/http reads a zero ReadHeaderTimeout or IdleTimeout
				// as ReadTimeout: a shorter one set alone stays the bound.
				*f.field = min(f.def, rt)
			}
		}
	}
	h := s.Handler
	if h == nil {
		h = http.DefaultServeMux
	}
	// Let "OPTIONS *" reach the handler (a Router, wrapped or not,
	// answers it with every method it serves) instead of net/http's bare
	// 200. A handler that cannot answer it says so (http.ServeMux: 400).
	s.DisableGeneralOptionsHandler = true
	s.Handler = &drainHandler{s: s, h: h}
	// A Shutdown called directly, not by Run, closes ShutdownStarted too.
	s.RegisterOnShutdown(begin)
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
// with a zero [Server] (so the default timeouts, drain delay and grace
// period; so no drain unless a readiness probe was served) until ctx is
// done, then drains and shuts down gracefully as [Server.Run] does. It returns nil
// after a clean shutdown, and otherwise the error from listening, serving
// or shutting down. A main that exits 0 on Ctrl-C or SIGTERM once requests
// in flight have finished:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	context.AfterFunc(ctx, stop) // a second signal (Ctrl-C, SIGTERM) ends the process at once
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

// ListenAndServe listens on the TCP address s.Addr (":http" when empty)
// and serves as http.Server's method does, which it shadows, with Run's
// defaults set first (the timeouts, "OPTIONS *" let through,
// ShutdownStarted): http.Server's alone would serve with no timeouts, so
// that a client that sends its headers slowly holds a connection
// forever. It returns [net/http.ErrServerClosed] after Shutdown or
// Close. Like Serve, it may be called for several listeners of one
// Server. For a shutdown on a signal, with the drain, call [Server.Run].
func (s *Server) ListenAndServe() error {
	s.prepare()
	return s.Server.ListenAndServe()
}

// Serve serves on ln as [Server.ListenAndServe] does. It shadows
// http.Server's method.
func (s *Server) Serve(ln net.Listener) error {
	s.prepare()
	return s.Server.Serve(ln)
}

// ListenAndServeTLS serves TLS as [Server.ListenAndServe] serves HTTP,
// on s.Addr (":https" when empty), with the certificate and key in the
// PEM files certFile and keyFile (both "" to use TLSConfig's), as
// http.Server's method does, which it shadows.
func (s *Server) ListenAndServeTLS(certFile, keyFile string) error {
	s.prepare()
	return s.Server.ListenAndServeTLS(certFile, keyFile)
}

// ServeTLS serves TLS on ln as [Server.ListenAndServeTLS] does. It
// shadows http.Server's method.
func (s *Server) ServeTLS(ln net.Listener, certFile, keyFile string) error {
	s.prepare()
	return s.Server.ServeTLS(ln, certFile, keyFile)
}
