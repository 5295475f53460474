// Package telemetry holds the tests and examples that show waltz's route
// identity with the libraries a service uses for traces and metrics:
// OpenTelemetry's otelhttp and Prometheus's client_golang. It is a module
// of its own, so that the framework's module requires nothing.
//
// A waltz Router sets r.Pattern on the request it is given to the matched
// route's pattern ("/users/:id"), or to "" when no route matched, as
// [net/http.ServeMux] does. So a handler that wraps the router reads the
// route once ServeHTTP returns:
//
//   - otelhttp.NewHandler(router, "api") names each span "GET /users/:id"
//     and puts http.route on its request metrics; it reads the span's own
//     http.route attribute only when the span starts, before routing, so a
//     one-line waltz middleware sets it (see the example);
//   - a metrics wrapper labels each observation with r.Pattern, bounded
//     by the routes registered whatever paths clients send, 404s counted
//     under the empty route.
//
// The package has no API: the examples are the code to copy.
package telemetry
