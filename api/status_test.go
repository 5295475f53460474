package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/openapi"
)

// jobIn picks the status a job operation's handler answers.
type jobIn struct {
	Answer int `query:"answer"`
}

// jobOut is an answer whose Status field's enum lists the success
// statuses it may be: 200 with the job's result, 202 while it runs, 204
// when there is nothing to send.
type jobOut struct {
	Status   int    `enum:"200,202,204"`
	Location string `header:"Location"`
	Body     struct {
		State string `json:"state"`
	}
}

func jobRouter() *waltz.Router {
	r := waltz.New()
	Op(r, http.MethodPost, "/jobs", func(c *waltz.Context, in *jobIn) (*jobOut, error) {
		out := &jobOut{Status: in.Answer, Location: "/jobs/7"}
		out.Body.State = "running"
		return out, nil
	}, Operation{})
	return r
}

// TestTypedStatusEnumServed: a handler answers any status its Status
// field's enum lists (a 204 without the Body, which it has no room
// for: RFC 9110 section 15.3.5), and one outside the enum is its bug,
// a 500 that is logged and never sends the status or the Body.
func TestTypedStatusEnumServed(t *testing.T) {
	logs := silenceLogs(t)
	r := jobRouter()
	for _, tc := range []struct {
		answer, code int
		body         bool
	}{
		{0, 200, true},
		{200, 200, true},
		{202, 202, true},
		{204, 204, false},
		{201, 500, false},
		{299, 500, false},
	} {
		t.Run(strconv.Itoa(tc.answer), func(t *testing.T) {
			w := serve(t, r, http.MethodPost, "/jobs?answer="+strconv.Itoa(tc.answer))
			if w.Code != tc.code {
				t.Fatalf("got %d %s, want %d", w.Code, w.Body, tc.code)
			}
			gotBody := strings.Contains(w.Body.String(), `"state":"running"`)
			if gotBody != tc.body {
				t.Errorf("body sent %v, want %v: %q", gotBody, tc.body, w.Body)
			}
			if tc.code == 204 && (w.Body.Len() > 0 || w.Header().Get("Content-Type") != "") {
				t.Errorf("the 204 carries content: Content-Type %q, body %q", w.Header().Get("Content-Type"), w.Body)
			}
			if tc.code == 500 && w.Header().Get("Location") != "" {
				t.Errorf("the 500 carries Out's Location %q", w.Header().Get("Location"))
			}
		})
	}
	if !strings.Contains(logs.String(), "answered status 299") {
		t.Errorf("the 500 is not logged with its cause: %s", logs)
	}
}

// TestTypedStatusEnumDocument: the 3.1 and 3.2 documents list each
// status of the enum as a success answer, with the same header fields
// and, but for the 204, the same content.
func TestTypedStatusEnumDocument(t *testing.T) {
	for _, v := range []string{"3.1", "3.2"} {
		doc := Describe(jobRouter(), Info{OpenAPI: v})
		op := doc.Paths["/jobs"].Post
		for _, code := range []string{"200", "202", "204"} {
			resp := op.Responses[code]
			if resp == nil {
				t.Fatalf("%s: %s not listed: %v", v, code, keys(op.Responses))
			}
			if resp.Headers["Location"] == nil {
				t.Errorf("%s: %s lacks the Location field", v, code)
			}
			if content := resp.Content["application/json"] != nil; content != (code != "204") {
				t.Errorf("%s: %s has content %v", v, code, content)
			}
		}
		for _, code := range []string{"201", "203"} {
			if op.Responses[code] != nil {
				t.Errorf("%s: %s listed, which the enum does not list", v, code)
			}
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"202":{"description":"Accepted"`) {
			t.Errorf("%s: the 202's description is not its phrase: %s", v, b)
		}
	}
}

func keys(m map[string]*openapi.Response) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestTypedStatusEnumRefused: an enum with a status no success answer of
// Out can have, or without the status of an answer whose Status is 0,
// panics at registration, naming the operation and the field.
func TestTypedStatusEnumRefused(t *testing.T) {
	type (
		word struct {
			Status int `enum:"200,ok"`
			Body   string
		}
		huge struct {
			Status int `enum:"200,2000"`
			Body   string
		}
		error404 struct {
			Status int `enum:"200,404"`
			Body   string
		}
		interim struct {
			Status int `enum:"103,200"`
			Body   string
		}
		partial struct {
			Status int `enum:"200,206"`
			Body   string
		}
		notModified struct {
			Status int `enum:"200,304"`
			Body   string
		}
		useProxy struct {
			Status int `enum:"200,305"`
			Body   string
		}
		twice struct {
			Status int `enum:"200,202,200"`
			Body   string
		}
		bounded struct {
			Status int `enum:"200,202" maximum:"299"`
			Body   string
		}
		noDefault struct {
			Status int `enum:"201,202"`
			Body   string
		}
		bodiless struct { // no Body: its answer is a 204, which the enum leaves out
			Status int `enum:"200,202"`
		}
		download204 struct {
			Status int `enum:"200,204"`
			Body   Download
		}
		events202 struct {
			Status int `enum:"200,202"`
			Body   Events[evChange]
		}
		events201 struct {
			Body Events[evChange]
		}
	)
	for _, tc := range []struct {
		name, want string
		reg        func(r *waltz.Router)
	}{
		{"word", `"ok" is no status code`, func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[word], Operation{}) }},
		{"2000", "2000 is no status code", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[huge], Operation{}) }},
		{"404", "404 is an error's status", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[error404], Operation{}) }},
		{"103", "103 is interim", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[interim], Operation{}) }},
		{"206", "206 Partial Content", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[partial], Operation{}) }},
		{"304", "304 Not Modified", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[notModified], Operation{}) }},
		{"305", "305 is deprecated", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[useProxy], Operation{}) }},
		{"twice", "lists 200 twice", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[twice], Operation{}) }},
		{"rule", "tag maximum: a Status field takes the enum rule alone", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[bounded], Operation{}) }},
		{"default", `enum "201,202" does not list 200`, func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[noDefault], Operation{}) }},
		{"no Body", `does not list 204, the status of an answer whose Status is 0`, func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[bodiless], Operation{}) }},
		{"Operation.Status", `enum "201,202" does not list Operation.Status 203`, func(r *waltz.Router) {
			Op(r, http.MethodPost, "/x", outOp[noDefault], Operation{Status: 203})
		}},
		{"download 204", "lists 204, an answer with no content", func(r *waltz.Router) { Op(r, http.MethodPost, "/x", outOp[download204], Operation{}) }},
		{"events 202", "an event stream answers 200 alone, which an EventSource requires: 202", func(r *waltz.Router) {
			Op(r, http.MethodPost, "/x", outOp[events202], Operation{})
		}},
		{"events 201", "an event stream answers 200 alone, which an EventSource requires: 201", func(r *waltz.Router) {
			Op(r, http.MethodPost, "/x", outOp[events201], Operation{Status: 201})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := panicMessage(func() { tc.reg(waltz.New()) })
			if !strings.HasPrefix(msg, "waltz: ") || !strings.Contains(msg, `pattern "/x" (POST`) || !strings.Contains(msg, tc.want) {
				t.Errorf("got panic %q, want one naming POST \"/x\" and %q", msg, tc.want)
			}
		})
	}
	// The default status in the enum, by Operation.Status or by default,
	// registers.
	r := waltz.New()
	Op(r, http.MethodPost, "/a", outOp[noDefault], Operation{Status: 201})
	Op(r, http.MethodPost, "/b", outOp[struct {
		Status int `enum:"204,202"`
	}], Operation{})
}

// outOp is a handler whose Out is O.
func outOp[O any](c *waltz.Context, in *noOut) (*O, error) { return new(O), nil }

// TestTypedStatusEnumCreated: a PUT with Current lists 201, as a create
// (RFC 9110 section 9.3.4), when its Status field's enum lists it, and
// not when the enum leaves it out: the handler cannot answer it.
func TestTypedStatusEnumCreated(t *testing.T) {
	type noteIn struct {
		ID string `path:"id"`
	}
	type with201 struct {
		Status int `enum:"200,201"`
		Body   string
	}
	type without201 struct {
		Status int `enum:"200,202"`
		Body   string
	}
	current := func(c *waltz.Context, in *noteIn) (Validators, error) { return Validators{Absent: true}, nil }
	r := waltz.New()
	Op(r, http.MethodPut, "/with/:id", func(c *waltz.Context, in *noteIn) (*with201, error) { return &with201{}, nil }, Operation{Current: current})
	Op(r, http.MethodPut, "/without/:id", func(c *waltz.Context, in *noteIn) (*without201, error) {
		return &without201{}, nil
	}, Operation{Current: current})
	doc := Describe(r, Info{})
	if c := doc.Paths["/with/{id}"].Put.Responses["201"]; c == nil || !strings.HasPrefix(c.Description, "Created: the resource did not exist") {
		t.Errorf("with 201 in the enum: got the 201 %+v, want the create's", c)
	}
	without := doc.Paths["/without/{id}"].Put.Responses
	if without["201"] != nil || without["202"] == nil {
		t.Errorf("with 200,202: got the answers %v, want 202 and no 201", keys(without))
	}
}

// TestTypedNoContentDefault: an Operation.Status of 204 on an Out with a
// Body answers with no content, and the document says none.
func TestTypedNoContentDefault(t *testing.T) {
	type out struct{ Body struct{ N int } }
	r := waltz.New()
	Op(r, http.MethodPost, "/x", func(c *waltz.Context, in *noOut) (*out, error) { return &out{}, nil }, Operation{Status: 204})
	w := serve(t, r, http.MethodPost, "/x")
	if w.Code != 204 || w.Body.Len() > 0 || w.Header().Get("Content-Type") != "" {
		t.Errorf("got %d, Content-Type %q, body %q; want a 204 with no content", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	if resp := Describe(r, Info{}).Paths["/x"].Post.Responses["204"]; resp == nil || resp.Content != nil {
		t.Errorf("got the 204 %+v, want one with no content", resp)
	}
}

// TestTypedStatusEnumContentBeside204: an Operation.Status of 204 on an
// Out with a Body whose Status field's enum lists other statuses sends
// the Body with each of them, and the document says so: only the 204 has
// no content (RFC 9110 section 15.3.5). A PUT with Current lists its 201
// with the Body's content too, whether the enum lists 201 or the Status
// field has no enum (section 9.3.4).
func TestTypedStatusEnumContentBeside204(t *testing.T) {
	type answerIn struct {
		Answer int `query:"answer"`
	}
	type listed struct {
		Status int `enum:"204,200,202"`
		Body   struct{ N int }
	}
	type noteIn struct {
		ID string `path:"id"`
	}
	type created struct {
		Status int `enum:"204,201"`
		Body   struct{ N int }
	}
	type open struct {
		Status int
		Body   struct{ N int }
	}
	current := func(c *waltz.Context, in *noteIn) (Validators, error) { return Validators{Absent: true}, nil }
	r := waltz.New()
	Op(r, http.MethodPost, "/x", func(c *waltz.Context, in *answerIn) (*listed, error) {
		return &listed{Status: in.Answer}, nil
	}, Operation{Status: 204})
	Op(r, http.MethodPut, "/listed/:id", func(c *waltz.Context, in *noteIn) (*created, error) {
		return &created{Status: 201}, nil
	}, Operation{Status: 204, Current: current})
	Op(r, http.MethodPut, "/open/:id", func(c *waltz.Context, in *noteIn) (*open, error) {
		return &open{Status: 201}, nil
	}, Operation{Status: 204, Current: current})
	for _, answer := range []int{200, 202} {
		w := serve(t, r, http.MethodPost, "/x?answer="+strconv.Itoa(answer))
		if w.Code != answer || w.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("answer %d: got %d with Content-Type %q, want the Body as JSON", answer, w.Code, w.Header().Get("Content-Type"))
		}
	}
	for _, v := range []string{"3.1", "3.2"} {
		doc := Describe(r, Info{OpenAPI: v})
		for _, tc := range []struct {
			path, code string
			resps      map[string]*openapi.Response
		}{
			{"/x", "200", doc.Paths["/x"].Post.Responses},
			{"/x", "202", doc.Paths["/x"].Post.Responses},
			{"/listed/{id}", "201", doc.Paths["/listed/{id}"].Put.Responses},
			{"/open/{id}", "201", doc.Paths["/open/{id}"].Put.Responses},
		} {
			resp := tc.resps[tc.code]
			if resp == nil || resp.Content["application/json"] == nil {
				t.Errorf("%s: %s %s: got %+v, want the Body's JSON content", v, tc.path, tc.code, resp)
			}
			if no := tc.resps["204"]; no == nil || no.Content != nil {
				t.Errorf("%s: %s 204: got %+v, want one with no content", v, tc.path, no)
			}
		}
		if c := doc.Paths["/listed/{id}"].Put.Responses["201"]; c == nil || !strings.HasPrefix(c.Description, "Created: the resource did not exist") {
			t.Errorf("%s: /listed/{id}: got the 201 %+v, want the create's", v, c)
		}
	}
}

// TestTypedStatusEnumRangedDownload: a Download whose Status field's
// enum lists 200 beside another default status serves a Range on its
// 200s (RFC 9110 section 14.2), and the document lists what that
// answers: the 206, the 304, the 412 and the 416.
func TestTypedStatusEnumRangedDownload(t *testing.T) {
	type out struct {
		Status int `enum:"200,202"`
		Body   Download
	}
	r := waltz.New()
	Op(r, http.MethodGet, "/f", func(c *waltz.Context, in *noOut) (*out, error) {
		return &out{Status: 200, Body: Download{Content: strings.NewReader("hello world")}}, nil
	}, Operation{Status: 202})
	if w := serveWith(t, r, http.MethodGet, "/f", "Range", "bytes=0-3"); w.Code != 206 {
		t.Fatalf("a Range on the 200: got %d, want 206", w.Code)
	}
	resps := Describe(r, Info{}).Paths["/f"].Get.Responses
	for _, code := range []string{"200", "202", "206", "304", "412", "416"} {
		if resps[code] == nil {
			t.Errorf("%s not listed: %v", code, keys(resps))
		}
	}
	if ok := resps["200"]; ok == nil || ok.Headers["Accept-Ranges"] == nil {
		t.Errorf("the 200 lacks Accept-Ranges: %+v", ok)
	}
}

// TestNoContentReadNotJudged: a GET whose Out has validators and no
// Body answers 204, which a 304 does not stand for (RFC 9110 section
// 15.4.5: "would have resulted in a 200"), and the server judges a
// read's preconditions on a 200 alone: the document lists no 304, no
// 412 and none of the conditional fields for it, as the server answers
// a matching If-None-Match 204. One whose enum lists 200 beside it is
// judged, and documented so.
func TestNoContentReadNotJudged(t *testing.T) {
	type bare struct {
		ETag string `header:"ETag"`
	}
	type either struct {
		Status int    `enum:"200,204"`
		ETag   string `header:"ETag"`
		Body   string
	}
	r := waltz.New()
	Op(r, http.MethodGet, "/bare", func(c *waltz.Context, _ *struct{}) (*bare, error) { return &bare{ETag: `"v1"`}, nil }, Operation{})
	Op(r, http.MethodGet, "/either", func(c *waltz.Context, _ *struct{}) (*either, error) {
		return &either{Status: http.StatusOK, ETag: `"v1"`, Body: "x"}, nil
	}, Operation{})
	for path, want := range map[string]int{"/bare": http.StatusNoContent, "/either": http.StatusNotModified} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("If-None-Match", `"v1"`)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("GET %s with a matching If-None-Match: got %d, want %d", path, w.Code, want)
		}
	}
	doc := Describe(r, Info{})
	for path, judged := range map[string]bool{"/bare": false, "/either": true} {
		op := doc.Paths[path].Get
		_, has304 := op.Responses["304"]
		_, has412 := op.Responses["412"]
		hasINM := false
		for _, p := range op.Parameters {
			hasINM = hasINM || p.In == "header" && p.Name == "If-None-Match"
		}
		if has304 != judged || has412 != judged || hasINM != judged {
			t.Errorf("%s: 304 listed %v, 412 %v, If-None-Match %v; want each %v", path, has304, has412, hasINM, judged)
		}
	}
}
