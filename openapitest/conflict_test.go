package openapitest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi-validator/config"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/middleware"
)

// TestIdempotencyConflict sends a retry while the first request with its
// key still runs, which the bookmarks example's create is too quick to
// show, to a router of the same make (bearer auth, Idempotency, problem
// details): the retry's 409, and then the first request's 201, are
// answers the router's document describes, and the request with its key
// one the document admits.
func TestIdempotencyConflict(t *testing.T) {
	type in struct {
		Body struct {
			Title string `json:"title" required:"true"`
		}
	}
	type out struct {
		Body struct {
			Title string `json:"title"`
		}
	}
	running, release := make(chan struct{}), make(chan struct{})
	r := waltz.New()
	r.RenderError = waltz.RenderProblem
	writes := r.With(middleware.BearerAuth(middleware.BearerAuthOptions{Tokens: []string{testToken}}),
		middleware.Idempotency(middleware.IdempotencyOptions{}))
	api.Op(writes, http.MethodPost, "/slow", func(c *waltz.Context, in *in) (*out, error) {
		close(running)
		<-release
		o := &out{}
		o.Body.Title = in.Body.Title
		return o, nil
	}, api.Operation{ID: "slowCreate", Status: http.StatusCreated})
	srv := httptest.NewServer(r)
	defer srv.Close()
	doc := api.OpenAPI(r, api.Info{Title: "slow", Version: "1"})
	loose := newValidator(t, doc, config.WithFormatAssertions(), config.WithContentAssertions())
	strict := newValidator(t, doc, config.WithFormatAssertions(), config.WithContentAssertions(), config.WithStrictMode())
	request := func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/slow", strings.NewReader(`{"title":"once"}`))
		req.Header.Set("Content-Type", js)
		req.Header.Set("Authorization", auth)
		req.Header.Set("Idempotency-Key", `"k-409"`)
		return req
	}
	if ok, errs := loose.ValidateHttpRequestSync(request()); !ok {
		t.Errorf("the document refuses the request:%s", describe(errs))
	}
	send := func() (*http.Response, []byte) {
		res, err := http.DefaultClient.Do(request())
		if err != nil {
			t.Error(err)
			return nil, nil
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(b))
		return res, b
	}
	first := make(chan *http.Response, 1)
	go func() {
		res, _ := send()
		first <- res
	}()
	<-running
	res, body := send()
	close(release)
	if res == nil {
		t.FailNow()
	}
	if res.StatusCode != http.StatusConflict {
		t.Fatalf("the retry while the first runs: got %d, want 409; body %s", res.StatusCode, body)
	}
	if ok, errs := strict.ValidateHttpResponse(request(), res); !ok {
		t.Errorf("the 409 is not one the document describes:%s\nbody %s", describe(errs), body)
	}
	fr := <-first
	if fr == nil || fr.StatusCode != http.StatusCreated {
		t.Fatalf("the first: got %v, want 201", fr)
	}
	if ok, errs := strict.ValidateHttpResponse(request(), fr); !ok {
		t.Errorf("the first's 201 is not one the document describes:%s", describe(errs))
	}
}
