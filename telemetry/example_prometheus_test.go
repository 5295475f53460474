package telemetry_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/waltz-go/waltz"
)

// newRequestDuration returns the histogram http_server_request_duration_seconds,
// labelled by method, route and status class, registered in reg. The
// buckets are the ones OpenTelemetry's HTTP conventions advise, in seconds.
func newRequestDuration(reg prometheus.Registerer) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "http_server_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by method, route pattern and status class.",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10},
	}, []string{"method", "route", "status_class"})
	reg.MustRegister(h)
	return h
}

// instrument wraps h, a waltz Router, to observe every request in hist.
// The route label is r.Pattern, which the router sets on the request it
// is given: the pattern as registered, or "" when no route matched. So the
// label's values are the app's routes and "", whatever paths clients send;
// a method outside RFC 9110's set is "_OTHER", for the same reason.
func instrument(h http.Handler, hist *prometheus.HistogramVec) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		hist.WithLabelValues(methodLabel(r.Method), r.Pattern, statusClass(sw.code)).Observe(time.Since(start).Seconds())
	})
}

// statusWriter records the status a handler sent: 200 when it wrote a
// body without one, as net/http sends. Unwrap lets
// http.NewResponseController reach the writer's Flush and deadlines.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// statusClass returns "2xx" for 200 through 299, and so on; a handler that
// sent nothing got 200.
func statusClass(code int) string {
	if code == 0 {
		code = http.StatusOK
	}
	return strconv.Itoa(code/100) + "xx"
}

// methodLabel returns m if it is one of RFC 9110's methods (section 9),
// else "_OTHER", so that clients cannot add label values.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "_OTHER"
}

// Per-route request durations in Prometheus: wrap the router, and each
// request is observed under its route's pattern.
func Example_prometheus() {
	reg := prometheus.NewRegistry()
	r := waltz.New()
	r.Get("/users/:id", func(c *waltz.Context) error {
		return c.Text(http.StatusOK, "user "+c.Param("id"))
	})
	h := instrument(r, newRequestDuration(reg)) // serve h: http.ListenAndServe(addr, h)

	for _, target := range []string{"/users/1", "/users/2", "/users/3", "/nope", "/etc/passwd"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, target, nil))
	}
	families, _ := reg.Gather()
	for _, f := range families {
		for _, m := range f.GetMetric() {
			fmt.Print(f.GetName())
			for _, l := range m.GetLabel() {
				fmt.Printf(" %s=%q", l.GetName(), l.GetValue())
			}
			fmt.Println(" count", m.GetHistogram().GetSampleCount())
		}
	}
	// Output:
	// http_server_request_duration_seconds method="GET" route="" status_class="4xx" count 2
	// http_server_request_duration_seconds method="GET" route="/users/:id" status_class="2xx" count 3
}
