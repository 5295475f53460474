package middleware

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/waltz-go/waltz"
)

// Logger returns middleware that logs one record per request to l, at Info
// level (Error for a 5xx), after the handlers inside it return: method,
// path, the matched route's pattern ("" for the router's own answers),
// status, body size in bytes, duration, and the handler's error if any.
// When the handler returned an error and wrote nothing, the status logged is
// the one the error handler will send: an [waltz.HTTPError]'s Code, else 500.
func Logger(l *slog.Logger) waltz.Middleware {
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			start := time.Now()
			err := next(c)
			status := c.Response().Status()
			if err != nil && !c.Response().Written() {
				status = http.StatusInternalServerError
				var he *waltz.HTTPError
				if errors.As(err, &he) {
					status = he.Code
				}
			}
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			attrs := []slog.Attr{
				slog.String("method", c.Request.Method),
				slog.String("path", c.Request.URL.Path),
				slog.String("pattern", c.Pattern()),
				slog.Int("status", status),
				slog.Int64("bytes", c.Response().Size()),
				slog.Duration("duration", time.Since(start)),
			}
			if err != nil {
				attrs = append(attrs, slog.Any("err", err))
			}
			l.LogAttrs(context.Background(), level, "request", attrs...)
			return err
		}
	}
}
