package openapitest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"

	"github.com/waltz-go/waltz/examples/bookmarks/bookmarks"
)

const testToken = "t0ken-for-tests"

// server is the bookmarks example's router on a loopback server, with its
// own document and two validators built from it.
type server struct {
	*httptest.Server
	doc []byte
	// loose judges requests as a server must: undeclared query params
	// are allowed, as the example ignores them.
	loose validator.Validator
	// strict judges responses: a property or header the document does not
	// declare is an error.
	strict validator.Validator
}

// newServer starts the example's router on 127.0.0.1 and reads its
// document from GET /openapi.json.
func newServer(t testing.TB) *server {
	t.Helper()
	s := &server{Server: httptest.NewServer(bookmarks.New(bookmarks.NewStore(), testToken))}
	t.Cleanup(s.Close)
	res, err := http.Get(s.URL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if s.doc, err = io.ReadAll(res.Body); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET /openapi.json: got %d, want 200: %s", res.StatusCode, s.doc)
	}
	s.loose = newValidator(t, s.doc, config.WithFormatAssertions(), config.WithContentAssertions(), config.WithStandardBodyDecoders())
	s.strict = newValidator(t, s.doc, config.WithFormatAssertions(), config.WithContentAssertions(), config.WithStandardBodyDecoders(), config.WithStrictMode())
	return s
}

// get returns the body of a GET of path, which must be answered 200.
func (s *server) get(t testing.TB, path string) []byte {
	t.Helper()
	res, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: got %d, want 200: %s", path, res.StatusCode, b)
	}
	return b
}

func newValidator(t testing.TB, doc []byte, opts ...config.Option) validator.Validator {
	t.Helper()
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		t.Fatalf("libopenapi: %v", err)
	}
	v, errs := validator.NewValidator(d, opts...)
	if len(errs) > 0 {
		t.Fatalf("libopenapi-validator: %v", errs)
	}
	return v
}

// An exchange is one request, the answer, and what the validators said of
// each.
type exchange struct {
	status  int
	header  http.Header
	body    []byte
	reqErrs []*verrors.ValidationError // the request against the document
	resErrs []*verrors.ValidationError // the response against the document
}

// do sends a request with the given method, path and query (raw, as it
// goes on the wire), headers (name, value pairs) and body, and validates
// the request and the response against the document.
func (s *server) do(t testing.TB, method, target, body string, header ...string) exchange {
	t.Helper()
	req := s.request(t, method, target, body, header...)
	_, reqErrs := s.loose.ValidateHttpRequestSync(s.request(t, method, target, body, header...))
	res, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	res.Body = io.NopCloser(bytes.NewReader(b))
	_, resErrs := s.strict.ValidateHttpResponse(s.request(t, method, target, body, header...), res)
	return exchange{status: res.StatusCode, header: res.Header, body: b, reqErrs: reqErrs, resErrs: resErrs}
}

// request builds a request to the test server. target is sent as it is
// written, escapes included, as a client on the wire would send it.
func (s *server) request(t testing.TB, method, target, body string, header ...string) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL+"/", rd)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := url.Parse(s.URL + target); err == nil {
		req.URL = u
	} else {
		// A malformed escape in the path: send it as written.
		path, query, _ := strings.Cut(target, "?")
		req.URL.Opaque = "//" + req.URL.Host + path
		req.URL.Path = path
		req.URL.RawQuery = query
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	return req
}

// describe lists validation errors one a line, for a test's message.
func describe(errs []*verrors.ValidationError) string {
	var sb strings.Builder
	for _, e := range errs {
		sb.WriteString("\n\t")
		sb.WriteString(e.Message)
		if e.Reason != "" {
			sb.WriteString(": ")
			sb.WriteString(e.Reason)
		}
		for _, f := range e.SchemaValidationErrors {
			sb.WriteString("\n\t\t")
			sb.WriteString(f.Error())
		}
	}
	return sb.String()
}

// verdict is what a row expects of an exchange: the status; whether the
// document admits the request (docOK); why the server and the document
// disagree on the request (gap) or the document does not describe the
// response (resGap), if they do; and whether the request carries
// credentials.
type verdict struct {
	status        int
	docOK         bool
	gap, resGap   string
	authenticated bool
}

// judge checks x against v: the status; the validator's verdict on the
// request; that a request the server refuses for its form (400, 415,
// 422, or 401 without credentials) is one the validator refuses and one
// it serves (2xx) one the validator admits, unless v names the gap (a gap
// that closes fails, so that its note goes too); and that the response is
// one the document describes, unless v names why not.
func (x exchange) judge(t testing.TB, v verdict) {
	t.Helper()
	if x.status != v.status {
		t.Errorf("status: got %d, want %d; body %.300s", x.status, v.status, x.body)
	}
	if ok := len(x.reqErrs) == 0; ok != v.docOK {
		t.Errorf("the document's verdict on the request: got valid=%v, want %v:%s", ok, v.docOK, describe(x.reqErrs))
	}
	refused := v.status == 400 || v.status == 415 || v.status == 422 || v.status == 401 && !v.authenticated
	served := v.status >= 200 && v.status < 300
	switch agree := !(refused && v.docOK || served && !v.docOK); {
	case !agree && v.gap == "":
		t.Errorf("the server answers %d but the document says valid=%v, and the row names no gap", v.status, v.docOK)
	case agree && v.gap != "":
		t.Errorf("the row names a gap (%s), but the server (%d) and the document (valid=%v) agree", v.gap, v.status, v.docOK)
	case v.gap != "":
		t.Logf("gap: %s", v.gap)
	}
	switch {
	case len(x.resErrs) > 0 && v.resGap == "":
		t.Errorf("the response (%d %s) is not one the document describes:%s\nbody %.300s",
			x.status, x.header.Get("Content-Type"), describe(x.resErrs), x.body)
	case len(x.resErrs) == 0 && v.resGap != "":
		t.Errorf("the row names a response gap (%s), but the document describes the response", v.resGap)
	case v.resGap != "":
		t.Logf("response gap: %s", v.resGap)
	}
}
