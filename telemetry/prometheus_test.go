package telemetry_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/waltz-go/waltz"
)

// TestPrometheusLabelsBounded: 100,000 requests for distinct paths — 404s,
// param values, hostile methods — leave the histogram with a fixed label
// set: one series per route, method and status class seen, and one for
// every 404, under the empty route.
func TestPrometheusLabelsBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	r := waltz.New()
	r.Get("/users/:id", func(c *waltz.Context) error { return c.Text(http.StatusOK, c.Param("id")) })
	api := r.Group("/api")
	api.Get("/files/*path", func(c *waltz.Context) error { return c.NoContent(http.StatusNoContent) })
	h := instrument(r, newRequestDuration(reg))

	const n = 100_000
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	for i := range n {
		var method, path string
		switch i % 4 {
		case 0:
			method, path = http.MethodGet, fmt.Sprintf("/no/such/%d/path", i)
		case 1:
			method, path = http.MethodGet, fmt.Sprintf("/users/%d", i)
		case 2:
			method, path = http.MethodGet, fmt.Sprintf("/api/files/%d/%d.txt", i, i)
		case 3:
			method, path = fmt.Sprintf("M%d", i), fmt.Sprintf("/x%d", i) // a method no route has
		}
		req.Method, req.URL.Path, req.Pattern = method, path, ""
		h.ServeHTTP(httptest.NewRecorder(), req)
	}

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := ""
			for _, l := range m.GetLabel() {
				key += l.GetName() + "=" + l.GetValue() + " "
			}
			got[key] = m.GetHistogram().GetSampleCount()
		}
	}
	want := map[string]uint64{
		"method=GET route= status_class=4xx ":                 n / 4,
		"method=GET route=/users/:id status_class=2xx ":       n / 4,
		"method=GET route=/api/files/*path status_class=2xx ": n / 4,
		"method=_OTHER route= status_class=4xx ":              n / 4,
	}
	if len(got) != len(want) {
		t.Errorf("got %d series, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("series {%s}: got %d observations, want %d", k, got[k], v)
		}
	}
}
