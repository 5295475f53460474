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
