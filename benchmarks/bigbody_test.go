package benchmarks

import (
	"net/http"
	"testing"
)

// BenchmarkBigBody binds 1 MiB bodies into one type (bigbody.go) with
// encoding/json alone (impl=json: json.Unmarshal, no rules), a typed
// operation (impl=typed) and huma v2 (impl=huma). body=valid is 55,000
// small objects beside maps, a pointer, a time, raw JSON and an any;
// the others are hostile: unique (items far past maxItems under
// uniqueItems), deep (arrays nested a million deep), keys (100,000 keys
// in one map), long (a 1 MiB string over its maxLength), failures
// (55,000 items that each break two rules). Compare with
// `benchstat -col /impl`.
func BenchmarkBigBody(b *testing.B) {
	for _, bc := range bigCases {
		for _, impl := range bigImpls {
			b.Run("body="+bc.name+"/impl="+impl.name, func(b *testing.B) {
				h := impl.build()
				body := bigBodies[bc.name]
				req := jsonRequest("/big", body)
				rb := req.Body.(*ReplayBody)
				orig := *req
				w := NewNopWriter()
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					*req = orig
					rb.Reset()
					h.ServeHTTP(w, req)
				}
			})
		}
	}
}

// TestBigBodyAgree holds that the typed operation and huma answer each
// big body with the status bigCases names, and encoding/json decodes the
// valid one.
func TestBigBodyAgree(t *testing.T) {
	for _, bc := range bigCases {
		for _, impl := range bigImpls {
			want := bc.status
			if impl.name == "json" {
				want = http.StatusNoContent // no rules
				if bc.name == "deep" {
					want = http.StatusBadRequest
				}
			}
			if got := serveOnce(impl.build(), jsonRequest("/big", bigBodies[bc.name])); got != want {
				t.Errorf("%s %s: got %d, want %d", bc.name, impl.name, got, want)
			}
		}
	}
}
