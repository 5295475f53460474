// Package middleware holds middleware for waltz routers, one per file:
// [Recoverer] turns panics into 500 responses, [Logger] logs each request
// with log/slog.
//
//	r := waltz.New()
//	r.Use(middleware.Logger(slog.Default()), middleware.Recoverer)
package middleware
