package middleware

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
)

// MethodOverrideOptions configures [MethodOverride]. The zero value reads
// the header X-HTTP-Method-Override and the form field _method.
type MethodOverrideOptions struct {
	// Header is the request header that names the method; "" means
	// X-HTTP-Method-Override. A name that is not an HTTP field name
	// (RFC 9110 section 5.1) panics at construction.
	Header string

	// Field is the form field that names the method, in a body of type
	// application/x-www-form-urlencoded, as an HTML form sends it from a
	// hidden input; "" means _method.
	Field string
}

// maxOverrideScan is how much of a form body MethodOverride reads to find
// the field: form builders put the hidden input first, and a body past it
// is left for the handler unread.
const maxOverrideScan = 64 << 10

// MethodOverride returns middleware that lets a POST request stand for a
// PUT, PATCH or DELETE, as HTML forms need: a form can send only GET and
// POST (HTML, "form submission"), so the method it means travels in a
// header or a form field. Give it to [waltz.Router.Pre], which runs it
// before routing, so the overridden method is the one routed, and a 405
// or 404 for it is the router's answer, rendered by its error handler:
//
//	r.Pre(middleware.MethodOverride(middleware.MethodOverrideOptions{}))
//	r.Delete("/notes/:id", deleteNote) // <form method="post"><input type="hidden" name="_method" value="DELETE">
//
// Only POST is overridden: a method that is not safe (RFC 9110 section
// 9.2.1) is never made out of a safe one, and no other method is changed.
// The method comes from the header, or from the field, which is looked
// for in the first 64 KiB of a form body (urlencoded; a multipart form
// must use the header; a field past them is not seen), and the body is
// given back whole to the handler, which reads it as it was sent. Pairs
// are split at '&' and at ';', which some form readers also take. The value is PUT, PATCH or DELETE, in any case
// (HTML form values are often lower case), and becomes the method in
// upper case; another value, the header or the field twice, or a header
// and a field that name different methods (of which a proxy may read
// either) are refused with 400 Bad Request. A body with two Content-Type fields, or
// with a Content-Encoding other than identity, is no form.
//
// A cross-origin request that asks for an override is refused with 403
// Forbidden (RFC 9110 section 15.5.4), as net/http's
// [http.CrossOriginProtection] judges it: its Sec-Fetch-Site header (W3C
// Fetch Metadata) is neither "same-origin" nor "none", or, without that
// header, its Origin's host differs from Host. A form on another site
// could otherwise turn a POST, which a CORS preflight never guards, into
// a DELETE. A request with neither header (not from a browser) passes.
// Refusals are [*waltz.HTTPError]s, rendered by the router's error
// handler.
//
// Cost per request, held by a test: none for a request it leaves alone (a
// POST that is not a form and has no header included); 1 allocation for
// an override by the header (the request's copy with the new method); a
// form POST, overridden or not, also pays for reading its start and for
// the body that gives it back (and a copy of the request to carry it).
func MethodOverride(o MethodOverrideOptions) waltz.Middleware {
	name, field := o.Header, o.Field
	if name == "" {
		name = "X-HTTP-Method-Override"
	}
	if !header.IsToken(name) {
		panic(fmt.Sprintf("waltz: MethodOverrideOptions.Header %q is not a header field name", name))
	}
	hdr := textproto.CanonicalMIMEHeaderKey(name)
	if field == "" {
		field = "_method"
	}
	cop := http.NewCrossOriginProtection()
	return func(next waltz.HandlerFunc) waltz.HandlerFunc {
		return func(c *waltz.Context) error {
			req := c.Request
			if req.Method != http.MethodPost {
				return next(c)
			}
			m, ok, body := "", false, io.ReadCloser(nil)
			vs := req.Header[hdr]
			if len(vs) > 1 {
				return &waltz.HTTPError{Code: http.StatusBadRequest, Message: fmt.Sprintf("%s is sent twice: one method overrides", name)}
			}
			if isFormBody(req) {
				var err error
				if m, ok, body, err = formField(req.Body, field); err != nil {
					return err
				}
				if ok && len(vs) > 0 && !header.EqualFold(m, vs[0]) {
					// Rack reads the field first, this the header.
					return &waltz.HTTPError{Code: http.StatusBadRequest,
						Message: fmt.Sprintf("%s and the form field %q name different methods: one method overrides", name, field)}
				}
			}
			if len(vs) > 0 {
				m, ok = vs[0], true
			}
			if ok {
				if err := cop.Check(req); err != nil {
					return &waltz.HTTPError{Code: http.StatusForbidden, Message: "cross-origin method override", Err: err}
				}
				switch m = strings.ToUpper(m); m {
				case http.MethodPut, http.MethodPatch, http.MethodDelete:
				default:
					return &waltz.HTTPError{Code: http.StatusBadRequest,
						Message: fmt.Sprintf("method override %.32q: only PUT, PATCH and DELETE can stand in for POST", m)}
				}
			}
			if !ok && body == nil {
				return next(c)
			}
			// A copy: net/http's handlers must not change the request they
			// were given, whose body the server inspects after the handler.
			r2 := new(http.Request)
			*r2 = *req
			if ok {
				r2.Method = m
			}
			if body != nil {
				r2.Body = body
			}
			c.Request = r2
			return next(c)
		}
	}
}

// isForm reports whether the Content-Type value ct is
// application/x-www-form-urlencoded.
func isForm(ct string) bool {
	// header.MediaType first: ParseMediaType lowers the type by Unicode
	// before it judges it, and would take "applİcation/…" (U+0130) for a
	// form that no proxy reads as one.
	mt, ok := header.MediaType(ct)
	if !ok || mt != "application/x-www-form-urlencoded" {
		return false
	}
	_, _, err := mime.ParseMediaType(ct)
	return err == nil && header.ValidParams(ct)
}

// isFormBody reports whether req has a body of one Content-Type, a form's,
// sent as it is: a body with a Content-Encoding other than identity is
// the coding's bytes, not the form's (RFC 9110 section 8.4), and two
// Content-Types are one a proxy may read otherwise.
func isFormBody(req *http.Request) bool {
	ct := req.Header["Content-Type"]
	return len(ct) == 1 && isForm(ct[0]) && header.Coded(req.Header["Content-Encoding"]) == "" &&
		req.Body != nil && req.Body != http.NoBody
}

// formField reads up to maxOverrideScan bytes of the form body rc and
// returns the value of field in it, whether there is one, and a body
// that reads those bytes again, then the rest. Pairs are split at '&'
// and ';' (Rack 2 splits at both). A failed read, a malformed escape in
// the field's value, or the field twice (of which a proxy may read the
// last, as PHP and Rack do) is a 400.
func formField(rc io.ReadCloser, field string) (string, bool, io.ReadCloser, error) {
	buf, err := io.ReadAll(io.LimitReader(rc, maxOverrideScan))
	body := struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), rc), rc}
	if err != nil {
		return "", false, nil, &waltz.HTTPError{Code: http.StatusBadRequest, Message: "the request body could not be read", Err: err}
	}
	s := string(buf)
	if len(buf) == maxOverrideScan {
		// The last pair may be cut short: only whole pairs count.
		s = s[:strings.LastIndexAny(s, "&;")+1]
	}
	m, found := "", false
	for pair := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		if k, err = url.QueryUnescape(k); err != nil || k != field {
			continue
		}
		if found {
			return "", false, nil, &waltz.HTTPError{Code: http.StatusBadRequest,
				Message: fmt.Sprintf("form field %q is sent twice: one method overrides", field)}
		}
		if m, err = url.QueryUnescape(v); err != nil {
			return "", false, nil, &waltz.HTTPError{Code: http.StatusBadRequest,
				Message: fmt.Sprintf("form field %q holds a malformed escape", field)}
		}
		found = true
	}
	return m, found, body, nil
}
