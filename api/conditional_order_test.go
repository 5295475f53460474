package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/openapi"
)

// orderIn is a write whose params and body both have rules, to tell
// which a request is answered by first.
type orderIn struct {
	ID   string `path:"id" minLength:"2"`
	Body struct {
		Text string `json:"text" minLength:"3"`
	}
}

// TestTypedPreconditionBeforeBody holds RFC 9110 section 13.2.1's order
// for a write with Operation.Current: its params are bound, then its
// preconditions judged, and only then its body read. A stale If-Match
// is a 412 whatever the body holds (before, a bad body was a 400 or 422
// and a stale write with a good-looking one a 412); a body too large is
// not read for a write refused anyway; a param that breaks its rules is
// answered before Current runs.
func TestTypedPreconditionBeforeBody(t *testing.T) {
	var currents, ran int
	var seenBody string
	r := waltz.New()
	r.MaxBodyBytes = 64
	Op(r, http.MethodPut, "/docs/:id", func(c *waltz.Context, in *orderIn) (*struct{}, error) {
		ran++
		return &struct{}{}, nil
	}, Operation{Current: func(c *waltz.Context, in *orderIn) (Validators, error) {
		currents++
		seenBody = in.Body.Text
		return Validators{ETag: `"v2"`}, nil
	}})
	big := `{"text":"` + strings.Repeat("x", 200) + `"}`
	for _, tc := range []struct {
		name, id, ifMatch, ctype, body string
		code, currents                 int
	}{
		{"stale, malformed body", "d1", `"v1"`, "application/json", `{"text":`, 412, 1},
		{"stale, body breaks its rules", "d1", `"v1"`, "application/json", `{"text":"ab"}`, 412, 1},
		{"stale, body too large", "d1", `"v1"`, "application/json", big, 412, 1},
		{"stale, body of another type", "d1", `"v1"`, "text/plain", `abc`, 412, 1},
		{"none, malformed body", "d1", "", "application/json", `{"text":`, 428, 1},
		{"current, malformed body", "d1", `"v2"`, "application/json", `{"text":`, 400, 1},
		{"current, body breaks its rules", "d1", `"v2"`, "application/json", `{"text":"ab"}`, 422, 1},
		{"current, body too large", "d1", `"v2"`, "application/json", big, 413, 1},
		{"current, good body", "d1", `"v2"`, "application/json", `{"text":"abc"}`, 204, 1},
		{"param breaks its rules", "d", `"v1"`, "application/json", `{"text":"abc"}`, 422, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			currents, ran, seenBody = 0, 0, ""
			req := httptest.NewRequest(http.MethodPut, "/docs/"+tc.id, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.ctype)
			if tc.ifMatch != "" {
				req.Header.Set("If-Match", tc.ifMatch)
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Fatalf("got %d, want %d: %s", w.Code, tc.code, w.Body)
			}
			if currents != tc.currents {
				t.Errorf("Current ran %d times, want %d", currents, tc.currents)
			}
			if seenBody != "" {
				t.Errorf("Current saw the body %q: it runs before the body is read", seenBody)
			}
			wantRan := 0
			if tc.code == 204 {
				wantRan = 1
			}
			if ran != wantRan {
				t.Errorf("the handler ran %d times, want %d", ran, wantRan)
			}
		})
	}
}

// TestTypedCreatedDocument: a PUT with Current whose Out has a Status
// field may create its resource and answer 201 (RFC 9110 section
// 9.3.4): the document lists the 201 beside the 200, with the same
// content. Without a Status field the handler cannot answer 201, and a
// PATCH does not create: neither lists it.
func TestTypedCreatedDocument(t *testing.T) {
	type noteIn struct {
		ID   string `path:"id"`
		Body struct {
			Text string `json:"text"`
		}
	}
	type withStatus struct {
		Status int
		ETag   string `header:"ETag"`
		Body   struct {
			Text string `json:"text"`
		}
	}
	type fixed struct {
		Body struct {
			Text string `json:"text"`
		}
	}
	stored := map[string]string{}
	current := func(c *waltz.Context, in *noteIn) (Validators, error) {
		if _, ok := stored[in.ID]; !ok {
			return Validators{Absent: true}, nil
		}
		return Validators{ETag: `"` + stored[in.ID] + `"`}, nil
	}
	r := waltz.New()
	Op(r, http.MethodPut, "/notes/:id", func(c *waltz.Context, in *noteIn) (*withStatus, error) {
		out := &withStatus{ETag: `"` + in.Body.Text + `"`}
		if _, ok := stored[in.ID]; !ok {
			out.Status = http.StatusCreated
		}
		stored[in.ID] = in.Body.Text
		out.Body.Text = in.Body.Text
		return out, nil
	}, Operation{Current: current})
	Op(r, http.MethodPut, "/fixed/:id", func(c *waltz.Context, in *noteIn) (*fixed, error) { return &fixed{}, nil }, Operation{Current: current})
	Op(r, http.MethodPatch, "/notes/:id", func(c *waltz.Context, in *noteIn) (*withStatus, error) { return &withStatus{}, nil }, Operation{Current: current})

	req := httptest.NewRequest(http.MethodPut, "/notes/a", strings.NewReader(`{"text":"v1"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("If-None-Match", "*")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != http.StatusCreated {
		t.Fatalf("the creating PUT: got %d %s, want 201", w.Code, w.Body)
	}
	doc := Describe(r, Info{})
	for _, tc := range []struct {
		path, method string
		created      bool
	}{
		{"/notes/{id}", http.MethodPut, true},
		{"/fixed/{id}", http.MethodPut, false},
		{"/notes/{id}", http.MethodPatch, false},
	} {
		var op *openapi.Operation
		for m, o := range doc.Paths[tc.path].Operations() {
			if m == tc.method {
				op = o
			}
		}
		if op == nil {
			t.Fatalf("%s %s: not in the document", tc.method, tc.path)
		}
		created, ok := op.Responses["201"]
		if ok != tc.created {
			t.Errorf("%s %s: 201 listed %v, want %v", tc.method, tc.path, ok, tc.created)
			continue
		}
		if ok && (created.Content["application/json"] == nil || created.Headers["ETag"] == nil) {
			t.Errorf("%s %s: the 201 lacks the 200's content or ETag field: %+v", tc.method, tc.path, created)
		}
	}
}
