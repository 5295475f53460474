package benchmarks

import (
	"net/http/httptest"
	"testing"
)

// BenchmarkProblemEncoding measures what a validation failure's answer
// costs on its own: ProblemApp, the typed POST's problem document for
// post-invalid's body returned by a plain route (the same bytes, checked
// before the timer starts). The typed post-invalid row minus the post row,
// set beside this one, says whether a failure costs more than its own
// problem document.
func BenchmarkProblemEncoding(b *testing.B) {
	r := ProblemApp()
	req := jsonRequest("/orgs/acme/items", opInvalidBody)
	want := httptest.NewRecorder()
	typedOps().ServeHTTP(want, jsonRequest("/orgs/acme/items", opInvalidBody))
	got := httptest.NewRecorder()
	r.ServeHTTP(got, req)
	if got.Code != want.Code || got.Body.String() != want.Body.String() {
		b.Fatalf("got %d %s, want %d %s", got.Code, got.Body, want.Code, want.Body)
	}
	w := NewNopWriter()
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		r.ServeHTTP(w, req)
	}
}
