package client_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/client"
)

// jobIn picks the status the server's handler answers.
type jobIn struct {
	Answer int `query:"answer"`
}

// jobOut lists the success statuses the operation may answer.
type jobOut struct {
	Status   int    `enum:"200,202,204,303"`
	Location string `header:"Location"`
	Body     struct {
		State string `json:"state"`
	}
}

// TestStatusEnum: every status the enum of the server's Status field
// lists is a success the client reads into Out, a 204 with Body zero;
// a status outside it never reaches the client, which gets the server's
// 500. A 303 is read as it is when the http.Client follows no redirect.
func TestStatusEnum(t *testing.T) {
	r := waltz.New()
	api.Op(r, http.MethodPost, "/jobs", func(c *waltz.Context, in *jobIn) (*jobOut, error) {
		out := &jobOut{Status: in.Answer, Location: "/jobs/7"}
		out.Body.State = "running"
		return out, nil
	}, api.Operation{})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	hc := *srv.Client()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &client.Client{URL: srv.URL, HTTP: &hc}
	call := client.Op[jobIn, jobOut](c, "POST /jobs")
	for _, tc := range []struct {
		answer, status int
		state          string
	}{
		{0, 200, "running"},
		{202, 202, "running"},
		{204, 204, ""},
		{303, 303, "running"},
	} {
		out, err := call(context.Background(), jobIn{tc.answer})
		if err != nil {
			t.Errorf("answer %d: %v", tc.answer, err)
			continue
		}
		if out.Status != tc.status || out.Location != "/jobs/7" || out.Body.State != tc.state {
			t.Errorf("answer %d: got %+v, want status %d, Location /jobs/7, state %q", tc.answer, out, tc.status, tc.state)
		}
	}
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // the server logs its 500
	t.Cleanup(func() { slog.SetDefault(old) })
	_, err := call(context.Background(), jobIn{201})
	var he *waltz.HTTPError
	if !errors.As(err, &he) || he.Code != 500 {
		t.Errorf("answer 201, outside the enum: got %v, want the server's 500", err)
	}
}

// queuedOut is the answer of an operation that only ever queues: its
// enum lists 202 alone, and the server's Operation.Status says 202.
type queuedOut struct {
	Status int `enum:"202"`
	Body   struct {
		State string `json:"state"`
	}
}

// TestStatusEnumWithoutOK: an Out whose enum leaves 200 out, which the
// server takes with Operation.Status set to one it lists, is an Out the
// client takes too (it cannot know Operation.Status), and reads its 202.
func TestStatusEnumWithoutOK(t *testing.T) {
	r := waltz.New()
	api.Op(r, http.MethodPost, "/queue", func(c *waltz.Context, in *struct{}) (*queuedOut, error) {
		out := &queuedOut{}
		out.Body.State = "queued"
		return out, nil
	}, api.Operation{Status: http.StatusAccepted})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	c := &client.Client{URL: srv.URL}
	call := client.Op[struct{}, queuedOut](c, "POST /queue")
	out, err := call(context.Background(), struct{}{})
	if err != nil || out.Status != http.StatusAccepted || out.Body.State != "queued" {
		t.Fatalf("got %+v, %v; want status 202, state queued", out, err)
	}
}
