package contracttest

import (
	"net/http"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
)

// jobIn picks the success status of the answer.
type jobIn struct {
	Mode string `query:"mode" enum:"now,later,nothing"`
}

// jobOut lists, in its Status field's enum, the success statuses the
// operation answers.
type jobOut struct {
	Status   int    `enum:"200,202,204"`
	Location string `header:"Location"`
	Body     struct {
		State string `json:"state" enum:"done,running"`
	}
}

// TestStatusEnum: an operation that answers each status its Status
// field's enum lists (a 202 with its body, a 204 without) passes the
// run: the document declares them all, with their content.
func TestStatusEnum(t *testing.T) {
	r := waltz.New()
	api.Op(r, http.MethodPost, "/jobs", func(c *waltz.Context, in *jobIn) (*jobOut, error) {
		out := &jobOut{Location: "/jobs/7"}
		out.Body.State = "done"
		switch in.Mode {
		case "later":
			out.Status, out.Body.State = http.StatusAccepted, "running"
		case "nothing":
			out.Status = http.StatusNoContent
		}
		return out, nil
	}, api.Operation{ID: "startJob"})
	codes := map[int]bool{}
	traceCase = func(name string, valid bool, w *wire, code int) { codes[code] = true }
	defer func() { traceCase = nil }()
	for _, e := range record(t, r, Options{}).errs {
		t.Errorf("a failure: %s", e)
	}
	for _, code := range []int{200, 202, 204} {
		if !codes[code] {
			t.Errorf("no case was answered %d: %v", code, codes)
		}
	}
}

// quietJobOut answers 204 when its Status is 0, and its Body with the
// other statuses its enum lists.
type quietJobOut struct {
	Status int `enum:"204,200,202"`
	Body   struct {
		State string `json:"state" enum:"done,running"`
	}
}

// TestStatusEnumBeside204: an operation whose Operation.Status is 204
// answers its Body with the enum's other statuses, and the document
// declares that content: the run finds no answer with undeclared
// content.
func TestStatusEnumBeside204(t *testing.T) {
	r := waltz.New()
	api.Op(r, http.MethodPost, "/jobs", func(c *waltz.Context, in *jobIn) (*quietJobOut, error) {
		out := &quietJobOut{}
		switch in.Mode {
		case "now":
			out.Status, out.Body.State = http.StatusOK, "done"
		case "later":
			out.Status, out.Body.State = http.StatusAccepted, "running"
		}
		return out, nil
	}, api.Operation{ID: "startJob", Status: http.StatusNoContent})
	codes := map[int]bool{}
	traceCase = func(name string, valid bool, w *wire, code int) { codes[code] = true }
	defer func() { traceCase = nil }()
	for _, e := range record(t, r, Options{}).errs {
		t.Errorf("a failure: %s", e)
	}
	for _, code := range []int{200, 202, 204} {
		if !codes[code] {
			t.Errorf("no case was answered %d: %v", code, codes)
		}
	}
}
