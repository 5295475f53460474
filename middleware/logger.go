package middleware

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/waltz-go/waltz"
)

// Logger returns middleware that logs one record per request to l, after
// the handlers inside it return: method, path, the matched route's pattern
// ("" for the router's own answers: 404, 405, redirects), the status the
// client got (0 when the client went away before any status was sent, or
// when the response was aborted or hijacked before one was), the body
// bytes sent, duration, the request ID when [RequestID] set one, the
// handler's error if any, and aborted=true when the response is cut
// rather than ended (an error or a panic after it started,
// http.ErrAbortHandler, a Goexit). A request whose context was cancelled
// (the client left) has client_gone=true in its record. It logs with the
// request's context.Context, so a context-aware slog.Handler sees what
// middleware put there (a trace, a request ID).
//
// A request whose handler took the connection over (a WebSocket upgrade,
// through [net/http.Hijacker]) has hijacked=true: its status is the one
// the handler sent before the hijack (101 Switching Protocols, RFC 9110
// section 15.2.2), 0 when it wrote its answer on the connection itself,
// which Logger does not see; bytes counts none of what went over the
// connection, and the duration is the whole session's.
//
// The level is Error for a 5xx, Warn for a 4xx, Info otherwise, with two
// exceptions. A 503 the handlers wrote themselves, returning no error, is
// Warn: the service said it is unavailable for now (RFC 9110 section
// 15.6.4), as [waltz.Server.Ready] does while the server drains or a
// check fails, the expected answer during a deploy rather than a fault
// (a 503 the error handler answered for a returned error stays Error).
// An error the status could not tell (one returned after the response
// had started or a hijack, such as a panic that aborted it) is logged as
// Error, unless it is a context error after the client went away.
//
// Errors are answered where they are returned (see [waltz.Middleware]), so
// the status logged is the one the error handler sent, not a guess from the
// error. Logger marks the request logged ([waltz.Context.MarkLogged]), so
// the default error handler does not log the same error again: one request,
// one line. The outermost Logger writes it: a Logger inside another (on a
// Router mounted with [waltz.Group.Mount], inside a middleware adapted by
// [waltz.WrapMiddleware], or later in the same chain) runs the handlers
// without logging ([waltz.Context.Logged]), and the error answered inside
// comes back out of the mount or the wrapped middleware to the outer one,
// which logs it with the level of an error (a 503 so answered is Error).
// Put it first, before [Recoverer], so that a recovered panic is
// in its line; a panic that passes through it is logged with the panic
// value, then goes on: as status 500, what a Recoverer outside answers,
// unless it is http.ErrAbortHandler or the response had started, which
// abort the response (logged with the status sent, 0 when none was). A
// handler that ends its goroutine with runtime.Goexit (t.Fatal in a
// test) is logged as an error with goexit=true and aborted=true (net/http
// closes the connection without ending the response), and the Goexit
// goes on.
//
// A path longer than 2 KiB is logged as its first 2 KiB (cut between
// characters) and "…", with path_bytes its whole length: net/http takes a
// request line of up to its MaxHeaderBytes (1 MiB by default), and a
// client could otherwise write a megabyte into the log with each request.
//
// Logger panics if l is nil. Cost per request, held by a test: none of its
// own; what l's handler allocates for the record: 1 allocation with slog's
// JSON or text handler (more when it formats an error), none when l's
// level drops the record.
func Logger(l *slog.Logger) waltz.Middleware {
	if l == nil {
		panic("waltz: Logger(nil): pass a *slog.Logger, such as slog.Default()")
	}
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) (err error) {
			if c.Logged() {
				// A Logger outside logs the request, the error of
				// this chain included: one request, one line.
				return next(c)
			}
			start := time.Now()
			c.MarkLogged()
			done := false
			defer func() {
				if done {
					return
				}
				switch v := recover(); {
				case v == nil:
					// runtime.Goexit (t.Fatal in a handler), which
					// no recover stops: there is no panic to pass on,
					// and net/http closes the connection without
					// ending the response.
					logRequest(l, c, start, sentStatus(c), nil, nil, endGoexit)
				case v == http.ErrAbortHandler || c.Response().Started():
					// net/http cuts the response (a Recoverer
					// outside aborts a started one too): the
					// client gets what was sent, not a 500.
					logRequest(l, c, start, sentStatus(c), nil, v, endAborted)
					panic(v)
				default:
					// What a Recoverer outside answers.
					logRequest(l, c, start, http.StatusInternalServerError, nil, v, endReturned)
					panic(v)
				}
			}()
			err = next(c)
			done = true
			end := endReturned
			if c.Response().Aborted() {
				end = endAborted
			}
			logRequest(l, c, start, c.Response().Status(), err, nil, end)
			return err
		}
	}
}

// sentStatus returns the status c's response sent, or 0 when none was.
func sentStatus(c *waltz.Context) int {
	if c.Response().Written() {
		return c.Response().Status()
	}
	return 0
}

// How a request's handling ended, for its record: the handlers returned,
// the response is aborted, or the goroutine is ending by runtime.Goexit
// (which aborts the response too).
const (
	endReturned = iota
	endAborted
	endGoexit
)

// logRequest writes the record for c's request; panicked is the value of a
// panic passing through, or nil; end says how the handling ended.
func logRequest(l *slog.Logger, c *waltz.Context, start time.Time, status int, err error, panicked any, end int) {
	ctx := c.Request.Context()
	// The request's context was cancelled: the client went away. When no
	// status was sent, none reached anyone (net/http's implicit 200 would
	// go to a closed connection): the record says 0, and that the client
	// left.
	gone := ctx.Err() == context.Canceled
	if gone && !c.Response().Written() {
		status = 0
	}
	level := slog.LevelInfo
	switch {
	case status == http.StatusNotImplemented && c.Pattern() == "":
		// The router's own 501 (no route ran), for a method it knows
		// nowhere: the client's doing, as a 4xx is.
		level = slog.LevelWarn
	case status == http.StatusServiceUnavailable && err == nil:
		// A 503 the handlers wrote, no error returned: they chose to
		// say the service is unavailable for now (a readiness probe
		// during a drain, load shedding), the expected answer, not a
		// fault; an Error line for each would flood the log.
		level = slog.LevelWarn
	case status >= 500:
		level = slog.LevelError
	case status >= 400:
		level = slog.LevelWarn
	}
	// An error that no error status answered came after the response had
	// started (a refused second response, a late panic that aborted it,
	// an error after a hijack): the client got no sign of it, the log
	// must. A context error once the client has gone is its leaving, not
	// a fault.
	if end != endReturned || err != nil && status < 400 && !(gone && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))) {
		level = slog.LevelError
	}
	if !l.Enabled(ctx, level) {
		return
	}
	path := c.Request.URL.Path
	attrs := [14]slog.Attr{
		slog.String("method", c.Request.Method),
		slog.String("path", loggedPath(path)),
		slog.String("pattern", c.Pattern()),
		slog.Int("status", status),
		slog.Int64("bytes", c.Response().Size()),
		slog.Duration("duration", time.Since(start)),
	}
	n := 6
	if len(path) > maxLoggedPath {
		attrs[n] = slog.Int("path_bytes", len(path))
		n++
	}
	if id := RequestIDFrom(ctx); id != "" {
		attrs[n] = slog.String("request_id", id)
		n++
	}
	if err != nil {
		attrs[n] = slog.Any("err", err)
		n++
	}
	if panicked != nil {
		attrs[n] = slog.Any("panic", panicked)
		n++
	}
	if gone {
		attrs[n] = slog.Bool("client_gone", true)
		n++
	}
	if c.Response().Hijacked() {
		attrs[n] = slog.Bool("hijacked", true)
		n++
	}
	if end != endReturned {
		attrs[n] = slog.Bool("aborted", true)
		n++
	}
	if end == endGoexit {
		attrs[n] = slog.Bool("goexit", true)
		n++
	}
	l.LogAttrs(ctx, level, "request", attrs[:n]...)
}

// maxLoggedPath is the most bytes of a request's path a record carries.
const maxLoggedPath = 2 << 10

// loggedPath returns p, or its first maxLoggedPath bytes at most, cut
// before a character's first byte, and "…" when p is longer.
func loggedPath(p string) string {
	if len(p) <= maxLoggedPath {
		return p
	}
	// Back to the start of the character the limit falls in: at most
	// 3 bytes (a character is 4 at most), so that bytes that start none
	// (GET /%80%80…) are cut at the limit, not at the path's start.
	cut := maxLoggedPath
	for cut > maxLoggedPath-utf8.UTFMax+1 && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return p[:cut] + "…"
}
