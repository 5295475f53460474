package middleware

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/waltz-go/waltz"
)

// Recoverer is middleware that recovers a panic in the handlers inside it and
// returns it as a 500 [waltz.HTTPError], so the router's error handler
// answers "Internal Server Error" (and sends nothing more if the response has
// already started) while the panic value and stack are logged with log/slog.
// The panic never reaches the client. It re-panics [http.ErrAbortHandler],
// which net/http uses to abort a response on purpose. Put it early in the
// chain so it covers the middleware after it.
func Recoverer(next waltz.HandlerFunc) waltz.HandlerFunc {
	return func(c *waltz.Context) (err error) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			slog.Error("waltz: handler panicked", "method", c.Request.Method, "path", c.Request.URL.Path,
				"pattern", c.Pattern(), "panic", v, "stack", string(debug.Stack()))
			err = &waltz.HTTPError{Code: http.StatusInternalServerError, Err: fmt.Errorf("panic: %v", v)}
		}()
		return next(c)
	}
}
