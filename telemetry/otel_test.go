package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/waltz-go/waltz"
)

// tracedApp is an app with each kind of route: a param route, a group's,
// a mount (another router), a resource, and a plain net/http handler, with
// the route middleware of the otelhttp example.
func tracedApp() *waltz.Router {
	r := waltz.New()
	r.Use(spanRoute)
	ok := func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) }
	r.Get("/users/:id", ok)
	api := r.Group("/api/:version")
	api.Post("/notes", ok)
	inner := waltz.New()
	inner.Get("/list", ok)
	r.Mount("/admin", inner)
	r.Resource(&bookmark{})
	r.Handler(http.MethodGet, "/health", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	return r
}

type bookmark struct{}

func (*bookmark) Paths() []string { return []string{"/bookmarks/:id"} }
func (*bookmark) Delete(c *waltz.Context) error {
	return c.NoContent(http.StatusNoContent)
}

// TestOtelhttpSpans: under the real otelhttp handler and the SDK's span
// recorder, each matched request's span is named by method and route and
// carries http.route, and otelhttp's request duration metric carries it
// too; a 404's span is named by its method alone, and neither has a route.
func TestOtelhttpSpans(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	metrics := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics))
	h := otelhttp.NewHandler(tracedApp(), "api", otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp))

	cases := []struct{ method, target, name, route string }{
		{"GET", "/users/42", "GET /users/:id", "/users/:id"},
		{"POST", "/api/v1/notes", "POST /api/:version/notes", "/api/:version/notes"},
		{"GET", "/admin/list", "GET /admin/*", "/admin/*"},
		{"DELETE", "/bookmarks/7", "DELETE /bookmarks/:id", "/bookmarks/:id"},
		{"GET", "/health", "GET /health", "/health"},
		{"GET", "/no/such/path/42", "GET", ""}, // 404
		{"PUT", "/users/42", "PUT", ""},        // 405: no route has PUT
		{"GET", "/users/42/", "GET", ""},       // the router's redirect
	}
	for _, tc := range cases {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tc.method, tc.target, nil))
	}
	ended := spans.Ended()
	if len(ended) != len(cases) {
		t.Fatalf("got %d spans, want %d", len(ended), len(cases))
	}
	for i, tc := range cases {
		s := ended[i]
		if s.Name() != tc.name {
			t.Errorf("%s %s: got span name %q, want %q", tc.method, tc.target, s.Name(), tc.name)
		}
		if got := attr(s.Attributes(), "http.route"); got != tc.route {
			t.Errorf("%s %s: got span http.route %q, want %q", tc.method, tc.target, got, tc.route)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := metrics.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{} // route → requests counted
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "http.server.request.duration" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				route, _ := dp.Attributes.Value("http.route")
				got[route.AsString()] += dp.Count
			}
		}
	}
	want := map[string]uint64{"": 3}
	for _, tc := range cases[:5] {
		want[tc.route]++
	}
	if len(got) != len(want) {
		t.Errorf("got duration counts by http.route %v, want %v", got, want)
	}
	for route, n := range want {
		if got[route] != n {
			t.Errorf("route %q: got %d requests in http.server.request.duration, want %d", route, got[route], n)
		}
	}
}

// attr returns the value of the attribute key in kvs, or "".
func attr(kvs []attribute.KeyValue, key attribute.Key) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value.String()
		}
	}
	return ""
}

// TestWrapperOrder: a net/http wrapper that passes on a copy of the
// request (http.MaxBytesHandler, http.TimeoutHandler, http.StripPrefix)
// hides r.Pattern from otelhttp when it sits between otelhttp and the
// router, since the router sets it on the copy, as ServeMux does: the span
// is named by method alone. Outside otelhttp, the same wrapper changes
// nothing.
func TestWrapperOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		wrap func(app http.Handler, otel func(http.Handler) http.Handler) http.Handler
		want string
	}{
		{"otelhttp around the router", func(app http.Handler, otel func(http.Handler) http.Handler) http.Handler {
			return http.MaxBytesHandler(otel(app), 1<<20)
		}, "GET /users/:id"},
		{"a wrapper between", func(app http.Handler, otel func(http.Handler) http.Handler) http.Handler {
			return otel(http.MaxBytesHandler(app, 1<<20))
		}, "GET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
			otel := func(h http.Handler) http.Handler {
				return otelhttp.NewHandler(h, "api", otelhttp.WithTracerProvider(tp))
			}
			h := tc.wrap(tracedApp(), otel)
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/users/42", nil))
			ended := spans.Ended()
			if len(ended) != 1 || ended[0].Name() != tc.want {
				var names []string
				for _, s := range ended {
					names = append(names, s.Name())
				}
				t.Errorf("got spans %q, want one named %q", names, tc.want)
			}
		})
	}
}
