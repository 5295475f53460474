package waltz

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Timeouts of the server that [ListenAndServe] runs. net/http's zero values
// mean "no limit", which lets slow or idle clients hold connections forever;
// these bound each phase of a request instead.
const (
	ReadHeaderTimeout = 10 * time.Second  // to read a request's headers
	ReadTimeout       = 60 * time.Second  // to read a whole request, body included
	WriteTimeout      = 60 * time.Second  // from the end of the headers to the end of the response; a long stream extends it with http.ResponseController.SetWriteDeadline
	IdleTimeout       = 120 * time.Second // a keep-alive connection may wait for its next request
	ShutdownTimeout   = 15 * time.Second  // in-flight requests get to finish once ctx is done
)

// ListenAndServe serves h on the TCP address addr ("host:port", ":3000")
// with the timeouts above, and "OPTIONS *" passed to h, until ctx is done, then shuts down gracefully: it
// stops accepting connections and waits up to ShutdownTimeout for requests
// in flight. It returns nil after a clean shutdown, and otherwise the error
// from listening, serving or shutting down.
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	log.Fatal(waltz.ListenAndServe(ctx, ":3000", r))
func ListenAndServe(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	return serveListener(ctx, ln, h)
}

// serveListener is ListenAndServe on a listener it already has.
func serveListener(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		// Let "OPTIONS *" reach h (a Router answers it with every method it
		// serves) instead of net/http's bare 200.
		DisableGeneralOptionsHandler: true,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
