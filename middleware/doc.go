// Package middleware holds the middleware a production waltz app needs,
// one per file, each following its spec, configured by one Options struct
// whose zero value is the safe default (a bad option panics at
// construction), and stating its per-request allocations as a test holds
// them. It imports nothing outside the standard library and waltz.
//
//   - [Logger] logs one line per request with log/slog (status as sent,
//     request ID, error); [Recoverer] turns a panic into a 500, or aborts a
//     response that had started.
//   - [RequestID] gives each request an ID in X-Request-ID and its context
//     ([RequestIDFrom]); incoming IDs are kept only when short and safe.
//   - [RealIP] takes the client address from X-Forwarded-For, Forwarded
//     (RFC 7239) or X-Real-IP only when the peer is a trusted proxy;
//     [ClientIP] reads it.
//   - [SecureHeaders] sets nosniff, Referrer-Policy, frame protection,
//     Cross-Origin-Opener-Policy, an optional CSP, and HSTS over TLS only.
//   - [CORS] answers cross-origin requests and preflights per the Fetch
//     standard's CORS protocol; [CSRF] refuses cross-origin unsafe
//     requests with net/http's CrossOriginProtection.
//   - [BasicAuth] (RFC 7617) and [BearerAuth] (RFC 6750, or an API-key
//     header) admit valid credentials only, compared in constant time.
//   - [BodyLimit] answers 413 for bodies over a size, before reading a
//     declared Content-Length; [RateLimit] answers 429 with Retry-After and
//     the IETF RateLimit fields, over a [RateStore] that may be shared (the
//     module waltz/redisstore keeps it in Redis; the package
//     middleware/storetest checks a RateStore).
//   - [Idempotency] makes POST and PATCH retries safe by the IETF
//     Idempotency-Key draft: one run per key and caller, a retry replayed,
//     409 with Retry-After while the first runs, 422 for the key reused
//     with another request, over an [IdempotencyStore] that may be
//     shared (redisstore's; the package middleware/idemtest checks one).
//   - [Timeout] puts a deadline on the request's context and answers 503
//     when it passes with nothing written.
//   - [MethodOverride] lets an HTML form's POST stand for PUT, PATCH or
//     DELETE, before routing (waltz.Router.Pre), never cross-origin.
//   - [Compress] gzips or deflates responses per Accept-Encoding; [ETag]
//     tags GET and HEAD responses and answers If-None-Match with 304.
//
// Errors are answered where they are returned (see waltz.Middleware), so a
// middleware that refuses a request returns a *waltz.HTTPError and the
// router's error handler renders it, inside every middleware further out:
// as text, or as RFC 9457 problem details with waltz.RenderProblem. Each
// middleware that refuses requests declares its statuses with
// api.Responds (BasicAuth 401; BearerAuth 400 and 401; BodyLimit 413;
// CSRF 403; ETag 412, and 304 for a GET, HEAD or QUERY; Idempotency 400,
// 409, 413 and 422, and 503 for a store that
// can fail unless FailOpen; RateLimit 429, and 503 unless FailOpen;
// Timeout its Code), so
// the OpenAPI document of a typed operation inside it lists them.
// A typical order, outermost first (docs/middleware.md, "In order",
// explains each place; proxies is the app's own []netip.Prefix):
//
//	r := waltz.New()
//	r.Use(
//		middleware.RealIP(middleware.RealIPOptions{TrustedProxies: proxies}),
//		middleware.RequestID(middleware.RequestIDOptions{}),
//		middleware.Logger(slog.Default()),
//		middleware.Recoverer,
//		middleware.SecureHeaders(middleware.SecureHeadersOptions{}),
//		middleware.CORS(middleware.CORSOptions{AllowedOrigins: []string{"https://app.example"}}),
//		// The origin CORS lets in must be trusted here too, or its writes get 403.
//		middleware.CSRF(middleware.CSRFOptions{TrustedOrigins: []string{"https://app.example"}}),
//		middleware.RateLimit(middleware.RateLimitOptions{}),
//		middleware.Compress(middleware.CompressOptions{}),
//	)
//	g := r.Group("/api", middleware.BodyLimit(1<<20),
//		middleware.Timeout(middleware.TimeoutOptions{Duration: 5 * time.Second}))
//
// Standard func(http.Handler) http.Handler middleware joins a chain through
// waltz.WrapMiddleware.
package middleware
