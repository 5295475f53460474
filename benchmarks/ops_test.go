package benchmarks

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkOps measures one small JSON API written three ways: waltz with
// a hand-written handler that parses its inputs with strconv and checks
// them by hand (impl=hand), waltz's typed operations (impl=typed), and huma
// v2 on its ServeMux adapter (impl=huma). The operations:
//
//   - get: GET /orgs/:org/items/:id?limit=20&archived=true&sort=updated,
//     two path params (a string, an int64) and three query params (an int
//     from 1 to 100, a bool, an enum of created/updated/name), answered
//     with a small JSON object that echoes them;
//   - post: POST /orgs/:org/items with a JSON body {name, priority, tags}
//     (name required, 1 to 64 characters; priority required, 1 to 5; at
//     most 8 tags), answered 201 with the item;
//   - post-invalid: the same with a body that breaks three rules, answered
//     422 with each implementation's error document;
//   - query: post's request as a QUERY (RFC 10008), to a route of post's
//     shape, answered 200 (waltz's implementations only).
//
// Every implementation must give the same status for each case, checked
// before the timer starts. Sub-benchmarks are named op=…/impl=…, so
// `benchstat -col /impl` lines them up.
func BenchmarkOps(b *testing.B) {
	for _, oc := range opCases {
		for _, impl := range opImpls {
			if !oc.serves(impl.name) {
				continue
			}
			b.Run("op="+oc.name+"/impl="+impl.name, func(b *testing.B) {
				h := oc.app(impl)
				req := oc.request()
				body, _ := req.Body.(*ReplayBody)
				if code := serveOnce(h, req); code != oc.status {
					b.Fatalf("status: got %d, want %d", code, oc.status)
				}
				if body != nil {
					body.Reset()
				}
				// A handler may replace the request's Body (with an
				// http.MaxBytesReader, say): each request starts from the
				// same state.
				orig := *req
				w := NewNopWriter()
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					*req = orig
					if body != nil {
						body.Reset()
					}
					h.ServeHTTP(w, req)
				}
			})
		}
	}
}

// TestOpsAgree checks that every implementation answers every case with
// the same status and, on success, the same JSON object, and that each
// validation failure names the fields it breaks.
func TestOpsAgree(t *testing.T) {
	for _, oc := range opCases {
		var want any
		for _, impl := range opImpls {
			if !oc.serves(impl.name) {
				continue
			}
			t.Run(oc.name+"/"+impl.name, func(t *testing.T) {
				rec := httptest.NewRecorder()
				oc.app(impl).ServeHTTP(rec, oc.request())
				if rec.Code != oc.status {
					t.Fatalf("status: got %d, want %d; body %s", rec.Code, oc.status, rec.Body)
				}
				if oc.status >= 400 {
					for _, f := range []string{"name", "priority", "tags"} {
						if !strings.Contains(rec.Body.String(), f) {
							t.Errorf("error body does not name %q: %s", f, rec.Body)
						}
					}
					return
				}
				var got any
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatalf("body %q: %v", rec.Body, err)
				}
				if want == nil {
					want = got
					return
				}
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				if !bytes.Equal(g, w) {
					t.Errorf("body: got %s, want %s", g, w)
				}
			})
		}
	}
}

// serveOnce serves req once into a recorder and returns the status.
func serveOnce(h http.Handler, req *http.Request) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}
