package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
)

// docModified is when the test's document last changed.
var docModified = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type docIn struct {
	ID string `path:"id"`
}

type docOut struct {
	ETag     string    `header:"ETag"`
	Modified time.Time `header:"Last-Modified"`
	Body     struct {
		Text string `json:"text"`
	}
}

// editIn is the input of a write that requires a precondition:
// currentDoc reads the document's validators before the handler runs.
type editIn struct {
	ID   string `path:"id"`
	Body struct {
		Text string `json:"text"`
	}
}

func currentDoc(c *waltz.Context, in *editIn) (Validators, error) {
	switch in.ID {
	case "1":
		return Validators{ETag: `"v2"`, LastModified: docModified}, nil
	case "2": // dated, with no ETag
		return Validators{LastModified: docModified}, nil
	case "3": // none yet: the request may create it
		return Validators{Absent: true, ETag: `"ignored"`}, nil
	}
	return Validators{}, &waltz.HTTPError{Code: http.StatusNotFound, Message: "no document " + in.ID}
}

// conditionalRouter serves GET /docs/:id (1 exists, tagged "v2") and
// PATCH /docs/:id, counting the runs of their handlers in *ran.
func conditionalRouter(ran *int) *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodGet, "/docs/:id", func(c *waltz.Context, in *docIn) (*docOut, error) {
		*ran++
		if in.ID != "1" {
			return nil, &waltz.HTTPError{Code: http.StatusNotFound}
		}
		out := &docOut{ETag: `"v2"`, Modified: docModified}
		out.Body.Text = "hello"
		return out, nil
	}, Operation{})
	for _, m := range []string{http.MethodPatch, http.MethodPut} {
		Op(r, m, "/docs/:id", func(c *waltz.Context, in *editIn) (*docOut, error) {
			*ran++
			out := &docOut{ETag: `"v3"`, Modified: docModified.Add(time.Hour)}
			out.Body.Text = in.Body.Text
			return out, nil
		}, Operation{Current: currentDoc})
	}
	return r
}

func TestTypedConditionalGet(t *testing.T) {
	var ran int
	r := conditionalRouter(&ran)
	date := func(d time.Duration) string { return docModified.Add(d).Format(http.TimeFormat) }
	for _, tc := range []struct {
		name    string
		method  string
		id      string
		header  []string
		code    int
		hasBody bool
	}{
		{"unconditional", "GET", "1", nil, 200, true},
		{"If-None-Match matches", "GET", "1", []string{"If-None-Match", `"v2"`}, 304, false},
		{"If-None-Match weak matches", "GET", "1", []string{"If-None-Match", `W/"v2"`}, 304, false}, // §13.1.2: weak comparison
		{"If-None-Match in a list", "GET", "1", []string{"If-None-Match", `"v1", "v2"`}, 304, false},
		{"If-None-Match star", "GET", "1", []string{"If-None-Match", `*`}, 304, false},
		{"If-None-Match stale", "GET", "1", []string{"If-None-Match", `"v1"`}, 200, true},
		{"If-None-Match malformed", "GET", "1", []string{"If-None-Match", `v2`}, 200, true},
		{"HEAD If-None-Match", "HEAD", "1", []string{"If-None-Match", `"v2"`}, 304, false},
		{"If-Modified-Since equal", "GET", "1", []string{"If-Modified-Since", date(0)}, 304, false},
		{"If-Modified-Since later", "GET", "1", []string{"If-Modified-Since", date(time.Hour)}, 304, false},
		{"If-Modified-Since earlier", "GET", "1", []string{"If-Modified-Since", date(-time.Second)}, 200, true},
		{"If-Modified-Since not a date", "GET", "1", []string{"If-Modified-Since", "yesterday"}, 200, true},
		// §13.2.2 step 3 before 4: a stale If-None-Match wins over a date that would say unchanged.
		{"If-None-Match before If-Modified-Since", "GET", "1", []string{"If-None-Match", `"v1"`, "If-Modified-Since", date(time.Hour)}, 200, true},
		{"If-Match stale", "GET", "1", []string{"If-Match", `"v1"`}, 412, true},
		{"If-Match weak", "GET", "1", []string{"If-Match", `W/"v2"`}, 412, true}, // §8.8.3.2: strong comparison
		{"If-Match current", "GET", "1", []string{"If-Match", `"v2"`}, 200, true},
		{"missing with If-None-Match star", "GET", "9", []string{"If-None-Match", `*`}, 404, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serveWith(t, r, tc.method, "/docs/"+tc.id, tc.header...)
			if w.Code != tc.code {
				t.Fatalf("got %d, want %d; body %s", w.Code, tc.code, w.Body)
			}
			if got := w.Body.Len() > 0; got != (tc.hasBody && tc.method != "HEAD") {
				t.Errorf("body: got %q, want one: %v", w.Body, tc.hasBody)
			}
			if tc.code == 304 {
				if got := w.Header().Get("ETag"); got != `"v2"` {
					t.Errorf("ETag: got %q, want %q", got, `"v2"`)
				}
				if got := w.Header().Get("Last-Modified"); got != date(0) {
					t.Errorf("Last-Modified: got %q, want %q", got, date(0))
				}
				if got := w.Header().Get("Content-Type"); got != "" {
					t.Errorf("Content-Type on a 304: got %q, want none", got)
				}
			}
			if tc.code == 412 && w.Header().Get("ETag") != "" {
				t.Errorf("ETag on a 412: got %q, want none", w.Header().Get("ETag"))
			}
		})
	}
}

func TestTypedPrecondition(t *testing.T) {
	var ran int
	r := conditionalRouter(&ran)
	date := func(d time.Duration) string { return docModified.Add(d).Format(http.TimeFormat) }
	for _, tc := range []struct {
		name   string
		id     string
		header []string
		code   int
		ran    bool
	}{
		{"no precondition", "1", nil, 428, false},                                                              // RFC 6585 section 3
		{"If-Match current", "1", []string{"If-Match", `"v2"`}, 200, true},                                     //
		{"If-Match in a list", "1", []string{"If-Match", `"v1", "v2"`}, 200, true},                             //
		{"If-Match stale", "1", []string{"If-Match", `"v1"`}, 412, false},                                      // the lost update refused
		{"If-Match weak", "1", []string{"If-Match", `W/"v2"`}, 412, false},                                     // §8.8.3.2: a weak tag never satisfies If-Match
		{"If-Match star", "1", []string{"If-Match", `*`}, 200, true},                                           // §13.1.1: any current representation
		{"If-Match malformed", "1", []string{"If-Match", `v2`}, 412, false},                                    // a malformed list matches nothing
		{"If-Match unterminated", "1", []string{"If-Match", `"v2`}, 412, false},                                //
		{"If-Match empty", "1", []string{"If-Match", ``}, 412, false},                                          //
		{"If-Match and If-None-Match", "1", []string{"If-Match", `"v2"`, "If-None-Match", `"v2"`}, 412, false}, // §13.2.2 step 3 on an unsafe method
		{"If-Unmodified-Since equal, tagged", "1", []string{"If-Unmodified-Since", date(0)}, 428, false},       // a tagged resource needs If-Match
		{"If-Unmodified-Since earlier, tagged", "1", []string{"If-Unmodified-Since", date(-time.Second)}, 412, false},
		{"If-Unmodified-Since equal, untagged", "2", []string{"If-Unmodified-Since", date(0)}, 200, true}, // §13.1.4
		{"If-Unmodified-Since earlier, untagged", "2", []string{"If-Unmodified-Since", date(-time.Second)}, 412, false},
		{"If-Unmodified-Since not a date", "2", []string{"If-Unmodified-Since", "soon"}, 428, false},
		{"If-None-Match star alone", "1", []string{"If-None-Match", `*`}, 412, false},     // §13.1.2: false for a resource that exists, whatever else is sent
		{"If-None-Match other alone", "1", []string{"If-None-Match", `"v1"`}, 428, false}, // true, but no If-Match
		{"If-Match wins over If-Unmodified-Since", "1", []string{"If-Match", `"v2"`, "If-Unmodified-Since", date(-time.Hour)}, 200, true},
		{"missing", "9", []string{"If-Match", `"v2"`}, 404, false}, // §13.2.1: 404 wins over 412
		{"missing with If-Match star", "9", []string{"If-Match", `*`}, 404, false},
		{"missing without precondition", "9", nil, 404, false}, // and over 428
		// A resource a PUT may create (Validators.Absent): its cases
		// are PUTs; a PATCH of it is a 404.
		{"absent, a PATCH", "3p", []string{"If-None-Match", `*`}, 404, false},
		{"absent, If-None-Match star", "3", []string{"If-None-Match", `*`}, 200, true},   // §13.1.2: true where none exists
		{"absent, If-None-Match tag", "3", []string{"If-None-Match", `"v1"`}, 200, true}, // true: nothing matches
		{"absent, no precondition", "3", nil, 428, false},
		{"absent, If-Match star", "3", []string{"If-Match", `*`}, 412, false}, // §13.1.1: false where none exists
		{"absent, If-Match the ignored tag", "3", []string{"If-Match", `"ignored"`}, 412, false},
		{"absent, If-Match and If-None-Match", "3", []string{"If-Match", `*`, "If-None-Match", `*`}, 412, false},
		{"absent, If-Unmodified-Since", "3", []string{"If-Unmodified-Since", date(0)}, 428, false}, // §13.1.4: ignored without a date
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran = 0
			method, id := http.MethodPatch, tc.id
			switch id {
			case "3":
				method = http.MethodPut
			case "3p":
				id = "3"
			}
			req := httptest.NewRequest(method, "/docs/"+id, strings.NewReader(`{"text":"new"}`))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Add(tc.header[i], tc.header[i+1])
			}
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			if w.Code != tc.code {
				t.Fatalf("got %d, want %d; body %s", w.Code, tc.code, w.Body)
			}
			if got := ran == 1; got != tc.ran {
				t.Errorf("handler ran: got %v, want %v", got, tc.ran)
			}
			if tc.code == 200 && w.Header().Get("ETag") != `"v3"` {
				t.Errorf("ETag: got %q, want the new %q", w.Header().Get("ETag"), `"v3"`)
			}
		})
	}
}

// TestTypedPreconditionMessages checks that a refused write says why in
// its problem's detail: a resource that exists when the client creates
// it, one that does not when the client changes it, one that changed.
func TestTypedPreconditionMessages(t *testing.T) {
	var ran int
	r := conditionalRouter(&ran)
	for _, tc := range []struct {
		id, field, value string
		code             int
		detail           string
	}{
		{"1", "If-None-Match", "*", 412, "exists"},
		{"3put", "If-Match", "*", 412, "does not exist"},
		{"3put", "", "", 428, "If-None-Match: * to create it"},
		{"3", "If-None-Match", "*", 404, "only a PUT creates it"},
		{"1", "If-Match", `"v1"`, 412, "has changed"},
		{"1", "", "", 428, "send If-Match"},
	} {
		method, id := http.MethodPatch, tc.id
		if id == "3put" {
			method, id = http.MethodPut, "3"
		}
		req := httptest.NewRequest(method, "/docs/"+id, strings.NewReader(`{"text":"new"}`))
		req.Header.Set("Content-Type", "application/json")
		if tc.field != "" {
			req.Header.Set(tc.field, tc.value)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != tc.code || !strings.Contains(w.Body.String(), tc.detail) {
			t.Errorf("doc %s, %s: %s: got %d %s, want %d with %q", tc.id, tc.field, tc.value, w.Code, w.Body, tc.code, tc.detail)
		}
	}
}

func TestTypedCurrentRegistration(t *testing.T) {
	for _, tc := range []struct {
		name     string
		register func(r *waltz.Router)
		want     string
	}{
		{"another In", func(r *waltz.Router) {
			Op(r, http.MethodPut, "/x", func(*waltz.Context, *docIn) (*struct{}, error) { return nil, nil }, Operation{Current: currentDoc})
		}, "want a func(*waltz.Context, *api.docIn) (api.Validators, error)"},
		{"not a func", func(r *waltz.Router) {
			Op(r, http.MethodPut, "/x", func(*waltz.Context, *editIn) (*struct{}, error) { return nil, nil }, Operation{Current: "v1"})
		}, "Operation.Current is a string"},
		{"on a GET", func(r *waltz.Router) {
			Op(r, http.MethodGet, "/docs/:id", func(*waltz.Context, *editIn) (*docOut, error) { return nil, nil }, Operation{Current: currentDoc})
		}, "Operation.Current is for writes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := panicMessage(func() { tc.register(waltz.New()) })
			if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, tc.want) {
				t.Errorf("panic: got %q, want a waltz: message containing %q", msg, tc.want)
			}
		})
	}
}

func TestTypedConditionalDocument(t *testing.T) {
	var ran int
	r := conditionalRouter(&ran)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name     string `json:"name"`
				In       string `json:"in"`
				Required bool   `json:"required"`
			} `json:"parameters"`
			Responses map[string]struct {
				Headers map[string]any `json:"headers"`
				Content map[string]any `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	ops := doc.Paths["/docs/{id}"]
	for _, tc := range []struct {
		method, param string
		required      bool
		codes         []string
	}{
		{"get", "If-None-Match", false, []string{"200", "304", "412"}},
		{"get", "If-Modified-Since", false, nil},
		{"patch", "If-Match", true, []string{"200", "412", "428"}},
		{"patch", "If-Unmodified-Since", false, nil},
	} {
		op := ops[tc.method]
		found := false
		for _, p := range op.Parameters {
			if p.Name == tc.param && p.In == "header" {
				found = true
				if p.Required != tc.required {
					t.Errorf("%s %s required: got %v, want %v", tc.method, tc.param, p.Required, tc.required)
				}
			}
		}
		if !found {
			t.Errorf("%s: no header parameter %s", tc.method, tc.param)
		}
		for _, code := range tc.codes {
			if _, ok := op.Responses[code]; !ok {
				t.Errorf("%s: no response %s", tc.method, code)
			}
		}
	}
	nm := ops["get"].Responses["304"]
	if nm.Content != nil || nm.Headers["ETag"] == nil || nm.Headers["Last-Modified"] == nil {
		t.Errorf("304: got content %v headers %v, want no content, ETag and Last-Modified", nm.Content, nm.Headers)
	}
}

// editTagIn binds If-Match itself, beside a Current that requires it.
type editTagIn struct {
	ID      string `path:"id"`
	IfMatch string `header:"If-Match"`
}

// TestTypedConditionalDocumentBoundIfMatch: an In that binds If-Match
// on a write with Current keeps its parameter in the document, which
// says it is required, since the server answers 428 without it; but on
// a PUT, which may create its resource with If-None-Match: * instead
// (Validators.Absent), and whose If-None-Match the document lists.
func TestTypedConditionalDocumentBoundIfMatch(t *testing.T) {
	r := waltz.New()
	current := Operation{Current: func(c *waltz.Context, in *editTagIn) (Validators, error) { return Validators{ETag: `"v1"`}, nil }}
	for _, m := range []string{http.MethodPut, http.MethodPatch} {
		Op(r, m, "/docs/:id", func(c *waltz.Context, in *editTagIn) (*struct{}, error) { return nil, nil }, current)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name     string `json:"name"`
				In       string `json:"in"`
				Required bool   `json:"required"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"put", "patch"} {
		n, inm := 0, 0
		for _, p := range doc.Paths["/docs/{id}"][m].Parameters {
			switch {
			case p.In == "header" && p.Name == "If-Match":
				n++
				if p.Required != (m == "patch") {
					t.Errorf("%s: If-Match: got required %v, want %v", m, p.Required, m == "patch")
				}
			case p.In == "header" && p.Name == "If-None-Match":
				inm++
			}
		}
		if n != 1 {
			t.Errorf("%s: got %d If-Match parameters, want 1", m, n)
		}
		if want := map[string]int{"put": 1, "patch": 0}[m]; inm != want {
			t.Errorf("%s: got %d If-None-Match parameters, want %d", m, inm, want)
		}
		if w := serveWith(t, r, strings.ToUpper(m), "/docs/1"); w.Code != http.StatusPreconditionRequired {
			t.Errorf("%s: no If-Match: got %d, want 428", m, w.Code)
		}
	}
}

type pageOut struct {
	ETag string `header:"ETag"`
	Body []benchItem
}

// BenchmarkTypedConditional is a GET of a tagged page of 20 items answered
// 200 beside the same GET answered 304 (If-None-Match matches), which
// encodes and writes no body:
//
//	go test -run '^$' -bench 'TypedConditional' -benchmem -count 6 > cond.txt
//	benchstat -col /answer cond.txt
func BenchmarkTypedConditional(b *testing.B) {
	r := waltz.New()
	page := make([]benchItem, 20)
	for i := range page {
		page[i] = benchItem{Org: "waltz", ID: int64(i + 1), Limit: 20, Active: i%2 == 0, Sort: "asc"}
	}
	Op(r, http.MethodGet, "/page/:id", func(c *waltz.Context, in *docIn) (*pageOut, error) {
		return &pageOut{ETag: `"p` + in.ID + `"`, Body: page}, nil
	}, Operation{})
	b.Run("answer=200", func(b *testing.B) {
		benchServe(b, r, httptest.NewRequest(http.MethodGet, "/page/1", nil))
	})
	b.Run("answer=304", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/page/1", nil)
		req.Header.Set("If-None-Match", `"p1"`)
		benchServe(b, r, req)
	})
}

// TestTypedConditionalDocument404: a write with Current other than a PUT
// lists 404, which Validators.Absent answers it; a PUT, which creates
// what is absent, does not unless its Errors say so.
func TestTypedConditionalDocument404(t *testing.T) {
	r := waltz.New()
	current := Operation{Current: func(c *waltz.Context, in *editTagIn) (Validators, error) { return Validators{Absent: true}, nil }}
	for _, m := range []string{http.MethodPut, http.MethodPatch, http.MethodDelete} {
		Op(r, m, "/docs/:id", func(c *waltz.Context, in *editTagIn) (*struct{}, error) { return nil, nil }, current)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(r, Info{Title: "t", Version: "1"}), &doc); err != nil {
		t.Fatal(err)
	}
	for m, want := range map[string]bool{"put": false, "patch": true, "delete": true} {
		if _, got := doc.Paths["/docs/{id}"][m].Responses["404"]; got != want {
			t.Errorf("%s: 404 listed %v, want %v", m, got, want)
		}
		if w := serveWith(t, r, strings.ToUpper(m), "/docs/1"); m != "put" && w.Code != http.StatusNotFound {
			t.Errorf("%s of an absent resource: got %d, want 404", m, w.Code)
		}
	}
}
