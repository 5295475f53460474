package contracttest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/waltz-go/waltz/openapi"
)

// send sends c's request to the handler and reports every way the answer
// disagrees with the document, in one failure with the curl line.
func (run *runner) send(o *operation, c testCase) {
	run.t.Helper()
	run.made[c.about] = true
	w := o.wire(c.v)
	res, body := run.serve(w)
	code := res.StatusCode
	if o.route != "" {
		// A value the operation's route does not take (a constraint) may
		// make a URL another route serves, or none: the request is not
		// the operation's, and the document cannot say which it is.
		switch rcode, route, _ := run.routed(w.method, w.target); {
		case rcode/100 == 2 && route != o.route:
			run.elsewhere++
			return
		case rcode/100 != 2 && rcode == code:
			run.elsewhere++
			return
		case rcode/100 != 2:
			run.fail(c.about, c.name, fmt.Sprintf("no route of its method takes this URL, which the router answers %d: got %d", rcode, code)+
				"\n\t"+w.curl(run.opts.BaseURL)+"\n\tgot: "+answer(res, body))
			return
		}
	}
	var msgs []string
	declared := declaredStatus(o.model, code)
	switch {
	case code >= 500:
		msgs = append(msgs, fmt.Sprintf("a server error: got %d, want no 5xx to any request", code))
	case !declared:
		msgs = append(msgs, fmt.Sprintf("an undeclared status: got %d, want one of %s", code, statuses(o.model)))
	}
	switch {
	case !c.valid && code >= 200 && code < 300:
		msgs = append(msgs, fmt.Sprintf("accepted a request the document forbids (%s): got %d, want a 4xx", c.why, code))
	case c.valid && (code == 400 || code == 415 || code == 422) && run.admits(w):
		msgs = append(msgs, fmt.Sprintf("refused a request the document admits: got %d, want a 2xx or another answer the document allows", code))
	case c.valid && o.anonymous && (c.v.noAuth || o.creds == nil) && code == http.StatusUnauthorized:
		msgs = append(msgs, "refused a request without credentials, which the security requirement makes optional ({}): got 401, want another answer")
	}
	if declared && code < 500 {
		if errs := run.answerErrors(w, res, body); errs != "" {
			msgs = append(msgs, "the answer does not match the document:"+errs)
		}
		// A body on a 204 or 304 is dropped by net/http's server (the
		// recorder keeps it): only content that reaches the wire counts.
		if r := declaredResponse(o.model, code); r != nil && len(r.Content) == 0 && len(body) > 0 &&
			code != http.StatusNoContent && code != http.StatusNotModified {
			msgs = append(msgs, fmt.Sprintf("content the document declares none for: got %d bytes of %q with the %d", len(body), res.Header.Get("Content-Type"), code))
		}
	}
	if traceCase != nil {
		traceCase(c.name, c.valid, w, code)
	}
	if len(msgs) > 0 {
		run.fail(c.about, c.name, strings.Join(msgs, "; ")+"\n\t"+w.curl(run.opts.BaseURL)+"\n\tgot: "+answer(res, body))
	}
}

// How long an answer may take before its request's context ends. An
// event stream (an operation that answers text/event-stream) goes on
// until its client leaves, which the end of the context stands for, and
// what it sent by then is the answer judged; any other answer has
// answerWait, for a handler that waits on something of its own.
const (
	streamWait = 200 * time.Millisecond
	answerWait = 30 * time.Second
)

// serve sends w to the handler in-process and returns the answer, its
// body read.
func (run *runner) serve(w *wire) (*http.Response, []byte) {
	run.sent++
	rec := httptest.NewRecorder()
	wait := answerWait
	if w.stream {
		wait = streamWait
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	run.h.ServeHTTP(rec, w.request().WithContext(ctx))
	res := rec.Result()
	body := rec.Body.Bytes()
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, body
}

// declaredStatus reports whether op declares code: by itself, by its
// range ("4XX"), or by a default answer.
func declaredStatus(op *openapi.Operation, code int) bool {
	if op.Responses["default"] != nil {
		return true
	}
	for k := range op.Responses {
		if k == strconv.Itoa(code) || strings.EqualFold(k, strconv.Itoa(code/100)+"XX") {
			return true
		}
	}
	return false
}

// declaredResponse returns the answer op declares for code: its own, its
// range's ("4XX") or the default one; nil when there is none.
func declaredResponse(op *openapi.Operation, code int) *openapi.Response {
	c := strconv.Itoa(code)
	if r := op.Responses[c]; r != nil {
		return r
	}
	for k, r := range op.Responses {
		if strings.EqualFold(k, c[:1]+"XX") {
			return r
		}
	}
	return op.Responses["default"]
}

// statuses lists op's declared statuses, default aside, in the
// document's order, for a message.
func statuses(op *openapi.Operation) string {
	var ks []string
	for _, k := range slices.Sorted(maps.Keys(op.Responses)) {
		if k != "default" {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return "none (the operation declares no answer)"
	}
	return strings.Join(ks, ", ")
}

// admits reports whether libopenapi-validator finds w one the document
// admits: a request the generator made valid and the server refuses is
// reported only when the validator agrees it is valid.
func (run *runner) admits(w *wire) bool {
	ok, _ := run.answers.ValidateHttpRequestSync(w.request())
	return ok
}

// answerErrors returns what libopenapi-validator finds wrong with the
// answer res to w, against the answer the document declares for its
// status: the media type, the body's schema, the headers' schemas.
func (run *runner) answerErrors(w *wire, res *http.Response, body []byte) string {
	res.Body = io.NopCloser(bytes.NewReader(body))
	ok, errs := run.answers.ValidateHttpResponse(w.request(), res)
	if ok {
		return ""
	}
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("\n\t\t" + e.Message)
		if e.Reason != "" {
			b.WriteString(": " + e.Reason)
		}
		for _, f := range e.SchemaValidationErrors {
			b.WriteString("\n\t\t\t" + f.Error())
		}
	}
	return b.String()
}

// answer describes res for a message: status, media type, the body's
// start.
func answer(res *http.Response, body []byte) string {
	s := strconv.Itoa(res.StatusCode)
	if ct := res.Header.Get("Content-Type"); ct != "" {
		s += " " + ct
	}
	if len(body) > 0 {
		b := bytes.TrimSpace(body)
		if len(b) > 300 {
			b = append(b[:300:300], "..."...)
		}
		s += " " + string(b)
	}
	return s
}

// method sends w, a request with a method the path item has no operation
// for, named about.Operation ("TRACE /items"), and checks the answer:
// 405 with an Allow that names each method of declared and nothing else
// but HEAD (where GET is declared or served), OPTIONS (RFC 9110 section
// 15.5.6) and those of served, which the document cannot list; or 501
// (section 15.6.2).
func (run *runner) method(about Known, w *wire, declared, served []string) {
	run.t.Helper()
	run.made[about] = true
	res, body := run.serve(w)
	if traceCase != nil {
		traceCase(about.Operation, false, w, res.StatusCode)
	}
	var msg string
	switch code := res.StatusCode; code {
	case http.StatusNotImplemented:
	case http.StatusMethodNotAllowed:
		allow := allowed(res.Header)
		for _, m := range declared {
			// A method of the path's whose route does not take this URL
			// (another constraint, on a path routes of one shape share)
			// is rightly left out.
			if !slices.Contains(allow, m) && (served == nil || slices.Contains(served, m)) {
				msg = fmt.Sprintf("405 Allow %q leaves out %s, which the document declares", strings.Join(allow, ", "), m)
			}
		}
		for _, m := range allow {
			get := slices.Contains(declared, http.MethodGet) || slices.Contains(served, http.MethodGet)
			if !slices.Contains(declared, m) && !slices.Contains(served, m) && m != http.MethodOptions && !(m == http.MethodHead && get) {
				msg = fmt.Sprintf("405 Allow %q names %s, which the document does not declare", strings.Join(allow, ", "), m)
			}
		}
	default:
		msg = fmt.Sprintf("a method the document does not declare on this path: got %d, want 405 with Allow: %s", code, strings.Join(declared, ", "))
	}
	if msg != "" {
		run.fail(about, about.Operation, msg+"\n\t"+w.curl(run.opts.BaseURL)+"\n\tgot: "+answer(res, body))
	}
}

// traceCase, when set (by the package's tests), sees each case sent and
// the status of its answer.
var traceCase func(name string, valid bool, w *wire, code int)

// allowed returns the methods the Allow field lines of h name (RFC 9110
// section 10.2.1), in order.
func allowed(h http.Header) []string {
	var ms []string
	for _, v := range h.Values("Allow") {
		for m := range strings.SplitSeq(v, ",") {
			if m = strings.TrimSpace(m); m != "" {
				ms = append(ms, m)
			}
		}
	}
	return ms
}
