package benchmarks

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/waltz-go/waltz"
)

// BenchmarkProblemEncoding measures what a validation failure's answer
// costs on its own: a plain route whose handler returns the very
// HTTPError that the typed POST gives for post-invalid's body (its
// errors read back from that answer before the timer starts), rendered
// as problem details. The typed post-invalid row minus the post row,
// set beside this one, says whether a failure costs more than its own
// problem document.
func BenchmarkProblemEncoding(b *testing.B) {
	rec := httptest.NewRecorder()
	typedOps().ServeHTTP(rec, jsonRequest("/orgs/acme/items", opInvalidBody))
	var p struct {
		Detail string             `json:"detail"`
		Errors []waltz.FieldError `json:"errors"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || len(p.Errors) == 0 {
		b.Fatalf("typed post-invalid: %v, body %s", err, rec.Body)
	}
	he := &waltz.HTTPError{Code: rec.Code, Message: p.Detail, Errors: p.Errors}
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	r.Post("/orgs/:org/items", func(*waltz.Context) error { return he })
	req := jsonRequest("/orgs/acme/items", opInvalidBody)
	check := httptest.NewRecorder()
	r.ServeHTTP(check, req)
	if check.Code != rec.Code || check.Body.String() != rec.Body.String() {
		b.Fatalf("got %d %s, want %d %s", check.Code, check.Body, rec.Code, rec.Body)
	}
	w := NewNopWriter()
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		r.ServeHTTP(w, req)
	}
}
