package telemetry_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/waltz-go/waltz"
)

// spanRoute puts the matched route on the request's span as http.route.
// otelhttp names the span from r.Pattern once the router returns, but
// reads the span's attributes when it starts the span, before routing;
// in waltz, routing happens before any middleware, so c.Pattern() is
// known here. A request no route matched ("" pattern) gets no attribute.
func spanRoute(next waltz.HandlerFunc) waltz.HandlerFunc {
	return func(c *waltz.Context) error {
		if p := c.Pattern(); p != "" {
			trace.SpanFromContext(c.Request.Context()).SetAttributes(semconv.HTTPRoute(p))
		}
		return next(c)
	}
}

// Tracing a waltz app with otelhttp: wrap the router, and each span is
// named by the method and the route's pattern.
func Example_otelhttp() {
	spans := tracetest.NewSpanRecorder() // in a service: an exporter's batch processor
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))

	r := waltz.New()
	r.Use(spanRoute)
	r.Get("/users/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "user "+c.Param("id"))
	})
	h := otelhttp.NewHandler(r, "api", otelhttp.WithTracerProvider(tp))

	for _, target := range []string{"/users/42", "/users/7", "/nope"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, target, nil))
	}
	for _, s := range spans.Ended() {
		fmt.Printf("%q http.route=%q\n", s.Name(), attr(s.Attributes(), "http.route"))
	}
	// Output:
	// "GET /users/:id" http.route="/users/:id"
	// "GET /users/:id" http.route="/users/:id"
	// "GET" http.route=""
}
